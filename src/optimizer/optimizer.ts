/**
 * The optimizer: an ordered list of rules, each applied bottom-up over the whole plan, each
 * switchable by name. The list order is the contract (later rules see earlier rules' output).
 */
import { children, withChildren, type LogicalPlan } from '../logical/plan.js';
import type { OptimizerContext, OptimizerRule } from './rule.js';
import { pushFilterIntoJoin } from './rules/push-filter-into-join.js';
import { pushFilterBelowProject } from './rules/push-filter-below-project.js';
import { sortLimitToTopN } from './rules/sort-limit-to-topn.js';
import { pruneScanColumns } from './rules/prune-scan-columns.js';
import { mergeLimits } from './rules/merge-limits.js';
import { removeIdentityProjection } from './rules/remove-identity-projection.js';

export const RULES: readonly OptimizerRule[] = [
  removeIdentityProjection,
  pushFilterBelowProject,
  pushFilterIntoJoin,
  mergeLimits,
  sortLimitToTopN,
  pruneScanColumns,
];

export function ruleNames(): string[] {
  return RULES.map((r) => r.name);
}

export interface OptimizeTrace {
  rule: string;
  fired: number;
  ms: number;
}

function applyBottomUp(p: LogicalPlan, rule: OptimizerRule, ctx: OptimizerContext, count: { n: number }): LogicalPlan {
  const kids = children(p);
  let node = p;
  if (kids.length > 0) {
    const nk = kids.map((k) => applyBottomUp(k, rule, ctx, count));
    if (nk.some((k, i) => k !== kids[i])) node = withChildren(p, nk);
  }
  // A rewrite may enable the same rule again at the same node (e.g. two stacked filters).
  for (let guard = 0; guard < 8; guard++) {
    const r = rule.rewrite(node, ctx);
    if (r === null) break;
    count.n++;
    node = r;
  }
  return node;
}

export function optimize(plan: LogicalPlan, ctx: OptimizerContext, disabled: ReadonlySet<string>, trace?: OptimizeTrace[]): LogicalPlan {
  let p = plan;
  for (const rule of RULES) {
    if (disabled.has(rule.name)) continue;
    const t0 = performance.now();
    const count = { n: 0 };
    p = applyBottomUp(p, rule, ctx, count);
    trace?.push({ rule: rule.name, fired: count.n, ms: performance.now() - t0 });
  }
  return p;
}
