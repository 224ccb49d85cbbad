/**
 * derive-topn-from-window: a filter that keeps the first k ranks of a ranking function becomes a
 * per-partition Top-N below the window, so the window sorts k rows per partition instead of all rows.
 *
 *   Filter(rn <= 3 AND x > 0)                    Filter(x > 0)            (rn <= 3 kept unless redundant)
 *     Window(rn = row_number() OVER               Window(rn = row_number() OVER (PARTITION BY g ORDER BY v))
 *            (PARTITION BY g ORDER BY v))   ==>     TopNRanking(partition [g], order [v], row_number, k=3)
 *       input                                         input
 *
 * Also through a projection of plain columns between the filter and the window (CTE / subquery column
 * lists). Supported conditions on the ranking column (constants are integers, on either side):
 *
 *   | condition                     | k      | ranking conjunct after the rewrite            |
 *   | rn <= k, k >= rn              | k      | dropped when redundant (see below)            |
 *   | rn < k,  k > rn               | k - 1  | dropped when redundant                        |
 *   | rn = k                        | k      | dropped when k = 1 and redundant, else kept   |
 *   | rn BETWEEN a AND k            | k      | dropped when a <= 1 and redundant, else kept  |
 *   | rn IN (1, 2, …, k)            | max    | dropped when the list is exactly 1..k         |
 *   | upper bound < 1 (rn <= 0)     | —      | the whole filter becomes an empty relation    |
 *
 * "Redundant": the Top-N keeps exactly the rows whose ranking is <= k, and the window over the kept
 * rows computes the same ranking for them (all rows ranked before a kept row are kept too, and for
 * rank/dense_rank every row tied at the cutoff is kept), so a condition that accepts every value in
 * 1..k is implied. It is only dropped when the Top-N is strict (`quire.derive_topn = on`); in `auto`
 * mode the operator may give up on pruning at run time (many tiny partitions) and pass rows through,
 * so the filter stays and does the cut.
 *
 * When the rule fires (all of):
 *  - the ranking column is row_number(), rank() or dense_rank() (no arguments); rank/dense_rank need an
 *    ORDER BY (without one every row ranks 1 and nothing can be pruned);
 *  - the conjuncts on it give a finite upper bound;
 *  - every other function in the same window node has the same PARTITION BY and ORDER BY and gives the
 *    same value on the kept rows as on the full partition: row_number, rank, dense_rank, lag with a
 *    non-negative constant offset, and aggregates / first_value / last_value / nth_value whose frame ends
 *    at CURRENT ROW or before (for row_number only ROWS frames: a RANGE/GROUPS frame reaches peers that
 *    the cut may drop). ntile, percent_rank, cume_dist, lead, partition-wide aggregates and frames that
 *    look ahead need the whole partition, so the rule refuses them;
 *  - partition and order expressions are deterministic (the Top-N evaluates them a second time);
 *  - `quire.derive_topn` is `on`, or `auto` (the default) and the estimate does not say it is useless:
 *    auto skips when the input is estimated at <= k rows (nothing to prune) or when the partition keys
 *    contain a unique key of the scanned table (one row per partition). The operator in auto mode also
 *    stops pruning by itself when it sees that almost every row survives (see topn-ranking.ts).
 *  `off` disables it, like TiDB's tidb_opt_derive_topn; `SET quire.disabled_rules` works as for every rule.
 */
import { T } from '../../common/types.js';
import { exprEquals, someExpr, type Expr, type SortKey } from '../../logical/expr.js';
import { splitConjuncts } from '../../logical/conjuncts.js';
import type { LogicalPlan, RankingKind, WindowCall } from '../../logical/plan.js';
import { lookupWindowAggregate } from '../../functions/aggregate/registry.js';
import type { OptimizerContext, OptimizerRule } from '../rule.js';

export const DERIVE_TOPN_SETTING = 'quire.derive_topn';
export type DeriveTopNMode = 'on' | 'off' | 'auto';

export function deriveTopNMode(ctx: OptimizerContext): DeriveTopNMode {
  const v = (ctx.setting(DERIVE_TOPN_SETTING) ?? 'auto').trim().toLowerCase();
  if (v === 'off' || v === 'false' || v === '0') return 'off';
  if (v === 'on' || v === 'true' || v === '1') return 'on';
  return 'auto';
}

function intConst(e: Expr): number | null {
  if (e.kind !== 'const' || (typeof e.value !== 'number' && typeof e.value !== 'bigint')) return null;
  const n = Number(e.value);
  return Number.isSafeInteger(n) ? n : null;
}

