/** Physical planning of the Window node (the window operator lands with the window-function work). */
import { QuireError } from '../common/errors.js';
import type { Expr } from '../logical/expr.js';
import type { LogicalPlan } from '../logical/plan.js';
import type { PhysicalOperator } from './operator.js';
import type { SlotPlan } from './subquery-eval.js';

export function planWindow(
  _p: LogicalPlan & { op: 'window' },
  _input: PhysicalOperator,
  _slotPlan: (e: Expr & { kind: 'subquery' }) => SlotPlan,
): PhysicalOperator {
  throw new QuireError('0A000', 'window functions are not implemented yet');
}
