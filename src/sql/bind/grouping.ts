/**
 * GROUP BY: grouping sets expanded as PostgreSQL expands ROLLUP, CUBE and GROUPING SETS, columns that
 * a grouped primary key determines (functional dependency), and select-list expressions rewritten over
 * the aggregate's output.
 */
import { positionOf } from '../../common/errors.js';
import type { Node } from '@pgsql/types';
import { QuireError } from '../../common/errors.js';
import { type Expr, exprChildren, exprEquals, colRef, constant } from '../../logical/expr.js';
import type { AggCall, LogicalPlan } from '../../logical/plan.js';
import { mapPlanExprs } from '../../logical/map-plan-exprs.js';
import { nodeBody, nodeTag, type AnyNode } from '../ast.js';
import { AGG_BASE, GROUPING_BASE, WIN_BASE, locOf } from './expr.js';
import { mapChildren } from './query.js';

const pos = positionOf;

/**
 * PostgreSQL's flatten_grouping_sets + expand_grouping_sets: the grouping sets of a GROUP BY clause, each
 * as sorted, distinct indexes of keys (`keyOf` binds an expression to its key index). At the top level a
 * parenthesized list `(a, b)` is just its items and `()` adds nothing; items multiply out (GROUP BY a,
 * ROLLUP(b) is the sets (a, b) and (a)). GROUP BY DISTINCT drops duplicate sets.
 */
