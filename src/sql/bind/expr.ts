/**
 * Expression binding: PostgreSQL AST → typed Expr over the current scope. Aggregates and window calls
 * are collected into the query's lists and replaced by placeholder column references that the query
 * binder later maps onto the aggregate / window operator outputs.
 */
import { parseBitString } from '../../common/bit-string.js';
import type { Node } from '@pgsql/types';
import { QuireError, positionOf } from '../../common/errors.js';
import { T, type, type DataType, type Value, typeDisplayName, isArrayType, isStringType, arrayTypeFor } from '../../common/types.js';
import { type Expr, type SortKey, TRUE, FALSE, mapExpr } from '../../logical/expr.js';
import type { AggCall, LogicalPlan, WindowCall } from '../../logical/plan.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { coerce, hasNoEquality, unifyTypes, type CoerceEnv, canCoerce } from '../coerce.js';
import { ROW_PRESENT, Scope, type ScopeEntry } from '../scope.js';
import { resolveTypeName } from '../type-name.js';
import { routineParam, routineParamByName, type RoutineEnv } from './routine.js';
import { recordNullTest, rowConstructor } from '../../functions/scalar/row-constructor.js';
import { recordField } from '../../functions/scalar/record-field.js';
import { bindRowCompareSubLink, bindSubLink } from './sublink.js';
import { bindGroupingFunc } from './aggregate.js';
import { bindOperator, bindFunctionByName, bindFuncCall } from './function-call.js';
import { COMPARE_OPS, bindComparison, bindRowComparison, bindRowDistinct, rowValue, rowFields, bindRowInList } from './comparison.js';

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

