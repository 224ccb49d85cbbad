/**
 * Expression binding: PostgreSQL AST → typed Expr over the current scope. Aggregates and window calls
 * are collected into the query's lists and replaced by placeholder column references that the query
 * binder later maps onto the aggregate / window operator outputs.
 */
import { parseBitString } from '../common/bit-string.js';
import type { Node } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { T, type, type DataType, type Value, category, typeDisplayName, isNumericType, isArrayType, arrayTypeOf, arrayTypeFor, elementType } from '../common/types.js';
import { lookupParamNames, lookupScalar, type ScalarOverload, type ArgType } from '../functions/registry.js';
import { isAggregateName, lookupAggregate } from '../functions/aggregate/registry.js';
import { ROW_COUNT_AGGREGATE } from '../functions/aggregate/count.js';
import { windowFunctionType, isWindowFunctionName } from '../functions/window/registry.js';
import { dateAsTimestampForComparison, dateAsTimestamptzForComparison } from '../functions/scalar/date-for-comparison.js';
import { castContext, commonSupertype } from '../common/cast.js';
import { type Expr, type CompareOp, type SortKey, TRUE, FALSE, someExpr, isConstantExpr, exprEquals, mapExpr } from '../logical/expr.js';
import { mapPlanExprs } from '../logical/map-plan-exprs.js';
import type { AggCall, LogicalPlan, WindowCall, WindowSpec, Frame, FrameBound, UserAggregateSpec } from '../logical/plan.js';
import { nodeBody, nodeTag, strings, type AnyNode } from './ast.js';
import { coerce, hasNoEquality, comparisonType, unifyTypes, type CoerceEnv, canCoerce, stripMod } from './coerce.js';
import { Scope, type ScopeEntry } from './scope.js';
import { lookupTypeName, resolveTypeName } from './type-name.js';
import {
  queryBody,
  routineOverloads,
  routineParam,
  routineParamByName,
  simpleExpressionBody,
  strictGuard,
  conformOutput,
  firstRow,
  argTypeOf,
  NO_IMPL,
  type RoutineEnv,
  type RoutineFrame,
} from './bind-routine.js';
import type { AggregateDef, SqlFunctionDef } from '../storage/catalog.js';
import { internalFunctions } from './internal-functions.js';
import { recordNullTest, rowConstructor } from '../functions/scalar/row-constructor.js';
import { lookupTableFunction } from '../storage/table-functions/table-function.js';

/** Placeholder column indexes for aggregates and window calls, far above any real column. */
export const AGG_BASE = 1 << 24;
export const WIN_BASE = 1 << 25;
/** GROUPING(...) placeholders sit in the upper half of the aggregate range. */
export const GROUPING_BASE = AGG_BASE + (1 << 23);

/** One GROUPING(a, b, …) call: its arguments must be grouping expressions (checked once GROUP BY is bound). */
export interface GroupingCall {
  args: Expr[];
  locations: (number | undefined)[];
}

export interface AggCollector {
  calls: AggCall[];
  grouping?: GroupingCall[];
}
export interface WindowCollector {
  calls: WindowCall[];
  /** Named windows of the WINDOW clause (raw AST, bound on use). */
  named: Map<string, AnyNode>;
}

export interface ExprEnv extends CoerceEnv, RoutineEnv {
  /** Binds a sub-SELECT whose outer scope is `scope`. */
  bindSubquery(stmt: Node, scope: Scope): { plan: LogicalPlan; correlated: boolean };
}

export interface ExprCtx {
  scope: Scope;
  clause: string;
  aggs: AggCollector | null;
  windows: WindowCollector | null;
  env: ExprEnv;
  /** Set while binding aggregate arguments (nested aggregates are an error). */
  inAggregate?: boolean;
  inWindow?: boolean;
}

const pos = positionOf;

function constExpr(value: Value, type: DataType): Expr {
  return { kind: 'const', value, type };
}

export function bindExpr(node: Node, cx: ExprCtx): Expr {
  const tag = nodeTag(node);
  const b = nodeBody<AnyNode>(node);
  const loc = b.location as number | undefined;
  switch (tag) {
    case 'ColumnRef':
      return bindColumnRef(b, cx);
    case 'A_Const': {
      const c = bindConst(b);
      return c.kind === 'const' ? { ...c, position: pos(loc) } : c;
    }
    case 'ParamRef': {
      const n = (b.number as number | undefined) ?? 0;
      if (n < 1) throw new QuireError('42P02', `there is no parameter $${n}`, { position: pos(loc) });
      const idx = n - 1;
      const frame = cx.env.routineFrames?.at(-1);
      if (frame !== undefined) return routineParam(frame, idx, cx.scope, loc);
      while (cx.env.paramTypes.length <= idx) cx.env.paramTypes.push(T.unknown);
      return { kind: 'param', index: idx, type: cx.env.paramTypes[idx]! };
    }
    case 'TypeCast': {
      const target = resolveTypeName(b.typeName as never);
      // ARRAY[]::int[]: the cast is what gives an empty array constructor its type.
      const arg = nodeTag(b.arg as Node) === 'A_ArrayExpr' ? bindArrayExpr(nodeBody<AnyNode>(b.arg as Node), cx, target) : bindExpr(b.arg as Node, cx);
      return coerce(arg, target, 'explicit', cx.env, pos(loc));
    }
    case 'A_Expr':
      return bindAExpr(b, cx);
    case 'BoolExpr': {
      const args = (b.args as Node[]).map((a) => coerceBool(bindExpr(a, cx), cx, 'argument of ' + boolOpName(b.boolop as string), locOf(a)));
      switch (b.boolop) {
        case 'AND_EXPR':
          return { kind: 'and', args, type: T.bool };
        case 'OR_EXPR':
          return { kind: 'or', args, type: T.bool };
        default:
          return { kind: 'not', arg: args[0]!, type: T.bool };
      }
    }
    case 'NullTest': {
      if (nodeTag(b.arg as Node) === 'RowExpr') {
        // A row IS NULL when every field is, IS NOT NULL when none is (so ROW(1, NULL) is neither).
        const negated = b.nulltesttype === 'IS_NOT_NULL';
        const tests = rowFields(b.arg as Node, cx).map((f): Expr => ({ kind: 'is-null', arg: f.type.name === 'unknown' ? coerce(f, T.text, 'implicit', cx.env) : f, negated, type: T.bool }));
        return tests.length === 0 ? TRUE : tests.length === 1 ? tests[0]! : { kind: 'and', args: tests, type: T.bool };
      }
      const arg = bindExpr(b.arg as Node, cx);
      const negated = b.nulltesttype === 'IS_NOT_NULL';
      if (arg.type.name === 'record') {
        // A whole-row reference tests its fields, as a row constructor does; a computed record at run time.
        if (arg.kind === 'call' && arg.overload === rowConstructor) {
          const tests = arg.args.map((f): Expr => ({ kind: 'is-null', arg: f, negated, type: T.bool }));
          return tests.length === 0 ? TRUE : tests.length === 1 ? tests[0]! : { kind: 'and', args: tests, type: T.bool };
        }
        return { kind: 'call', name: negated ? 'record_is_not_null' : 'record_is_null', overload: recordNullTest(negated), args: [arg], type: T.bool };
      }
      return { kind: 'is-null', arg: arg.type.name === 'unknown' ? coerce(arg, T.text, 'implicit', cx.env) : arg, negated, type: T.bool };
    }
    case 'BooleanTest': {
      const arg = coerceBool(bindExpr(b.arg as Node, cx), cx, 'argument of IS TRUE', locOf(b.arg as Node));
      const t = b.booltesttype as string;
      const test = t.includes('TRUE') ? 'true' : t.includes('FALSE') ? 'false' : 'unknown';
      return { kind: 'bool-test', arg, test, negated: t.includes('NOT'), type: T.bool };
    }
    case 'CaseExpr':
      return bindCase(b, cx);
    case 'CoalesceExpr': {
      const args = (b.args as Node[]).map((a) => bindExpr(a, cx));
      const t = unifyTypes(args.map((a) => a.type), 'COALESCE', pos(loc));
      return { kind: 'coalesce', args: args.map((a, i) => coerce(a, t, 'implicit', cx.env, pos(locOf((b.args as Node[])[i]!)))), type: t };
    }
    case 'MinMaxExpr': {
      const args = (b.args as Node[]).map((a) => bindExpr(a, cx));
      const op = b.op === 'IS_GREATEST' ? 'greatest' : 'least';
      const t = unifyTypes(args.map((a) => a.type), op.toUpperCase(), pos(loc));
      return { kind: 'minmax', op, args: args.map((a) => coerce(a, t, 'implicit', cx.env)), type: t };
    }
    case 'FuncCall':
      return bindFuncCall(b, cx);
    case 'SubLink':
      return bindSubLink(b, cx);
    case 'SQLValueFunction':
      return bindSqlValueFunction(b, cx);
    case 'CollateClause':
      return bindExpr(b.arg as Node, cx);
    case 'RowExpr':
      return rowValue(rowFields(node, cx), cx);
    case 'A_Indirection':
      return bindSubscript(b, cx, loc);
    case 'A_ArrayExpr':
      return bindArrayExpr(b, cx, null);
    case 'GroupingFunc':
      return bindGroupingFunc(b, cx, loc);
    default:
      throw new QuireError('0A000', `expression ${tag ?? '?'} is not supported`, { position: pos(loc) });
  }
}

