/**
 * push-limit-through-union: a LIMIT over UNION ALL needs at most offset+count rows from each branch.
 *
 *   Limit(count=k, offset=m)              Limit(count=k, offset=m)
 *     Union ALL                  ==>        Union ALL
 *       a                                     Limit(count=k+m)   Limit(count=k+m)
 *       b                                       a                  b
 *
 * The outer Limit stays (it still picks k rows out of up to 2(k+m)); the branch limits let each branch
 * stop early and meet a Sort (Top-N) or scan below them. Fires on UNION ALL with constant count and
 * offset and no WITH TIES. Refuses UNION (DISTINCT) — dropping a branch row could remove a row that would
 * otherwise survive deduplication — INTERSECT/EXCEPT, and branches already limited to k+m rows or fewer
 * (which also keeps the rule from firing on its own output).
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';
import { boundedBy, limitOver, rowsNeeded } from './limit-support.js';
import { pushLimitThroughProject } from './push-limit-through-project.js';

/** The new limit goes below a projection right away: push-limit-through-project has already run. */
function place(input: LogicalPlan, n: number): LogicalPlan {
  const l = limitOver(input, n);
  return pushLimitThroughProject.rewrite(l, { setting: () => undefined }) ?? l;
}

export const pushLimitThroughUnion: OptimizerRule = {
  name: 'push-limit-through-union',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit') return null;
    const u = node.input;
    if (u.op !== 'setop' || u.kind !== 'union' || !u.all) return null;
    const n = rowsNeeded(node);
    if (n === null) return null;
    const l = boundedBy(u.left, n);
    const r = boundedBy(u.right, n);
    if (l && r) return null;
    return {
      ...node,
      input: { ...u, left: l ? u.left : place(u.left, n), right: r ? u.right : place(u.right, n) },
    };
  },
};
