/**
 * push-limit-into-table-function: a LIMIT straight over a file reader that can count its output rows
 * before reading them (read_parquet without filters) tells the reader how many rows the plan reads, so
 * it reads no further: a 20-row page decodes the pages holding those 20 rows, not their whole row
 * groups, and files past them are not opened.
 *
 *   Limit(count=k, offset=m)              Limit(count=k, offset=m)
 *     [Project]                  ==>        [Project]
 *       read_parquet(f)                        read_parquet(f; reads at most: k + m rows)
 *
 * The Limit stays: the reader's bound only spares work, the Limit still decides the rows. Runs after
 * push-offset-into-table-function, which leaves the offset in the reader's skip and m at 0 here. Fires
 * on a constant count over projections (which keep rows one to one) and a table function whose
 * withRowLimit accepts it; refuses WITH TIES (rows past the count may tie), parameters and subqueries,
 * and anything else between the limit and the function (a filter, sort or aggregate reads more rows
 * than it outputs).
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';
import { constInt, overProjections, tableFunctionUnderProjections } from './limit-support.js';

export const pushLimitIntoTableFunction: OptimizerRule = {
  name: 'push-limit-into-table-function',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit' || node.ties !== null) return null;
    const count = constInt(node.count, null);
    const offset = constInt(node.offset, 0);
    if (count === undefined || count === null || offset === undefined || offset === null) return null;
    const under = tableFunctionUnderProjections(node.input);
    if (under === null || under.fn.impl.withRowLimit === undefined) return null;
    const impl = under.fn.impl.withRowLimit(count + offset);
    if (impl === null) return null;
    const input = overProjections(under.projs, { ...under.fn, impl });
    return { ...node, input };
  },
};
