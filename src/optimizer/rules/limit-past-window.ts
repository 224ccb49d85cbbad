/**
 * limit-past-window: a LIMIT (or Top-N) whose rows are the first rows of the window's own order only
 * needs the first offset+count(+lookahead) rows of the window's input in that order, so a Top-N can
 * run below the window and the window sorts and evaluates only those rows.
 *
 *   TopN(keys=[g, v], count=k, offset=m)        TopN(keys=[g, v], count=k, offset=m)
 *     Window(row_number() OVER              ==>   Window(row_number() OVER (PARTITION BY g ORDER BY v))
 *            (PARTITION BY g ORDER BY v))           TopN(keys=[g, v], count=k+m+L)
 *       input                                         input
 *
 *   Limit(count=k, offset=m)                    Limit(count=k, offset=m)
 *     Window(… OVER (PARTITION BY g ORDER BY v)) ==> Window(…)
 *       input                                         TopN(keys=[g ASC NULLS LAST, v], count=k+m+L)
 *                                                       input
 *
 * Why it is exact: the first n rows in (partition keys, order keys) order contain, for each partition they
 * touch, every row that precedes a kept row in that partition. Functions that only look at preceding rows
 * (and at most L rows ahead) therefore compute the same values on those rows. Ties keep the input order on
 * both sides (the Top-N and the window's sort are stable), so even row_number over tied keys matches.
 *
 * When it fires (DataFusion's limit_pushdown_past_window is the model):
 *  - every function of the window node has the same PARTITION BY and ORDER BY;
 *  - a Top-N above (directly, or over a projection of plain columns) has exactly the keys partition keys (any order, direction, NULLS placement) followed by
 *    the window's ORDER BY keys; a bare LIMIT above relies on the window emitting rows in its sort order
 *    (partition keys ascending, then ORDER BY), which holds when the window's input is not already sorted
 *    (the window would then reuse that order instead);
 *  - the functions are row_number, rank, dense_rank, lag (constant offset >= 0), lead (constant offset >= 0:
 *    L = offset), and aggregates / first_value / last_value / nth_value over ROWS frames that do not end
 *    UNBOUNDED FOLLOWING (L = the largest n FOLLOWING);
 *  - counts are constants and there is no WITH TIES.
 * Refuses RANGE and GROUPS frames (they reach an unbounded number of peers), ntile / percent_rank /
 * cume_dist and partition-wide aggregates (they need the partition size), and inputs already limited.
 */
import { dedupeExprs } from './window-support.js';
import { exprEquals, someExpr, type Expr, type SortKey } from '../../logical/expr.js';
import type { FrameBound, LogicalPlan, WindowCall } from '../../logical/plan.js';
import { lookupWindowAggregate } from '../../functions/aggregate/registry.js';
import type { OptimizerRule } from '../rule.js';
import { boundedBy, constInt, int8, rowsNeeded } from './limit-support.js';

const VALUE_FNS = new Set(['first_value', 'last_value', 'nth_value']);

function offsetOf(b: FrameBound): number | null {
  if (b.kind !== 'following' && b.kind !== 'preceding') return 0;
  const n = constInt(b.offset, null);
  return n === undefined || n === null ? null : n;
}

/** Rows after the current one that `call` reads; null when it needs more than a bounded lookahead. */
function lookahead(call: WindowCall): number | null {
  switch (call.name) {
    case 'row_number':
    case 'rank':
    case 'dense_rank':
      return 0;
    case 'lag': {
      if (call.args.length < 2) return 0;
      const n = constInt(call.args[1]!, null);
      return n === undefined || n === null ? null : 0;
    }
    case 'lead': {
      if (call.args.length < 2) return 1;
      const n = constInt(call.args[1]!, null);
      return n === undefined || n === null ? null : n;
    }
    default: {
      if (!VALUE_FNS.has(call.name) && lookupWindowAggregate(call.name) === undefined) return null;
      const f = call.spec.frame;
      if (f.units !== 'rows') return null;
      if (f.end.kind === 'unbounded-following' || f.start.kind === 'unbounded-following') return null;
      const end = f.end.kind === 'following' ? offsetOf(f.end) : 0;
      const start = f.start.kind === 'following' ? offsetOf(f.start) : 0;
      if (end === null || start === null) return null;
      return Math.max(end, start);
    }
  }
}

const sameKey = (a: SortKey, b: SortKey): boolean => a.desc === b.desc && a.nullsFirst === b.nullsFirst && exprEquals(a.expr, b.expr);

