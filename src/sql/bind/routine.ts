/**
 * Calls of user-defined SQL functions (CREATE FUNCTION … LANGUAGE sql). As PostgreSQL's inliner does,
 * the body is bound into the calling query with its parameters replaced by the call's arguments: a body
 * that is one expression (SELECT expr, RETURN expr) becomes that expression; any other SELECT becomes a
 * scalar subquery (its first row, as a SQL function returns), and a set-returning function called in
 * FROM becomes a derived table (LATERAL when its arguments read columns to its left).
 *
 * While a body is bound, a frame on the binder's stack maps $n and parameter names to the bound
 * arguments; name lookup stops at the call site, so the body never sees the caller's columns.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError, positionOf } from '../../common/errors.js';
import { T, arrayTypeOf, elementType, isArrayType, typeDisplayName, type CompositeType, type DataType, type Field } from '../../common/types.js';
import { mapExpr, someExpr, type Expr } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { ArgType, ScalarOverload } from '../../functions/registry.js';
import type { AggregateDef, RoutineType, SqlFunctionDef } from '../../storage/catalog.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { coerce } from '../coerce.js';
import type { Scope } from '../scope.js';

/** The parameters of one SQL function body being bound. */
export interface RoutineFrame {
  readonly fn: SqlFunctionDef;
  /** Arguments bound at the call site, coerced to the parameter types. */
  readonly args: readonly Expr[];
  /** Name lookup inside the body stops here (the call site's scope, or the parent of a FROM item's). */
  readonly anchor: Scope | null;
  /** Scope levels between `anchor` and the scope the arguments are relative to (1 for FROM items). */
  readonly offset: number;
}

export interface RoutineCatalog {
  readonly functions: ReadonlyMap<string, readonly SqlFunctionDef[]>;
  readonly aggregates: ReadonlyMap<string, readonly AggregateDef[]>;
  readonly types: ReadonlyMap<string, CompositeType>;
  readonly views: ReadonlyMap<string, { readonly query: Node }>;
  getTable(name: string): { readonly schema: readonly Field[] } | undefined;
}

export interface RoutineEnv {
  readonly routines?: RoutineCatalog;
  readonly routineFrames?: RoutineFrame[];
}

const pos = positionOf;
export const NO_IMPL = (): never => {
  throw new Error('SQL function bodies are bound, never called');
};

export function argTypeOf(t: RoutineType): ArgType {
  return typeof t === 'string' ? t : t.name;
}

/** Overload candidates in the registry's shape, so built-in resolution rules pick among them. */
export function routineOverloads(fns: readonly SqlFunctionDef[], argCount: number): { o: ScalarOverload; fn: SqlFunctionDef }[] {
  const out: { o: ScalarOverload; fn: SqlFunctionDef }[] = [];
  for (const fn of fns) {
    const required = fn.params.filter((p) => p.defaultExpr === null).length;
    if (argCount < required || argCount > fn.params.length) continue;
    const params = fn.params.slice(0, argCount);
    out.push({
      fn,
      o: {
        args: params.map((p) => argTypeOf(p.type)),
        returns: (types: readonly DataType[]) => resultTypeOf(fn, params.map((p) => p.type), types),
        strict: fn.strict,
        volatile: fn.volatility === 'volatile',
        fn: NO_IMPL,
      },
    });
  }
  return out;
}

function resultTypeOf(fn: SqlFunctionDef, params: readonly RoutineType[], argTypes: readonly DataType[]): DataType {
  const r = fn.returns;
  if (r === 'void') return T.unknown;
  if (typeof r !== 'string') return r;
  // Polymorphic: the type the anyelement/anyarray arguments resolved to.
  const i = params.findIndex((p) => typeof p === 'string');
  const got = i >= 0 ? argTypes[i]! : T.text;
  const elem = params[i] === 'anyarray' && isArrayType(got) ? elementType(got) : got;
  if (r === 'anyelement') return elem;
  return arrayTypeOf(elem) ?? elem;
}

/** Scopes from `from` up to (not including) `to`. */
function levelsBetween(from: Scope, to: Scope | null): number {
  let n = 0;
  for (let s: Scope | null = from; s !== null && s !== to; s = s.parent) n++;
  return n;
}

/** An argument bound at the call site, as seen `levels` query levels below it. */
function shiftArg(arg: Expr, levels: number, loc: number | undefined): Expr {
  if (levels === 0) return arg;
  return mapExpr(arg, (x) => {
    if (x.kind === 'column') return { kind: 'outer', levels, index: x.index, type: x.type, name: x.name };
    if (x.kind === 'outer') return { ...x, levels: x.levels + levels };
    if (x.kind === 'subquery' && x.correlated) {
      throw new QuireError('0A000', 'a correlated subquery as the argument of a SQL function whose body is a query is not supported', { position: pos(loc) });
    }
    return x;
  });
}

/** `$n` or a parameter name inside a body: the call's argument, moved to the level it is used at. */
export function routineParam(frame: RoutineFrame, index: number, scope: Scope, loc: number | undefined): Expr {
  const arg = frame.args[index];
  if (arg === undefined) throw new QuireError('42P02', `there is no parameter $${index + 1}`, { position: pos(loc) });
  const levels = Math.max(levelsBetween(scope, frame.anchor) - frame.offset, 0);
  // Every scope between the use and the query level a column belongs to reads an outer value.
  const hasColumn = someExpr(arg, (x) => x.kind === 'column');
  const deepest = Math.max(hasColumn ? levels : 0, ...outerLevels(arg).map((l) => l + levels));
  let s: Scope | null = scope;
  for (let i = 0; i < deepest && s !== null; i++, s = s.parent) s.usesOuter = true;
  return shiftArg(arg, levels, loc);
}

