/**
 * presence-only-table-function-columns: a file reader's column that the plan only tests for NULL
 * (count(x), x IS [NOT] NULL) is read for its NULLs only, as a bool column true where the value is present.
 *
 *   Aggregate(count(#1))                       Aggregate(count(#1))
 *     Project(s, name)                ==>        Project(s, name)
 *       read_parquet(s, name: text)                read_parquet(s, name: bool, NULLs only)
 *
 * A Parquet text column so used costs no dictionary, index or string decoding (nothing at all when the
 * footer says it has no NULLs). Matches Aggregate or Project over [Project over] [Filters over] a table
 * function with `withPresence`; runs after push-into-table-function, which has already removed the
 * exact filters and the unused columns.
 */
import { T } from '../../common/types.js';
import { exprChildren, mapExpr, someExpr, type Expr } from '../../logical/expr.js';
import type { AggCall, LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';

/** Columns `e` reads for their value: every column reference except the operand of IS [NOT] NULL. */
function valueUses(e: Expr, into: Set<number>): void {
  if (e.kind === 'is-null' && e.arg.kind === 'column') return;
  if (e.kind === 'column') into.add(e.index);
  for (const c of exprChildren(e)) valueUses(c, into);
}

/** count(x) over a column counts its non-NULL rows: the value itself is not read. */
function countsColumn(a: AggCall): boolean {
  return a.name === 'count' && !a.distinct && a.user === undefined && a.withinGroup === undefined && a.orderBy.length === 0 && a.args.length === 1 && a.args[0]!.kind === 'column';
}

function aggValueUses(node: LogicalPlan & { op: 'aggregate' }, into: Set<number>): void {
  for (const g of node.groupBy) valueUses(g, into);
  for (const a of node.aggs) {
    if (!countsColumn(a)) for (const x of a.args) valueUses(x, into);
    if (a.filter !== null) valueUses(a.filter, into);
    for (const k of a.orderBy) valueUses(k.expr, into);
  }
}

function allExprs(node: LogicalPlan & { op: 'aggregate' }): Expr[] {
  return [...node.groupBy, ...node.aggs.flatMap((a) => [...a.args, ...(a.filter ? [a.filter] : []), ...a.orderBy.map((k) => k.expr)])];
}

/** Every reference to a column of `cols` retyped as bool (the presence column replacing it). */
function retype(e: Expr, cols: ReadonlySet<number>): Expr {
  return mapExpr(e, (x) => (x.kind === 'column' && cols.has(x.index) ? { ...x, type: T.bool } : x));
}

export const presenceOnlyTableFunctionColumns: OptimizerRule = {
  name: 'presence-only-table-function-columns',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'aggregate' && node.op !== 'project') return null;
    const agg = node.op === 'aggregate' ? node : null;
    let cur = node.input;
    // A Project between the Aggregate and the scan passes columns through by position.
    const project = agg !== null && cur.op === 'project' ? cur : node.op === 'project' ? node : null;
    if (agg !== null && project !== null) cur = project.input;
    const filters: (LogicalPlan & { op: 'filter' })[] = [];
    while (cur.op === 'filter') {
      filters.push(cur);
      cur = cur.input;
    }
    if (cur.op !== 'table-function') return null;
    const tf = cur;
    const withPresence = tf.impl.withPresence?.bind(tf.impl);
    if (withPresence === undefined) return null;
    const exprs = [...(agg !== null ? allExprs(agg) : []), ...(project?.exprs ?? []), ...filters.map((f) => f.predicate)];
    // Subqueries may reach the scan's columns as outer references, which this rule does not follow.
    if (exprs.some((e) => someExpr(e, (x) => x.kind === 'subquery'))) return null;

    // Columns of the scan's output whose value is read somewhere above it.
    const read = new Set<number>();
    for (const f of filters) valueUses(f.predicate, read);
    // Columns of the Aggregate's input read for their value.
    const aggRead = new Set<number>();
    if (agg !== null) aggValueUses(agg, aggRead);
    if (project !== null) {
      project.exprs.forEach((e, o) => {
        // A Project output the Aggregate only tests for NULL passes its column on as presence.
        if (e.kind === 'column' && agg !== null && !aggRead.has(o)) return;
        valueUses(e, read);
      });
    } else for (const c of aggRead) read.add(c);

    const used = new Set<number>();
    for (const e of exprs) for (const c of columnsOf(e)) used.add(c);
    const wanted: number[] = [];
    for (let c = 0; c < tf.schema.length; c++) {
      if (read.has(c) || tf.schema[c]!.type.name === 'bool') continue;
      // Referenced from the level right above the scan (the Project's, or the Aggregate's, input columns).
      if (project !== null ? project.exprs.some((e) => columnsOf(e).has(c)) || filters.some((f) => columnsOf(f.predicate).has(c)) : used.has(c)) wanted.push(c);
    }
    if (wanted.length === 0) return null;
    const impl = withPresence(wanted);
    if (impl === null) return null;
    const cols = new Set(wanted);
    const schema = tf.schema.map((f, i) => (cols.has(i) ? { name: f.name, type: T.bool } : f));
    let input: LogicalPlan = { ...tf, impl, schema };
    for (let i = filters.length - 1; i >= 0; i--) input = { ...filters[i]!, input, predicate: retype(filters[i]!.predicate, cols) };
    // The Aggregate's input columns that became presence columns.
    let aggCols = cols;
    if (project !== null) {
      const pexprs = project.exprs.map((e) => retype(e, cols));
      aggCols = new Set(pexprs.flatMap((e, o) => (e.kind === 'column' && cols.has(e.index) ? [o] : [])));
      input = { ...project, input, exprs: pexprs, schema: project.schema.map((f, o) => (aggCols.has(o) ? { name: f.name, type: T.bool } : f)) };
    }
    if (agg === null) return input;
    return {
      ...agg,
      input,
      groupBy: agg.groupBy.map((g) => retype(g, aggCols)),
      aggs: agg.aggs.map((a) => {
        const args = a.args.map((x) => retype(x, aggCols));
        return {
          ...a,
          args,
          argTypes: countsColumn(a) && args[0]!.type.name === 'bool' ? [T.bool] : a.argTypes,
          filter: a.filter ? retype(a.filter, aggCols) : null,
          orderBy: a.orderBy.map((k) => ({ ...k, expr: retype(k.expr, aggCols) })),
        };
      }),
    };
  },
};

function columnsOf(e: Expr): Set<number> {
  const s = new Set<number>();
  const walk = (x: Expr): void => {
    if (x.kind === 'column') s.add(x.index);
    for (const c of exprChildren(x)) walk(c);
  };
  walk(e);
  return s;
}
