/**
 * choose-index-scan: reads a stored table through a secondary index when the query's conditions or
 * its ORDER BY … LIMIT can use one.
 *
 *   Filter(a = 11 AND b > 0)              Filter(b > 0)
 *     Scan(t)                    ==>        Scan(t, index i on (a): a = 11)
 *
 *   TopN(a, 10)                           Limit(10)
 *     [Filter(p)] Scan(t)        ==>        [Filter(p)] Scan(t, index i on (a), in index order)
 *
 * Fires on a filter over a scan whose source has indexes, when an index's leading key columns are
 * compared with constants, parameters or outer columns: equality on the leading column(s) (or IS NULL),
 * or a range (<, <=, >, >=, BETWEEN) bounded on both sides on the first column after them; with
 * enable_seqscan off, a one-sided range too. Among usable indexes the one that constrains most key
 * columns wins. And on a Top-N whose keys are an index's order (or its reverse) over such a scan, when
 * the scan uses that index already or none: the Top-N becomes a Limit that stops the scan early.
 *
 * A partial index is used only when the query's conjuncts imply its predicate (a conjunct identical to
 * one of the predicate's, or `col op c1` implying `col op c2` by comparing the constants, as PostgreSQL's
 * predicate_implied_by does for simple clauses); the query's conjuncts that the predicate implies are not
 * checked again, except over a source whose rows are being locked (FOR UPDATE), where PostgreSQL
 * rechecks them. Indexes kept by name only (gist, gin, brin, spgist: no key columns) are never used. Refuses with enable_indexscan and enable_indexonlyscan both off; with only
 * enable_indexscan off, marks the access as usable only as an index-only scan (the physical planner reads
 * the table otherwise) and then keeps every conjunct and refuses the Top-N rewrite.
 */
import { compareValues } from '../../common/compare.js';
import { andOf } from '../../logical/conjuncts.js';
import { mapExpr, type CompareOp, type Expr, type SortKey } from '../../logical/expr.js';
import type { IndexAccess, IndexBound, IndexDefinition } from '../../logical/index-definition.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerContext, OptimizerRule } from '../rule.js';
import { rowsNeeded } from './limit-support.js';

type ScanNode = LogicalPlan & { op: 'scan' };

function enabled(ctx: OptimizerContext, name: string): boolean {
  return ctx.setting(name) !== 'off';
}

function conjuncts(e: Expr): Expr[] {
  return e.kind === 'and' ? e.args.flatMap(conjuncts) : [e];
}

/** A value the scan can evaluate once before reading: a constant, a parameter, an outer query's column. */
function boundable(e: Expr): boolean {
  if (e.kind === 'const' || e.kind === 'param' || e.kind === 'outer') return true;
  return e.kind === 'cast' && boundable(e.arg);
}

const FLIP: Record<CompareOp, CompareOp> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** `col op value` with the column on the left, when `e` is a comparison of a column with a boundable value of its type. */
function columnCompare(e: Expr): { col: number; op: CompareOp; value: Expr; expr: Expr } | null {
  if (e.kind !== 'compare') return null;
  const { left, right } = e;
  if (left.kind === 'column' && boundable(right) && sameType(left, right)) return { col: left.index, op: e.op, value: right, expr: e };
  if (right.kind === 'column' && boundable(left) && sameType(right, left)) {
    const op = FLIP[e.op];
    return { col: right.index, op, value: left, expr: { ...e, op, left: right, right: left } };
  }
  return null;
}

function sameType(a: Expr, b: Expr): boolean {
  return a.type.name === b.type.name;
}

/** Structural equality of two expressions, ignoring where they were written. */
function sameExpr(a: Expr, b: Expr): boolean {
  const key = (e: Expr): string => JSON.stringify(e, (k, v: unknown) => (k === 'position' || k === 'table' ? undefined : v));
  return key(a) === key(b);
}

/** Whether `a op b` holds for two constants of type `t`. */
function holds(a: Expr, op: CompareOp, b: Expr): boolean {
  if (a.kind !== 'const' || b.kind !== 'const' || a.value === null || b.value === null) return false;
  const d = compareValues(a.value, b.value, a.type);
  switch (op) {
    case '=':
      return d === 0;
    case '<>':
      return d !== 0;
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
  }
}

