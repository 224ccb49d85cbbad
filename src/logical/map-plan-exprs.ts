/**
 * Applies a function to every expression of a plan, descending into subquery plans with the nesting
 * depth (1 for the plan given, 2 for a subquery inside it, …), so callers can tell which `outer`
 * references point at a given enclosing query.
 */
import { mapExpr, type Expr } from './expr.js';
import type { LogicalPlan } from './plan.js';
import { children, withChildren } from './plan.js';
import { nodeInfo } from './plan-nodes.js';

export function mapPlanExprs(plan: LogicalPlan, depth: number, f: (e: Expr, depth: number) => Expr): LogicalPlan {
  const m = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      const y = x.kind === 'subquery' ? { ...x, plan: mapPlanExprs(x.plan, depth + 1, f) } : x;
      return f(y, depth);
    });
  const p: LogicalPlan = withChildren(plan, children(plan).map((c) => mapPlanExprs(c, depth, f)));
  return nodeInfo(p).mapExprs(p, m);
}