export function expandGroupClause(items: Node[], keyOf: (n: Node) => number, distinct: boolean): number[][] {
  const isImplicitRow = (n: Node): boolean => nodeTag(n) === 'RowExpr' && nodeBody<AnyNode>(n).row_format === 'COERCE_IMPLICIT_CAST';
  // One element of ROLLUP / CUBE / GROUPING SETS: an expression or a parenthesized list of them, whose
  // nested lists flatten into it (PostgreSQL reads `(a, (a, b))` as the set a, b).
  const unit = (n: Node): number[] => (isImplicitRow(n) ? ((nodeBody<AnyNode>(n).args as Node[] | undefined) ?? []).flatMap(unit) : [keyOf(n)]);
  const expand = (n: Node): number[][] => {
    if (nodeTag(n) !== 'GroupingSet') return [unit(n)];
    const gs = nodeBody<AnyNode>(n);
    const content = (gs.content as Node[] | undefined) ?? [];
    switch (gs.kind as string) {
      case 'GROUPING_SET_EMPTY':
        return [[]];
      case 'GROUPING_SET_SIMPLE':
        return [content.flatMap(unit)];
      case 'GROUPING_SET_ROLLUP': {
        const us = content.map(unit);
        const out: number[][] = [];
        for (let i = us.length; i >= 0; i--) out.push(us.slice(0, i).flat());
        return out;
      }
      case 'GROUPING_SET_CUBE': {
        if (content.length > 12) throw new QuireError('54011', 'CUBE is limited to 12 elements', { position: pos(gs.location as number) });
        const us = content.map(unit);
        const out: number[][] = [];
        for (let m = (1 << us.length) - 1; m >= 0; m--) out.push(us.filter((_, i) => (m & (1 << (us.length - 1 - i))) !== 0).flat());
        return out;
      }
      default:
        return content.flatMap(expand);
    }
  };
  let sets: number[][] = [[]];
  for (const item of items) {
    if (nodeTag(item) === 'GroupingSet' && nodeBody<AnyNode>(item).kind === 'GROUPING_SET_EMPTY') continue;
    const ex = isImplicitRow(item) ? [unit(item)] : expand(item);
    const next: number[][] = [];
    for (const a of sets) for (const b of ex) next.push([...a, ...b]);
    if (next.length > 4096) throw new QuireError('54001', 'too many grouping sets present (maximum 4096)', { position: pos(locOf(item)) });
    sets = next;
  }
  sets = sets.map((set) => [...new Set(set)].sort((a, b) => a - b));
  if (distinct) {
    const seen = new Set<string>();
    sets = sets.filter((set) => {
      const key = set.join(',');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return sets;
}

/** Where a FROM item that is a table with a primary key starts in the FROM row, and its key. */
interface KeyedScan {
  readonly start: number;
  readonly width: number;
  readonly key: readonly number[];
}

/** The tables with a primary key that the FROM row is made of, through joins and filters. */
function keyedScans(p: LogicalPlan, start: number, out: KeyedScan[]): void {
  switch (p.op) {
    case 'scan': {
      const src = p.source as { primaryKey?: boolean; uniqueKeys?: number[][] };
      if (src.primaryKey === true && src.uniqueKeys !== undefined && src.uniqueKeys.length > 0) out.push({ start, width: p.schema.length, key: src.uniqueKeys[0]! });
      return;
    }
    case 'filter':
      keyedScans(p.input, start, out);
      return;
    // Not through a projection: a derived table's columns are not the table's, even when it reads
    // them all (PostgreSQL looks only at table references).
    case 'join':
      keyedScans(p.left, start, out);
      keyedScans(p.right, start + p.left.schema.length, out);
      return;
    default:
      return;
  }
}

/**
 * FROM-row columns that `used` reads outside any grouping key and that a grouped primary key
 * determines: every column of its key is itself a grouping key.
 */
export function dependentColumns(from: LogicalPlan, groupBy: readonly Expr[], used: readonly Expr[]): number[] {
  const scans: KeyedScan[] = [];
  keyedScans(from, 0, scans);
  if (scans.length === 0) return [];
  const grouped = (i: number): boolean => groupBy.some((g) => g.kind === 'column' && g.index === i);
  const covered = scans.filter((sc) => sc.key.every((c) => grouped(sc.start + c)));
  if (covered.length === 0) return [];
  const out: number[] = [];
  const visit = (e: Expr): void => {
    if (groupBy.some((g) => exprEquals(g, e))) return;
    if (e.kind === 'column' && e.index < AGG_BASE) {
      if (!out.includes(e.index) && covered.some((sc) => e.index >= sc.start && e.index < sc.start + sc.width)) out.push(e.index);
      return;
    }
    // Aggregate and window arguments are read per row, not per group.
    if (e.kind === 'column') return;
    for (const c of exprChildren(e)) visit(c);
  };
  for (const e of used) visit(e);
  return out;
}

/**
 * The direct arguments of an ordered-set aggregate (the 3 of rank(3) WITHIN GROUP (ORDER BY x)) are
 * evaluated once per group, so like a select-list item they may only read group keys: an ungrouped
 * column would silently take one row's value.
 */
export function checkDirectArgsGrouped(calls: readonly AggCall[], groupBy: Expr[], k: number, naggs: number): void {
  for (const a of calls) {
    if (a.withinGroup === undefined) continue;
    for (const arg of a.args.slice(0, a.withinGroup.direct)) {
      // A FILTER wraps every argument in CASE WHEN filter THEN arg; the filter itself is per row.
      const raw = a.filter !== null && arg.kind === 'case' ? arg.whens[0]!.then : arg;
      rewriteForAggregate(raw, groupBy, k, naggs);
    }
  }
}

/**
 * Top-down: whole expressions equal to a GROUP BY key become references to the key. `grouping` gives
 * the value of the gi-th GROUPING(...) call over the aggregate's output.
 */
export function rewriteForAggregate(e: Expr, groupBy: Expr[], k: number, naggs: number, grouping?: (gi: number) => Expr): Expr {
  const gi = groupBy.findIndex((g) => exprEquals(g, e));
  if (gi >= 0) return colRef(gi, e.type, groupBy[gi]!.kind === 'column' ? (groupBy[gi] as { name: string }).name : `group${gi + 1}`);
  if (e.kind === 'column') {
    if (e.index >= GROUPING_BASE && e.index < WIN_BASE) {
      if (grouping === undefined) throw new Error('GROUPING placeholder outside a grouped query');
      return grouping(e.index - GROUPING_BASE);
    }
    if (e.index >= AGG_BASE && e.index < WIN_BASE) {
      const ai = e.index - AGG_BASE;
      if (ai >= naggs) throw new Error('aggregate placeholder out of range');
      return { ...e, index: k + ai };
    }
    if (e.index >= WIN_BASE) return e;
    throw new QuireError('42803', `column "${e.table ? e.table + '.' : ''}${e.name}" must appear in the GROUP BY clause or be used in an aggregate function`, {});
  }
  if (e.kind === 'subquery' && e.correlated) {
    // The subquery now runs over grouped rows: its references to this query's columns must name
    // group keys, and they are re-pointed at the aggregate's output.
    const plan = mapPlanExprs(e.plan, 1, (x, depth) => {
      if (x.kind !== 'outer' || x.levels !== depth) return x;
      // An aggregate of this query written inside the subquery (max(o.x) in a sub-SELECT).
      if (x.index >= AGG_BASE && x.index < GROUPING_BASE) return { ...x, index: k + x.index - AGG_BASE };
      // A GROUPING of this query written inside the subquery: a constant, or the column holding it.
      if (x.index >= GROUPING_BASE && x.index < WIN_BASE) {
        if (grouping === undefined) throw new Error('GROUPING placeholder outside a grouped query');
        const g = grouping(x.index - GROUPING_BASE);
        return g.kind === 'column' ? { ...x, index: g.index } : g;
      }
      const gi = groupBy.findIndex((g) => g.kind === 'column' && g.index === x.index);
      if (gi < 0) throw new QuireError('42803', `subquery uses ungrouped column "${x.table !== undefined ? x.table + '.' : ''}${x.name}" from outer query`, {});
      return { ...x, index: gi };
    });
    const rest = mapChildren(e, (c) => rewriteForAggregate(c, groupBy, k, naggs, grouping)) as Expr & { kind: 'subquery' };
    return { ...rest, plan };
  }
  if (e.kind === 'const' || e.kind === 'param' || e.kind === 'outer') return e;
  return mapChildren(e, (c) => rewriteForAggregate(c, groupBy, k, naggs, grouping));
}
