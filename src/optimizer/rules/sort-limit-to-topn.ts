/**
 * sort-limit-to-topn: fuses ORDER BY with LIMIT [OFFSET] into one Top-N that keeps only
 * offset+limit rows instead of sorting the whole input.
 *
 *   Limit(count=k, offset=m)            TopN(keys, count=k, offset=m)
 *     Sort(keys)               ==>        input
 *       input
 *
 * Fires when a Limit with a row count sits directly on a Sort (WITH TIES included: the Top-N keeps
 * the peers of the last row). Refuses OFFSET-only limits (nothing bounds the rows kept) and limits
 * whose WITH TIES keys differ from the sort's keys. The Top-N operator itself picks a heap or a
 * selection strategy by offset+limit, so a large offset does not fall off a cliff.
 */
import type { LogicalPlan } from '../../logical/plan.js';
import { exprEquals } from '../../logical/expr.js';
import type { OptimizerRule } from '../rule.js';

export const sortLimitToTopN: OptimizerRule = {
  name: 'sort-limit-to-topn',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit' || node.count === null) return null;
    const sort = node.input;
    if (sort.op !== 'sort') return null;
    if (node.ties !== null) {
      const same =
        node.ties.length === sort.keys.length &&
        node.ties.every((k, i) => exprEquals(k.expr, sort.keys[i]!.expr) && k.desc === sort.keys[i]!.desc && k.nullsFirst === sort.keys[i]!.nullsFirst);
      if (!same) return null;
    }
    return { op: 'topn', input: sort.input, keys: sort.keys, offset: node.offset, count: node.count, withTies: node.ties !== null, schema: node.schema };
  },
};
