/**
 * Physical planning of the per-partition Top-N (logical 'topn-ranking') and the Local/Global Top-N
 * split; called from planner.ts.
 *
 * topn-ranking: partition and order expressions that are not plain columns are projected into trailing
 * helper columns (dropped again above). The variant is chosen from what is known about the input:
 *  - streaming (topn-ranking-streaming.ts) when the input is a Sort whose leading keys are exactly the
 *    partition keys: partitions arrive contiguous, O(k) memory, no hashing;
 *  - hashed (topn-ranking.ts) otherwise; when not strict, its probe (rows seen before its cost guard
 *    decides whether pruning pays) is a quarter of the estimated input rows, at least PROBE_ROWS, and the
 *    estimate is passed on for the guard.
 *  - when the input is a scan of a partitioned source, each source partition gets a partial TopNRanking and a
 *    final one runs over their concatenation (row order = the source's scan order, so results are equal).
 *
 * Local/Global Top-N: a 'topn' directly over a scan of a partitioned source with plain column keys becomes
 * FinalTopN(PartialTopN(PartitionScan) per partition).
 */
import { colRef, exprEquals, type Expr } from '../logical/expr.js';
import type { LogicalPlan } from '../logical/plan.js';
import { assertNever } from '../logical/plan-nodes.js';
import { explainExpr } from './explain-expr.js';
import type { PhysicalOperator } from './operator.js';
import { Project } from './operators/project.js';
import { PROBE_ROWS, TopNRanking, type TopNRankingSpec } from './operators/topn-ranking.js';
import { TopNRankingStreaming } from './operators/topn-ranking-streaming.js';
import { isPartitionedSource, PartialTopN, PartitionGroup, PartitionScan, type PartitionedSource } from './operators/topn-partial.js';
import { ConcatPartitions, FinalTopN } from './operators/topn-final.js';
import { injectiveTextParts } from './injective-text-key.js';
import type { SortKey } from './sort-key.js';
import type { SlotPlan } from './subquery-eval.js';

type SlotPlanFn = (e: Expr & { kind: 'subquery' }) => SlotPlan;

/** Estimated rows of a logical plan from scan row counts (filters and joins are not estimated). */
function estimateRows(p: LogicalPlan): number | undefined {
  switch (p.op) {
    case 'scan':
      return p.source.rowCount();
    case 'filter':
    case 'project':
    case 'sort':
    case 'window':
      return estimateRows(p.input);
    // Unknown selectivity or fan-out: no estimate.
    case 'values':
    case 'empty':
    case 'table-function':
    case 'worktable':
    case 'aggregate':
    case 'limit':
    case 'topn':
    case 'topn-ranking':
    case 'distinct':
    case 'distinct-on':
    case 'join':
    case 'setop':
    case 'recursive-cte':
    case 'modify':
      return undefined;
    default:
      return assertNever(p);
  }
}

/** True when the logical input delivers rows grouped by exactly these partition expressions. */
function groupedBy(input: LogicalPlan, partitionBy: readonly Expr[]): boolean {
  if (partitionBy.length === 0) return false;
  let cur = input;
  while (cur.op === 'project' && cur.exprs.every((e, i) => e.kind === 'column' && e.index === i)) cur = cur.input;
  if (cur.op !== 'sort') return false;
  const lead = cur.keys.slice(0, partitionBy.length);
  if (lead.length < partitionBy.length) return false;
  return partitionBy.every((e) => lead.some((k) => exprEquals(k.expr, e))) && lead.every((k) => partitionBy.some((e) => exprEquals(k.expr, e)));
}

function partitionedScan(p: LogicalPlan): (LogicalPlan & { op: 'scan' }) | null {
  // An identity projection (every input column, in order) changes nothing a partition reads.
  while (p.op === 'project' && p.exprs.length === p.input.schema.length && p.exprs.every((e, i) => e.kind === 'column' && e.index === i)) p = p.input;
  if (p.op !== 'scan' || !isPartitionedSource(p.source)) return null;
  return p.source.scanPartitions().length > 1 ? p : null;
}

function partitionScans(scan: LogicalPlan & { op: 'scan' }): PhysicalOperator[] {
  const src = scan.source as unknown as PartitionedSource;
  const n = src.scanPartitions().length;
  const group = new PartitionGroup(src);
  const out: PhysicalOperator[] = [];
  for (let i = 0; i < n; i++) out.push(new PartitionScan(scan.schema, group, i, scan.projection ?? null));
  return out;
}

