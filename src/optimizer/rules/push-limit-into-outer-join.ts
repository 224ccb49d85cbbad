/**
 * push-limit-into-outer-join: a LIMIT over an outer join needs at most offset+count rows of the
 * preserved side.
 *
 *   Limit(count=k, offset=m)              Limit(count=k, offset=m)
 *     Join(left, cond)           ==>        Join(left, cond)
 *       a                                     Limit(count=k+m)
 *       b                                       a
 *                                             b
 *
 * Every row of the preserved side (left of LEFT JOIN, right of RIGHT JOIN) yields at least one output
 * row, and each output row comes from exactly one preserved row, so any k+m preserved rows already
 * produce k+m valid output rows. Without ORDER BY any k of them are a correct answer. The outer limit
 * stays. Fires on LEFT and RIGHT joins (LATERAL LEFT included: the right side is evaluated per left
 * row anyway). Refuses FULL joins (dropping a row of either side would turn its partners into
 * NULL-extended rows that are not in the real result), inner/semi/anti joins (a preserved row may yield
 * nothing), WITH TIES, non-constant limits, and a side already limited to k+m rows.
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

export const pushLimitIntoOuterJoin: OptimizerRule = {
  name: 'push-limit-into-outer-join',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit') return null;
    const j = node.input;
    if (j.op !== 'join' || (j.type !== 'left' && j.type !== 'right')) return null;
    if (j.lateral === true && j.type !== 'left') return null;
    const n = rowsNeeded(node);
    if (n === null) return null;
    if (j.type === 'left') {
      if (boundedBy(j.left, n)) return null;
      return { ...node, input: { ...j, left: place(j.left, n) } };
    }
    if (boundedBy(j.right, n)) return null;
    return { ...node, input: { ...j, right: place(j.right, n) } };
  },
};
