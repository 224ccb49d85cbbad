/**
 * push-into-remote-scan: moves work into the source of a scan that can do it itself (a TableSource with
 * `pushdown`, such as an ATTACHed PostgreSQL table, whose SQL then reads, filters, sorts and cuts rows
 * on the server before they cross the wire). The rule knows sources only through that interface.
 *
 *   Scan(pg.t, projection [1,3])          Scan(pg.t: SELECT "b", "d" FROM …)
 *   Filter(a > 1 AND f(b)) / Scan(pg.t)   Filter(f(b)) / Scan(pg.t: … WHERE ("a" > 1))
 *   TopN(a, 10, offset 5) / [Project] / Scan   [Project] / Scan(… ORDER BY "a" ASC NULLS LAST LIMIT 10 OFFSET 5)
 *   Limit(10) / [Project] / Scan          [Project] / Scan(… LIMIT 10)
 *
 * With `SET quire.connector_partitions = N` (N > 1) a Top-N over a plain table of at least N pages is
 * split Local/Global instead (the Spark seed's design):
 *
 *   TopN(a, 10, offset 5) / Scan          TopN(a, 10, offset 5) / Scan(N ctid ranges, each … ORDER BY "a" LIMIT 15)
 *
 * the ranges run concurrently on their own connections in one exported snapshot, and the kept TopN
 * merges their sorted outputs (FinalTopN over PartitionScans in physical/plan-topn.ts).
 *
 * Filters: the source takes the conjuncts it can evaluate (for PostgreSQL, those that translate to
 * SQL); the rest stay in a local Filter. ORDER BY/LIMIT go only onto a scan with no local filter left
 * between (the source must see every condition before cutting rows), and the source refuses them
 * when it already cut rows or a sort key does not translate. WITH TIES and non-constant counts stay
 * local. Runs after prune-scan-columns, whose projection it folds into the source's column list.
 */
import type { Value } from '../../common/types.js';
import { columnsUsed, mapExpr, someExpr, type Expr, type SortKey } from '../../logical/expr.js';
import { andOf, splitConjuncts } from '../../logical/conjuncts.js';
import type { LogicalPlan, ScanPushdown, TableSource } from '../../logical/plan.js';
import type { OptimizerContext, OptimizerRule } from '../rule.js';

export const CONNECTOR_PARTITIONS_SETTING = 'quire.connector_partitions';

/** At most this many ranges: each holds a pooled connection, plus one for the shared snapshot. */
const MAX_PARTITIONS = 16;

function connectorPartitions(ctx: OptimizerContext): number {
  const n = Number(ctx.setting(CONNECTOR_PARTITIONS_SETTING) ?? '1');
  return Number.isInteger(n) && n > 1 ? Math.min(n, MAX_PARTITIONS) : 1;
}

type ScanNode = LogicalPlan & { op: 'scan' };

function pushdownOf(p: LogicalPlan): { scan: ScanNode; src: ScanPushdown } | null {
  if (p.op !== 'scan' || p.source.pushdown === undefined || p.projection !== undefined) return null;
  return { scan: p, src: p.source.pushdown };
}

function withSource(scan: ScanNode, src: TableSource): ScanNode {
  return { ...scan, source: src, schema: src.schema.map((f, i) => ({ ...f, table: scan.schema[i]?.table ?? f.table })) };
}

