/**
 * Window calls: OVER clauses (named and inherited windows, PARTITION BY, ORDER BY, frames with their
 * offsets checked as PostgreSQL checks them) and the window functions placed over them.
 */
import type { Node } from '@pgsql/types';
import { QuireError, positionOf } from '../../common/errors.js';
import { T, type, type DataType, category, typeDisplayName, isNumericType } from '../../common/types.js';
import { lookupScalar } from '../../functions/registry.js';
import { isAggregateName } from '../../functions/aggregate/registry.js';
import { windowFunctionType, isWindowFunctionName } from '../../functions/window/registry.js';
import { type Expr, type SortKey, someExpr } from '../../logical/expr.js';
import type { WindowCall, WindowSpec, Frame, FrameBound } from '../../logical/plan.js';
import { type AnyNode } from '../ast.js';
import { coerce, hasNoEquality, canCoerce, stripMod } from '../coerce.js';
import { lookupTableFunction } from '../../storage/table-functions/table-function.js';
import { WIN_BASE, type ExprCtx, bindExpr, locOf, coerceBool, bindSortBy } from './expr.js';
import { checkAggPlacement, resolveAggregate } from './aggregate.js';

const pos = positionOf;

export const FRAME = {
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
          : isNumericType(kt) && kt.name !== 'money'
            ? stripMod(kt)
            : category(kt) === 'D' || kt.name === 'interval'
              ? T.interval
              : kt;
    // money has no in_range support function in PostgreSQL.
    if ((!isNumericType(kt) || kt.name === 'money') && category(kt) !== 'D' && kt.name !== 'interval') {
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

export function bindWindowCall(name: string, b: AnyNode, cx: ExprCtx): Expr {
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
  let user: ReturnType<typeof resolveAggregate>['user'];
  if (!isAggregateName(name) && cx.env.routines?.aggregates.has(name) === true) {
    // A user-defined aggregate: run over each frame by its transition function, re-aggregating when the
    // frame start moves (it has no inverse transition), as PostgreSQL does for such aggregates.
    if (b.agg_distinct) throw new QuireError('0A000', 'DISTINCT is not implemented for window functions', { position: pos(loc) });
    const r = resolveAggregate(name, args, cx, loc, b.func_variadic === true);
    args = r.args;
    type = r.type;
    user = r.user;
  } else if (isAggregateName(name) && !isWindowFunctionName(name)) {
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
    ...(user !== undefined ? { user } : {}),
  };
  cx.windows!.calls.push(call);
  return { kind: 'column', index: WIN_BASE + cx.windows!.calls.length - 1, type, name };
}

// ---- subqueries ----
