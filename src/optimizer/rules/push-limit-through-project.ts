/**
 * push-limit-through-project: evaluates the projection only for the rows the limit lets through.
 *
 *   Limit(count=k, offset=m)            Project(exprs)
 *     Project(exprs)           ==>        Limit(count=k, offset=m)
 *       input                               input
 *
 * A projection maps rows one to one, so limiting before or after it selects the same rows; below it,
 * the limit also meets a Sort (sort-limit-to-topn), a union, a join or a scan that the push-down rules
 * after this one can use. Fires for any limit whose WITH TIES keys (if any) are plain columns of the
 * projection. Refuses projections directly over a scan or a table function (possibly under filters): the
 * limit gains nothing there (push-limit-into-scan and push-offset-into-table-function reach through the
 * projection), and prune-scan-columns and push-into-table-function need the projection next to the
 * scan (with the limit between them, `SELECT a FROM read_parquet(…) LIMIT 10` decoded every column). Refuses WITH TIES keys that are computed expressions (the Limit operator compares
 * columns), and projections holding volatile calls or subqueries: PostgreSQL evaluates those for the
 * rows the limit returns only, and so do we after the rewrite, but a correlated subquery's cost
 * estimate is not ours to change here — we keep them above for predictability.
 */
import { someExpr, type SortKey } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';

export const pushLimitThroughProject: OptimizerRule = {
  name: 'push-limit-through-project',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit' || node.input.op !== 'project') return null;
    const proj = node.input;
    let below = proj.input;
    while (below.op === 'filter') below = below.input;
    if (below.op === 'scan' || below.op === 'table-function') return null;
    if (proj.exprs.some((e) => someExpr(e, (x) => x.kind === 'subquery' || (x.kind === 'call' && x.overload.volatile === true)))) return null;
    let ties: SortKey[] | null = null;
    if (node.ties !== null) {
      ties = [];
      for (const k of node.ties) {
        if (k.expr.kind !== 'column') return null;
        const src = proj.exprs[k.expr.index];
        if (src === undefined || src.kind !== 'column') return null;
        ties.push({ ...k, expr: src });
      }
    }
    const limit: LogicalPlan = { ...node, input: proj.input, ties, schema: proj.input.schema };
    return { ...proj, input: limit };
  },
};