/** The window's common (partition, order) and total lookahead, or null when the node does not qualify. */
function windowShape(w: LogicalPlan & { op: 'window' }): { partitionBy: Expr[]; orderBy: SortKey[]; lookahead: number } | null {
  const first = w.calls[0];
  if (first === undefined) return null;
  const partitionBy = dedupeExprs(first.spec.partitionBy);
  const orderBy = first.spec.orderBy;
  let total = 0;
  for (const c of w.calls) {
    const p = dedupeExprs(c.spec.partitionBy);
    if (p.length !== partitionBy.length || !p.every((e, i) => exprEquals(e, partitionBy[i]!))) return null;
    if (c.spec.orderBy.length !== orderBy.length || !c.spec.orderBy.every((k, i) => sameKey(k, orderBy[i]!))) return null;
    const l = lookahead(c);
    if (l === null) return null;
    total = Math.max(total, l);
  }
  const volatile = (e: Expr): boolean => someExpr(e, (x) => x.kind === 'subquery' || x.kind === 'outer' || (x.kind === 'call' && x.overload.volatile === true));
  if (partitionBy.some(volatile) || orderBy.some((k) => volatile(k.expr))) return null;
  return { partitionBy, orderBy, lookahead: total };
}

function pushBelow(w: LogicalPlan & { op: 'window' }, keys: SortKey[], n: number): LogicalPlan | null {
  if (boundedBy(w.input, n)) return null;
  const inner: LogicalPlan =
    keys.length === 0
      ? { op: 'limit', input: w.input, offset: null, count: int8(n), ties: null, schema: w.input.schema }
      : { op: 'topn', input: w.input, keys, offset: null, count: int8(n), withTies: false, schema: w.input.schema };
  return { ...w, input: inner };
}

export const limitPastWindow: OptimizerRule = {
  name: 'limit-past-window',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op === 'topn') {
      if (node.withTies) return null;
      // A projection of plain columns may sit between (the select list drops or renames columns): the
      // keys are translated through it.
      let proj: (LogicalPlan & { op: 'project' }) | null = null;
      let keys = node.keys;
      if (node.input.op === 'project') {
        proj = node.input;
        const exprs = proj.exprs;
        const mapped: SortKey[] = [];
        for (const k of keys) {
          const src = k.expr.kind === 'column' ? exprs[k.expr.index] : undefined;
          if (src === undefined || src.kind !== 'column') return null;
          mapped.push({ ...k, expr: src });
        }
        keys = mapped;
      }
      const w = proj === null ? node.input : proj.input;
      if (w.op !== 'window') return null;
      const count = constInt(node.count, null);
      const offset = constInt(node.offset, 0);
      if (count === undefined || count === null || offset === undefined || offset === null) return null;
      const shape = windowShape(w);
      if (shape === null) return null;
      const np = shape.partitionBy.length;
      if (keys.length !== np + shape.orderBy.length) return null;
      // Keys over the window's output; the window's first columns are its input's, so equal expressions
      // over input columns mean the same thing on both sides.
      const width = w.input.schema.length;
      const inputOnly = (e: Expr): boolean => !someExpr(e, (x) => x.kind === 'column' && x.index >= width);
      if (!keys.every((k) => inputOnly(k.expr))) return null;
      const lead = keys.slice(0, np);
      if (!shape.partitionBy.every((e) => lead.some((k) => exprEquals(k.expr, e)))) return null;
      if (!lead.every((k) => shape.partitionBy.some((e) => exprEquals(k.expr, e)))) return null;
      if (!shape.orderBy.every((k, i) => sameKey(k, keys[np + i]!))) return null;
      const r = pushBelow(w, keys, count + offset + shape.lookahead);
      if (r === null) return null;
      return { ...node, input: proj === null ? r : { ...proj, input: r } };
    }
    if (node.op === 'limit') {
      const w = node.input;
      if (w.op !== 'window') return null;
      const n = rowsNeeded(node);
      if (n === null) return null;
      // An input that already arrives sorted is reused by the window as is: its output order is then not
      // the (partition ASC, order) order this rewrite relies on.
      let below = w.input;
      while (below.op === 'project' && below.exprs.every((e, i) => e.kind === 'column' && e.index === i)) below = below.input;
      if (below.op === 'sort') return null;
      const shape = windowShape(w);
      if (shape === null) return null;
      const keys: SortKey[] = [...shape.partitionBy.map((expr) => ({ expr, desc: false, nullsFirst: false })), ...shape.orderBy];
      const r = pushBelow(w, keys, n + shape.lookahead);
      return r === null ? null : { ...node, input: r };
    }
    return null;
  },
};
