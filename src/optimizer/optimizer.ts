/**
 * The optimizer: an ordered list of rules, each applied bottom-up over the whole plan, each
 * switchable by name. The list order is the contract (later rules see earlier rules' output).
 */
import { mapPlanExprs } from '../logical/map-plan-exprs.js';
import { children, withChildren, type LogicalPlan } from '../logical/plan.js';
import { MaterializedCte } from '../logical/materialized-cte.js';
import type { OptimizerContext, OptimizerRule } from './rule.js';
import { pushFilterIntoJoin } from './rules/push-filter-into-join.js';
import { pushFilterBelowProject } from './rules/push-filter-below-project.js';
import { sortLimitToTopN } from './rules/sort-limit-to-topn.js';
import { pruneScanColumns } from './rules/prune-scan-columns.js';
import { chooseIndexScan } from './rules/choose-index-scan.js';
import { mergeLimits } from './rules/merge-limits.js';
import { removeIdentityProjection } from './rules/remove-identity-projection.js';
import { eliminateLimit } from './rules/eliminate-limit.js';
import { pushLimitThroughProject } from './rules/push-limit-through-project.js';
import { limitBeforeVolatileProjection } from './rules/limit-before-volatile-projection.js';
import { pushLimitThroughUnion } from './rules/push-limit-through-union.js';
import { pushLimitIntoOuterJoin } from './rules/push-limit-into-outer-join.js';
import { pushLimitIntoScan } from './rules/push-limit-into-scan.js';
import { limitPastWindow } from './rules/limit-past-window.js';
import { deriveTopNFromWindow } from './rules/derive-topn-from-window.js';
import { pushIntoTableFunction } from './rules/push-into-table-function.js';
import { presenceOnlyTableFunctionColumns } from './rules/presence-only-table-function-columns.js';
import { pushOffsetIntoTableFunction } from './rules/push-offset-into-table-function.js';
import { pushLimitIntoTableFunction } from './rules/push-limit-into-table-function.js';
import { pushIntoRemoteScan } from './rules/push-into-remote-scan.js';
import { distinctOfConstantsToLimit } from './rules/distinct-of-constants-to-limit.js';
import { removeConstantSortKeys } from './rules/remove-constant-sort-keys.js';

/*
 * Order: projections go first so limits and filters meet the operators they target; DISTINCT and sort
 * keys that filters pin to one value go next (the limits they leave take part in the limit rules); the ranking filter
 * is turned into a per-partition Top-N once filters sit directly on windows; limits then move down
 * (through projections before unions, joins, scans), adjacent limits merge, Sort+Limit fuse into Top-N,
 * a Top-N/limit over a window moves below it, and eliminate-limit runs last to fold LIMIT 0 (wherever the
 * push-down rules moved it) and the empty relations earlier rules produce, bottom-up in one pass.
 */
export const RULES: readonly OptimizerRule[] = [
  removeIdentityProjection,
  pushFilterBelowProject,
  pushFilterIntoJoin,
  distinctOfConstantsToLimit,
  removeConstantSortKeys,
  deriveTopNFromWindow,
  limitBeforeVolatileProjection,
  pushLimitThroughProject,
  mergeLimits,
  pushLimitThroughUnion,
  pushLimitIntoOuterJoin,
  sortLimitToTopN,
  limitPastWindow,
  pushLimitIntoScan,
  // Before pruning: conjuncts an index makes redundant go first, so the scan need not read their columns.
  chooseIndexScan,
  pruneScanColumns,
  eliminateLimit,
  // Data sources last: they see the final projections, filters, Top-Ns and limits above them.
  pushIntoTableFunction,
  presenceOnlyTableFunctionColumns,
  pushOffsetIntoTableFunction,
  pushLimitIntoTableFunction,
  pushIntoRemoteScan,
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

/**
 * Optimizes the plan and every subquery plan inside its expressions (innermost first), so a scalar,
 * EXISTS or IN subquery gets the same rewrites as a query of its own: a correlated `ORDER BY … LIMIT`
 * run once per outer row is a Top-N, not a full sort each time. Trace counts add up over all of them.
 */
export function optimize(plan: LogicalPlan, ctx: OptimizerContext, disabled: ReadonlySet<string>, trace?: OptimizeTrace[]): LogicalPlan {
  return optimizeWith(plan, ctx, disabled, trace, new Map());
}

function optimizeWith(plan: LogicalPlan, ctx: OptimizerContext, disabled: ReadonlySet<string>, trace: OptimizeTrace[] | undefined, ctes: Map<MaterializedCte, MaterializedCte>): LogicalPlan {
  const inner = mapPlanExprs(plan, 1, (e) => (e.kind === 'subquery' ? { ...e, plan: optimizeTree(withOptimizedCtes(e.plan, ctx, disabled, trace, ctes), ctx, disabled, trace) } : e));
  return optimizeTree(withOptimizedCtes(inner, ctx, disabled, trace, ctes), ctx, disabled, trace);
}

/**
 * A materialized WITH query's body is a plan of its own behind its scans: optimized once (however many
 * scans read it), and every scan of it then reads the optimized one.
 */
function withOptimizedCtes(p: LogicalPlan, ctx: OptimizerContext, disabled: ReadonlySet<string>, trace: OptimizeTrace[] | undefined, ctes: Map<MaterializedCte, MaterializedCte>): LogicalPlan {
  if (p.op === 'scan' && p.source instanceof MaterializedCte) {
    let done = ctes.get(p.source);
    if (done === undefined) {
      done = p.source.withPlan(optimizeWith(p.source.plan, ctx, disabled, trace, ctes));
      ctes.set(p.source, done);
      ctes.set(done, done);
    }
    return done === p.source ? p : { ...p, source: done };
  }
  const kids = children(p);
  if (kids.length === 0) return p;
  const nk = kids.map((k) => withOptimizedCtes(k, ctx, disabled, trace, ctes));
  return nk.some((k, i) => k !== kids[i]) ? withChildren(p, nk) : p;
}

function optimizeTree(plan: LogicalPlan, ctx: OptimizerContext, disabled: ReadonlySet<string>, trace?: OptimizeTrace[]): LogicalPlan {
  let p = plan;
  for (const rule of RULES) {
    if (disabled.has(rule.name)) continue;
    const t0 = performance.now();
    const count = { n: 0 };
    p = applyBottomUp(p, rule, ctx, count);
    const ms = performance.now() - t0;
    const seen = trace?.find((t) => t.rule === rule.name);
    if (seen !== undefined) {
      seen.fired += count.n;
      seen.ms += ms;
    } else trace?.push({ rule: rule.name, fired: count.n, ms });
  }
  return p;
}
