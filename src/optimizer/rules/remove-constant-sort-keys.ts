/**
 * remove-constant-sort-keys: sort keys that hold one value on every row order nothing.
 *
 *   Sort(four, two)                Sort(two)
 *     Filter(four = 0)    ==>        Filter(four = 0)
 *
 *   Sort(four)                     Filter(four = 0)
 *     Filter(four = 0)    ==>
 *
 * Fires when a key is a constant, a parameter, or a column that a filter below pins with
 * `column = constant` (constant-columns.ts), e.g. `WHERE four = 0 ORDER BY four, two`. A Sort left
 * without keys goes: every row tied, and both PostgreSQL's sort and Quire's keep tied rows of an
 * already-ordered (all-equal) input in input order. Refuses keys computed by expressions.
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';
import { constantColumns, isConstantOver } from './constant-columns.js';

export const removeConstantSortKeys: OptimizerRule = {
  name: 'remove-constant-sort-keys',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'sort') return null;
    const constant = constantColumns(node.input);
    const keys = node.keys.filter((k) => !isConstantOver(k.expr, constant));
    if (keys.length === node.keys.length) return null;
    return keys.length === 0 ? node.input : { ...node, keys };
  },
};
