/**
 * Aggregate calls: where an aggregate may stand and which query level it belongs to (PostgreSQL's
 * rules for outer-level aggregates), ordered-set and user-defined aggregates, GROUPING().
 */
import { positionOf, QuireError } from '../../common/errors.js';
import type { Node } from '@pgsql/types';
import { T, arrayTypeFor, elementType, isArrayType, type, type DataType, type Value, typeDisplayName } from '../../common/types.js';
import { type ScalarOverload } from '../../functions/registry.js';
import { isAggregateName, lookupAggregate } from '../../functions/aggregate/registry.js';
import { ROW_COUNT_AGGREGATE } from '../../functions/aggregate/count.js';
import { type Expr, type SortKey, TRUE, FALSE, isConstantExpr, exprEquals, mapExpr } from '../../logical/expr.js';
import { mapPlanExprs } from '../../logical/map-plan-exprs.js';
import type { AggCall, UserAggregateSpec } from '../../logical/plan.js';
import { nodeTag, type AnyNode } from '../ast.js';
import { coerce, hasNoEquality, unifyTypes } from '../coerce.js';
import { Scope } from '../scope.js';
import { argTypeOf, NO_IMPL } from './routine.js';
import type { AggregateDef } from '../../storage/catalog.js';
import { AGG_BASE, WIN_BASE, GROUPING_BASE, type ExprCtx, constExpr, bindExpr, locOf, coerceBool, bindSortBy } from './expr.js';
import { resolveOverload, applyOverload, bindOperator, isStrictFunction, gatherVariadic } from './function-call.js';
import { rowFields } from './comparison.js';

const pos = positionOf;