/** GROUPING(a, b): collected like an aggregate and replaced by a placeholder the query binder resolves. */
function bindGroupingFunc(b: AnyNode, cx: ExprCtx, loc: number | undefined): Expr {
  if (cx.inAggregate) throw new QuireError('42803', 'aggregate function calls cannot be nested', { position: pos(loc) });
  if (cx.aggs === null) throw new QuireError('42803', `grouping operations are not allowed in ${cx.clause}`, { position: pos(loc) });
  const argNodes = (b.args as Node[] | undefined) ?? [];
  if (argNodes.length > 31) throw new QuireError('54023', 'GROUPING must have fewer than 32 arguments', { position: pos(loc) });
  const inner: ExprCtx = { ...cx, aggs: null, windows: null, clause: 'GROUPING' };
  const args = argNodes.map((a) => {
    const e = bindExpr(a, inner);
    return e.type.name === 'unknown' ? coerce(e, T.text, 'implicit', cx.env) : e;
  });
  // Like an aggregate, GROUPING belongs to the query level of its arguments: GROUPING(a) in a sub-SELECT
  // over an outer query's a is that query's.
  let level = Infinity;
  for (const a of args) {
    mapExprDeep(a, (x, depth) => {
      if (x.kind === 'column' && depth === 0) level = 0;
      else if (x.kind === 'outer' && x.levels >= depth) level = Math.min(level, x.levels - depth);
      return x;
    });
  }
  if (level !== Infinity && level > 0) {
    let owner: Scope | null = cx.scope;
    for (let i = 0; i < level && owner !== null; i++) owner = owner.parent;
    const target = owner?.subqueryCx ?? null;
    if (target === null || target.aggs === null) {
      throw new QuireError('42803', 'arguments to GROUPING must be grouping expressions of the associated query level', { position: pos(loc) });
    }
    const lift = (e: Expr): Expr =>
      mapExprDeep(e, (x, depth) => {
        if (x.kind !== 'outer' || x.levels < depth + level) return x;
        if (x.levels === level && depth === 0) return { kind: 'column', index: x.index, type: x.type, name: x.name };
        return { ...x, levels: x.levels - level };
      });
    const list = (target.aggs.grouping ??= []);
    list.push({ args: args.map(lift), locations: argNodes.map((a) => locOf(a)) });
    let sc: Scope | null = cx.scope;
    for (let i = 0; i < level && sc !== null; i++, sc = sc.parent) sc.usesOuter = true;
    return { kind: 'outer', levels: level, index: GROUPING_BASE + list.length - 1, type: T.int4, name: 'grouping' };
  }
  const list = (cx.aggs.grouping ??= []);
  list.push({ args, locations: argNodes.map((a) => locOf(a)) });
  return { kind: 'column', index: GROUPING_BASE + list.length - 1, type: T.int4, name: 'grouping' };
}

function multidimensional(loc: number | undefined): QuireError {
  return new QuireError('0A000', 'multidimensional arrays are not supported', { position: pos(loc) });
}

/** ARRAY[…]: elements unified to one type, as PostgreSQL's transformArrayExpr; `cast` is an enclosing cast's type. */
function bindArrayExpr(b: AnyNode, cx: ExprCtx, cast: DataType | null): Expr {
  const loc = b.location as number | undefined;
  const nodes = (b.elements as Node[] | undefined) ?? [];
  if (nodes.some((n) => nodeTag(n) === 'A_ArrayExpr')) throw multidimensional(loc);
  const args = nodes.map((n) => bindExpr(n, cx));
  if (args.length === 0) {
    if (cast === null || !isArrayType(cast)) {
      throw new QuireError('42P18', 'cannot determine type of empty array', {
        position: pos(loc),
        hint: 'Explicitly cast to the desired type, for example ARRAY[]::integer[].',
      });
    }
    return { kind: 'const', value: [], type: cast };
  }
  if (args.some((a) => isArrayType(a.type))) throw multidimensional(loc);
  const et = unifyTypes(args.map((a) => a.type), 'ARRAY', pos(loc));
  const at = arrayTypeFor(et);
  return { kind: 'array', args: args.map((a) => coerce(a, et, 'implicit', cx.env)), type: at };
}

/** a[i] on arrays; slices and field selection are not supported. */
function bindSubscript(b: AnyNode, cx: ExprCtx, loc: number | undefined): Expr {
  let e = bindExpr(b.arg as Node, cx);
  for (const ind of (b.indirection as Node[] | undefined) ?? []) {
    const ib = nodeBody<AnyNode>(ind);
    if (nodeTag(ind) !== 'A_Indices' || ib.is_slice === true || ib.uidx === undefined) {
      throw new QuireError('0A000', nodeTag(ind) === 'A_Indices' ? 'array slices are not supported' : 'field selection is not supported', { position: pos(loc) });
    }
    if (!isArrayType(e.type)) {
      throw new QuireError('42804', `cannot subscript type ${typeDisplayName(e.type)} because it does not support subscripting`, { position: pos(loc) });
    }
    if (ib.lidx !== undefined) throw new QuireError('0A000', 'array slices are not supported', { position: pos(loc) });
    const idxNode = ib.uidx as Node;
    let idx = bindExpr(idxNode, cx);
    if (!canCoerce(idx.type, T.int4, 'assignment')) {
      throw new QuireError('42804', 'array subscript must have type integer', { position: pos(locOf(idxNode) ?? loc) });
    }
    idx = coerce(idx, T.int4, 'assignment', cx.env, pos(locOf(idxNode) ?? loc));
    e = bindOperator('[]', [e, idx], cx, loc, '[]');
  }
  return e;
}

function boolOpName(op: string): string {
  return op === 'AND_EXPR' ? 'AND' : op === 'OR_EXPR' ? 'OR' : 'NOT';
}

export function locOf(n: Node | undefined): number | undefined {
  if (!n) return undefined;
  const b = nodeBody<AnyNode>(n);
  if (typeof b.location === 'number') return b.location;
  // Some nodes (TypeCast of a literal) put the location on an inner node.
  for (const k of ['arg', 'lexpr', 'val']) {
    const inner = b[k] as Node | undefined;
    if (inner && typeof inner === 'object') {
      const l = locOf(inner);
      if (l !== undefined) return l;
    }
  }
  return undefined;
}

/** The leftmost location anywhere in a raw expression: where PostgreSQL's exprLocation points for an operator. */
export function leftmostLocOf(n: unknown): number | undefined {
  let best: number | undefined;
  const walk = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      for (const y of x) walk(y);
      return;
    }
    for (const [k, v] of Object.entries(x)) {
      if (k === 'location' && typeof v === 'number' && v >= 0) best = best === undefined ? v : Math.min(best, v);
      else walk(v);
    }
  };
  walk(n);
  return best;
}

export function coerceBool(e: Expr, cx: ExprCtx, what: string, loc: number | undefined): Expr {
  if (e.type.name === 'bool') return e;
  if (e.type.name === 'unknown') return coerce(e, T.bool, 'implicit', cx.env, pos(loc));
  throw new QuireError('42804', `${what} must be type boolean, not type ${typeDisplayName(e.type)}`, { position: pos(loc) });
}

function bindConst(b: AnyNode): Expr {
  if (b.isnull) return constExpr(null, T.unknown);
  if (b.ival !== undefined) {
    const v = (b.ival as { ival?: number }).ival ?? 0;
    return constExpr(v, T.int4);
  }
  if (b.fval !== undefined) {
    const s = (b.fval as { fval?: string }).fval ?? '0';
    // Integer literals too wide for int4 arrive as fval: they are int8 when they fit, else numeric.
    if (/^-?\d+$/.test(s)) {
      const big = BigInt(s);
      if (big >= -(2n ** 63n) && big < 2n ** 63n) {
        return constExpr(big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big, T.int8);
      }
    }
    return { kind: 'cast', arg: constExpr(s, T.unknown), type: T.numeric, explicit: true };
  }
  if (b.boolval !== undefined) return constExpr((b.boolval as { boolval?: boolean }).boolval === true, T.bool);
  if (b.sval !== undefined) return constExpr((b.sval as { sval?: string }).sval ?? '', T.unknown);
  if (b.bsval !== undefined) {
    // B'…' / X'…' arrive as 'b…' / 'x…', which bit input reads directly; the literal is of type bit.
    const raw = (b.bsval as { bsval?: string }).bsval ?? '';
    try {
      return constExpr(parseBitString(raw, T.bit), T.bit);
    } catch (e) {
      if (e instanceof QuireError && e.position === 0) throw new QuireError(e.code, e.message, { position: pos(b.location as number) });
      throw e;
    }
  }
  return constExpr(null, T.unknown);
}

