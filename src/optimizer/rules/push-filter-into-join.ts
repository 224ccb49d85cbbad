/**
 * push-filter-into-join: moves WHERE conjuncts over an inner or cross join to where they belong.
 *
 *   Filter(a.x = b.y AND a.z > 1 AND b.w < 2)        Join(inner, a.x = b.y)
 *     Join(cross)                            ==>       Filter(a.z > 1)   Filter(b.w < 2)
 *       a    b                                           a                 b
 *
 * Conjuncts over both sides join the ON condition (so the physical planner can use a hash join);
 * single-side conjuncts filter that side before the join. Over a LEFT join only left-side conjuncts
 * move (right-side ones would turn NULL-extended rows into matches). Refuses conjuncts with
 * correlated subqueries or volatile functions, which must see the row where the user wrote them.
 */
import { columnsUsed, mapExpr, someExpr, type Expr } from '../../logical/expr.js';
import { andOf, splitConjuncts } from '../../logical/conjuncts.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';


/** The conjunction of the conjuncts that stay, or null when none does. */
function conjunction(list: Expr[]): Expr | null {
  return list.length === 0 ? null : andOf(list);
}

function movable(e: Expr): boolean {
  return !someExpr(e, (x) => (x.kind === 'subquery' && x.correlated) || x.kind === 'outer' || (x.kind === 'call' && x.overload.volatile === true));
}

function shift(e: Expr, by: number): Expr {
  return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: x.index + by } : x));
}

function filterOver(input: LogicalPlan, preds: Expr[]): LogicalPlan {
  const p = conjunction(preds);
  if (p === null) return input;
  const f: LogicalPlan = { op: 'filter', input, predicate: p, schema: input.schema };
  return pushFilterIntoJoin.rewrite(f, { setting: () => undefined }) ?? f;
}

export const pushFilterIntoJoin: OptimizerRule = {
  name: 'push-filter-into-join',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'filter') return null;
    const j = node.input;
    if (j.op !== 'join' || !(j.type === 'inner' || j.type === 'cross' || j.type === 'left')) return null;
    const nl = j.left.schema.length;
    const left: Expr[] = [];
    const right: Expr[] = [];
    const both: Expr[] = [];
    const stay: Expr[] = [];
    for (const c of splitConjuncts(node.predicate)) {
      if (!movable(c)) {
        stay.push(c);
        continue;
      }
      const used = [...columnsUsed(c)];
      const l = used.length > 0 && used.every((i) => i < nl);
      const r = used.length > 0 && used.every((i) => i >= nl);
      if (l) left.push(c);
      else if (j.type === 'left') stay.push(c);
      else if (r) right.push(shift(c, -nl));
      else if (used.length === 0) stay.push(c);
      else both.push(c);
    }
    if (left.length === 0 && right.length === 0 && both.length === 0) return null;
    const cond = conjunction([...(j.condition ? splitConjuncts(j.condition) : []), ...both]);
    const joined: LogicalPlan = {
      ...j,
      type: j.type === 'cross' && cond !== null ? 'inner' : j.type,
      left: filterOver(j.left, left),
      right: filterOver(j.right, right),
      condition: cond,
    };
    const rest = conjunction(stay);
    return rest === null ? joined : { op: 'filter', input: joined, predicate: rest, schema: node.schema };
  },
};
