/**
 * CREATE [OR REPLACE] FUNCTION … LANGUAGE sql, CREATE AGGREGATE, and DROP FUNCTION / DROP AGGREGATE.
 * Definitions go into the catalog (src/storage/catalog.ts); calls are bound by src/sql/bind/routine.ts.
 */
import type { Node, TypeName as PgTypeName } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { isArrayType, typeDisplayName, type DataType, type Field } from '../common/types.js';
import { windowFunctionForSymbol } from '../functions/window/registry.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../sql/ast.js';
import { parseStatements } from '../sql/parse.js';
import { plpgsqlReturnExpr, plpgsqlSource } from '../sql/plpgsql-body.js';
import { resolveTypeName, type UserTypes } from '../sql/type-name.js';
import type { AggregateDef, Catalog, RoutineType, SqlFunctionDef } from '../storage/catalog.js';

const POLYMORPHIC: Record<string, RoutineType> = {
  anyelement: 'anyelement',
  anycompatible: 'anyelement',
  anynonarray: 'anyelement',
  anycompatiblenonarray: 'anyelement',
  anyarray: 'anyarray',
  anycompatiblearray: 'anyarray',
};

export function routineType(tn: PgTypeName, types?: UserTypes): RoutineType {
  const names = strings((tn.names ?? []) as Node[]);
  const last = (names[names.length - 1] ?? '').toLowerCase();
  if (names.length <= 2 && (names.length === 1 || names[0] === 'pg_catalog') && tn.arrayBounds === undefined) {
    const p = POLYMORPHIC[last];
    if (p !== undefined) return p;
    if (last === 'any' || last === 'record' || last === 'internal' || last === 'anyrange' || last === 'anymultirange') {
      throw new QuireError('0A000', `functions with parameters or results of type ${last} are not supported`, { position: positionOf(tn.location) });
    }
  }
  return resolveTypeName(tn, types);
}

export function routineTypeName(t: RoutineType | 'void'): string {
  return typeof t === 'string' ? t : typeDisplayName(t);
}

export function sameRoutineType(a: RoutineType, b: RoutineType): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.name === b.name;
}

function signature(name: string, types: readonly RoutineType[]): string {
  return `${name}(${types.map(routineTypeName).join(', ')})`;
}

function defArg(d: AnyNode): Node | undefined {
  return d.arg as Node | undefined;
}

function defString(d: AnyNode): string {
  const a = defArg(d);
  const tag = nodeTag(a);
  const b = a === undefined ? {} : nodeBody<AnyNode>(a);
  if (tag === 'String') return b.sval as string;
  if (tag === 'Integer') return String(b.ival ?? 0);
  if (tag === 'Float') return String(b.fval);
  if (tag === 'Boolean') return b.boolval ? 'true' : 'false';
  if (tag === 'TypeName') return strings(b.names as Node[]).join('.');
  if (tag === 'List') return strings(b.items as Node[]).join('');
  return '';
}

