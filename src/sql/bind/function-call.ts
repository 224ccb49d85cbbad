/**
 * Function and operator calls: overload resolution as PostgreSQL's func_select_candidate does it (exact,
 * binary-coercible, then implicitly coercible arguments, polymorphic types), named and VARIADIC arguments,
 * function-style casts, and the SQL-language functions a catalog defines.
 */
import { positionOf, QuireError } from '../../common/errors.js';
import type { Node } from '@pgsql/types';
import { T, type, type DataType, type TypeName, type Value, type ArrayValue, category, typeDisplayName, isArrayType, arrayTypeFor, elementType } from '../../common/types.js';
import { lookupParamNames, lookupScalar, type ScalarOverload, type ArgType, type ScalarImpl } from '../../functions/registry.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { isAggregateName, lookupAggregate } from '../../functions/aggregate/registry.js';
import { isWindowFunctionName } from '../../functions/window/registry.js';
import { castContext, commonSupertype } from '../../common/cast.js';
import { type Expr } from '../../logical/expr.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { coerce, unifyTypes } from '../coerce.js';
import { Scope } from '../scope.js';
import { lookupTypeName, resolveTypeName } from '../type-name.js';
import { bindPlpgsqlCall } from './plpgsql-call.js';
import { viewDefinition } from '../view-def.js';
import { viewDefTypes } from './view-def-types.js';
import { queryBody, routineOverloads, simpleExpressionBody, strictGuard, conformOutput, firstRow, type RoutineFrame } from './routine.js';
import type { RoutineType, SqlFunctionDef } from '../../storage/catalog.js';
import { internalFunctions } from '../internal-functions.js';
import { lookupTableFunction } from '../../storage/table-functions/table-function.js';
import { bindWindowCall } from './window.js';
import { bindAggregate, bindOrderedSetAggregate } from './aggregate.js';
import { type ExprCtx, constExpr, bindExpr, locOf } from './expr.js';

const pos = positionOf;

function argMatches(p: ArgType, a: DataType): 'exact' | 'binary' | 'coerce' | null {
  // A polymorphic parameter is never an exact match in func_select_candidate: varchar || 'x' and
  // name || 'x' resolve to textcat (the string category's preferred type), not to anytextcat.
  if (p === 'anynonarray') return isArrayType(a) ? null : category(a) === 'S' ? 'coerce' : 'exact';
  if (p === 'any') return 'exact';
  // An untyped literal fits anyelement only by coercion, so array || '{…}' prefers array || array.
  if (p === 'anyelement') return a.name === 'unknown' ? 'coerce' : 'exact';
  if (p === 'anyarray') return isArrayType(a) ? 'exact' : a.name === 'unknown' ? 'coerce' : null;
  if (p === a.name) return 'exact';
  if (a.name === 'unknown') return 'coerce';
  if ((p === 'text' && (a.name === 'varchar' || a.name === 'bpchar')) || (p === 'varchar' && a.name === 'text')) return 'binary';
  const c = castContext(a.name, p);
  return c === 'implicit' ? 'coerce' : null;
}

/** The types anyelement arguments and anyarray arguments' elements contribute to a polymorphic call. */
function polymorphicInputs(o: ScalarOverload, args: readonly Expr[]): { types: DataType[]; arrays: number } {
  const types: DataType[] = [];
  let arrays = 0;
  args.forEach((a, i) => {
    const p = o.args[Math.min(i, o.args.length - 1)];
    if (p === 'anyelement') types.push(a.type);
    else if (p === 'anyarray') {
      arrays++;
      if (a.type.name !== 'unknown') types.push(elementType(a.type));
    }
  });
  return { types, arrays };
}

/**
 * Whether a polymorphic candidate's arguments agree on one type (PostgreSQL's anycompatible: a common
 * type exists; with anyarray, it is not itself an array). A candidate that fails is no candidate, so
 * `text[] || 1` is "operator does not exist".
 */
function polymorphicFits(o: ScalarOverload, args: readonly Expr[]): boolean {
  if (!o.args.includes('anyelement') && !o.args.includes('anyarray')) return true;
  const { types, arrays } = polymorphicInputs(o, args);
  if (types.length === 0) return true;
  const t = commonSupertype(types);
  return t !== null && !(arrays > 0 && isArrayType(t));
}

