/**
 * push-into-table-function: file readers (read_parquet, read_arrow) decode only the columns the plan
 * uses and skip data their filters cannot match.
 *
 *   Project(b)                         Project(#1 → #0)
 *     Filter(a > 1)           ==>        Filter(#0 > 1)
 *       read_parquet(a,b,c,d)              read_parquet(a,b; row group filter a > 1)
 *
 * Filter over a table function with `withFilter`: the function receives the conjuncts and keeps the
 * ones it can use for skipping (row-group statistics); the Filter stays, so skipping need only be
 * conservative, except for the conjuncts the function reports applying exactly (`exactConjuncts`,
 * read_parquet's row filters, its text ones only while `quire.parquet_text_filters` is on), which leave
 * it (and their columns leave the scan's output when nothing else uses them). Project/Aggregate over
 * [filters over] a table function with `withProjection`: as prune-scan-columns does for table scans.
 * Refuses correlated subqueries in the filters (their outer references address the unpruned row).
 */
import { columnsUsed, mapExpr, someExpr, type Expr } from '../../logical/expr.js';
import { andOf, splitConjuncts } from '../../logical/conjuncts.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerContext, OptimizerRule } from '../rule.js';


function exprsOf(node: LogicalPlan): Expr[] {
  if (node.op === 'project') return node.exprs;
  if (node.op === 'aggregate') {
    return [...node.groupBy, ...node.aggs.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : []), ...a.orderBy.map((k) => k.expr)])];
  }
  return [];
}

/** Marks functions whose filter was already offered, so the driver's repeat loop stops. */
const filtered = new WeakSet<object>();

export const pushIntoTableFunction: OptimizerRule = {
  name: 'push-into-table-function',
  rewrite(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | null {
    if (node.op === 'filter' && node.input.op === 'table-function') {
      const tf = node.input;
      if (tf.impl.withFilter === undefined || filtered.has(tf.impl)) return null;
      if (someExpr(node.predicate, (x) => x.kind === 'subquery' || x.kind === 'param' || x.kind === 'outer')) return null;
      const conjuncts = splitConjuncts(node.predicate);
      const impl = tf.impl.withFilter(conjuncts, (name) => ctx.setting(name));
      filtered.add(tf.impl);
      if (impl === null) return null;
      filtered.add(impl);
      const exact = new Set(impl.exactConjuncts ?? []);
      const rest = conjuncts.filter((_, i) => !exact.has(i));
      if (rest.length === 0) return { ...tf, impl };
      return { ...node, predicate: andOf(rest), input: { ...tf, impl } };
    }
    if (node.op !== 'project' && node.op !== 'aggregate') return null;
    const filters: (LogicalPlan & { op: 'filter' })[] = [];
    let cur = node.input;
    while (cur.op === 'filter') {
      filters.push(cur);
      cur = cur.input;
    }
    if (cur.op !== 'table-function') return null;
    const tf = cur;
    const withProjection = tf.impl.withProjection?.bind(tf.impl);
    if (withProjection === undefined) return null;
    const all: Expr[] = [...exprsOf(node), ...filters.map((f) => f.predicate)];
    if (all.some((e) => someExpr(e, (x) => x.kind === 'subquery' && x.correlated))) return null;
    const used = new Set<number>();
    for (const e of all) columnsUsed(e, used);
    if (used.size >= tf.schema.length) return null;
    const keep = [...used].sort((a, b) => a - b);
    const remap = new Map(keep.map((c, i) => [c, i]));
    const re = (e: Expr): Expr => mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: remap.get(x.index)! } : x));
    const impl = withProjection(keep);
    if (filtered.has(tf.impl)) filtered.add(impl);
    let input: LogicalPlan = { ...tf, impl, schema: keep.map((i) => tf.schema[i]!) };
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
