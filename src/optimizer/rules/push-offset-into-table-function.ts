/**
 * push-offset-into-table-function: an OFFSET straight over a file reader that can skip rows exactly
 * (read_parquet without filters) becomes the reader's skip, so it passes over the files and row groups
 * the offset covers without reading them: page 5,000 of a Parquet file costs what page 1 costs.
 *
 *   Limit(count=k, offset=m)              Limit(count=k)
 *     [Project]                  ==>        [Project]
 *       read_parquet(f)                        read_parquet(f; skip: m rows)
 *
 * Fires on a constant offset > 0 over projections (which keep rows one to one) and a table function
 * whose withSkip accepts it. Refuses WITH TIES, a parameter or subquery offset, and anything else
 * between the limit and the function (a filter, sort or aggregate changes which rows the offset counts).
 * Runs after push-into-table-function, so a filter pushed into the reader makes it refuse the skip.
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';
import { constInt, overProjections, tableFunctionUnderProjections } from './limit-support.js';

export const pushOffsetIntoTableFunction: OptimizerRule = {
  name: 'push-offset-into-table-function',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit' || node.ties !== null) return null;
    const offset = constInt(node.offset, 0);
    if (offset === undefined || offset === null || offset === 0) return null;
    const under = tableFunctionUnderProjections(node.input);
    if (under === null || under.fn.impl.withSkip === undefined) return null;
    const impl = under.fn.impl.withSkip(offset);
    if (impl === null) return null;
    const input = overProjections(under.projs, { ...under.fn, impl });
    if (node.count === null) return input;
    return { ...node, offset: null, input };
  },
};
