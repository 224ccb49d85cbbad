/**
 * prune-scan-columns: a scan reads only the columns the operators above it use.
 *
 *   Project(b)                        Project(#1 → #0)
 *     Filter(a > 1)          ==>        Filter(#0 > 1)
 *       Scan(t: a, b, c, d)               Scan(t: a, b)
 *
 * Fires on a Project or Aggregate whose input is a scan, possibly under filters, and on a Project over
 * a Window over a scan (filters and per-partition Top-Ns on either side). Refuses when every
 * column is used, when the scan is already pruned, or when a filter holds a correlated subquery
 * (its outer references address the unpruned row).
 */
import { columnsUsed, mapExpr, someExpr, type Expr } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';

function exprsOf(node: LogicalPlan): Expr[] {
  if (node.op === 'project') return node.exprs;
  if (node.op === 'aggregate') {
    return [...node.groupBy, ...node.aggs.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : []), ...a.orderBy.map((k) => k.expr)])];
  }
  return [];
}

export const pruneScanColumns: OptimizerRule = {
  name: 'prune-scan-columns',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op === 'project' && (node.input.op === 'window' || node.input.op === 'filter')) {
      const r = pruneUnderWindow(node, node.input);
      if (r !== null || node.input.op === 'window') return r;
    }
    if (node.op !== 'project' && node.op !== 'aggregate') return null;
    const filters: (LogicalPlan & { op: 'filter' })[] = [];
    let cur = node.input;
    while (cur.op === 'filter') {
      filters.push(cur);
      cur = cur.input;
    }
    if (cur.op !== 'scan' || cur.projection !== undefined) return null;
    const scan = cur;
    const all: Expr[] = [...exprsOf(node), ...filters.map((f) => f.predicate)];
    if (all.some((e) => someExpr(e, (x) => x.kind === 'subquery' && x.correlated))) return null;
    const used = new Set<number>();
    for (const e of all) columnsUsed(e, used);
    if (used.size >= scan.schema.length) return null;
    const keep = [...used].sort((a, b) => a - b);
    if (keep.length === 0) keep.push(0);
    const remap = new Map(keep.map((c, i) => [c, i]));
    const re = (e: Expr): Expr => mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: remap.get(x.index)! } : x));
    let input: LogicalPlan = { ...scan, projection: keep, schema: keep.map((i) => scan.schema[i]!) };
    for (let i = filters.length - 1; i >= 0; i--) {
      input = { op: 'filter', input, predicate: re(filters[i]!.predicate), schema: input.schema };
    }
    if (node.op === 'project') return { ...node, input, exprs: node.exprs.map(re) };
    return {
      ...node,
      input,
      groupBy: node.groupBy.map(re),
      aggs: node.aggs.map((a) => ({ ...a, args: a.args.map(re), filter: a.filter ? re(a.filter) : null, orderBy: a.orderBy.map((k) => ({ ...k, expr: re(k.expr) })) })),
    };
  },
};

/**
 * Project -> [Filter...] -> Window -> [Filter | TopNRanking...] -> Scan: the scan keeps the columns the
 * project and the filters above the window read from the window's pass-through part, plus those the
 * window calls and the nodes below it read (window sorts and per-partition Top-N stores gather every
 * column they carry, so unused ones are expensive there). Window outputs (calls) shift down with the
 * pruned input.
 */
function pruneUnderWindow(node: LogicalPlan & { op: 'project' }, top: LogicalPlan): LogicalPlan | null {
  const above: (LogicalPlan & { op: 'filter' })[] = [];
  let w = top;
  while (w.op === 'filter') {
    above.push(w);
    w = w.input;
  }
  if (w.op !== 'window') return null;
  const win = w;
  const below: (LogicalPlan & { op: 'filter' | 'topn-ranking' })[] = [];
  let cur = win.input;
  while (cur.op === 'filter' || cur.op === 'topn-ranking') {
    below.push(cur);
    cur = cur.input;
  }
  if (cur.op !== 'scan' || cur.projection !== undefined) return null;
  const scan = cur;
  const width = win.input.schema.length;
  const callExprs: Expr[] = win.calls.flatMap((c) => [
    ...c.args,
    ...(c.filter ? [c.filter] : []),
    ...c.spec.partitionBy,
    ...c.spec.orderBy.map((k) => k.expr),
  ]);
  const belowExprs: Expr[] = below.flatMap((b) => (b.op === 'filter' ? [b.predicate] : [...b.partitionBy, ...b.orderBy.map((k) => k.expr)]));
  const outExprs: Expr[] = [...node.exprs, ...above.map((f) => f.predicate)];
  const all: Expr[] = [...outExprs, ...callExprs, ...belowExprs];
  if (all.some((e) => someExpr(e, (x) => x.kind === 'subquery' && x.correlated))) return null;
  const used = new Set<number>();
  for (const e of [...callExprs, ...belowExprs]) columnsUsed(e, used);
  for (const e of outExprs) for (const c of columnsUsed(e)) if (c < width) used.add(c);
  if (used.size >= scan.schema.length) return null;
  const keep = [...used].sort((a, b) => a - b);
  if (keep.length === 0) keep.push(0);
  const remap = new Map(keep.map((c, i) => [c, i]));
  const re = (e: Expr): Expr => mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: remap.get(x.index)! } : x));
  const reOut = (e: Expr): Expr =>
    mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: x.index < width ? remap.get(x.index)! : x.index - width + keep.length } : x));
  let input: LogicalPlan = { ...scan, projection: keep, schema: keep.map((i) => scan.schema[i]!) };
  for (let i = below.length - 1; i >= 0; i--) {
    const b = below[i]!;
    input =
      b.op === 'filter'
        ? { op: 'filter', input, predicate: re(b.predicate), schema: input.schema }
        : { ...b, input, partitionBy: b.partitionBy.map(re), orderBy: b.orderBy.map((k) => ({ ...k, expr: re(k.expr) })), schema: input.schema };
  }
  const calls = win.calls.map((c) => ({
    ...c,
    args: c.args.map(re),
    filter: c.filter ? re(c.filter) : null,
    spec: { ...c.spec, partitionBy: c.spec.partitionBy.map(re), orderBy: c.spec.orderBy.map((k) => ({ ...k, expr: re(k.expr) })) },
  }));
  let out: LogicalPlan = { ...win, input, calls, schema: [...input.schema, ...win.schema.slice(width)] };
  for (let i = above.length - 1; i >= 0; i--) {
    out = { op: 'filter', input: out, predicate: reOut(above[i]!.predicate), schema: out.schema };
  }
  return { ...node, input: out, exprs: node.exprs.map(reOut) };
}