/** GROUPING(a, b): collected like an aggregate and replaced by a placeholder the query binder resolves. */
export function bindGroupingFunc(b: AnyNode, cx: ExprCtx, loc: number | undefined): Expr {
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

export function checkAggPlacement(name: string, cx: ExprCtx, loc: number | undefined, window: boolean): void {
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

export function bindAggregate(name: string, b: AnyNode, cx: ExprCtx): Expr {
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
  const call = resolveAggregate(aggName, args, cx, loc, b.func_variadic === true);
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
export function bindOrderedSetAggregate(name: string, b: AnyNode, cx: ExprCtx): Expr {
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

/** `spread`: the call passed its last argument with VARIADIC (only a variadic user-defined aggregate takes it). */
export function resolveAggregate(name: string, args: Expr[], cx: ExprCtx, loc: number | undefined, spread = false): { args: Expr[]; type: DataType; user?: UserAggregateSpec } {
  const defs = isAggregateName(name) ? undefined : cx.env.routines?.aggregates.get(name);
  if (defs !== undefined) return resolveUserAggregate(name, defs, args, cx, loc, spread);
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

/** A polymorphic state type is the type the polymorphic arguments resolved to (anyarray: its array type). */
function stateTypeOf(def: AggregateDef, argTypes: readonly DataType[]): DataType {
  if (typeof def.stype !== 'string') return def.stype;
  const i = def.args.findIndex((t) => typeof t === 'string');
  const got = argTypes[i] ?? T.text;
  const elem = def.args[i] === 'anyarray' && isArrayType(got) ? elementType(got) : got;
  if (def.stype === 'anyelement') return elem;
  return arrayTypeFor(elem);
}

/**
 * CREATE AGGREGATE: the transition and final functions are bound as calls over a virtual row
 * [state, arguments…], with the overload rules of any call (so SQL and built-in functions both work).
 */
function resolveUserAggregate(name: string, defs: readonly AggregateDef[], given: Expr[], cx: ExprCtx, loc: number | undefined, spread: boolean): { args: Expr[]; type: DataType; user: UserAggregateSpec } {
  // Each definition sees the arguments as it takes them: a variadic one gathers the trailing ones.
  const cands = defs.flatMap((d) => {
    const a = variadicArguments(d, given, spread, cx);
    return a === null ? [] : [{ d, a, o: { args: d.args.map(argTypeOf), returns: T.unknown, fn: NO_IMPL } as ScalarOverload }];
  });
  const fit = cands.find((c) => c.d.variadic !== true && resolveOverload([c.o], c.a) !== null) ?? cands.find((c) => resolveOverload([c.o], c.a) !== null);
  if (fit === undefined) {
    throw new QuireError('42883', `function ${name}(${given.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, {
      position: pos(loc),
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const { d: def, o, a: args } = fit;
  const coerced = (applyOverload(name, o, args, cx, loc) as Expr & { kind: 'call' }).args.map((a) => (a.type.name === 'unknown' ? coerce(a, T.text, 'implicit', cx.env) : a));
  const argTypes = coerced.map((a) => a.type);
  const plain = bindAggregateMode(name, { sfunc: def.sfunc, stype: stateTypeOf(def, argTypes), initcond: def.initcond, finalfunc: def.finalfunc }, argTypes, cx, loc);
  const type = plain.final?.type ?? plain.stateType;
  let moving: UserAggregateSpec['moving'];
  if (def.msfunc !== null && def.minvfunc !== null) {
    // Moving-aggregate mode (MSFUNC, MINVFUNC, MSTYPE, MINITCOND, MFINALFUNC), which windows whose frame
    // start moves use: rows leave the state through the inverse transition function.
    const m = bindAggregateMode(name, { sfunc: def.msfunc, stype: def.mstype ?? plain.stateType, initcond: def.minitcond, finalfunc: def.mfinalfunc }, argTypes, cx, loc);
    const inverse = bindStateCall(def.minvfunc, m.stateType, argTypes, cx, loc);
    moving = { ...m, inverse, inverseStrict: isStrictFunction(def.minvfunc, 1 + argTypes.length, cx) };
  }
  return { args: coerced, type, user: { ...plain, ...(moving !== undefined ? { moving } : {}) } };
}

/**
 * A variadic aggregate's arguments with the trailing ones (at least one) gathered into an ARRAY of the
 * variadic parameter's element type; `spread` (VARIADIC arr) passes the array as it is. Null when the
 * definition cannot take them.
 */
function variadicArguments(def: AggregateDef, args: Expr[], spread: boolean, cx: ExprCtx): Expr[] | null {
  if (def.variadic !== true) return spread ? null : args;
  return spread ? args : gatherVariadic(def.args, args, cx);
}

/**
 * `fn(state, arg1, …)` bound over the virtual row [state, arguments…], converted to `result` (the state
 * type for a transition function; null keeps the call's own type, as a final function's).
 */
function bindStateCall(fn: string, stype: DataType, argTypes: readonly DataType[], cx: ExprCtx, loc: number | undefined, result: DataType | null = stype): Expr {
  const scope = new Scope(null);
  const entry = (n: string, index: number, t: DataType) => ({ qualifier: null, name: n, expr: { kind: 'column' as const, index, type: t, name: n }, hiddenFromStar: false, hiddenUnqualified: false });
  scope.entries = [entry('?state?', 0, stype), ...argTypes.map((t, i) => entry(`?arg${i + 1}?`, i + 1, t))];
  const ref = (n: string): Node => ({ ColumnRef: { fields: [{ String: { sval: n } }], location: loc } }) as unknown as Node;
  // An array argument goes to a variadic transition function as its VARIADIC array, as PostgreSQL
  // passes a variadic aggregate's collected arguments.
  const spread = argTypes.length > 0 && isArrayType(argTypes[argTypes.length - 1]!) && cx.env.routines?.functions.get(fn)?.some((f) => f.variadic === true) === true;
  const call = { FuncCall: { funcname: [{ String: { sval: fn } }], args: ['?state?', ...argTypes.map((_, i) => `?arg${i + 1}?`)].map(ref), location: loc, ...(spread ? { func_variadic: true } : {}) } } as unknown as Node;
  const vcx: ExprCtx = { scope, clause: 'aggregate transition functions', aggs: null, windows: null, env: cx.env };
  const bound = bindExpr(call, vcx);
  return result === null ? bound : coerce(bound, result, 'assignment', cx.env, pos(loc));
}

/** One mode of an aggregate (plain or moving): transition, initial state and final function, bound. */
function bindAggregateMode(
  name: string,
  mode: { sfunc: string; stype: DataType; initcond: string | null; finalfunc: string | null },
  argTypes: readonly DataType[],
  cx: ExprCtx,
  loc: number | undefined,
): Omit<UserAggregateSpec, 'moving'> {
  const stype = mode.stype;
  const transition = bindStateCall(mode.sfunc, stype, argTypes, cx, loc);
  const strict = isStrictFunction(mode.sfunc, 1 + argTypes.length, cx);
  let initial: Value = null;
  if (mode.initcond !== null) {
    const c = coerce({ kind: 'const', value: mode.initcond, type: T.unknown }, stype, 'explicit', cx.env, pos(loc));
    if (c.kind !== 'const') throw new QuireError('22P02', `invalid initial value for aggregate ${name}`, { position: pos(loc) });
    initial = c.value;
  } else if (strict && (argTypes.length === 0 || argTypes[0]!.name !== stype.name)) {
    throw new QuireError('42P13', 'must not omit initial value when transition function is strict and transition type is not compatible with input type', { position: pos(loc) });
  }
  let final: Expr | null = null;
  if (mode.finalfunc !== null) final = bindStateCall(mode.finalfunc, stype, [], cx, loc, null);
  const finalStrict = mode.finalfunc !== null && isStrictFunction(mode.finalfunc, 1, cx);
  return { transition, final, stateType: stype, initial, strict, finalStrict };
}

export { TRUE, FALSE, isConstantExpr };