function constCount(e: Expr | null): number | null | undefined {
  if (e === null) return null;
  if (e.kind !== 'const') return undefined;
  const v: Value = e.value;
  if (v === null) return null;
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : NaN;
  // Negative counts must raise Quire's own error at execution: leave them local.
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

type Under = { project: (LogicalPlan & { op: 'project' }) | null; scan: ScanNode; src: ScanPushdown; map: (i: number) => number | null };

/** Looks through an all-column-reference projection: maps its output columns to scan columns. */
function underProject(p: LogicalPlan): Under | null {
  const direct = pushdownOf(p);
  if (direct) return { project: null, ...direct, map: (i) => i };
  if (p.op !== 'project') return null;
  const r = pushdownOf(p.input);
  if (r === null) return null;
  const exprs = p.exprs;
  // A projection with volatile or expensive expressions could be evaluated on rows the limit drops;
  // that is harmless (pure expressions), so only the sort keys need to be column references.
  return { project: p, ...r, map: (i) => (exprs[i]?.kind === 'column' ? (exprs[i] as { index: number }).index : null) };
}

function rebuild(u: Under, src: TableSource): LogicalPlan {
  const scan = withSource(u.scan, src);
  return u.project === null ? scan : { ...u.project, input: scan };
}

export const pushIntoRemoteScan: OptimizerRule = {
  name: 'push-into-remote-scan',
  rewrite(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | null {
    // 1. Fold prune-scan-columns' projection into the source's column list.
    if (node.op === 'scan' && node.source.pushdown !== undefined && node.projection !== undefined) {
      const narrowed = node.source.pushdown.project(node.projection);
      const { projection: _drop, ...rest } = node;
      void _drop;
      return { ...rest, source: narrowed, schema: node.schema };
    }
    // 2. WHERE conjuncts.
    if (node.op === 'filter') {
      const r = pushdownOf(node.input);
      if (r === null) return null;
      const taken = r.src.filter(splitConjuncts(node.predicate));
      if (taken === null) return null;
      const scan = withSource(r.scan, taken.source);
      return taken.rest.length === 0 ? scan : { ...node, input: scan, predicate: andOf(taken.rest) };
    }
    // 3. ORDER BY + LIMIT/OFFSET (Top-N).
    if (node.op === 'topn') {
      if (node.withTies) return null;
      const u = underProject(node.input);
      if (u === null) return null;
      const count = constCount(node.count);
      const offset = constCount(node.offset) ?? (node.offset === null ? 0 : undefined);
      if (count === undefined || offset === undefined) return null;
      const keys: SortKey[] = [];
      for (const k of node.keys) {
        const mapped = mapKey(k, u.map);
        if (mapped === null) return null;
        keys.push(mapped);
      }
      const taken = u.src.topN(keys, count, offset ?? 0, connectorPartitions(ctx));
      if (taken === null) return null;
      return taken.final ? rebuild(u, taken.source) : { ...node, input: rebuild(u, taken.source) };
    }
    // 4. LIMIT/OFFSET without ORDER BY.
    if (node.op === 'limit') {
      if (node.ties !== null) return null;
      const u = underProject(node.input);
      if (u === null) return null;
      const count = constCount(node.count);
      const offset = constCount(node.offset);
      if (count === undefined || offset === undefined) return null;
      if (count === null && (offset === null || offset === 0)) return null;
      const taken = u.src.limit(count, offset ?? 0);
      return taken === null ? null : rebuild(u, taken);
    }
    // 5. Columns only the pushed-down filter used need not be read.
    if (node.op === 'project' || node.op === 'aggregate') {
      const r = pushdownOf(node.input);
      if (r === null) return null;
      const exprs = node.op === 'project' ? node.exprs : [...node.groupBy, ...node.aggs.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : []), ...a.orderBy.map((k) => k.expr)])];
      if (exprs.some((e) => someExpr(e, (x) => x.kind === 'subquery' && x.correlated))) return null;
      const used = new Set<number>();
      for (const e of exprs) columnsUsed(e, used);
      if (used.size >= r.scan.schema.length) return null;
      const keep = [...used].sort((a, b) => a - b);
      const remap = new Map(keep.map((c, i) => [c, i]));
      const re = (e: Expr): Expr => mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: remap.get(x.index)! } : x));
      const src = r.src.project(keep);
      const input: ScanNode = { ...r.scan, source: src, schema: keep.map((i) => r.scan.schema[i]!) };
      if (node.op === 'project') return { ...node, input, exprs: node.exprs.map(re) };
      return {
        ...node,
        input,
        groupBy: node.groupBy.map(re),
        aggs: node.aggs.map((a) => ({ ...a, args: a.args.map(re), filter: a.filter ? re(a.filter) : null, orderBy: a.orderBy.map((k) => ({ ...k, expr: re(k.expr) })) })),
      };
    }
    return null;
  },
};

/** A sort key over the projection's output, re-expressed over the scan's columns (column keys only). */
function mapKey(k: SortKey, map: (i: number) => number | null): SortKey | null {
  if (k.expr.kind !== 'column') return null;
  const j = map(k.expr.index);
  if (j === null) return null;
  return { ...k, expr: { ...k.expr, index: j } };
}