function outerLevels(e: Expr): number[] {
  const out: number[] = [];
  someExpr(e, (x) => {
    if (x.kind === 'outer') out.push(x.levels);
    return false;
  });
  return out;
}

/** A parameter named `name` (or `fn.name`) of the innermost body being bound, if any. */
export function routineParamByName(frame: RoutineFrame, names: readonly string[]): number {
  const n = names.length === 1 ? names[0] : names.length === 2 && names[0] === frame.fn.name ? names[1] : undefined;
  if (n === undefined) return -1;
  return frame.fn.params.findIndex((p) => p.name === n);
}

/** Statements other than one SELECT cannot be inlined or run inside a query. */
export function queryBody(fn: SqlFunctionDef, loc: number | undefined): SelectStmt {
  if (fn.plpgsql !== undefined) throw new QuireError('0A000', `PL/pgSQL function "${fn.name}" can only be called in expressions, not as a table`, { position: pos(loc) });
  if (fn.body.length !== 1 || nodeTag(fn.body[0]) !== 'SelectStmt') {
    throw new QuireError('0A000', `calling SQL function "${fn.name}" whose body is not a single SELECT is not supported`, { position: pos(loc) });
  }
  return nodeBody<SelectStmt>(fn.body[0]!);
}

/**
 * `SELECT expr` with nothing else: inlined as the expression. Aggregates, window functions and
 * set-returning calls change the row count, so such a body stays a query.
 */
export function simpleExpressionBody(s: SelectStmt, isRowChanging: (name: string) => boolean): Node | null {
  if (s.fromClause?.length || s.whereClause || s.groupClause?.length || s.havingClause || s.sortClause?.length || s.limitCount || s.limitOffset) return null;
  if (s.valuesLists || s.withClause || s.distinctClause || s.windowClause?.length || (s.op !== undefined && s.op !== 'SETOP_NONE')) return null;
  const t = s.targetList ?? [];
  if (t.length !== 1) return null;
  const val = nodeBody<AnyNode>(t[0]!).val as Node;
  let changes = false;
  const visit = (n: unknown): void => {
    if (changes || n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(visit);
    const o = n as AnyNode;
    if ('SubLink' in o) return; // its own query level
    if ('FuncCall' in o) {
      const fc = o.FuncCall as AnyNode;
      const name = strings(fc.funcname as Node[]).pop() ?? '';
      if (fc.over || fc.agg_star || fc.agg_within_group || isRowChanging(name)) changes = true;
    }
    for (const v of Object.values(o)) visit(v);
  };
  visit(val);
  return changes ? null : val;
}

/** Result columns of a function in FROM: its TABLE/OUT columns, or one column named after it. */
export function routineColumns(fn: SqlFunctionDef, resultType: DataType): Field[] {
  if (fn.columns !== null) return fn.columns.map((c) => ({ name: c.name, type: c.type }));
  return [{ name: fn.name, type: resultType }];
}

/** The body query's output, cast to the declared result columns (as PostgreSQL checks at CREATE). */
export function conformOutput(fn: SqlFunctionDef, plan: LogicalPlan, cols: readonly Field[], env: Parameters<typeof coerce>[3], loc: number | undefined): LogicalPlan {
  if (plan.schema.length !== cols.length) {
    throw new QuireError('42P13', `return type mismatch in function declared to return ${fn.columns !== null ? 'record' : typeDisplayName(cols[0]!.type)}`, {
      detail: plan.schema.length > cols.length ? 'Final statement returns too many columns.' : 'Final statement returns too few columns.',
      position: pos(loc),
    });
  }
  const exprs = plan.schema.map((f, i): Expr => coerce({ kind: 'column', index: i, type: f.type, name: f.name }, cols[i]!.type, 'assignment', env, pos(loc)));
  return { op: 'project', input: plan, exprs, schema: cols.map((c) => ({ name: c.name, type: c.type })) };
}

/** A SQL function returns its body's first row. */
export function firstRow(plan: LogicalPlan): LogicalPlan {
  return { op: 'limit', input: plan, offset: null, count: { kind: 'const', value: 1, type: T.int8 }, ties: null, schema: plan.schema };
}

/** STRICT: a NULL argument gives NULL without evaluating the body. */
export function strictGuard(fn: SqlFunctionDef, args: readonly Expr[], body: Expr): Expr {
  if (!fn.strict) return body;
  const nullable = args.filter((a) => !(a.kind === 'const' && a.value !== null));
  if (args.some((a) => a.kind === 'const' && a.value === null)) return { kind: 'const', value: null, type: body.type };
  if (nullable.length === 0) return body;
  const tests: Expr[] = nullable.map((a) => ({ kind: 'is-null', arg: a, negated: false, type: T.bool }));
  const when: Expr = tests.length === 1 ? tests[0]! : { kind: 'or', args: tests, type: T.bool };
  return { kind: 'case', whens: [{ when, then: { kind: 'const', value: null, type: body.type } }], else: body, type: body.type };
}