/** The body's statements: `AS '…'` text, `RETURN expr`, or `BEGIN ATOMIC … END`. */
function bodyOf(b: AnyNode, language: string): Node[] {
  const sqlBody = b.sql_body as Node | undefined;
  if (sqlBody !== undefined) {
    if (nodeTag(sqlBody) === 'ReturnStmt') {
      const ret = nodeBody<AnyNode>(sqlBody).returnval as Node;
      return [{ SelectStmt: { targetList: [{ ResTarget: { val: ret } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } } as unknown as Node];
    }
    const outer = (nodeBody<AnyNode>(sqlBody).items as Node[] | undefined) ?? [];
    return outer.flatMap((l) => ((nodeBody<AnyNode>(l).items as Node[] | undefined) ?? []).filter((n) => nodeTag(n) !== undefined));
  }
  const as = ((b.options as Node[] | undefined) ?? []).map((o) => nodeBody<AnyNode>(o)).find((d) => d.defname === 'as');
  if (as === undefined) throw new QuireError('42P13', 'no function body specified');
  if (language !== 'sql') return [];
  const text = strings(nodeBody<AnyNode>(as.arg as Node).items as Node[])[0] ?? '';
  return parseStatements(text).map((s) => s.stmt);
}

/** A PL/pgSQL body that only returns an expression, as the SQL function body `SELECT expr`; null for other bodies. */
function plpgsqlBody(sql: string, paramCount: number): Node[] | null {
  const expr = plpgsqlReturnExpr(sql, paramCount);
  if (expr === null) return null;
  const stmts = parseStatements(`SELECT ${expr}`);
  if (stmts.length !== 1 || nodeTag(stmts[0]!.stmt) !== 'SelectStmt') throw new QuireError('42601', `invalid RETURN expression in PL/pgSQL function: ${expr}`);
  return [stmts[0]!.stmt];
}

/**
 * The built-in window function a LANGUAGE internal WINDOW function runs: its AS text is the C symbol
 * of one of PostgreSQL's window functions, which reads a fixed number of arguments.
 */
function internalWindowTarget(symbol: string, paramCount: number): string {
  const target = windowFunctionForSymbol(symbol);
  if (target === undefined) throw new QuireError('42883', `there is no built-in function named "${symbol}"`);
  if (target.arity !== paramCount) {
    throw new QuireError('42P13', `built-in function "${symbol}" takes ${target.arity} argument${target.arity === 1 ? '' : 's'}, not ${paramCount}`);
  }
  return target.name;
}

export function createFunction(catalog: Catalog, b: AnyNode, sql: string): void {
  if (b.is_procedure) throw new QuireError('0A000', 'CREATE PROCEDURE is not supported');
  const parts = strings(b.funcname as Node[]);
  if (parts.length > 2 || (parts.length === 2 && parts[0] !== 'public' && parts[0] !== 'pg_temp')) {
    throw new QuireError('3F000', `schema "${parts[0]}" does not exist`);
  }
  const name = parts[parts.length - 1]!;
  let language = 'sql';
  let strict = false;
  let volatility: SqlFunctionDef['volatility'] = 'volatile';
  let window = false;
  for (const o of (b.options as Node[] | undefined) ?? []) {
    const d = nodeBody<AnyNode>(o);
    if (d.defname === 'language') language = defString(d).toLowerCase();
    else if (d.defname === 'strict') strict = defString(d) === 'true';
    else if (d.defname === 'volatility') volatility = defString(d) as SqlFunctionDef['volatility'];
    else if (d.defname === 'window') window = defString(d) === 'true';
  }
  if (window && language !== 'internal') throw new QuireError('0A000', 'user-defined window functions are not supported', { hint: "A window function can be declared LANGUAGE internal over one of PostgreSQL's built-in window functions (AS 'window_nth_value')." });
  if (language === 'internal' && !window) {
    throw new QuireError('0A000', 'functions in language "internal" are supported only for built-in window functions', { hint: "Declare it WINDOW, AS one of PostgreSQL's window function symbols (AS 'window_rank')." });
  }
  if (language !== 'sql' && language !== 'plpgsql' && language !== 'internal') {
    throw new QuireError('0A000', `functions in language "${language}" are not supported`, { hint: 'Only LANGUAGE sql functions (and PL/pgSQL ones that only RETURN an expression) can be created.' });
  }

  const params: { name: string | null; type: RoutineType; defaultExpr: Node | null }[] = [];
  const outCols: { name: string | null; type: RoutineType }[] = [];
  let variadic = false;
  for (const p of (b.parameters as Node[] | undefined) ?? []) {
    const fp = nodeBody<AnyNode>(p);
    const mode = fp.mode as string;
    const t = routineType(fp.argType as PgTypeName, catalog.types);
    const pname = (fp.name as string | undefined) ?? null;
    if (variadic && mode !== 'FUNC_PARAM_OUT' && mode !== 'FUNC_PARAM_TABLE') throw new QuireError('42P13', 'VARIADIC parameter must be the last input parameter');
    if (mode === 'FUNC_PARAM_VARIADIC') {
      if (t !== 'anyarray' && (typeof t === 'string' || !isArrayType(t))) throw new QuireError('42P13', 'VARIADIC parameter must be an array');
      variadic = true;
    }
    if (mode === 'FUNC_PARAM_OUT' || mode === 'FUNC_PARAM_TABLE' || mode === 'FUNC_PARAM_INOUT') outCols.push({ name: pname, type: t });
    if (mode !== 'FUNC_PARAM_OUT' && mode !== 'FUNC_PARAM_TABLE') {
      const def = (fp.defexpr as Node | undefined) ?? null;
      if (def === null && params.some((q) => q.defaultExpr !== null)) {
        throw new QuireError('42P13', 'input parameters after one with a default value must also have defaults');
      }
      params.push({ name: pname, type: t, defaultExpr: def });
    }
  }
  const seen = new Set<string>();
  for (const p of [...params, ...outCols]) {
    if (p.name === null) continue;
    if (seen.has(p.name) && !outCols.some((o) => o.name === p.name && params.some((q) => q.name === p.name && q !== p))) {
      throw new QuireError('42P13', `parameter name "${p.name}" used more than once`);
    }
    seen.add(p.name);
  }

  const rt = b.returnType as PgTypeName | undefined;
  let returnsSet = rt?.setof === true;
  let returns: RoutineType | 'void';
  let columns: Field[] | null = null;
  const rtName = rt === undefined ? null : (strings(rt.names as Node[]).pop() ?? '').toLowerCase();
  const concrete = (t: RoutineType): DataType => {
    if (typeof t === 'string') throw new QuireError('0A000', 'polymorphic result columns are not supported');
    return t;
  };
  if (outCols.length > 0 && (rt === undefined || rtName === 'record')) {
    if (outCols.length === 1 && !(b.parameters as Node[]).some((p) => nodeBody<AnyNode>(p).mode === 'FUNC_PARAM_TABLE')) {
      returns = outCols[0]!.type;
    } else {
      returns = 'anyelement';
      columns = outCols.map((c, i) => ({ name: c.name ?? `column${i + 1}`, type: concrete(c.type) }));
    }
  } else if (rt === undefined) {
    throw new QuireError('42P13', 'function result type must be specified');
  } else if (rtName === 'void' && rt.arrayBounds === undefined) {
    returns = 'void';
  } else {
    returns = routineType(rt, catalog.types);
  }
  if (typeof returns === 'string' && returns !== 'void' && columns === null && !params.some((p) => typeof p.type === 'string')) {
    throw new QuireError('42P13', 'cannot determine result data type', { detail: 'A result of type anyelement requires at least one input of type anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange.' });
  }
  const inlined = language === 'plpgsql' ? plpgsqlBody(sql, params.length) : bodyOf(b, language);
  const plpgsql = inlined === null ? plpgsqlSource(sql, params, catalog.types) : undefined;
  if (plpgsql !== undefined && (returnsSet || columns !== null)) throw new QuireError('0A000', 'PL/pgSQL functions returning sets or records are not supported');
  const body = inlined ?? [];
  const asOption = ((b.options as Node[] | undefined) ?? []).map((o) => nodeBody<AnyNode>(o)).find((d) => d.defname === 'as');
  const source = asOption === undefined ? '' : (strings(nodeBody<AnyNode>(asOption.arg as Node).items as Node[])[0] ?? '');
  const internalWindow = language === 'internal' ? internalWindowTarget(source, params.length) : undefined;
  if (returns !== 'void' && plpgsql === undefined && internalWindow === undefined) {
    const last = body[body.length - 1];
    if (last === undefined || nodeTag(last) !== 'SelectStmt' || nodeBody<AnyNode>(last).intoClause !== undefined) {
      throw new QuireError('42P13', `return type mismatch in function declared to return ${routineTypeName(returns)}`, {
        detail: "Function's final statement must be SELECT or INSERT/UPDATE/DELETE/MERGE RETURNING.",
      });
    }
  }
  returnsSet ||= false;
  const def: SqlFunctionDef = {
    name,
    params,
    returns,
    columns,
    returnsSet,
    body,
    strict,
    volatility,
    source,
    sql,
    ...(variadic ? { variadic } : {}),
    ...(plpgsql !== undefined ? { plpgsql } : {}),
    ...(internalWindow !== undefined ? { internalWindow } : {}),
  };
  const existing = catalog.functions.get(name) ?? [];
  const same = existing.findIndex((f) => f.params.length === params.length && f.params.every((p, i) => sameRoutineType(p.type, params[i]!.type)));
  if (same >= 0) {
    if (!b.replace) throw new QuireError('42723', `function "${name}" already exists with same argument types`);
    const old = existing[same]!;
    if (old.returnsSet !== returnsSet || routineTypeName(old.returns) !== routineTypeName(returns) || (old.columns === null) !== (columns === null)) {
      throw new QuireError('42P13', `cannot change return type of existing function`, { hint: `Use DROP FUNCTION ${signature(name, params.map((p) => p.type))} first.` });
    }
    catalog.functions.set(name, existing.map((f, i) => (i === same ? def : f)));
  } else {
    if (catalog.aggregates.get(name)?.some((a) => a.args.length === params.length && a.args.every((t, i) => sameRoutineType(t, params[i]!.type)))) {
      throw new QuireError('42723', `function "${name}" already exists with same argument types`);
    }
    catalog.functions.set(name, [...existing, def]);
  }
}

function argTypesOf(owa: AnyNode, types: UserTypes): RoutineType[] | null {
  if (owa.args_unspecified) return null;
  return ((owa.objargs as Node[] | undefined) ?? []).map((t) => routineType(nodeBody<PgTypeName>(t), types));
}

/** DROP FUNCTION / DROP AGGREGATE; returns the notices (IF EXISTS on a missing routine). */
export function dropRoutines(catalog: Catalog, b: AnyNode): string[] {
  const aggregate = b.removeType === 'OBJECT_AGGREGATE';
  const what = aggregate ? 'aggregate' : 'function';
  const notices: string[] = [];
  const removals: (() => void)[] = [];
  for (const o of (b.objects as Node[]) ?? []) {
    const owa = nodeBody<AnyNode>(o);
    const name = strings(owa.objname as Node[]).pop()!;
    const types = argTypesOf(owa, catalog.types);
    const list: readonly { readonly name: string }[] = (aggregate ? catalog.aggregates.get(name) : catalog.functions.get(name)) ?? [];
    const typesOf = (r: unknown): readonly RoutineType[] => (aggregate ? (r as AggregateDef).args : (r as SqlFunctionDef).params.map((p) => p.type));
    let idx: number;
    if (types === null) {
      if (list.length > 1) throw new QuireError('42725', `${what} name "${name}" is not unique`, { hint: `Specify the argument list to select the ${what} unambiguously.` });
      idx = list.length === 1 ? 0 : -1;
    } else {
      // DROP AGGREGATE name(*) names the aggregate over no arguments.
      const want = aggregate && ((owa.objargs as Node[] | undefined) ?? []).length === 0 ? [] : types;
      idx = list.findIndex((r) => typesOf(r).length === want.length && typesOf(r).every((t, i) => sameRoutineType(t, want[i]!)));
    }
    if (idx < 0) {
      const shown = types === null ? `${what} ${name}()` : `${what} ${signature(name, types)}`;
      if (b.missing_ok) {
        notices.push(`${shown} does not exist, skipping`);
        continue;
      }
      throw new QuireError('42883', `${shown} does not exist`);
    }
    removals.push(() => {
      const map = (aggregate ? catalog.aggregates : catalog.functions) as Map<string, readonly unknown[]>;
      const cur = map.get(name) ?? [];
      const victim = list[idx];
      const rest = cur.filter((r) => r !== victim);
      if (rest.length === 0) map.delete(name);
      else map.set(name, rest);
    });
  }
  for (const r of removals) r();
  return notices;
}

function typeOfDef(d: AnyNode, types: UserTypes, polymorphicArgs = false): RoutineType {
  const a = defArg(d);
  if (nodeTag(a) === 'TypeName') {
    const t = routineType(nodeBody<PgTypeName>(a!), types);
    // A polymorphic state type takes its type from polymorphic arguments at each call.
    if (typeof t === 'string' && !polymorphicArgs) throw new QuireError('0A000', `aggregates with state type ${t} are not supported`);
    return t;
  }
  const n = defString(d);
  return resolveTypeName({ names: [{ String: { sval: n } }], typemod: -1 } as unknown as PgTypeName, types);
}

function concreteType(t: RoutineType): DataType {
  if (typeof t === 'string') throw new QuireError('0A000', `aggregates with state type ${t} are not supported`);
  return t;
}

/** CREATE AGGREGATE name(args) (sfunc = …, stype = …, …) and the old form with basetype. */
export function createAggregate(catalog: Catalog, b: AnyNode, sql: string): AggregateDef {
  const name = strings(b.defnames as Node[]).pop()!;
  const defs = ((b.definition as Node[] | undefined) ?? []).map((d) => nodeBody<AnyNode>(d));
  const get = (...keys: string[]): AnyNode | undefined => defs.find((d) => keys.includes((d.defname as string).toLowerCase()));
  let args: RoutineType[];
  let variadic = false;
  const argList = b.args as Node[] | undefined;
  if (argList === undefined || argList === null) {
    // Old syntax: basetype = t ('ANY' means an aggregate over *).
    const bt = get('basetype');
    if (bt === undefined) throw new QuireError('42P13', 'aggregate input type must be specified');
    const s = defString(bt).toLowerCase();
    args = s === 'any' ? [] : [concreteType(typeOfDef(bt, catalog.types))];
  } else {
    const first = argList[0];
    const items = first === undefined || nodeTag(first) === undefined ? [] : ((nodeBody<AnyNode>(first).items as Node[] | undefined) ?? []);
    const ordered = argList[1] !== undefined ? ((nodeBody<AnyNode>(argList[1]).ival as number | undefined) ?? -1) : -1;
    if (ordered >= 0) throw new QuireError('0A000', 'user-defined ordered-set aggregates are not supported');
    args = items.map((p, i) => {
      const fp = nodeBody<AnyNode>(p);
      if (fp.mode === 'FUNC_PARAM_VARIADIC') {
        const t = routineType(fp.argType as PgTypeName, catalog.types);
        if (strings(((fp.argType as PgTypeName).names ?? []) as Node[]).pop() === 'any') throw new QuireError('0A000', 'variadic "any" aggregates are not supported');
        if (i !== items.length - 1) throw new QuireError('42P13', 'VARIADIC parameter must be the last input parameter');
        if (t !== 'anyarray' && (typeof t === 'string' || !isArrayType(t))) throw new QuireError('42P13', 'VARIADIC parameter must be an array');
        variadic = true;
        return t;
      }
      // "any": one argument of whatever type, as anyelement is when it stands alone.
      const tn = fp.argType as PgTypeName;
      if (items.length === 1 && strings((tn.names ?? []) as Node[]).pop() === 'any') return 'anyelement';
      return routineType(tn, catalog.types);
    });
  }
  const sfunc = get('sfunc', 'sfunc1');
  const stype = get('stype', 'stype1');
  if (stype === undefined) throw new QuireError('42P13', 'aggregate stype must be specified');
  if (sfunc === undefined) throw new QuireError('42P13', 'aggregate sfunc must be specified');
  const fnName = (d: AnyNode | undefined): string | null => (d === undefined ? null : (strings(nodeBody<AnyNode>(defArg(d)!).names as Node[]).pop() ?? defString(d)).toLowerCase());
  for (const d of defs) {
    const k = (d.defname as string).toLowerCase();
    if (k === 'hypothetical' || k === 'sortop') throw new QuireError('0A000', `aggregate attribute "${k}" is not supported`);
  }
  const def: AggregateDef = {
    name,
    args,
    sfunc: fnName(sfunc)!,
    stype: typeOfDef(stype, catalog.types, args.some((t) => typeof t === 'string')),
    initcond: get('initcond', 'initcond1') ? defString(get('initcond', 'initcond1')!) : null,
    finalfunc: fnName(get('finalfunc')),
    msfunc: fnName(get('msfunc')),
    minvfunc: fnName(get('minvfunc')),
    mstype: get('mstype') ? concreteType(typeOfDef(get('mstype')!, catalog.types)) : null,
    minitcond: get('minitcond') ? defString(get('minitcond')!) : null,
    mfinalfunc: fnName(get('mfinalfunc')),
    sql,
    ...(variadic ? { variadic } : {}),
  };
  const existing = catalog.aggregates.get(name) ?? [];
  const clash =
    existing.some((a) => a.args.length === args.length && a.args.every((t, i) => sameRoutineType(t, args[i]!))) ||
    catalog.functions.get(name)?.some((f) => f.params.length === args.length && f.params.every((p, i) => sameRoutineType(p.type, args[i]!)));
  if (clash) {
    const replace = b.replace === true && existing.some((a) => a.args.length === args.length && a.args.every((t, i) => sameRoutineType(t, args[i]!)));
    if (!replace) throw new QuireError('42723', `function "${name}" already exists with same argument types`);
    catalog.aggregates.set(name, existing.map((a) => (a.args.length === args.length && a.args.every((t, i) => sameRoutineType(t, args[i]!)) ? def : a)));
    return def;
  }
  catalog.aggregates.set(name, [...existing, def]);
  return def;
}

/**
 * A call of the new aggregate over typed NULLs, to bind: it finds the transition and final functions
 * (and their errors) at CREATE time, as PostgreSQL does, and gives the result type.
 */
export function aggregateProbe(def: AggregateDef): Node | null {
  if (def.args.some((t) => typeof t === 'string')) return null;
  const args = def.args.map((t) => ({
    TypeCast: { arg: { A_Const: { isnull: true } }, typeName: { names: [{ String: { sval: (t as DataType).name } }], typemod: -1 } },
  }));
  // A variadic aggregate is probed with its array passed as the VARIADIC argument.
  const call = { FuncCall: { funcname: [{ String: { sval: def.name } }], args, ...(args.length === 0 ? { agg_star: true } : {}), ...(def.variadic === true ? { func_variadic: true } : {}) } };
  return { SelectStmt: { targetList: [{ ResTarget: { val: call } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } } as unknown as Node;
}