function bindColumnRef(b: AnyNode, cx: ExprCtx): Expr {
  const fields = b.fields as Node[];
  const loc = pos(b.location as number);
  if (fields.some((f) => nodeTag(f) === 'A_Star')) {
    throw new QuireError('42601', 'row expansion via "*" is not supported here', { position: loc });
  }
  const names = strings(fields);
  let qualifier: string | null = null;
  let name: string;
  if (names.length === 1) name = names[0]!;
  else if (names.length === 2) {
    qualifier = names[0]!;
    name = names[1]!;
  } else {
    // schema.table.column: tables live in public (pg_temp for TEMP ones); a reference through any other
    // schema cannot name a FROM item, as in PostgreSQL.
    qualifier = names[names.length - 2]!;
    name = names[names.length - 1]!;
    if (names.length > 4) throw new QuireError('42601', `improper qualified name (too many dotted names): ${names.join('.')}`, { position: loc });
    if (names.length === 4) throw new QuireError('0A000', `cross-database references are not implemented: ${names.join('.')}`, { position: loc });
    const schema = names[0]!;
    if (schema !== 'public' && schema !== 'pg_temp') {
      let s: Scope | null = cx.scope;
      while (s !== null && !s.hasQualifier(qualifier)) s = s.parent;
      if (s !== null) throw new QuireError('42P01', `invalid reference to FROM-clause entry for table "${qualifier}"`, { position: loc });
      throw new QuireError('42P01', `missing FROM-clause entry for table "${qualifier}"`, { position: loc });
    }
  }
  // Inside a SQL function's body, names stop at the call site: the caller's columns are not the body's.
  const frame = cx.env.routineFrames?.at(-1);
  const stop = frame?.anchor;
  let scope: Scope | null = cx.scope;
  let levels = 0;
  while (scope !== null && scope !== stop) {
    const e = scope.findLocal(qualifier, name, loc);
    if (e !== undefined) return entryRef(e, levels, cx);
    scope = scope.parent;
    levels++;
  }
  if (frame !== undefined) {
    const p = routineParamByName(frame, names);
    if (p >= 0) return routineParam(frame, p, cx.scope, loc);
  }
  if (qualifier !== null) {
    let s: Scope | null = cx.scope;
    let known = false;
    while (s !== null) {
      if (s.hasQualifier(qualifier)) known = true;
      s = s.parent;
    }
    if (!known) throw new QuireError('42P01', `missing FROM-clause entry for table "${qualifier}"`, { position: loc });
    throw new QuireError('42703', `column ${qualifier}.${name} does not exist`, { position: loc });
  }
  // PostgreSQL reads a bare FROM-item name that is no column as the whole row: a record of its columns,
  // each resolved as `name.column` would be (so an outer FROM item's become outer references).
  let lv = 0;
  for (let s: Scope | null = cx.scope; s !== null && s !== stop; s = s.parent, lv++) {
    if (s.hasQualifier(name)) {
      const cols = s.entries.filter((e) => e.qualifier === name && e.name.charCodeAt(0) !== 0);
      return rowValue(cols.map((e) => entryRef(e, lv, cx)), cx);
    }
  }
  throw new QuireError('42703', `column "${name}" does not exist`, { position: loc });
}

/** A scope entry's value as seen `levels` query levels below its scope (outer references beyond 0). */
function entryRef(e: ScopeEntry, levels: number, cx: ExprCtx): Expr {
  if (levels === 0) return e.expr;
  let s: Scope | null = cx.scope;
  for (let i = 0; i < levels && s !== null; i++, s = s.parent) s.usesOuter = true;
  // A merged USING column may be an expression over the join's columns (a cast, a COALESCE).
  return mapExpr(e.expr, (x) => (x.kind === 'column' ? { kind: 'outer', levels, index: x.index, type: x.type, name: x.name, ...(x.table !== undefined ? { table: x.table } : {}) } : x));
}

const COMPARE_OPS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);