/** Whether conjunct `q` being true proves `p` true (every row `q` accepts, `p` accepts). */
function implies(q: Expr, p: Expr): boolean {
  if (sameExpr(q, p)) return true;
  const x = columnCompare(q);
  const y = columnCompare(p);
  if (x === null || y === null || x.col !== y.col || x.value.kind !== 'const' || y.value.kind !== 'const' || x.value.type.name !== y.value.type.name) return false;
  const a = x.value;
  const b = y.value;
  if (x.op === '=') return holds(a, y.op, b);
  const below = (o: CompareOp): boolean => o === '<' || o === '<=';
  const above = (o: CompareOp): boolean => o === '>' || o === '>=';
  // col < a proves col < b when a <= b; col <= a proves col < b only when a < b.
  if (below(x.op) && below(y.op)) return x.op === '<' || y.op === '<=' ? holds(a, '<=', b) : holds(a, '<', b);
  if (above(x.op) && above(y.op)) return x.op === '>' || y.op === '>=' ? holds(a, '>=', b) : holds(a, '>', b);
  return false;
}

interface Candidate {
  access: IndexAccess;
  /** Conjuncts (positions in the filter's list) the index enforces or its predicate implies: not checked again. */
  covered: Set<number>;
  score: number;
}

/**
 * How `idx` can serve conjuncts `qs` (over the table's columns): null when its predicate is not implied.
 * `keepAll`: every conjunct stays in the filter (an index-only fallback must be able to drop the index).
 */
function candidate(idx: IndexDefinition, qs: readonly Expr[], keepAll: boolean, recheck = false): Candidate | null {
  const covered = new Set<number>();
  if (idx.predicate !== null) {
    const ps = conjuncts(idx.predicate);
    if (!ps.every((p) => qs.some((q) => implies(q, p)))) return null;
    if (!keepAll && !recheck) qs.forEach((q, i) => ps.some((p) => implies(p, q)) && covered.add(i));
  }
  const eq: (Expr | null)[] = [];
  const cond: Expr[] = [];
  const lower: IndexBound[] = [];
  const upper: IndexBound[] = [];
  const use = (i: number, e: Expr): void => {
    cond.push(e);
    if (!keepAll) covered.add(i);
  };
  for (const k of idx.columns) {
    let found = false;
    for (let i = 0; i < qs.length && !found; i++) {
      const q = qs[i]!;
      const c = columnCompare(q);
      if (c !== null && c.col === k.col && c.op === '=') {
        eq.push(c.value);
        use(i, c.expr);
        found = true;
      } else if (q.kind === 'is-null' && !q.negated && q.arg.kind === 'column' && q.arg.index === k.col) {
        eq.push(null);
        use(i, q);
        found = true;
      }
    }
    if (found) continue;
    qs.forEach((q, i) => {
      const c = columnCompare(q);
      if (c === null || c.col !== k.col) return;
      if (c.op === '>' || c.op === '>=') lower.push({ expr: c.value, inclusive: c.op === '>=' });
      else if (c.op === '<' || c.op === '<=') upper.push({ expr: c.value, inclusive: c.op === '<=' });
      else return;
      use(i, c.expr);
    });
    break;
  }
  const score = eq.length * 4 + (lower.length > 0 && upper.length > 0 ? 2 : lower.length + upper.length > 0 ? 1 : 0);
  return { access: { index: idx, eq, lower, upper, cond, backward: false, ordered: false, allowIndexOnly: true, onlyIfIndexOnly: false }, covered, score };
}

function sourceColumn(scan: ScanNode, i: number): number {
  return scan.projection !== undefined ? scan.projection[i]! : i;
}

function toSource(scan: ScanNode, e: Expr): Expr {
  if (scan.projection === undefined) return e;
  return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: sourceColumn(scan, x.index) } : x));
}

