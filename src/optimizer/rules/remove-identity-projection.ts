/**
 * remove-identity-projection: drops projections that pass every input column through unchanged.
 *
 *   Limit                      Limit
 *     Project(#0, #1)   ==>      Limit
 *       Limit                      input
 *         input
 *
 * Subqueries, views and column renames leave such projections between operators that other rules
 * want to see adjacent (Limit over Limit, Limit over Sort). Names are not lost: the statement's result
 * columns are taken from the bound plan before optimization. Refuses projections that reorder,
 * drop, compute or retype columns.
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';

export const removeIdentityProjection: OptimizerRule = {
  name: 'remove-identity-projection',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'project') return null;
    const input = node.input;
    if (node.exprs.length !== input.schema.length) return null;
    const identity = node.exprs.every(
      (e, i) => e.kind === 'column' && e.index === i && e.type.name === input.schema[i]!.type.name && e.type.typmod === input.schema[i]!.type.typmod,
    );
    return identity ? input : null;
  },
};