/** A conjunct that bounds one column: lo <= col <= hi, or col IN set. */
interface Bound {
  col: number;
  lo: number;
  hi: number;
  /** IN list values (then lo/hi are its min/max). */
  set: number[] | null;
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

function boundOf(c: Expr): Bound | null {
  if (c.kind === 'compare') {
    let col: Expr = c.left;
    let k = intConst(c.right);
    let op: string = c.op;
    if (k === null) {
      col = c.right;
      k = intConst(c.left);
      op = FLIP[c.op] ?? '';
    }
    if (k === null || col.kind !== 'column') return null;
    switch (op) {
      case '<=':
        return { col: col.index, lo: -Infinity, hi: k, set: null };
      case '<':
        return { col: col.index, lo: -Infinity, hi: k - 1, set: null };
      case '=':
        return { col: col.index, lo: k, hi: k, set: null };
      case '>=':
        return { col: col.index, lo: k, hi: Infinity, set: null };
      case '>':
        return { col: col.index, lo: k + 1, hi: Infinity, set: null };
      default:
        return null;
    }
  }
  if (c.kind === 'in-list' && !c.negated && c.arg.kind === 'column') {
    const vals = c.list.map(intConst);
    if (vals.length === 0 || vals.some((v) => v === null)) return null;
    const set = vals as number[];
    return { col: c.arg.index, lo: Math.min(...set), hi: Math.max(...set), set };
  }
  return null;
}

const RANKING = new Set(['row_number', 'rank', 'dense_rank']);
const VALUE_FNS = new Set(['first_value', 'last_value', 'nth_value']);

const risky = (e: Expr): boolean => someExpr(e, (x) => x.kind === 'subquery' || x.kind === 'outer' || (x.kind === 'call' && x.overload.volatile === true));

function sameKeys(a: readonly SortKey[], b: readonly SortKey[]): boolean {
  return a.length === b.length && a.every((k, i) => k.desc === b[i]!.desc && k.nullsFirst === b[i]!.nullsFirst && exprEquals(k.expr, b[i]!.expr));
}

function sameExprList(a: readonly Expr[], b: readonly Expr[]): boolean {
  return a.length === b.length && a.every((e, i) => exprEquals(e, b[i]!));
}

/** Does `call` give the same value on the kept rows as on the whole partition? (see header) */
function survivesCut(call: WindowCall, kind: RankingKind): boolean {
  if (RANKING.has(call.name)) return call.args.length === 0;
  if (call.name === 'lag') {
    if (call.args.length < 2) return true;
    const off = intConst(call.args[1]!);
    return off !== null && off >= 0;
  }
  if (!VALUE_FNS.has(call.name) && lookupWindowAggregate(call.name) === undefined) return false;
  const f = call.spec.frame;
  if (f.end.kind !== 'current-row' && f.end.kind !== 'preceding' && f.end.kind !== 'unbounded-preceding') return false;
  if (f.start.kind === 'following' || f.start.kind === 'unbounded-following') return false;
  // row_number cuts inside a peer group; RANGE/GROUPS frames include (or are measured in) peers.
  if (kind === 'row_number' && f.units !== 'rows') return false;
  return true;
}

/** Row estimate and unique keys of the scan under filters/projections of plain columns, when there is one. */
function scanFacts(p: LogicalPlan): { rows: number | undefined; uniqueCols: number[][] } | null {
  let cur = p;
  // Column c of `p` is column map[c] of the current node (null once it is computed).
  let map: (number | null)[] = p.schema.map((_, i) => i);
  for (;;) {
    if (cur.op === 'filter') {
      cur = cur.input;
      continue;
    }
    if (cur.op === 'project') {
      const exprs = cur.exprs;
      map = map.map((c) => (c === null ? null : exprs[c]?.kind === 'column' ? (exprs[c] as { index: number }).index : null));
      cur = cur.input;
      continue;
    }
    break;
  }
  if (cur.op !== 'scan') return null;
  const scan = cur;
  const rows = scan.source.rowCount();
  const src = scan.source as { uniqueKeys?: unknown };
  const uniq = Array.isArray(src.uniqueKeys) ? (src.uniqueKeys as number[][]) : [];
  // Source column -> column of p.
  const toP = new Map<number, number>();
  map.forEach((c, i) => {
    if (c === null) return;
    const sourceCol = scan.projection ? scan.projection[c] : c;
    if (sourceCol !== undefined && !toP.has(sourceCol)) toP.set(sourceCol, i);
  });
  const uniqueCols: number[][] = [];
  for (const key of uniq) {
    const cols = key.map((s) => toP.get(s));
    if (cols.every((c) => c !== undefined)) uniqueCols.push(cols as number[]);
  }
  return { rows, uniqueCols };
}

/** auto mode: true when the estimate says pruning cannot pay. */
function useless(win: LogicalPlan & { op: 'window' }, partitionBy: readonly Expr[], k: number): boolean {
  const facts = scanFacts(win.input);
  if (facts === null) return false;
  if (facts.rows !== undefined && facts.rows <= k) return true;
  const partCols = new Set(partitionBy.filter((e) => e.kind === 'column').map((e) => (e as { index: number }).index));
  return facts.uniqueCols.some((key) => key.length > 0 && key.every((c) => partCols.has(c)));
}

function andOf(list: Expr[]): Expr | null {
  if (list.length === 0) return null;
  return list.length === 1 ? list[0]! : { kind: 'and', args: list, type: T.bool };
}

export const deriveTopNFromWindow: OptimizerRule = {
  name: 'derive-topn-from-window',
  rewrite(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | null {
    if (node.op !== 'filter') return null;
    const mode = deriveTopNMode(ctx);
    if (mode === 'off') return null;
    let proj: (LogicalPlan & { op: 'project' }) | null = null;
    let win: LogicalPlan;
    if (node.input.op === 'project') {
      proj = node.input;
      win = proj.input;
    } else win = node.input;
    if (win.op !== 'window') return null;
    const w = win;
    if (w.input.op === 'topn-ranking') return null;
    const width = w.input.schema.length;
    // Filter column -> window output column (through the projection, when there is one).
    const toWin = (c: number): number | null => {
      if (proj === null) return c;
      const e = proj.exprs[c];
      return e !== undefined && e.kind === 'column' ? e.index : null;
    };

    const parts = splitConjuncts(node.predicate);
    const bounds = parts.map(boundOf);
    // Candidate ranking columns: window outputs with a finite upper bound.
    const byCol = new Map<number, { lo: number; hi: number; idx: number[]; exactSet: boolean }>();
    bounds.forEach((b, i) => {
      if (b === null) return;
      const wc = toWin(b.col);
      if (wc === null || wc < width) return;
      const cur = byCol.get(wc) ?? { lo: -Infinity, hi: Infinity, idx: [], exactSet: true };
      cur.lo = Math.max(cur.lo, b.lo);
      cur.hi = Math.min(cur.hi, b.hi);
      cur.idx.push(i);
      // An IN list implies "rn in 1..k" only when it is exactly 1..k.
      if (b.set !== null) {
        const s = new Set(b.set);
        const exact = s.size === b.hi && b.lo === 1 && [...s].every((v) => v >= 1 && v <= b.hi);
        if (!exact) cur.exactSet = false;
      }
      byCol.set(wc, cur);
    });

    for (const [wc, range] of byCol) {
      if (!Number.isFinite(range.hi)) continue;
      const call = w.calls[wc - width]!;
      if (!RANKING.has(call.name) || call.args.length !== 0) continue;
      const kind = call.name as RankingKind;
      const spec = call.spec;
      if (kind !== 'row_number' && spec.orderBy.length === 0) continue;
      if (spec.partitionBy.some(risky) || spec.orderBy.some((k) => risky(k.expr))) continue;
      const compatible = w.calls.every(
        (c) => sameExprList(c.spec.partitionBy, spec.partitionBy) && sameKeys(c.spec.orderBy, spec.orderBy) && survivesCut(c, kind) && c.filter === null,
      );
      if (!compatible) continue;

      // No rank can satisfy the condition: the filter returns nothing.
      if (range.hi < 1 || range.lo > range.hi) return { op: 'empty', schema: node.schema, oneRow: false };

      const k = range.hi;
      if (mode === 'auto' && useless(w, spec.partitionBy, k)) return null;
      const strict = mode === 'on';
      const ranked: LogicalPlan = {
        op: 'topn-ranking',
        input: w.input,
        partitionBy: spec.partitionBy,
        orderBy: spec.orderBy,
        ranking: kind,
        k,
        strict,
        schema: w.input.schema,
      };
      const newWin: LogicalPlan = { ...w, input: ranked };
      const redundant = strict && range.lo <= 1 && range.exactSet;
      const rest = redundant ? parts.filter((_, i) => !range.idx.includes(i)) : parts;
      const below: LogicalPlan = proj === null ? newWin : { ...proj, input: newWin };
      const pred = andOf(rest);
      return pred === null ? below : { ...node, input: below, predicate: pred };
    }
    return null;
  },
};

