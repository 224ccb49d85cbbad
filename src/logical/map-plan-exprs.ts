/**
 * Applies a function to every expression of a plan, descending into subquery plans with the nesting
 * depth (1 for the plan given, 2 for a subquery inside it, …), so callers can tell which `outer`
 * references point at a given enclosing query.
 */
import { mapExpr, type Expr } from './expr.js';
import type { LogicalPlan } from './plan.js';
import { children, withChildren } from './plan.js';

export function mapPlanExprs(plan: LogicalPlan, depth: number, f: (e: Expr, depth: number) => Expr): LogicalPlan {
  const m = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      const y = x.kind === 'subquery' ? { ...x, plan: mapPlanExprs(x.plan, depth + 1, f) } : x;
      return f(y, depth);
    });
  const mk = <K extends { expr: Expr }>(k: K): K => ({ ...k, expr: m(k.expr) });
  let p: LogicalPlan = withChildren(plan, children(plan).map((c) => mapPlanExprs(c, depth, f)));
  switch (p.op) {
    case 'filter':
      p = { ...p, predicate: m(p.predicate) };
      break;
    case 'project':
      p = { ...p, exprs: p.exprs.map(m) };
      break;
    case 'aggregate':
      p = { ...p, groupBy: p.groupBy.map(m), aggs: p.aggs.map((a) => ({ ...a, args: a.args.map(m), filter: a.filter ? m(a.filter) : null, orderBy: a.orderBy.map(mk) })) };
      break;
    case 'window':
      p = {
        ...p,
        calls: p.calls.map((c) => ({
          ...c,
          args: c.args.map(m),
          filter: c.filter ? m(c.filter) : null,
          spec: { ...c.spec, partitionBy: c.spec.partitionBy.map(m), orderBy: c.spec.orderBy.map(mk) },
        })),
      };
      break;
    case 'sort':
      p = { ...p, keys: p.keys.map(mk) };
      break;
    case 'limit':
      p = { ...p, offset: p.offset ? m(p.offset) : null, count: p.count ? m(p.count) : null, ties: p.ties ? p.ties.map(mk) : null };
      break;
    case 'topn':
      p = { ...p, keys: p.keys.map(mk), offset: p.offset ? m(p.offset) : null, count: m(p.count) };
      break;
    case 'topn-ranking':
      p = { ...p, partitionBy: p.partitionBy.map(m), orderBy: p.orderBy.map(mk) };
      break;
    case 'distinct-on':
      p = { ...p, keys: p.keys.map(m) };
      break;
    case 'join':
      p = { ...p, condition: p.condition ? m(p.condition) : null };
      break;
    case 'values':
      p = { ...p, rows: p.rows.map((r) => r.map(m)) };
      break;
    case 'table-function':
      p = { ...p, args: p.args.map(m) };
      break;
    default:
      break;
  }
  return p;
}
