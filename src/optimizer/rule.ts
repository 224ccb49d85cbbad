/** Optimizer rules rewrite one logical node at a time; the driver walks the plan bottom-up. */
import type { LogicalPlan } from '../logical/plan.js';

export interface OptimizerContext {
  /** Settings visible to rules (e.g. thresholds); rules read, never write. */
  setting(name: string): string | undefined;
}

export interface OptimizerRule {
  /** Equals the file name; `SET quire.disabled_rules = 'name,…'` switches it off. */
  readonly name: string;
  /** Returns the rewritten node, or null when the rule does not apply here. */
  rewrite(node: LogicalPlan, ctx: OptimizerContext): LogicalPlan | null;
}