/** PostgreSQL-like overload choice: all arguments must coerce implicitly; most exact matches wins;
 * ties go to the candidate whose parameters are preferred types of their category. */
export function resolveOverload(overloads: readonly ScalarOverload[], args: readonly Expr[]): ScalarOverload | null {
  let best: ScalarOverload | null = null;
  let bestScore = -1;
  let bestPref = -1;
  for (const o of overloads) {
    const params = o.args;
    if (o.variadic) {
      if (args.length < params.length - 1) continue;
    } else if (params.length !== args.length) continue;
    let score = 0;
    let pref = 0;
    let ok = true;
    for (let i = 0; i < args.length; i++) {
      const p = params[Math.min(i, params.length - 1)]!;
      const m = argMatches(p, args[i]!.type);
      if (m === null) {
        ok = false;
        break;
      }
      // A parameter of the argument's own type beats a binary-compatible one (octet_length(bpchar)
      // counts the padding, octet_length(text) would not).
      if (m === 'exact') score += 2;
      else if (m === 'binary') score++;
      // PostgreSQL's tie-break: prefer candidates taking the preferred type of the category
      // (float8 for numbers, text for strings, timestamptz for date/time).
      if (m === 'coerce' && (p === 'text' || p === 'float8' || p === 'timestamptz')) pref++;
    }
    if (!ok || !polymorphicFits(o, args)) continue;
    if (score > bestScore || (score === bestScore && pref > bestPref)) {
      best = o;
      bestScore = score;
      bestPref = pref;
    }
  }
  return best;
}

function resultType(o: ScalarOverload, argTypes: DataType[]): DataType {
  return typeof o.returns === 'function' ? o.returns(argTypes) : o.returns;
}

export function applyOverload(name: string, o: ScalarOverload, args: Expr[], cx: ExprCtx, loc: number | undefined): Expr {
  let anyType: DataType | null = null;
  if (o.args.includes('anyelement') || o.args.includes('anyarray')) {
    const ts = polymorphicInputs(o, args);
    if (ts.arrays > 0 && ts.types.every((t) => t.name === 'unknown')) {
      throw new QuireError('42804', `could not determine polymorphic type because input has type unknown`, { position: pos(loc) });
    }
    anyType = unifyTypes(ts.types, name, pos(loc));
  }
  const coerced = args.map((a, i) => {
    const p = o.args[Math.min(i, o.args.length - 1)]!;
    if (p === 'any' || p === 'anynonarray') return a.type.name === 'unknown' ? coerce(a, T.text, 'implicit', cx.env, pos(loc)) : a;
    if (p === 'anyelement') return coerce(a, anyType!, 'implicit', cx.env, pos(loc));
    if (p === 'anyarray') return coerce(a, arrayTypeFor(anyType!), 'implicit', cx.env, pos(loc));
    if (p === a.type.name) return a;
    if ((p === 'text' || p === 'varchar') && (a.type.name === 'varchar' || a.type.name === 'bpchar' || a.type.name === 'text')) {
      return a.type.name === 'bpchar' && p === 'text' ? coerce(a, T.text, 'implicit', cx.env) : a;
    }
    return coerce(a, T[p], 'implicit', cx.env, pos(loc));
  });
  const call: Expr = { kind: 'call', name, overload: o, args: coerced, type: resultType(o, coerced.map((a) => a.type)) };
  return call;
}