export function constExpr(value: Value, type: DataType): Expr {
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
      const target = resolveTypeName(b.typeName as never, cx.env.routines?.types);
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

export function multidimensional(loc: number | undefined): QuireError {
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

/** `(r).f` on a named composite value: 42703 when the type has no such field. */
export function selectField(e: Expr, field: string, loc: number | undefined): Expr {
  const c = e.type.name === 'record' ? e.type.composite : undefined;
  if (c === undefined) {
    // ROW(a, b) names its fields f1, f2, … as PostgreSQL's anonymous row types do.
    const n = /^f([1-9]\d*)$/.exec(field);
    if (n !== null && e.kind === 'call' && e.overload === rowConstructor && Number(n[1]) <= e.args.length) return e.args[Number(n[1]) - 1]!;
    if (e.type.name === 'record') throw new QuireError('42703', `could not identify column "${field}" in record data type`, { position: pos(loc) });
    throw new QuireError('42809', `column notation .${field} applied to type ${typeDisplayName(e.type)}, which is not a composite type`, { position: pos(loc) });
  }
  const i = c.fields.findIndex((f) => f.name === field);
  if (i < 0) throw new QuireError('42703', `column "${field}" not found in data type ${c.name}`, { position: pos(loc) });
  const ft = c.fields[i]!.type;
  // A row constructor's field is its argument, already of the field's type.
  if (e.kind === 'call' && e.overload === rowConstructor) return e.args[i]!;
  return { kind: 'call', name: field, overload: recordField(c, i), args: [e], type: ft };
}

/** a[i] and a[lo:hi] on arrays, (r).f on composites. */
function bindSubscript(b: AnyNode, cx: ExprCtx, loc: number | undefined): Expr {
  let e = bindExpr(b.arg as Node, cx);
  const list = (b.indirection as Node[] | undefined) ?? [];
  // PostgreSQL reads a[i][j] as one subscript of a two-dimensional array, not as two in a row.
  if (list.length > 1 && list.every((ind) => nodeTag(ind) === 'A_Indices')) throw multidimensional(loc);
  for (const ind of list) {
    const ib = nodeBody<AnyNode>(ind);
    if (nodeTag(ind) === 'String') {
      e = selectField(e, ib.sval as string, loc);
      continue;
    }
    if (nodeTag(ind) !== 'A_Indices') throw new QuireError('0A000', 'field selection is not supported', { position: pos(loc) });
    if (!isArrayType(e.type)) {
      throw new QuireError('42804', `cannot subscript type ${typeDisplayName(e.type)} because it does not support subscripting`, { position: pos(loc) });
    }
    if (ib.is_slice === true) {
      // An omitted bound is the array's own; arrays here always start at 1, so int4's extremes clip to it.
      const lo = ib.lidx === undefined ? constExpr(-2147483648, T.int4) : subscriptIndex(ib.lidx as Node, cx, loc);
      const hi = ib.uidx === undefined ? constExpr(2147483647, T.int4) : subscriptIndex(ib.uidx as Node, cx, loc);
      e = bindOperator('[:]', [e, lo, hi], cx, loc, '[:]');
    } else {
      e = bindOperator('[]', [e, subscriptIndex(ib.uidx as Node, cx, loc)], cx, loc, '[]');
    }
  }
  return e;
}

function subscriptIndex(idxNode: Node, cx: ExprCtx, loc: number | undefined): Expr {
  const idx = bindExpr(idxNode, cx);
  if (!canCoerce(idx.type, T.int4, 'assignment')) {
    throw new QuireError('42804', 'array subscript must have type integer', { position: pos(locOf(idxNode) ?? loc) });
  }
  return coerce(idx, T.int4, 'assignment', cx.env, pos(locOf(idxNode) ?? loc));
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

function tryColumn(b: AnyNode, first: Node, cx: ExprCtx): Expr | null {
  try {
    return bindColumnRef({ ...b, fields: [first] }, cx);
  } catch (e) {
    if (e instanceof QuireError && (e.code === '42703' || e.code === '42P01')) return null;
    throw e;
  }
}

function bindColumnRef(b: AnyNode, cx: ExprCtx): Expr {
  const fields = b.fields as Node[];
  const loc = pos(b.location as number);
  if (fields.some((f) => nodeTag(f) === 'A_Star')) {
    // t.* inside an expression ((t.*)::text, f(t.*)) is t's whole row, as PostgreSQL reads it there.
    if (fields.length === 2 && nodeTag(fields[1]!) === 'A_Star' && nodeTag(fields[0]!) === 'String') {
      const q = strings(fields.slice(0, 1))[0]!;
      const row = wholeRow(q, cx);
      if (row !== null) return row;
      throw new QuireError('42P01', `missing FROM-clause entry for table "${q}"`, { position: loc });
    }
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
  if (names.length === 2) {
    // `x.f` naming no FROM item: a field of the composite column or variable x, as PostgreSQL reads it.
    const whole = tryColumn(b, fields[0]!, cx);
    if (whole !== null && whole.type.name === 'record' && whole.type.composite !== undefined) return selectField(whole, name, loc);
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
  // PostgreSQL reads a bare FROM-item name that is no column as the whole row.
  const row = wholeRow(name, cx);
  if (row !== null) return row;
  throw new QuireError('42703', `column "${name}" does not exist`, { position: loc });
}

/**
 * The whole row of FROM item `name`: a record of its columns, each resolved as `name.column` would be
 * (so an outer FROM item's become outer references); null when no visible FROM item has that name.
 */
function wholeRow(name: string, cx: ExprCtx): Expr | null {
  const stop = cx.env.routineFrames?.at(-1)?.anchor;
  let lv = 0;
  for (let s: Scope | null = cx.scope; s !== null && s !== stop; s = s.parent, lv++) {
    if (s.hasQualifier(name)) {
      const cols = s.entries.filter((e) => e.qualifier === name && e.name.charCodeAt(0) !== 0);
      const row = rowValue(cols.map((e) => entryRef(e, lv, cx)), cx);
      // On the NULL side of an outer join, a missing row is a NULL record, not a record of NULLs.
      const mark = s.entries.find((e) => e.qualifier === name && e.name === ROW_PRESENT);
      if (mark === undefined) return row;
      const missing: Expr = { kind: 'is-null', arg: entryRef(mark, lv, cx), negated: false, type: T.bool };
      return { kind: 'case', whens: [{ when: missing, then: constExpr(null, T.record) }], else: row, type: T.record };
    }
  }
  return null;
}

/** A scope entry's value as seen `levels` query levels below its scope (outer references beyond 0). */
function entryRef(e: ScopeEntry, levels: number, cx: ExprCtx): Expr {
  if (levels === 0) return e.expr;
  let s: Scope | null = cx.scope;
  for (let i = 0; i < levels && s !== null; i++, s = s.parent) s.usesOuter = true;
  // A merged USING column may be an expression over the join's columns (a cast, a COALESCE).
  return mapExpr(e.expr, (x) => (x.kind === 'column' ? { kind: 'outer', levels, index: x.index, type: x.type, name: x.name, ...(x.table !== undefined ? { table: x.table } : {}) } : x));
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
  // transformCaseExpr puts the ELSE result first: where two types cast implicitly both ways (name and
  // text, varchar and char), the ELSE's type is the CASE's, and it is named first in a mismatch.
  const t = unifyTypes([els.type, ...whens.map((w) => w.then.type)], 'CASE', pos(loc));
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
      return constExpr('quire', T.name);
    case 'SVFOP_CURRENT_CATALOG':
      return call('current_database');
    case 'SVFOP_CURRENT_SCHEMA':
      return call('current_schema');
    default:
      throw new QuireError('0A000', `${op} is not supported`, { position: pos(b.location as number) });
  }
}

export function bindSortBy(s: Node, cx: ExprCtx, target?: (n: Node) => Expr | undefined): SortKey {
  const sb = nodeBody<AnyNode>(s);
  const expr = (target && target(sb.node as Node)) ?? bindExpr(sb.node as Node, cx);
  const dir = sb.sortby_dir as string;
  let desc = dir === 'SORTBY_DESC';
  if (dir === 'SORTBY_USING') {
    // Only the ordering operators of the built-in types make sense here: < is ASC, > is DESC.
    const op = strings(sb.useOp as Node[]).pop();
    // ~<~ / ~>~ order strings by their bytes (text_pattern_ops), which is how Quire orders text anyway.
    const pattern = (op === '~<~' || op === '~<=~' || op === '~>~' || op === '~>=~') && (isStringType(expr.type) || expr.type.name === 'unknown');
    if (op === '<' || op === '<=' || (pattern && op!.startsWith('~<'))) desc = false;
    else if (op === '>' || op === '>=' || pattern) desc = true;
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