export function bindComparison(op: string, l: Expr, r: Expr, cx: ExprCtx, loc: number | undefined): Expr {
  const t = comparisonType(l.type, r.type);
  if (t === null) {
    throw new QuireError('42883', `operator does not exist: ${typeDisplayName(l.type)} ${op} ${typeDisplayName(r.type)}`, {
      position: pos(loc),
      hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const cop = (op === '!=' ? '<>' : op) as CompareOp;
  return { kind: 'compare', op: cop, left: comparand(l, t, cx, loc), right: comparand(r, t, cx, loc), type: T.bool };
}

/** One side of a comparison in the comparison's type; a date meets a timestamp without the cast's range check. */
function comparand(e: Expr, t: DataType, cx: ExprCtx, loc: number | undefined): Expr {
  if (e.type.name === 'date' && (t.name === 'timestamp' || t.name === 'timestamptz')) {
    const overload = t.name === 'timestamp' ? dateAsTimestampForComparison : dateAsTimestamptzForComparison;
    return { kind: 'call', name: t.name, overload, args: [e], type: t };
  }
  return coerce(e, t, 'implicit', cx.env, pos(loc));
}

function bindRowComparison(op: string, ln: Node, rn: Node, cx: ExprCtx, loc: number | undefined): Expr {
  return rowComparison(op, rowFields(ln, cx), rowFields(rn, cx), cx, loc);
}

/** ROW(…) IS [NOT] DISTINCT FROM ROW(…): field by field, never NULL. */
function bindRowDistinct(ln: Node, rn: Node, negated: boolean, cx: ExprCtx, loc: number | undefined): Expr {
  const la = rowFields(ln, cx);
  const ra = rowFields(rn, cx);
  if (la.length !== ra.length) throw new QuireError('42601', 'unequal number of entries in row expressions', { position: pos(loc) });
  const tests = la.map((l, i): Expr => {
    const c = bindComparison('=', l, ra[i]!, cx, loc) as Expr & { kind: 'compare' };
    return { kind: 'distinct-from', left: c.left, right: c.right, negated, type: T.bool };
  });
  if (tests.length === 0) return negated ? TRUE : FALSE;
  return tests.length === 1 ? tests[0]! : { kind: negated ? 'and' : 'or', args: tests, type: T.bool };
}

/** A row value: a record of the fields, untyped literals read as text (as PostgreSQL resolves them). */
function rowValue(fields: Expr[], cx: ExprCtx): Expr {
  const args = fields.map((f) => (f.type.name === 'unknown' ? coerce(f, T.text, 'implicit', cx.env) : f));
  return { kind: 'call', name: 'row', overload: rowConstructor, args, type: T.record };
}

function rowFields(n: Node, cx: ExprCtx): Expr[] {
  return ((nodeBody<AnyNode>(n).args as Node[] | undefined) ?? []).map((a) => bindExpr(a, cx));
}

/**
 * (a, b) [NOT] IN ((1, 'x'), (2, 'y')): PostgreSQL makes it the OR of the row equalities (each the AND of
 * its column equalities), so NULL fields give NULL under three-valued logic; NOT IN negates the OR.
 */
function bindRowInList(lnode: Node, items: Node[], negated: boolean, cx: ExprCtx, loc: number | undefined): Expr {
  const la = rowFields(lnode, cx);
  const alts = items.map((n) => {
    if (nodeTag(n) !== 'RowExpr') {
      const r = bindExpr(n, cx);
      throw new QuireError('42883', `operator does not exist: record = ${typeDisplayName(r.type)}`, {
        position: pos(loc),
        hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
      });
    }
    return rowComparison('=', la, rowFields(n, cx), cx, loc);
  });
  const any: Expr = alts.length === 1 ? alts[0]! : { kind: 'or', args: alts, type: T.bool };
  return negated ? { kind: 'not', arg: any, type: T.bool } : any;
}

function rowComparison(op: string, la: Expr[], ra: Expr[], cx: ExprCtx, loc: number | undefined): Expr {
  if (la.length !== ra.length) throw new QuireError('42601', 'unequal number of entries in row expressions', { position: pos(loc) });
  const eqs = la.map((l, i) => bindComparison('=', l, ra[i]!, cx, loc));
  if (op === '=') return { kind: 'and', args: eqs, type: T.bool };
  if (op === '<>' || op === '!=') return { kind: 'not', arg: { kind: 'and', args: eqs, type: T.bool }, type: T.bool };
  // Lexicographic: (a,b) < (c,d)  ≡  a < c OR (a = c AND b < d), with the last element using op itself.
  const strict = op === '<' || op === '<=' ? '<' : '>';
  let acc: Expr = bindComparison(op, la[la.length - 1]!, ra[ra.length - 1]!, cx, loc);
  for (let i = la.length - 2; i >= 0; i--) {
    acc = {
      kind: 'or',
      args: [bindComparison(strict, la[i]!, ra[i]!, cx, loc), { kind: 'and', args: [eqs[i]!, acc], type: T.bool }],
      type: T.bool,
    };
  }
  return acc;
}

function bindAExpr(b: AnyNode, cx: ExprCtx): Expr {
  const kind = b.kind as string;
  const op = strings(b.name as Node[]).pop() ?? '';
  const loc = b.location as number | undefined;
  const lnode = b.lexpr as Node | undefined;
  const rnode = b.rexpr as Node | undefined;
  switch (kind) {
    case 'AEXPR_OP': {
      if (lnode && rnode && nodeTag(lnode) === 'RowExpr' && nodeTag(rnode) === 'RowExpr' && COMPARE_OPS.has(op)) {
        return bindRowComparison(op, lnode, rnode, cx, loc);
      }
      if (lnode && rnode && nodeTag(lnode) === 'RowExpr' && nodeTag(rnode) === 'SubLink' && COMPARE_OPS.has(op)) {
        const sub = nodeBody<AnyNode>(rnode);
        if (sub.subLinkType === 'EXPR_SUBLINK') return bindRowCompareSubLink(op, lnode, sub, cx, loc);
      }
      if (!lnode) {
        const arg = bindExpr(rnode!, cx);
        if (op === '-') return bindOperator('neg', [arg], cx, loc, '-');
        if (op === '+') return arg;
        return bindOperator(op, [arg], cx, loc, op);
      }
      const l = bindExpr(lnode, cx);
      const r = bindExpr(rnode!, cx);
      if (COMPARE_OPS.has(op)) return bindComparison(op, l, r, cx, loc);
      return bindOperator(op, [l, r], cx, loc, op);
    }
    case 'AEXPR_DISTINCT':
    case 'AEXPR_NOT_DISTINCT': {
      if (nodeTag(lnode) === 'RowExpr' && nodeTag(rnode) === 'RowExpr') return bindRowDistinct(lnode!, rnode!, kind === 'AEXPR_NOT_DISTINCT', cx, loc);
      const l = bindExpr(lnode!, cx);
      const r = bindExpr(rnode!, cx);
      const c = bindComparison('=', l, r, cx, loc) as Expr & { kind: 'compare' };
      return { kind: 'distinct-from', left: c.left, right: c.right, negated: kind === 'AEXPR_NOT_DISTINCT', type: T.bool };
    }
    case 'AEXPR_NULLIF': {
      const l = bindExpr(lnode!, cx);
      const r = bindExpr(rnode!, cx);
      const c = bindComparison('=', l, r, cx, loc) as Expr & { kind: 'compare' };
      return { kind: 'nullif', left: c.left, right: c.right, type: c.left.type };
    }
    case 'AEXPR_IN': {
      const itemNodes = nodeBody<AnyNode>(rnode!).items as Node[];
      if (nodeTag(lnode) === 'RowExpr') return bindRowInList(lnode!, itemNodes, op === '<>', cx, loc);
      const arg = bindExpr(lnode!, cx);
      // A record value meets row constructors as records (record_eq); no other type has `= record`.
      if (arg.type.name !== 'record' && itemNodes.some((n) => nodeTag(n) === 'RowExpr')) {
        throw new QuireError('42883', `operator does not exist: ${typeDisplayName(arg.type)} = record`, {
          position: pos(loc),
          hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
        });
      }
      const items = itemNodes.map((n) => bindExpr(n, cx));
      const t = unifyTypes([arg.type, ...items.map((i) => i.type)], 'IN', pos(loc));
      return {
        kind: 'in-list',
        arg: coerce(arg, t, 'implicit', cx.env, pos(loc)),
        list: items.map((i) => coerce(i, t, 'implicit', cx.env, pos(loc))),
        negated: op === '<>',
        type: T.bool,
      };
    }
    case 'AEXPR_LIKE':
    case 'AEXPR_ILIKE': {
      const l = bindExpr(lnode!, cx);
      const r = bindExpr(rnode!, cx);
      return bindOperator(op, [l, r], cx, loc, op);
    }
    case 'AEXPR_SIMILAR': {
      // The parser already rewrote the pattern to pg_catalog.similar_to_escape(p[, e]); op is ~ or !~.
      const l = bindExpr(lnode!, cx);
      const r = bindExpr(rnode!, cx);
      return bindOperator(op, [l, r], cx, loc, op);
    }
    case 'AEXPR_BETWEEN':
    case 'AEXPR_NOT_BETWEEN':
    case 'AEXPR_BETWEEN_SYM':
    case 'AEXPR_NOT_BETWEEN_SYM': {
      const x = bindExpr(lnode!, cx);
      const [lo, hi] = (nodeBody<AnyNode>(rnode!).items as Node[]).map((n) => bindExpr(n, cx));
      const t = unifyTypes([x.type, lo!.type, hi!.type], 'BETWEEN', pos(loc));
      const xx = coerce(x, t, 'implicit', cx.env);
      const a = coerce(lo!, t, 'implicit', cx.env);
      const z = coerce(hi!, t, 'implicit', cx.env);
      const range = (p: Expr, q: Expr): Expr => ({
        kind: 'and',
        args: [
          { kind: 'compare', op: '>=', left: xx, right: p, type: T.bool },
          { kind: 'compare', op: '<=', left: xx, right: q, type: T.bool },
        ],
        type: T.bool,
      });
      let e = range(a, z);
      if (kind.includes('SYM')) e = { kind: 'or', args: [e, range(z, a)], type: T.bool };
      return kind.includes('NOT') ? { kind: 'not', arg: e, type: T.bool } : e;
    }
    case 'AEXPR_OP_ANY':
    case 'AEXPR_OP_ALL': {
      let l = bindExpr(lnode!, cx);
      const r = bindExpr(rnode!, cx);
      // 'a' = ANY('{a,b}'): both untyped, resolved as text as the operator would be.
      if (l.type.name === 'unknown' && r.type.name === 'unknown') l = coerce(l, T.text, 'implicit', cx.env);
      const cop = op === '!=' ? '<>' : op;
      if (!COMPARE_OPS.has(cop)) {
        throw new QuireError('0A000', `ANY/ALL over arrays is only supported for comparison operators, not ${op}`, { position: pos(loc) });
      }
      if (!isArrayType(r.type) && r.type.name !== 'unknown') {
        throw new QuireError('42809', `op ANY/ALL (array) requires array on right side`, { position: pos(loc) });
      }
      const quant = kind === 'AEXPR_OP_ANY' ? 'any' : 'all';
      return bindOperator(`${cop} ${quant}`, [l, r], cx, loc, `${op} ${quant.toUpperCase()}`);
    }
    default:
      throw new QuireError('0A000', `operator kind ${kind} is not supported`, { position: pos(loc) });
  }
}

// ---- function and operator resolution ----


function argMatches(p: ArgType, a: DataType): 'exact' | 'binary' | 'coerce' | null {
  if (p === 'anynonarray') return isArrayType(a) ? null : 'exact';
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

function bindCase(b: AnyNode, cx: ExprCtx): Expr {
  const loc = b.location as number | undefined;
  const operand = b.arg ? bindExpr(b.arg as Node, cx) : null;
  const whens = (b.args as Node[]).map((w) => {
    const wb = nodeBody<AnyNode>(w);
    let cond = bindExpr(wb.expr as Node, cx);
    if (operand !== null) cond = bindComparison('=', operand, cond, cx, wb.location as number);
    else cond = coerceBool(cond, cx, 'argument of CASE/WHEN', locOf(wb.expr as Node));
    return { when: cond, then: bindExpr(wb.result as Node, cx) };
  });
  const els = b.defresult ? bindExpr(b.defresult as Node, cx) : constExpr(null, T.unknown);
  const t = unifyTypes([...whens.map((w) => w.then.type), els.type], 'CASE', pos(loc));
  return {
    kind: 'case',
    whens: whens.map((w) => ({ when: w.when, then: coerce(w.then, t, 'implicit', cx.env, pos(loc)) })),
    else: coerce(els, t, 'implicit', cx.env, pos(loc)),
    type: t,
  };
}

function bindSqlValueFunction(b: AnyNode, cx: ExprCtx): Expr {
  const op = b.op as string;
  const call = (name: string): Expr => bindFunctionByName(name, [], cx, b.location as number);
  switch (op) {
    case 'SVFOP_CURRENT_DATE':
      return call('current_date');
    case 'SVFOP_CURRENT_TIMESTAMP':
    case 'SVFOP_CURRENT_TIMESTAMP_N':
      return call('now');
    case 'SVFOP_LOCALTIMESTAMP':
    case 'SVFOP_LOCALTIMESTAMP_N':
      return coerce(call('now'), T.timestamp, 'explicit', cx.env);
    case 'SVFOP_CURRENT_TIME':
    case 'SVFOP_CURRENT_TIME_N':
    case 'SVFOP_LOCALTIME':
    case 'SVFOP_LOCALTIME_N': {
      // The transaction start's time of day in the session zone, rounded to the precision if given.
      const name = op.startsWith('SVFOP_CURRENT') ? 'timetz' : 'time';
      const typmod = op.endsWith('_N') ? Math.min(typeof b.typmod === 'number' ? b.typmod : 0, 6) : -1;
      return coerce(call('now'), type(name, typmod), 'explicit', cx.env);
    }
    case 'SVFOP_CURRENT_USER':
    case 'SVFOP_USER':
    case 'SVFOP_SESSION_USER':
    case 'SVFOP_CURRENT_ROLE':
      return constExpr('quire', T.text);
    case 'SVFOP_CURRENT_CATALOG':
      return call('current_database');
    case 'SVFOP_CURRENT_SCHEMA':
      return call('current_schema');
    default:
      throw new QuireError('0A000', `${op} is not supported`, { position: pos(b.location as number) });
  }
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

function bindFunctionByName(name: string, args: Expr[], cx: ExprCtx, loc: number | undefined): Expr {
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

function bindFuncCall(b: AnyNode, cx: ExprCtx): Expr {
  const name = funcName(b, cx);
  const loc = b.location as number | undefined;
  const argNodes = (b.args as Node[] | undefined) ?? [];
  const userFns = cx.env.routines?.functions.get(name) ?? (lookupScalar(name) === undefined ? internalFunctions(name) : undefined);
  if (userFns !== undefined && !b.over && !b.agg_within_group) return bindRoutineCall(name, userFns, b, cx);
  if (cx.env.routines?.aggregates.has(name) && !b.agg_within_group && !isAggregateName(name)) {
    if (b.over) throw new QuireError('0A000', `user-defined aggregate ${name} cannot be used as a window function`, { position: pos(loc) });
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
  if (b.func_variadic) {
    // Without array-typed variadic support the array would count as one argument: num_nulls(VARIADIC
    // ARRAY[NULL, 1]) would say 0 and concat would print the array, so refuse rather than mis-answer.
    throw new QuireError('0A000', 'VARIADIC in function calls is not supported', { position: pos(loc) });
  }
  const args = argNodes.some((a) => nodeTag(a) === 'NamedArgExpr') ? namedNotation(name, argNodes, cx, loc) : argNodes.map((a) => bindExpr(a, cx));
  if (name === 'pg_typeof') {
    // regtype output names the type without its modifier.
    return constExpr(args[0]!.type.name === 'unknown' ? 'unknown' : typeDisplayName(type(args[0]!.type.name)), T.text);
  }
  return bindFunctionByName(name, args, cx, loc);
}

function checkAggPlacement(name: string, cx: ExprCtx, loc: number | undefined, window: boolean): void {
  const what = window ? 'window functions' : 'aggregate functions';
  if (cx.inAggregate) {
    throw new QuireError(window ? '42803' : '42803', window ? 'aggregate function calls cannot contain window function calls' : 'aggregate function calls cannot be nested', { position: pos(loc) });
  }
  if (cx.inWindow && window) throw new QuireError('42P20', 'window function calls cannot be nested', { position: pos(loc) });
  if ((window ? cx.windows : cx.aggs) === null) {
    throw new QuireError(window ? '42P20' : '42803', `${what} are not allowed in ${cx.clause}`, { position: pos(loc) });
  }
  void name;
}

function bindAggregate(name: string, b: AnyNode, cx: ExprCtx): Expr {
  const loc = b.location as number | undefined;
  // The query level the aggregate belongs to is known only once its arguments are bound, so placement
  // is checked afterwards (nesting at this level is still caught while binding them).
  if (cx.inAggregate) throw new QuireError('42803', 'aggregate function calls cannot be nested', { position: pos(loc) });
  const inner: ExprCtx = { ...cx, inAggregate: true, windows: null, clause: 'aggregate function arguments' };
  const argNodes = (b.args as Node[] | undefined) ?? [];
  // count((a, b)) / count(DISTINCT (a, b)): a row value is never NULL, so every row counts, and DISTINCT
  // compares the fields (NULLs equal, as record_eq). It becomes the internal row count over the fields
  // (ROW() gets one constant field, so DISTINCT has something to compare).
  const rowCount = name === 'count' && !b.agg_star && argNodes.length === 1 && nodeTag(argNodes[0]) === 'RowExpr';
  let args = b.agg_star ? [] : rowCount ? rowFields(argNodes[0]!, inner) : argNodes.map((a) => bindExpr(a, inner));
  if (rowCount && args.length === 0) args = [constExpr(true, T.bool)];
  const aggName = rowCount ? ROW_COUNT_AGGREGATE : name;
  const unequal = b.agg_distinct ? args.find((a) => hasNoEquality(a.type)) : undefined;
  if (unequal !== undefined) throw new QuireError('42883', `could not identify an equality operator for type ${typeDisplayName(unequal.type)}`, { position: pos(loc) });
  const call = resolveAggregate(aggName, args, cx, loc);
  const filter = b.agg_filter
    ? coerceBool(bindExpr(b.agg_filter as Node, { ...cx, aggs: null, windows: null, clause: 'FILTER' }), cx, 'argument of FILTER', locOf(b.agg_filter as Node))
    : null;
  const orderBy = ((b.agg_order as Node[] | undefined) ?? []).map((s) => bindSortBy(s, inner));
  // PostgreSQL compares the sort expressions with the arguments as written, before they are coerced to
  // the aggregate's parameter types: ORDER BY f1 matches DISTINCT f1 (varchar), ORDER BY f1::text does not.
  const sameAsArg = (k: SortKey): boolean => args.some((a) => exprEquals(a, k.expr) && a.type.name === k.expr.type.name);
  if (b.agg_distinct && orderBy.some((k) => !sameAsArg(k))) {
    throw new QuireError('42P10', 'in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list', { position: pos(loc) });
  }
  // Arguments are computed only for rows the FILTER admits (1/x FILTER (WHERE x <> 0) must not fail);
  // every aggregate here ignores NULL inputs, so a CASE that yields NULL elsewhere is equivalent.
  const guarded = filter === null ? call.args : call.args.map((a): Expr => ({ kind: 'case', whens: [{ when: filter, then: a }], else: { kind: 'const', value: null, type: a.type }, type: a.type }));
  const agg: AggCall = { name: aggName, args: guarded, argTypes: call.args.map((a) => a.type), distinct: b.agg_distinct === true, filter, orderBy, type: call.type, ...(call.user ? { user: call.user } : {}) };
  return placeAggregate(name, agg, [...call.args, ...(filter ? [filter] : []), ...orderBy.map((k) => k.expr)], cx, loc);
}

/** The nearest query levels (0 = this one) whose columns, and whose aggregates, the expressions read. */
function levelsRead(parts: readonly Expr[]): { varLevel: number; aggLevel: number } {
  let varLevel = Infinity;
  let aggLevel = Infinity;
  for (const p of parts) {
    mapExprDeep(p, (x, depth) => {
      if (x.kind === 'column' && depth === 0) varLevel = 0;
      else if (x.kind === 'outer' && x.levels >= depth) {
        const rel = x.levels - depth;
        if (isAggIndex(x.index)) aggLevel = Math.min(aggLevel, rel);
        else varLevel = Math.min(varLevel, rel);
      }
      return x;
    });
  }
  return { varLevel, aggLevel };
}

/** Maps an expression bottom-up, descending into its sub-SELECTs; `depth` counts the sub-SELECT levels entered. */
function mapExprDeep(e: Expr, f: (x: Expr, depth: number) => Expr): Expr {
  return mapExpr(e, (x) => f(x.kind === 'subquery' ? { ...x, plan: mapPlanExprs(x.plan, 1, f) } : x, 0));
}

const isAggIndex = (i: number): boolean => i >= AGG_BASE && i < WIN_BASE;

/**
 * Adds a bound aggregate to the query level it belongs to and returns its placeholder. As in PostgreSQL,
 * that is the nearest level whose columns (or aggregates) its arguments, FILTER and ORDER BY read — this
 * level when they read none: max(o.x) in a sub-SELECT aggregates over the enclosing query's rows and is
 * a constant for the sub-SELECT. It is an error to put it where that level allows no aggregates, or
 * inside another aggregate of that level.
 */
function placeAggregate(name: string, agg: AggCall, parts: Expr[], cx: ExprCtx, loc: number | undefined, direct: Expr[] = []): Expr {
  const { varLevel, aggLevel } = levelsRead(parts);
  const level = Math.min(varLevel, aggLevel) === Infinity ? 0 : Math.min(varLevel, aggLevel);
  if (aggLevel === level) throw new QuireError('42803', 'aggregate function calls cannot be nested', { position: pos(loc) });
  // An ordered-set aggregate's level comes from its aggregated arguments alone; its direct arguments
  // are evaluated once per group of that level, so they cannot read a deeper level's rows.
  const d = levelsRead(direct);
  if (d.varLevel < level) {
    throw new QuireError('42803', 'outer-level aggregate cannot contain a lower-level variable in its direct arguments', { position: pos(loc) });
  }
  if (d.aggLevel <= level) throw new QuireError('42803', 'aggregate function calls cannot be nested', { position: pos(loc) });
  if (level === 0) {
    checkAggPlacement(name, cx, loc, false);
    cx.aggs!.calls.push(agg);
    return { kind: 'column', index: AGG_BASE + cx.aggs!.calls.length - 1, type: agg.type, name };
  }
  let owner: Scope | null = cx.scope;
  for (let i = 0; i < level && owner !== null; i++) owner = owner.parent;
  const target = owner?.subqueryCx ?? null;
  if (target === null) {
    throw new QuireError('0A000', `aggregate ${name}() over columns of an outer query only is not supported here`, { position: pos(loc) });
  }
  if (target.inAggregate) throw new QuireError('42803', 'aggregate function calls cannot be nested', { position: pos(loc) });
  if (target.aggs === null) throw new QuireError('42803', `aggregate functions are not allowed in ${target.clause}`, { position: pos(loc) });
  // Re-express the aggregate's inputs from the owning level: its columns become local, deeper ones stay outer.
  const lift = (e: Expr): Expr =>
    mapExprDeep(e, (x, depth) => {
      if (x.kind !== 'outer' || x.levels < depth + level) return x;
      if (x.levels === level && depth === 0) return { kind: 'column', index: x.index, type: x.type, name: x.name };
      return { ...x, levels: x.levels - level };
    });
  const lifted: AggCall = {
    ...agg,
    args: agg.args.map(lift),
    filter: agg.filter === null ? null : lift(agg.filter),
    orderBy: agg.orderBy.map((k) => ({ ...k, expr: lift(k.expr) })),
  };
  target.aggs.calls.push(lifted);
  let s: Scope | null = cx.scope;
  for (let i = 0; i < level && s !== null; i++, s = s.parent) s.usesOuter = true;
  return { kind: 'outer', levels: level, index: AGG_BASE + target.aggs.calls.length - 1, type: agg.type, name };
}

/**
 * percentile_cont(0.5) WITHIN GROUP (ORDER BY x) and rank(3) WITHIN GROUP (ORDER BY x): an aggregate over
 * the direct arguments followed by the ordered ones, whose input the aggregate operator sorts by the
 * WITHIN GROUP keys (as for any aggregate with ORDER BY).
 */
function bindOrderedSetAggregate(name: string, b: AnyNode, cx: ExprCtx): Expr {
  const loc = b.location as number | undefined;
  if (cx.inAggregate) throw new QuireError('42803', 'aggregate function calls cannot be nested', { position: pos(loc) });
  const fn = lookupAggregate(name)!;
  const inner: ExprCtx = { ...cx, inAggregate: true, windows: null, clause: 'aggregate function arguments' };
  let direct = ((b.args as Node[] | undefined) ?? []).map((a) => bindExpr(a, inner));
  let orderBy = ((b.agg_order as Node[] | undefined) ?? []).map((s) => bindSortBy(s, inner));
  if (fn.withinGroup === 'hypothetical' && direct.length === orderBy.length) {
    // Each hypothetical value and its ordered column resolve to one type, as UNION branches do.
    // The aggregated argument comes first, as PostgreSQL prefers its type (and names it first in errors).
    const types = direct.map((d, i) => unifyTypes([orderBy[i]!.expr.type, d.type], 'WITHIN GROUP', pos(loc)));
    direct = direct.map((d, i) => coerce(d, types[i]!, 'implicit', cx.env, pos(loc)));
    orderBy = orderBy.map((k, i) => ({ ...k, expr: coerce(k.expr, types[i]!, 'implicit', cx.env, pos(loc)) }));
  }
  // An untyped direct argument takes the function's type (percentile_cont(NULL) is float8); ordered ones default to text.
  const typed = [...direct, ...orderBy.map((k) => (k.expr.type.name === 'unknown' ? coerce(k.expr, T.text, 'implicit', cx.env) : k.expr))];
  const order = orderBy.map((k) => ({ desc: k.desc, nullsFirst: k.nullsFirst }));
  const r = fn.resolve(typed.map((a) => a.type), { direct: direct.length, order, directValues: [] });
  if (r === null) {
    throw new QuireError('42883', `function ${name}(${typed.map((a) => typeDisplayName(type(a.type.name))).join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const args = typed.map((a, i) => coerce(a, r.argTypes[i] ?? a.type, 'implicit', cx.env, pos(loc)));
  const filter = b.agg_filter
    ? coerceBool(bindExpr(b.agg_filter as Node, { ...cx, aggs: null, windows: null, clause: 'FILTER' }), cx, 'argument of FILTER', locOf(b.agg_filter as Node))
    : null;
  // The ordered arguments are also the sort keys, coerced like the arguments.
  const keys = orderBy.map((k, i) => ({ ...k, expr: args[direct.length + i]! }));
  const guarded = filter === null ? args : args.map((a): Expr => ({ kind: 'case', whens: [{ when: filter, then: a }], else: { kind: 'const', value: null, type: a.type }, type: a.type }));
  const agg: AggCall = { name, args: guarded, argTypes: args.map((a) => a.type), distinct: false, filter, orderBy: keys, type: r.returnType, withinGroup: { direct: direct.length, order } };
  return placeAggregate(name, agg, [...args.slice(direct.length), ...(filter ? [filter] : [])], cx, loc, args.slice(0, direct.length));
}

function resolveAggregate(name: string, args: Expr[], cx: ExprCtx, loc: number | undefined): { args: Expr[]; type: DataType; user?: UserAggregateSpec } {
  const defs = isAggregateName(name) ? undefined : cx.env.routines?.aggregates.get(name);
  if (defs !== undefined) return resolveUserAggregate(name, defs, args, cx, loc);
  const fn = lookupAggregate(name)!;
  // Untyped literals take the type all the typed arguments share (string_agg(bytea, '') is bytea's,
  // as PostgreSQL's candidate selection finds), else text.
  const known = args.filter((a) => a.type.name !== 'unknown');
  const shared = known.length > 0 && known.every((a) => a.type.name === known[0]!.type.name) ? T[known[0]!.type.name] : T.text;
  const typed = args.map((a) => (a.type.name === 'unknown' ? coerce(a, shared, 'implicit', cx.env) : a));
  const r = fn.resolve(typed.map((a) => a.type));
  if (r === null) {
    throw new QuireError('42883', `function ${name}(${typed.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const wrapped = typed.map((a, i) => {
    const f = r.wrapArgs?.[i];
    return f ? bindOperator(f, [a], cx, loc, f) : a;
  });
  return { args: wrapped.map((a, i) => coerce(a, r.argTypes[i] ?? a.type, 'implicit', cx.env, pos(loc))), type: r.returnType };
}

export function bindSortBy(s: Node, cx: ExprCtx, target?: (n: Node) => Expr | undefined): SortKey {
  const sb = nodeBody<AnyNode>(s);
  const expr = (target && target(sb.node as Node)) ?? bindExpr(sb.node as Node, cx);
  const dir = sb.sortby_dir as string;
  let desc = dir === 'SORTBY_DESC';
  if (dir === 'SORTBY_USING') {
    // Only the ordering operators of the built-in types make sense here: < is ASC, > is DESC.
    const op = strings(sb.useOp as Node[]).pop();
    if (op === '<' || op === '<=') desc = false;
    else if (op === '>' || op === '>=') desc = true;
    else throw new QuireError('42809', `operator ${op ?? '?'} is not a valid ordering operator`, { position: pos(locOf(sb.node as Node)), hint: 'Ordering operators must be "<" or ">" members of btree operator families.' });
  }
  const nulls = sb.sortby_nulls as string;
  // PostgreSQL: NULLs sort as larger than everything, so they come last ascending and first descending.
  const nullsFirst = nulls === 'SORTBY_NULLS_FIRST' ? true : nulls === 'SORTBY_NULLS_LAST' ? false : desc;
  if (hasNoEquality(expr.type)) {
    throw new QuireError('42883', `could not identify an ordering operator for type ${typeDisplayName(expr.type)}`, {
      position: pos(locOf(sb.node as Node)),
      hint: 'Use an explicit ordering operator or modify the query.',
    });
  }
  return { expr: expr.type.name === 'unknown' ? coerce(expr, T.text, 'implicit', cx.env) : expr, desc, nullsFirst };
}

// ---- window calls ----

const FRAME = {
  NONDEFAULT: 0x1,
  RANGE: 0x2,
  ROWS: 0x4,
  GROUPS: 0x8,
  BETWEEN: 0x10,
  START_UNBOUNDED_PRECEDING: 0x20,
  END_UNBOUNDED_PRECEDING: 0x40,
  START_UNBOUNDED_FOLLOWING: 0x80,
  END_UNBOUNDED_FOLLOWING: 0x100,
  START_CURRENT_ROW: 0x200,
  END_CURRENT_ROW: 0x400,
  START_OFFSET_PRECEDING: 0x800,
  END_OFFSET_PRECEDING: 0x1000,
  START_OFFSET_FOLLOWING: 0x2000,
  END_OFFSET_FOLLOWING: 0x4000,
  EXCLUDE_CURRENT_ROW: 0x8000,
  EXCLUDE_GROUP: 0x10000,
  EXCLUDE_TIES: 0x20000,
};

function resolveWindowDef(def: AnyNode, cx: ExprCtx, loc: number | undefined): AnyNode {
  // OVER w or OVER (w ORDER BY …): start from the named window and refine it, as PostgreSQL allows.
  const ref = (def.refname as string | undefined) ?? (def.name as string | undefined);
  if (ref === undefined || (def.name !== undefined && def.refname === undefined && def.partitionClause === undefined && def.orderClause === undefined && def.frameOptions === undefined && false)) return def;
  const base = cx.windows?.named.get(ref);
  if (base === undefined) {
    if (def.refname === undefined && def.name !== undefined && (def.partitionClause || def.orderClause)) return def;
    throw new QuireError('42704', `window "${ref}" does not exist`, { position: pos(loc) });
  }
  const resolvedBase = resolveWindowDef({ ...base, name: undefined }, cx, loc);
  if (def.refname === undefined) return resolvedBase; // OVER w
  if (def.partitionClause) throw new QuireError('42P20', `cannot override PARTITION BY clause of window "${ref}"`, { position: pos(loc) });
  if (def.orderClause && resolvedBase.orderClause) throw new QuireError('42P20', `cannot override ORDER BY clause of window "${ref}"`, { position: pos(loc) });
  const baseFrame = (resolvedBase.frameOptions as number | undefined) ?? 0;
  if (baseFrame & FRAME.NONDEFAULT) throw new QuireError('42P20', `cannot copy window "${ref}" because it has a frame clause`, { position: pos(loc) });
  return {
    partitionClause: resolvedBase.partitionClause,
    orderClause: def.orderClause ?? resolvedBase.orderClause,
    frameOptions: def.frameOptions,
    startOffset: def.startOffset,
    endOffset: def.endOffset,
  };
}

function isIntegerTypeName(t: string): boolean {
  return t === 'int2' || t === 'int4' || t === 'int8';
}

function bindFrameOffset(n: Node, cx: ExprCtx, units: 'rows' | 'range' | 'groups', orderBy: SortKey[], loc: number | undefined): Expr {
  const inner: ExprCtx = { ...cx, clause: 'window frame offsets', aggs: null, windows: null };
  let e = bindExpr(n, inner);
  // A correlated subquery reads this query's (or an outer query's) columns: variables too.
  if (someExpr(e, (x) => x.kind === 'column' || x.kind === 'outer' || (x.kind === 'subquery' && x.correlated))) {
    throw new QuireError('42P10', 'argument of ' + units.toUpperCase() + ' must not contain variables', { position: pos(locOf(n)) });
  }
  if (units === 'range') {
    if (orderBy.length !== 1) {
      throw new QuireError('42P20', 'RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column', { position: pos(loc) });
    }
    const kt = orderBy[0]!.expr.type;
    // PostgreSQL's in_range support functions: integer keys take any integer offset (in_range_int4_int8 …),
    // float keys a float8 offset, numeric a numeric one, datetime and interval keys an interval.
    const want: DataType =
      kt.name === 'int2' || kt.name === 'int4' || kt.name === 'int8'
        ? isIntegerTypeName(e.type.name) ? T.int8 : kt
        : kt.name === 'float4' || kt.name === 'float8'
          ? T.float8
          : isNumericType(kt)
            ? stripMod(kt)
            : category(kt) === 'D' || kt.name === 'interval'
              ? T.interval
              : kt;
    if (!isNumericType(kt) && category(kt) !== 'D' && kt.name !== 'interval') {
      // varchar sorts with text's operators, so PostgreSQL names text here.
      const shown = kt.name === 'varchar' ? T.text : kt;
      throw new QuireError('0A000', `RANGE with offset PRECEDING/FOLLOWING is not supported for column type ${typeDisplayName(shown)}`, { position: pos(locOf(n)) });
    }
    if (e.type.name === 'unknown' || canCoerce(e.type, want, 'implicit')) e = coerce(e, want, 'implicit', cx.env, pos(locOf(n)));
    else {
      throw new QuireError('0A000', `RANGE with offset PRECEDING/FOLLOWING is not supported for column type ${typeDisplayName(kt)} and offset type ${typeDisplayName(e.type)}`, { position: pos(locOf(n)) });
    }
    return e;
  }
  return coerce(e, T.int8, 'implicit', cx.env, pos(locOf(n)), `argument of ${units.toUpperCase()}`);
}

export function bindWindowSpec(rawDef: AnyNode, cx: ExprCtx, callLoc: number | undefined): WindowSpec {
  const def = resolveWindowDef(rawDef, cx, callLoc);
  // Frame errors point at the window definition, as PostgreSQL's do.
  const loc = (rawDef.location as number | undefined) ?? callLoc;
  // Window functions inside PARTITION BY / ORDER BY of an OVER clause: PostgreSQL's message names the clause.
  const inner: ExprCtx = { ...cx, windows: null, inWindow: false, clause: 'window definitions' };
  const partitionBy = ((def.partitionClause as Node[] | undefined) ?? []).map((n) => {
    const e = bindExpr(n, inner);
    if (hasNoEquality(e.type)) throw new QuireError('42883', `could not identify an equality operator for type ${typeDisplayName(e.type)}`, { position: pos(locOf(n)) });
    return e.type.name === 'unknown' ? coerce(e, T.text, 'implicit', cx.env) : e;
  });
  const orderBy = ((def.orderClause as Node[] | undefined) ?? []).map((s) => bindSortBy(s, inner));
  const opts = (def.frameOptions as number | undefined) ?? 0;
  let frame: Frame;
  if (!(opts & FRAME.NONDEFAULT)) {
    frame = { units: 'range', start: { kind: 'unbounded-preceding' }, end: { kind: 'current-row' }, exclude: 'no-others' };
  } else {
    const units = opts & FRAME.ROWS ? 'rows' : opts & FRAME.GROUPS ? 'groups' : 'range';
    if (units === 'groups' && orderBy.length === 0) {
      throw new QuireError('42P20', 'GROUPS mode requires an ORDER BY clause', { position: pos(loc) });
    }
    const bound = (which: 'START' | 'END'): FrameBound => {
      const f = (k: string): boolean => (opts & (FRAME as Record<string, number>)[`${which}_${k}`]!) !== 0;
      if (f('UNBOUNDED_PRECEDING')) return { kind: 'unbounded-preceding' };
      if (f('UNBOUNDED_FOLLOWING')) return { kind: 'unbounded-following' };
      if (f('CURRENT_ROW')) return { kind: 'current-row' };
      const off = (which === 'START' ? def.startOffset : def.endOffset) as Node;
      const offset = bindFrameOffset(off, inner, units, orderBy, loc);
      return { kind: f('OFFSET_PRECEDING') ? 'preceding' : 'following', offset };
    };
    const start = bound('START');
    const end = bound('END');
    if (start.kind === 'unbounded-following') throw new QuireError('42P20', 'frame start cannot be UNBOUNDED FOLLOWING', { position: pos(loc) });
    if (end.kind === 'unbounded-preceding') throw new QuireError('42P20', 'frame end cannot be UNBOUNDED PRECEDING', { position: pos(loc) });
    if (start.kind === 'current-row' && end.kind === 'preceding') throw new QuireError('42P20', 'frame starting from current row cannot have preceding rows', { position: pos(loc) });
    if (start.kind === 'following' && (end.kind === 'preceding' || end.kind === 'current-row')) {
      throw new QuireError('42P20', 'frame starting from following row cannot have preceding rows', { position: pos(loc) });
    }
    const exclude = opts & FRAME.EXCLUDE_CURRENT_ROW ? 'current-row' : opts & FRAME.EXCLUDE_GROUP ? 'group' : opts & FRAME.EXCLUDE_TIES ? 'ties' : 'no-others';
    frame = { units, start, end, exclude };
  }
  return { partitionBy, orderBy, frame };
}

function bindWindowCall(name: string, b: AnyNode, cx: ExprCtx): Expr {
  const loc = b.location as number | undefined;
  checkAggPlacement(name, cx, loc, true);
  const spec = bindWindowSpec(b.over as AnyNode, cx, loc);
  const inner: ExprCtx = { ...cx, inWindow: true, clause: 'window function arguments' };
  let args = b.agg_star ? [] : ((b.args as Node[] | undefined) ?? []).map((a) => bindExpr(a, inner));
  // FILTER is its own expression kind in PostgreSQL: no aggregates or window functions inside, over a window too.
  const filterCx: ExprCtx = { ...cx, aggs: null, windows: null, clause: 'FILTER' };
  const filter = b.agg_filter ? coerceBool(bindExpr(b.agg_filter as Node, filterCx), cx, 'argument of FILTER', locOf(b.agg_filter as Node)) : null;
  if ((b.agg_order as Node[] | undefined)?.length) {
    throw new QuireError('0A000', 'aggregate ORDER BY is not implemented for window functions', { position: pos(loc) });
  }
  let type: DataType;
  if (isAggregateName(name) && !isWindowFunctionName(name)) {
    if (!b.agg_star && args.length === 0 && name === 'count') {
      throw new QuireError('42809', 'count(*) must be used to call a parameterless aggregate function', { position: pos(loc) });
    }
    if (b.agg_distinct) throw new QuireError('0A000', 'DISTINCT is not implemented for window functions', { position: pos(loc) });
    const r = resolveAggregate(name, args, cx, loc);
    args = r.args;
    type = r.type;
  } else if (isWindowFunctionName(name)) {
    if (b.agg_distinct) throw new QuireError('42601', `DISTINCT specified, but ${name} is not an aggregate function`, { position: pos(loc) });
    if (filter) throw new QuireError('0A000', 'FILTER is not implemented for non-aggregate window functions', { position: pos(loc) });
    const r = windowFunctionType(name, args, (e, t) => coerce(e, t, 'implicit', cx.env, pos(loc)), loc);
    args = r.args;
    type = r.type;
  } else {
    const isScalar = lookupScalar(name) !== undefined || lookupTableFunction(name) !== undefined;
    throw new QuireError(isScalar ? '42809' : '42883', isScalar ? `OVER specified, but ${name} is not a window function nor an aggregate function` : `function ${name} does not exist`, { position: pos(loc) });
  }
  const call: WindowCall = {
    name,
    args,
    argTypes: args.map((a) => a.type),
    distinct: false,
    filter,
    ignoreNulls: b.null_treatment === 'IGNORE_NULLS',
    fromLast: false,
    spec,
    type,
  };
  cx.windows!.calls.push(call);
  return { kind: 'column', index: WIN_BASE + cx.windows!.calls.length - 1, type, name };
}

// ---- subqueries ----

/** Binds a sub-SELECT of this level; an aggregate in it over this level's columns only comes back here. */
function bindSubselect(b: AnyNode, cx: ExprCtx): { plan: LogicalPlan; correlated: boolean } {
  const saved = cx.scope.subqueryCx;
  cx.scope.subqueryCx = cx;
  try {
    return cx.env.bindSubquery(b.subselect as Node, cx.scope);
  } finally {
    cx.scope.subqueryCx = saved;
  }
}

/**
 * (a, b) < (SELECT x, y …): the sub-SELECT gives at most one row (none compares as a row of NULLs), whose
 * fields are compared as a row constructor's. Each field is read by a scalar sub-SELECT of its own over
 * the same plan, which reads the same row each time unless the plan holds a volatile call (refused).
 */
function bindRowCompareSubLink(op: string, ln: Node, sub: AnyNode, cx: ExprCtx, loc: number | undefined): Expr {
  const { plan, correlated } = bindSubselect(sub, cx);
  let volatile = false;
  mapPlanExprs(plan, 0, (x) => {
    if (x.kind === 'call' && x.overload.volatile === true) volatile = true;
    return x;
  });
  if (volatile) throw new QuireError('0A000', 'row comparison with a sub-SELECT that calls volatile functions is not supported', { position: pos(loc) });
  const la = rowFields(ln, cx);
  if (la.length !== plan.schema.length) {
    throw new QuireError('42601', la.length < plan.schema.length ? 'subquery has too many columns' : 'subquery has too few columns', { position: pos(loc) });
  }
  const ra = plan.schema.map((f, j): Expr => {
    const one: LogicalPlan = { op: 'project', input: plan, exprs: [{ kind: 'column', index: j, type: f.type, name: f.name }], schema: [f] };
    return { kind: 'subquery', mode: 'scalar', plan: one, correlated, type: f.type.name === 'unknown' ? T.text : f.type };
  });
  return rowComparison(op, la, ra, cx, loc);
}

function bindSubLink(b: AnyNode, cx: ExprCtx): Expr {
  const kind = b.subLinkType as string;
  const loc = b.location as number | undefined;
  const { plan, correlated } = bindSubselect(b, cx);
  switch (kind) {
    case 'EXISTS_SUBLINK':
      return { kind: 'subquery', mode: 'exists', plan, correlated, type: T.bool };
    case 'EXPR_SUBLINK': {
      if (plan.schema.length !== 1) throw new QuireError('42601', 'subquery must return only one column', { position: pos(loc) });
      return { kind: 'subquery', mode: 'scalar', plan, correlated, type: plan.schema[0]!.type.name === 'unknown' ? T.text : plan.schema[0]!.type };
    }
    case 'ANY_SUBLINK':
    case 'ALL_SUBLINK': {
      const opName = strings(b.operName as Node[] | undefined).pop() ?? '=';
      const test = b.testexpr as Node;
      if (nodeTag(test) === 'RowExpr') {
        // (a, b) IN (SELECT x, y …): column-wise equality under three-valued logic.
        const items = (nodeBody<AnyNode>(test).args as Node[]).map((n) => bindExpr(n, cx));
        if (items.length !== plan.schema.length) {
          throw new QuireError('42601', items.length < plan.schema.length ? 'subquery has too many columns' : 'subquery has too few columns', { position: pos(loc) });
        }
        if (opName !== '=' && opName !== '<>') throw new QuireError('0A000', `row comparison with ${opName} ${kind === 'ANY_SUBLINK' ? 'ANY' : 'ALL'} is not supported`, { position: pos(loc) });
        const types = items.map((it, i) => {
          const t = comparisonType(it.type, plan.schema[i]!.type);
          if (t === null) throw new QuireError('42883', `operator does not exist: ${typeDisplayName(it.type)} = ${typeDisplayName(plan.schema[i]!.type)}`, { position: pos(loc) });
          return t;
        });
        let p = plan;
        if (types.some((t, i) => t.name !== plan.schema[i]!.type.name)) {
          p = {
            op: 'project',
            input: plan,
            exprs: plan.schema.map((f, i) => coerce({ kind: 'column', index: i, type: f.type, name: f.name }, types[i]!, 'implicit', cx.env)),
            schema: plan.schema.map((f, i) => ({ name: f.name, type: types[i]! })),
          };
        }
        return {
          kind: 'subquery',
          mode: kind === 'ANY_SUBLINK' ? 'any' : 'all',
          plan: p,
          rowArgs: items.map((it, i) => coerce(it, types[i]!, 'implicit', cx.env)),
          op: opName as CompareOp,
          correlated,
          type: T.bool,
        };
      }
      if (plan.schema.length !== 1) throw new QuireError('42601', plan.schema.length > 1 ? 'subquery has too many columns' : 'subquery has too few columns', { position: pos(loc) });
      const left = bindExpr(b.testexpr as Node, cx);
      const st = plan.schema[0]!.type;
      const t = comparisonType(left.type, st);
      if (t === null || !COMPARE_OPS.has(opName)) {
        throw new QuireError('42883', `operator does not exist: ${typeDisplayName(left.type)} ${opName} ${typeDisplayName(st)}`, { position: pos(loc) });
      }
      const op = (opName === '!=' ? '<>' : opName) as CompareOp;
      let p = plan;
      if (st.name !== t.name) {
        const colExpr: Expr = { kind: 'column', index: 0, type: st, name: plan.schema[0]!.name };
        p = { op: 'project', input: plan, exprs: [coerce(colExpr, t, 'implicit', cx.env)], schema: [{ name: plan.schema[0]!.name, type: t }] };
      }
      return { kind: 'subquery', mode: kind === 'ANY_SUBLINK' ? 'any' : 'all', plan: p, arg: coerce(left, t, 'implicit', cx.env), op, correlated, type: T.bool };
    }
    case 'ARRAY_SUBLINK': {
      if (plan.schema.length !== 1) throw new QuireError('42601', 'subquery must return only one column', { position: pos(loc) });
      const ct = plan.schema[0]!.type;
      if (isArrayType(ct)) throw multidimensional(loc);
      return { kind: 'subquery', mode: 'array', plan, correlated, type: arrayTypeFor(ct) };
    }
    default:
      throw new QuireError('0A000', `subquery kind ${kind} is not supported`, { position: pos(loc) });
  }
}

export { TRUE, FALSE, isConstantExpr };

// ---- SQL functions ----

/** Binds a call's arguments (positional, then named, then the parameters' defaults) and picks the overload. */
export function resolveRoutineCall(name: string, fns: readonly SqlFunctionDef[], b: AnyNode, cx: ExprCtx): { fn: SqlFunctionDef; args: Expr[]; type: DataType } {
  const loc = b.location as number | undefined;
  if (b.agg_star || b.agg_distinct || b.agg_filter || (b.agg_order as Node[] | undefined)?.length) {
    throw new QuireError('42809', `${name} is not an aggregate function`, { position: pos(loc) });
  }
  if (b.func_variadic) throw new QuireError('0A000', 'VARIADIC in function calls is not supported', { position: pos(loc) });
  const positional: Expr[] = [];
  const named: { name: string; expr: Expr }[] = [];
  for (const a of (b.args as Node[] | undefined) ?? []) {
    if (nodeTag(a) === 'NamedArgExpr') {
      const na = nodeBody<AnyNode>(a);
      named.push({ name: na.name as string, expr: bindExpr(na.arg as Node, cx) });
    } else {
      if (named.length > 0) throw new QuireError('42601', 'positional argument cannot follow named argument', { position: pos(locOf(a)) });
      positional.push(bindExpr(a, cx));
    }
  }
  const fits: { fn: SqlFunctionDef; o: ScalarOverload; args: Expr[] }[] = [];
  for (const fn of fns) {
    if (positional.length > fn.params.length) continue;
    const slots: (Expr | undefined)[] = [...positional];
    let ok = true;
    for (const n of named) {
      const i = fn.params.findIndex((p) => p.name === n.name);
      if (i < positional.length || slots[i] !== undefined) ok = false;
      else slots[i] = n.expr;
    }
    for (let i = 0; ok && i < fn.params.length; i++) {
      if (slots[i] !== undefined) continue;
      const d = fn.params[i]!.defaultExpr;
      if (d === null) ok = false;
      else slots[i] = bindExpr(d, { ...cx, scope: new Scope(null), aggs: null, windows: null, clause: 'DEFAULT expressions' });
    }
    if (!ok) continue;
    const args = slots as Expr[];
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
    const shown = [...positional, ...named.map((n) => n.expr)].map((a) => typeDisplayName(a.type)).join(', ');
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

function isStrictFunction(name: string, argCount: number, cx: ExprCtx): boolean {
  const defs = cx.env.routines?.functions.get(name) ?? internalFunctions(name);
  if (defs === undefined) return (lookupScalar(name) ?? []).every((o) => o.strict !== false);
  return defs.filter((d) => d.params.length === argCount).every((d) => d.strict);
}

/**
 * CREATE AGGREGATE: the transition and final functions are bound as calls over a virtual row
 * [state, arguments…], with the overload rules of any call (so SQL and built-in functions both work).
 */
function resolveUserAggregate(name: string, defs: readonly AggregateDef[], args: Expr[], cx: ExprCtx, loc: number | undefined): { args: Expr[]; type: DataType; user: UserAggregateSpec } {
  const cands = defs.map((d) => ({ d, o: { args: d.args.map(argTypeOf), returns: T.unknown, fn: NO_IMPL } as ScalarOverload }));
  const o = resolveOverload(
    cands.map((c) => c.o),
    args,
  );
  if (o === null) {
    throw new QuireError('42883', `function ${name}(${args.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const def = cands.find((c) => c.o === o)!.d;
  const coerced = (applyOverload(name, o, args, cx, loc) as Expr & { kind: 'call' }).args.map((a) => (a.type.name === 'unknown' ? coerce(a, T.text, 'implicit', cx.env) : a));
  const argTypes = coerced.map((a) => a.type);
  const scope = new Scope(null);
  const entry = (n: string, index: number, t: DataType) => ({ qualifier: null, name: n, expr: { kind: 'column' as const, index, type: t, name: n }, hiddenFromStar: false, hiddenUnqualified: false });
  scope.entries = [entry('?state?', 0, def.stype), ...argTypes.map((t, i) => entry(`?arg${i + 1}?`, i + 1, t))];
  const ref = (n: string): Node => ({ ColumnRef: { fields: [{ String: { sval: n } }], location: loc } }) as unknown as Node;
  const callOf = (fn: string, names: string[]): Node => ({ FuncCall: { funcname: [{ String: { sval: fn } }], args: names.map(ref), location: loc } }) as unknown as Node;
  const vcx: ExprCtx = { scope, clause: 'aggregate transition functions', aggs: null, windows: null, env: cx.env };
  const argNames = argTypes.map((_, i) => `?arg${i + 1}?`);
  const transition = coerce(bindExpr(callOf(def.sfunc, ['?state?', ...argNames]), vcx), def.stype, 'assignment', cx.env, pos(loc));
  const strict = isStrictFunction(def.sfunc, 1 + argTypes.length, cx);
  let initial: Value = null;
  if (def.initcond !== null) {
    const c = coerce({ kind: 'const', value: def.initcond, type: T.unknown }, def.stype, 'explicit', cx.env, pos(loc));
    if (c.kind !== 'const') throw new QuireError('22P02', `invalid initial value for aggregate ${name}`, { position: pos(loc) });
    initial = c.value;
  } else if (strict && (argTypes.length === 0 || argTypes[0]!.name !== def.stype.name)) {
    throw new QuireError('42P13', 'must not omit initial value when transition function is strict and transition type is not compatible with input type', { position: pos(loc) });
  }
  let final: Expr | null = null;
  if (def.finalfunc !== null) final = bindExpr(callOf(def.finalfunc, ['?state?']), { ...vcx, scope: Object.assign(new Scope(null), { entries: scope.entries.slice(0, 1) }) });
  const type = final?.type ?? def.stype;
  const finalStrict = def.finalfunc !== null && isStrictFunction(def.finalfunc, 1, cx);
  return { args: coerced, type, user: { transition, final, stateType: def.stype, initial, strict, finalStrict } };
}
