/**
 * distinct-of-constants-to-limit: a DISTINCT whose columns, or a DISTINCT ON whose keys, hold one value
 * on every row has at most one group, so its first row is the answer.
 *
 *   Distinct                      Limit(1)
 *     input           ==>           input
 *
 *   DistinctOn(keys)              Limit(1)
 *     Sort(keys, more)  ==>         Sort(keys, more)
 *
 * Fires when every column of the DISTINCT (every key of the DISTINCT ON) is a constant or parameter of
 * the select list or a column a filter below pins with `column = constant` (constant-columns.ts):
 * `SELECT DISTINCT four FROM t WHERE four = 0`. DISTINCT ON keeps the first row of its group in its
 * input's order, which is the first row of the input. The scan then stops at the first matching row
 * instead of hashing every one. PostgreSQL plans these queries the same way. Refuses any column
 * computed by an expression (its value may still differ between rows) and empty select lists.
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';
import { constantColumns, isConstantOver } from './constant-columns.js';
import { int8 } from './limit-support.js';

export const distinctOfConstantsToLimit: OptimizerRule = {
  name: 'distinct-of-constants-to-limit',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'distinct' && node.op !== 'distinct-on') return null;
    const constant = constantColumns(node.input);
    const keysFixed = node.op === 'distinct' ? node.schema.length > 0 && constant.every((c) => c) : node.keys.every((k) => isConstantOver(k, constant));
    if (!keysFixed) return null;
    return { op: 'limit', input: node.input, offset: null, count: int8(1), ties: null, schema: node.schema };
  },
};