export function planTopNRanking(p: LogicalPlan & { op: 'topn-ranking' }, planInput: (lp: LogicalPlan) => PhysicalOperator, slotPlan: SlotPlanFn): PhysicalOperator {
  const scan = partitionedScan(p.input);
  const inputs = scan !== null ? partitionScans(scan) : [planInput(p.input)];
  const width = inputs[0]!.schema.length;
  const exprs: Expr[] = inputs[0]!.schema.map((f, i) => colRef(i, f.type, f.name));
  const add = (e: Expr): number => {
    if (e.kind === 'column') return e.index;
    const at = exprs.findIndex((x, i) => i >= width && exprEquals(x, e));
    if (at >= 0) return at;
    exprs.push(e);
    return exprs.length - 1;
  };
  // Not for the streaming form, which compares partition keys for equality (no NULL grouping there).
  const streaming = scan === null && groupedBy(p.input, p.partitionBy);
  const partitionCols: number[] = [];
  const together: number[][] = [];
  for (const e of p.partitionBy) {
    const parts = streaming ? null : injectiveTextParts(e);
    if (parts === null) {
      partitionCols.push(add(e));
      continue;
    }
    together.push(parts.map((_, j) => partitionCols.length + j));
    for (const part of parts) partitionCols.push(add(part));
  }
  const orderKeys: SortKey[] = p.orderBy.map((k) => ({ col: add(k.expr), type: k.expr.type, desc: k.desc, nullsFirst: k.nullsFirst }));
  const withKeys = (op: PhysicalOperator): PhysicalOperator => {
    if (exprs.length === width) return op;
    const schema = exprs.map((e, i) => ({ name: op.schema[i]?.name ?? `?rank_key${i - width}?`, type: e.type }));
    return new Project(schema, op, exprs, slotPlan);
  };
  const spec: TopNRankingSpec = {
    partitionCols,
    orderKeys,
    kind: p.ranking,
    k: p.k,
    strict: p.strict,
    names: { partition: p.partitionBy.map((e) => explainExpr(e, p.input.schema)), order: p.orderBy.map((k) => explainExpr(k.expr, p.input.schema)) },
    // Helper key columns are projected away above, and the order with them: nothing to promise.
    // A split key's parts do not order as the expression does.
    sortedOutput: exprs.length === width && partitionCols.length > 0 && together.length === 0,
    unusedCols: partitionCols.filter((c) => c >= width && !orderKeys.some((k) => k.col === c)),
    together,
  };
  const est = estimateRows(p.input);
  const probe = Math.max(PROBE_ROWS, est === undefined ? 0 : Math.floor(est / 4));
  let op: PhysicalOperator;
  if (scan !== null) {
    // Partial steps prune inside each partition and never give up (their output is re-ranked by the final).
    const partials = inputs.map((i) => new TopNRanking(withKeys(i), { ...spec, strict: true, sortedOutput: false, unusedCols: [] }));
    op = new TopNRanking(new ConcatPartitions(partials), spec, probe, est ?? 0);
  } else if (streaming) {
    op = new TopNRankingStreaming(withKeys(inputs[0]!), spec, probe);
  } else {
    op = new TopNRanking(withKeys(inputs[0]!), spec, probe, est ?? 0);
  }
  if (exprs.length === width) return op;
  const keep = p.schema.map((f, i) => colRef(i, f.type, f.name));
  return new Project(p.schema, op, keep, slotPlan);
}

/** Local/Global split for ORDER BY … LIMIT over a partitioned scan; null when it does not apply. */
export function planPartitionedTopN(p: LogicalPlan & { op: 'topn' }, count: number, offset: number): PhysicalOperator | null {
  const scan = partitionedScan(p.input);
  if (scan === null || !p.keys.every((k) => k.expr.kind === 'column')) return null;
  const keys: SortKey[] = p.keys.map((k) => ({ col: (k.expr as { index: number }).index, type: k.expr.type, desc: k.desc, nullsFirst: k.nullsFirst }));
  const partials = partitionScans(scan).map((s) => new PartialTopN(s, keys, count + offset, p.withTies));
  return new FinalTopN(partials, keys, count, offset, p.withTies);
}