export function bindOperator(name: string, args: Expr[], cx: ExprCtx, loc: number | undefined, display: string): Expr {
  const overloads = lookupScalar(name);
  const o = overloads ? resolveOverload(overloads, args) : null;
  if (o === null) {
    const sig = args.length === 1 ? `${display} ${typeDisplayName(args[0]!.type)}` : `${typeDisplayName(args[0]!.type)} ${display} ${typeDisplayName(args[1]!.type)}`;
    throw new QuireError('42883', `operator does not exist: ${sig}`, {
      position: pos(loc),
      hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  return applyOverload(name, o, args, cx, loc);
}

/**
 * `float8(x)`, `int4(x)`, `text(x)`, `date(x)`: a one-argument call of a type's name that no function
 * takes is an explicit cast, as PostgreSQL's function-style cast syntax.
 */
function functionStyleCast(name: string, args: Expr[], cx: ExprCtx, loc: number | undefined): Expr | null {
  if (args.length !== 1 || /\s/.test(name)) return null;
  const tn = lookupTypeName(name);
  if (tn === undefined || tn === 'unknown') return null;
  const target = resolveTypeName({ names: [{ String: { sval: name } }], typemod: -1, location: loc } as never);
  return coerce(args[0]!, target, 'explicit', cx.env, pos(loc));
}

export function bindFunctionByName(name: string, args: Expr[], cx: ExprCtx, loc: number | undefined): Expr {
  const overloads = lookupScalar(name);
  const cast = overloads === undefined || resolveOverload(overloads, args) === null ? functionStyleCast(name, args, cx, loc) : null;
  if (cast !== null) return cast;
  if (!overloads) {
    throw new QuireError('42883', `function ${name}(${args.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const o = resolveOverload(overloads, args);
  if (o === null) {
    throw new QuireError('42883', `function ${name}(${args.map((a) => typeDisplayName(a.type === T.unknown ? T.unknown : a.type)).join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  return applyOverload(name, o, args, cx, loc);
}

/**
 * The name a call resolves by: pg_catalog.f is the built-in f, public.f a function the user created (built-ins
 * live in pg_catalog only); information_schema exists; any other schema does not.
 */
function funcName(b: AnyNode, cx: ExprCtx): string {
  const parts = strings(b.funcname as Node[]);
  const loc = pos(b.location as number | undefined);
  if (parts.length > 2) throw new QuireError('0A000', `cross-database references are not implemented: ${parts.join('.')}`, { position: loc });
  if (parts.length === 1) return parts[0]!;
  const [schema, name] = parts as [string, string];
  // information_schema exists (drivers call its functions, e.g. JDBC's _pg_expandarray); it holds none
  // of ours, so such a call is the 42883 of an unknown function, not a missing schema.
  if (schema === 'pg_catalog' || schema === 'information_schema') return name;
  if (schema === 'public' || schema === 'pg_temp') {
    const user = cx.env.routines?.functions.has(name) === true || cx.env.routines?.aggregates.has(name) === true;
    return user ? name : parts.join('.');
  }
  throw new QuireError('3F000', `schema "${schema}" does not exist`, { position: loc });
}

/**
 * A built-in call in named or mixed notation (`make_interval(days => 3)`): the arguments in parameter
 * order, omitted ones before the last given taking their defaults. Unknown, repeated or missing
 * required names are 42883, as PostgreSQL finds no function that takes them.
 */
function namedNotation(name: string, argNodes: readonly Node[], cx: ExprCtx, loc: number | undefined): Expr[] {
  const params = lookupParamNames(name);
  const slots: (Expr | undefined)[] = [];
  const shown: string[] = [];
  let bad = params === undefined;
  for (const a of argNodes) {
    if (nodeTag(a) !== 'NamedArgExpr') {
      const e = bindExpr(a, cx);
      slots.push(e);
      shown.push(typeDisplayName(e.type));
      continue;
    }
    const na = nodeBody<AnyNode>(a);
    if (argNodes.some((o) => o !== a && nodeTag(o) === 'NamedArgExpr' && nodeBody<AnyNode>(o).name === na.name)) {
      throw new QuireError('42601', `argument name "${na.name as string}" used more than once`, { position: pos(na.location as number | undefined) });
    }
    const e = bindExpr(na.arg as Node, cx);
    shown.push(`${na.name as string} => ${typeDisplayName(e.type)}`);
    const i = params?.names.indexOf(na.name as string) ?? -1;
    if (i < 0 || slots[i] !== undefined) bad = true;
    else slots[i] = e;
  }
  for (let i = 0; !bad && i < slots.length; i++) {
    if (slots[i] !== undefined) continue;
    const d = params!.defaults[i];
    if (d === undefined) bad = true;
    else slots[i] = constExpr(d, T.int4);
  }
  if (bad) {
    throw new QuireError('42883', `function ${name}(${shown.join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  return slots as Expr[];
}

export function bindFuncCall(b: AnyNode, cx: ExprCtx): Expr {
  const name = funcName(b, cx);
  const loc = b.location as number | undefined;
  const argNodes = (b.args as Node[] | undefined) ?? [];
  let userFns = cx.env.routines?.functions.get(name) ?? (lookupScalar(name) === undefined ? internalFunctions(name) : undefined);
  if (userFns?.some((f) => f.internalWindow !== undefined) === true) {
    if (b.over) return bindInternalWindowCall(name, userFns, b, cx);
    userFns = userFns.filter((f) => f.internalWindow === undefined);
    if (userFns.length === 0) throw new QuireError('42809', `window function ${name} requires an OVER clause`, { position: pos(loc) });
  }
  if (userFns !== undefined && !b.over && !b.agg_within_group) return bindRoutineCall(name, userFns, b, cx);
  if (cx.env.routines?.aggregates.has(name) && !b.agg_within_group && !isAggregateName(name)) {
    if (b.over) return bindWindowCall(name, b, cx);
    return bindAggregate(name, b, cx);
  }
  const withinGroup = lookupAggregate(name)?.withinGroup;
  if (b.agg_within_group) {
    if (withinGroup === undefined) {
      // PostgreSQL looks for a function taking the direct and the ordered arguments together.
      const all = [...argNodes, ...((b.agg_order as Node[] | undefined) ?? []).map((o) => nodeBody<AnyNode>(o).node as Node)];
      const types = all.map((a) => bindExpr(a, { ...cx, aggs: null, windows: null }).type);
      // A plain aggregate that takes these arguments is found first, then refused for its kind.
      if (isAggregateName(name) && lookupAggregate(name)!.resolve(types.map((t) => (t.name === 'unknown' ? T.text : t))) !== null) {
        throw new QuireError('42809', `${name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP`, { position: pos(loc) });
      }
      throw new QuireError('42883', `function ${name}(${types.map((t) => typeDisplayName(t)).join(', ')}) does not exist`, {
        position: pos(loc),
        hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
      });
    }
    if (b.over) throw new QuireError('0A000', `OVER is not supported for ordered-set aggregate ${name}`, { position: pos(loc) });
    return bindOrderedSetAggregate(name, b, cx);
  }
  // rank(x) without WITHIN GROUP is the hypothetical-set aggregate misused; rank() is the window function.
  if (withinGroup === 'hypothetical' && argNodes.length > 0) {
    throw new QuireError('42809', `WITHIN GROUP is required for ordered-set aggregate ${name}`, { position: pos(loc) });
  }
  // percentile_cont(p, x) matches the ordered-set aggregate's signature (direct arguments, then the one
  // ordered argument), so PostgreSQL finds it and then asks for WITHIN GROUP; other arities do not exist.
  if (withinGroup === 'ordered' && argNodes.length > 0 && !b.over) {
    const types = argNodes.map((a) => bindExpr(a, { ...cx, aggs: null, windows: null }).type);
    const within = { direct: types.length - 1, order: [{ desc: false, nullsFirst: false }], directValues: [] };
    if (lookupAggregate(name)!.resolve(types, within) !== null) {
      throw new QuireError('42809', `WITHIN GROUP is required for ordered-set aggregate ${name}`, { position: pos(loc) });
    }
  }
  if (b.over) return bindWindowCall(name, b, cx);
  if (withinGroup === 'hypothetical' && isWindowFunctionName(name)) {
    throw new QuireError('42809', `window function ${name} requires an OVER clause`, { position: pos(loc) });
  }
  if (isAggregateName(name) && lookupScalar(name) === undefined) return bindAggregate(name, b, cx);
  if (b.agg_star || b.agg_distinct || b.agg_filter || (b.agg_order as Node[] | undefined)?.length) {
    throw new QuireError('42809', `${name} is not an aggregate function`, { position: pos(loc) });
  }
  if (isWindowFunctionName(name)) {
    throw new QuireError('42809', `window function ${name} requires an OVER clause`, { position: pos(loc) });
  }
  if (b.func_variadic) return bindVariadicArrayCall(name, argNodes.map((a) => bindExpr(a, cx)), argNodes, cx, loc);
  if (name === 'pg_get_viewdef' && argNodes.length === 1 && cx.env.routines?.functions.has(name) !== true) return viewDefCall(argNodes[0]!, cx, loc);
  const args = argNodes.some((a) => nodeTag(a) === 'NamedArgExpr') ? namedNotation(name, argNodes, cx, loc) : argNodes.map((a) => bindExpr(a, cx));
  if (name === 'pg_typeof') {
    // regtype output names the type without its modifier.
    const t = args[0]!.type;
    return constExpr(t.name === 'unknown' ? 'unknown' : typeDisplayName(t.composite !== undefined ? t : type(t.name)), T.text);
  }
  return bindFunctionByName(name, args, cx, loc);
}

/**
 * A routine call's arguments in parameter order: `given` first (the positional ones, the first
 * `positionalCount` as written), the named ones at their parameters, then each missing parameter's
 * `fallback` (its default); null when a name matches no parameter left free, or a parameter without a
 * default is left out.
 */
function placeArguments<T>(
  params: SqlFunctionDef['params'],
  given: readonly T[],
  positionalCount: number,
  named: readonly { name: string; value: T }[],
  fallback: (i: number) => T | null,
): T[] | null {
  if (given.length > params.length) return null;
  const slots: (T | undefined)[] = [...given];
  for (const n of named) {
    const i = params.findIndex((p) => p.name === n.name);
    if (i < positionalCount || slots[i] !== undefined) return null;
    slots[i] = n.value;
  }
  for (let i = 0; i < params.length; i++) {
    if (slots[i] !== undefined) continue;
    const d = fallback(i);
    if (d === null) return null;
    slots[i] = d;
  }
  return slots as T[];
}

/**
 * A call with OVER of a LANGUAGE internal WINDOW function: its arguments in parameter order (positional,
 * then named, then the parameters' defaults), run by the built-in window function its symbol names.
 */
function bindInternalWindowCall(name: string, fns: readonly SqlFunctionDef[], b: AnyNode, cx: ExprCtx): Expr {
  const positional: Node[] = [];
  const named: { name: string; value: Node }[] = [];
  for (const a of (b.args as Node[] | undefined) ?? []) {
    if (nodeTag(a) !== 'NamedArgExpr') {
      if (named.length > 0) throw new QuireError('42601', 'positional argument cannot follow named argument', { position: pos(locOf(a)) });
      positional.push(a);
      continue;
    }
    const na = nodeBody<AnyNode>(a);
    if (named.some((n) => n.name === na.name)) {
      throw new QuireError('42601', `argument name "${na.name as string}" used more than once`, { position: pos(na.location as number | undefined) });
    }
    named.push({ name: na.name as string, value: na.arg as Node });
  }
  for (const fn of fns) {
    if (fn.internalWindow === undefined) continue;
    const args = placeArguments(fn.params, positional, positional.length, named, (i) => fn.params[i]!.defaultExpr);
    if (args !== null) return bindWindowCall(fn.internalWindow, { ...b, args }, cx);
  }
  throw new QuireError('42883', `function ${name} does not exist`, {
    position: pos(b.location as number | undefined),
    hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
  });
}

/**
 * `f(a, VARIADIC arr)` of a built-in whose last parameter is variadic "any" (concat, concat_ws, format,
 * num_nulls, num_nonnulls): the array's elements are the variadic arguments, as many as each row's
 * array holds. The arguments before the array fill the fixed parameters exactly, as in PostgreSQL
 * (`concat('x', VARIADIC arr)` does not exist). A NULL array makes the call NULL, except for format,
 * which reads it as an empty array.
 */
function bindVariadicArrayCall(name: string, args: Expr[], argNodes: readonly Node[], cx: ExprCtx, loc: number | undefined): Expr {
  const last = args[args.length - 1]!;
  if (!isArrayType(last.type)) {
    throw new QuireError('42804', 'VARIADIC argument must be an array', { position: pos(locOf(argNodes[argNodes.length - 1]) ?? loc) });
  }
  const fixed = args.slice(0, -1);
  // The fixed parameters are those before the trailing run of "any" (num_nulls declares (any, any…)
  // to need one argument; with VARIADIC the array is all of them).
  const fixedCount = (c: ScalarOverload): number => {
    let k = c.args.length;
    while (k > 0 && c.args[k - 1] === 'any') k--;
    return k;
  };
  const o = (lookupScalar(name) ?? []).find(
    (c) => c.variadic === true && c.args[c.args.length - 1] === 'any' && fixedCount(c) === fixed.length && fixed.every((a, i) => argMatches(c.args[i]!, a.type) !== null),
  );
  if (o === undefined) {
    throw new QuireError('42883', `function ${name}(${args.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const fixedArgs = fixed.map((a, i) => {
    const p = o.args[i]!;
    if (p === 'any') return a.type.name === 'unknown' ? coerce(a, T.text, 'implicit', cx.env, pos(loc)) : a;
    return p === a.type.name ? a : coerce(a, type(p as TypeName), 'implicit', cx.env, pos(loc));
  });
  const elem = elementType(last.type);
  const fixedTypes = fixedArgs.map((a) => a.type);
  // One implementation per element count: the type-specialised text conversions are per position.
  const impls: ScalarImpl[] = [];
  const implFor = (n: number): ScalarImpl => {
    let f = impls[n];
    if (f === undefined) {
      f = o.specialize !== undefined ? o.specialize([...fixedTypes, ...new Array<DataType>(n).fill(elem)]) : o.fn;
      impls[n] = f;
    }
    return f;
  };
  const strict = o.strict !== false;
  const nullArrayIsEmpty = o.nullVariadicArrayIsEmpty === true;
  const call = implFor as (n: number) => (ctx: EvalContext, ...a: Value[]) => Value;
  const wrapper: ScalarOverload = {
    args: [...fixedTypes.map((t) => t.name), last.type.name],
    returns: resultType(o, [...fixedTypes, elem]),
    strict: false,
    volatile: o.volatile,
    fn: ((ctx: EvalContext, ...vals: Value[]): Value => {
      const arr = vals[vals.length - 1] as ArrayValue | null;
      if (arr === null && !nullArrayIsEmpty) return null;
      const elems = arr ?? [];
      const head = vals.slice(0, -1);
      if (strict && (head.includes(null) || elems.includes(null))) return null;
      return call(elems.length)(ctx, ...head, ...elems);
    }) as ScalarImpl,
  };
  return { kind: 'call', name, overload: wrapper, args: [...fixedArgs, last], type: wrapper.returns as DataType };
}

/**
 * pg_get_viewdef('name') / pg_get_viewdef('name'::regclass): the view's definition, read from the
 * catalog when the call is bound (the name must be a literal: Quire has no regclass values to carry).
 */
function viewDefCall(arg: Node, cx: ExprCtx, loc: number | undefined): Expr {
  let n = arg;
  if (nodeTag(n) === 'TypeCast') {
    const t = strings((nodeBody<AnyNode>(n).typeName as AnyNode).names as Node[]).pop();
    if (t !== 'regclass' && t !== 'text') throw new QuireError('42883', `function pg_get_viewdef(${t}) does not exist`, { position: pos(loc) });
    n = nodeBody<AnyNode>(n).arg as Node;
  }
  const c = nodeTag(n) === 'A_Const' ? nodeBody<AnyNode>(n) : undefined;
  const text = (c?.sval as { sval?: string } | undefined)?.sval;
  if (text === undefined) throw new QuireError('0A000', 'pg_get_viewdef of a computed name is not supported', { position: pos(loc) });
  const parts = text.split('.').map((p) => (p.startsWith('"') ? p.slice(1, -1) : p.toLowerCase()));
  const relName = parts.length === 2 && parts[0] === 'public' ? parts[1]! : parts.length === 1 ? parts[0]! : undefined;
  const routines = cx.env.routines;
  const view = relName === undefined ? undefined : routines?.views.get(relName);
  if (view === undefined || routines === undefined) {
    // A table has no view definition: NULL, as in PostgreSQL.
    if (relName !== undefined && routines?.getTable(relName) !== undefined) return constExpr(null, T.text);
    throw new QuireError('42P01', `relation "${text}" does not exist`, { position: pos(locOf(n) ?? loc) });
  }
  const def = viewDefinition(
    view.query,
    viewDefTypes(cx, (t) => (routines.views.has(t) ? undefined : routines.getTable(t)?.schema)),
  );
  return constExpr(def, T.text);
}

/**
 * A variadic function's positional arguments with the trailing ones (at least one) gathered into an
 * ARRAY of the variadic parameter's element type; null when they cannot be (too few, or an argument
 * that does not convert implicitly).
 */
function collectVariadic(fn: SqlFunctionDef, positional: readonly Expr[], cx: ExprCtx): Expr[] | null {
  return gatherVariadic(fn.params.map((p) => p.type), positional, cx);
}

/**
 * Arguments for parameters `params` whose last one is VARIADIC: the trailing arguments (at least one)
 * gathered into an ARRAY of its element type (a polymorphic one takes their common type). Null when
 * they cannot be (too few, an array for anyarray, an argument that does not convert implicitly).
 */
export function gatherVariadic(params: readonly RoutineType[], args: readonly Expr[], cx: ExprCtx): Expr[] | null {
  const k = params.length - 1;
  if (args.length <= k) return null;
  const trailing = args.slice(k);
  const pt = params[k]!;
  if (pt === 'anyarray' && trailing.some((a) => isArrayType(a.type))) return null;
  let et: DataType;
  if (typeof pt === 'string') {
    try {
      et = unifyTypes(trailing.map((a) => a.type), 'VARIADIC', 0);
    } catch {
      return null;
    }
  } else {
    et = elementType(pt);
    if (trailing.some((a) => castContext(a.type.name, et.name) !== 'implicit')) return null;
  }
  const array: Expr = { kind: 'array', args: trailing.map((a) => coerce(a, et, 'implicit', cx.env)), type: arrayTypeFor(et) };
  return [...args.slice(0, k), array];
}

/** Binds a call's arguments (positional, then named, then the parameters' defaults) and picks the overload. */
export function resolveRoutineCall(name: string, fns: readonly SqlFunctionDef[], b: AnyNode, cx: ExprCtx): { fn: SqlFunctionDef; args: Expr[]; type: DataType } {
  const loc = b.location as number | undefined;
  if (b.agg_star || b.agg_distinct || b.agg_filter || (b.agg_order as Node[] | undefined)?.length) {
    throw new QuireError('42809', `${name} is not an aggregate function`, { position: pos(loc) });
  }
  const spread = b.func_variadic === true;
  const positional: Expr[] = [];
  const named: { name: string; value: Expr }[] = [];
  for (const a of (b.args as Node[] | undefined) ?? []) {
    if (nodeTag(a) === 'NamedArgExpr') {
      const na = nodeBody<AnyNode>(a);
      named.push({ name: na.name as string, value: bindExpr(na.arg as Node, cx) });
    } else {
      if (named.length > 0) throw new QuireError('42601', 'positional argument cannot follow named argument', { position: pos(locOf(a)) });
      positional.push(bindExpr(a, cx));
    }
  }
  const fits: { fn: SqlFunctionDef; o: ScalarOverload; args: Expr[] }[] = [];
  for (const fn of fns) {
    // VARIADIC arr passes the array itself, and only to a variadic parameter.
    if (spread && fn.variadic !== true) continue;
    const collected = !spread && fn.variadic === true ? collectVariadic(fn, positional, cx) : positional;
    if (collected === null) continue;
    const args = placeArguments(fn.params, collected, positional.length, named, (i) => {
      const d = fn.params[i]!.defaultExpr;
      return d === null ? null : bindExpr(d, { ...cx, scope: new Scope(null), aggs: null, windows: null, clause: 'DEFAULT expressions' });
    });
    if (args === null) continue;
    const o = routineOverloads([fn], args.length)[0]?.o;
    if (o !== undefined && resolveOverload([o], args) !== null) fits.push({ fn, o, args });
  }
  let pick: (typeof fits)[number] | undefined = fits[0];
  if (fits.length > 1) {
    const best = resolveOverload(fits.map((f) => f.o), fits[0]!.args);
    pick = fits.find((f) => f.o === best);
    if (pick === undefined || fits.some((f) => f.args.length !== pick!.args.length)) {
      throw new QuireError('42725', `function ${name}(${positional.map((a) => typeDisplayName(a.type)).join(', ')}) is not unique`, {
        position: pos(loc),
        hint: 'Could not choose a best candidate function. You might need to add explicit type casts.',
      });
    }
  }
  if (pick === undefined) {
    const shown = [...positional, ...named.map((n) => n.value)].map((a) => typeDisplayName(a.type)).join(', ');
    throw new QuireError('42883', `function ${name}(${shown}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const applied = applyOverload(name, pick.o, pick.args, cx, loc) as Expr & { kind: 'call' };
  return { fn: pick.fn, args: applied.args, type: applied.type };
}

const MAX_ROUTINE_DEPTH = 32;

/** Runs `f` with the function's parameters in scope for its body. */
export function withRoutineFrame<X>(cx: ExprCtx, frame: RoutineFrame, loc: number | undefined, f: () => X): X {
  const frames = cx.env.routineFrames;
  if (frames === undefined) throw new QuireError('0A000', 'SQL functions cannot be called here', { position: pos(loc) });
  if (frames.some((fr) => fr.fn === frame.fn) || frames.length >= MAX_ROUTINE_DEPTH) {
    throw new QuireError('0A000', `recursive call of SQL function "${frame.fn.name}" is not supported`, { position: pos(loc) });
  }
  frames.push(frame);
  try {
    return f();
  } finally {
    frames.pop();
  }
}

function isRowChanging(name: string, cx: ExprCtx): boolean {
  if (isAggregateName(name) || isWindowFunctionName(name)) return true;
  if (lookupTableFunction(name) !== undefined && lookupScalar(name) === undefined) return true;
  return cx.env.routines?.functions.get(name)?.some((f) => f.returnsSet) === true;
}

function bindRoutineCall(name: string, fns: readonly SqlFunctionDef[], b: AnyNode, cx: ExprCtx): Expr {
  const loc = b.location as number | undefined;
  const { fn, args, type: resultType } = resolveRoutineCall(name, fns, b, cx);
  if (fn.returnsSet) {
    throw new QuireError('0A000', `set-returning function ${name}() is only supported in FROM and at the top of the select list`, { position: pos(loc) });
  }
  if (fn.columns !== null) throw new QuireError('0A000', `function ${name}() returns a record; call it in FROM`, { position: pos(loc) });
  if (fn.plpgsql !== undefined) return strictGuard(fn, args, bindPlpgsqlCall(fn, fn.plpgsql, args, resultType, cx, loc));
  const frame: RoutineFrame = { fn, args, anchor: cx.scope, offset: 0 };
  if (fn.returns === 'void') {
    // Only the side effects of a void function matter, and a query has none to run.
    queryBody(fn, loc);
    return { kind: 'const', value: null, type: T.text };
  }
  const body = queryBody(fn, loc);
  const simple = simpleExpressionBody(body, (n) => isRowChanging(n, cx));
  let e: Expr;
  if (simple !== null) {
    e = withRoutineFrame(cx, frame, loc, () => bindExpr(simple, { ...cx, aggs: null, windows: null, inAggregate: false, inWindow: false }));
    e = coerce(e, resultType, 'assignment', cx.env, pos(loc));
  } else {
    const sub = withRoutineFrame(cx, frame, loc, () => cx.env.bindSubquery({ SelectStmt: body } as unknown as Node, cx.scope));
    const plan = firstRow(conformOutput(fn, sub.plan, [{ name, type: resultType }], cx.env, loc));
    e = { kind: 'subquery', mode: 'scalar', plan, correlated: sub.correlated, type: resultType };
  }
  return strictGuard(fn, args, e);
}

// ---- user-defined aggregates ----

export function isStrictFunction(name: string, argCount: number, cx: ExprCtx): boolean {
  const defs = cx.env.routines?.functions.get(name) ?? internalFunctions(name);
  if (defs === undefined) return (lookupScalar(name) ?? []).every((o) => o.strict !== false);
  return defs.filter((d) => d.params.length === argCount).every((d) => d.strict);
}