function onFilter(node: LogicalPlan & { op: 'filter' }, scan: ScanNode, ctx: OptimizerContext): LogicalPlan | null {
  const indexes = scan.source.indexes;
  if (scan.index !== undefined || indexes === undefined || indexes.length === 0) return null;
  const keepAll = !enabled(ctx, 'enable_indexscan');
  const own = conjuncts(node.predicate);
  const qs = own.map((q) => toSource(scan, q));
  let best: Candidate | null = null;
  for (const idx of indexes) {
    // gist/gin/brin indexes are kept by name only: they have no entries to read.
    if (idx.columns.length === 0) continue;
    const c = candidate(idx, qs, keepAll, scan.source.lockTarget === true);
    if (c === null || c.score === 0) continue;
    // Without statistics a one-sided range may select most of the table: reading it in index order
    // costs more than the scan, unless the scan is switched off.
    const a = c.access;
    if (a.eq.length === 0 && (a.lower.length === 0 || a.upper.length === 0) && enabled(ctx, 'enable_seqscan')) continue;
    if (best === null || c.score > best.score) best = c;
  }
  if (best === null) return null;
  const access: IndexAccess = { ...best.access, allowIndexOnly: enabled(ctx, 'enable_indexonlyscan'), onlyIfIndexOnly: keepAll };
  const input: ScanNode = { ...scan, index: access };
  const rest = own.filter((_, i) => !best.covered.has(i));
  return rest.length === 0 ? input : { ...node, input, predicate: andOf(rest) };
}

/** Whether ORDER BY `keys` (over the scan's output) reads `access`'s index order, forwards or backwards. */
function orderDirection(scan: ScanNode, keys: readonly SortKey[], idx: IndexDefinition, fixed: number): boolean | null {
  for (const backward of [false, true]) {
    for (let s = 0; s <= fixed; s++) {
      if (s + keys.length > idx.columns.length) break;
      const ok = keys.every((k, i) => {
        const c = idx.columns[s + i]!;
        return k.expr.kind === 'column' && sourceColumn(scan, k.expr.index) === c.col && k.desc === (c.desc !== backward) && k.nullsFirst === (c.nullsFirst !== backward);
      });
      if (ok) return backward;
    }
  }
  return null;
}

function onTopN(node: LogicalPlan & { op: 'topn' }, ctx: OptimizerContext): LogicalPlan | null {
  if (!enabled(ctx, 'enable_indexscan')) return null;
  // A projection of plain columns between the Top-N and the filter/scan (SELECT a … ORDER BY a) passes the order through.
  const project = node.input.op === 'project' && node.input.exprs.every((e) => e.kind === 'column') ? node.input : null;
  const below = project?.input ?? node.input;
  const filter = below.op === 'filter' ? below : null;
  const scan = (filter?.input ?? below) as LogicalPlan;
  if (scan.op !== 'scan' || scan.source.indexes === undefined || scan.source.indexes.length === 0) return null;
  const keys: SortKey[] = [];
  for (const k of node.keys) {
    if (k.expr.kind !== 'column') return null;
    keys.push(project === null ? k : { ...k, expr: project.exprs[k.expr.index]! });
  }
  let access: IndexAccess | null = null;
  if (scan.index !== undefined) {
    const backward = orderDirection(scan, keys, scan.index.index, scan.index.eq.length);
    if (backward !== null) access = { ...scan.index, backward, ordered: true };
  } else {
    const qs = filter !== null ? conjuncts(filter.predicate).map((q) => toSource(scan, q)) : [];
    for (const idx of scan.source.indexes) {
      if (idx.columns.length === 0) continue;
      // A partial index still has to be implied; its conjuncts stay in the filter.
      if (idx.predicate !== null && candidate(idx, qs, true) === null) continue;
      const backward = orderDirection(scan, keys, idx, 0);
      if (backward === null) continue;
      access = { index: idx, eq: [], lower: [], upper: [], cond: [], backward, ordered: true, allowIndexOnly: enabled(ctx, 'enable_indexonlyscan'), onlyIfIndexOnly: false };
      break;
    }
  }
  if (access === null) return null;
  const limit: LogicalPlan & { op: 'limit' } = { op: 'limit', input: node.input, offset: node.offset, count: node.count, ties: node.withTies ? node.keys : null, schema: node.schema };
  const need = filter === null ? rowsNeeded(limit) : null;
  let input: LogicalPlan = { ...scan, index: access, ...(need !== null ? { fetch: need } : {}) };
  if (filter !== null) input = { ...filter, input };
  if (project !== null) input = { ...project, input };
  return { ...limit, input };
}

export const chooseIndexScan: OptimizerRule = {
  name: 'choose-index-scan',
  rewrite(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | null {
    if (!enabled(ctx, 'enable_indexscan') && !enabled(ctx, 'enable_indexonlyscan')) return null;
    if (node.op === 'filter' && node.input.op === 'scan') return onFilter(node, node.input, ctx);
    if (node.op === 'topn') return onTopN(node, ctx);
    return null;
  },
};
