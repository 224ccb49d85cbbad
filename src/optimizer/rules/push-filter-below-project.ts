/**
 * push-filter-below-project: evaluates a filter before the projection that feeds it, by
 * substituting the projected expressions into the predicate.
 *
 *   Filter(x > 1)                      Project(a + 1 AS x, b)
 *     Project(a + 1 AS x, b)   ==>       Filter(a + 1 > 1)
 *       input                              input
 *
 * This lets WHERE clauses on subqueries and views reach joins and scans. Refuses predicates that
 * reference projected subqueries or volatile functions (they would run a different number of
 * times), and window outputs stay put because the projection sits above the window node.
 */
import { mapExpr, someExpr, type Expr } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';

const risky = (e: Expr): boolean =>
  someExpr(e, (x) => x.kind === 'subquery' || x.kind === 'outer' || (x.kind === 'call' && x.overload.volatile === true));

export const pushFilterBelowProject: OptimizerRule = {
  name: 'push-filter-below-project',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'filter' || node.input.op !== 'project') return null;
    const proj = node.input;
    if (risky(node.predicate)) return null;
    let ok = true;
    const pred = mapExpr(node.predicate, (x) => {
      if (x.kind !== 'column') return x;
      const src = proj.exprs[x.index];
      if (src === undefined || risky(src)) {
        ok = false;
        return x;
      }
      return src;
    });
    if (!ok) return null;
    return { ...proj, input: { op: 'filter', input: proj.input, predicate: pred, schema: proj.input.schema } };
  },
};
