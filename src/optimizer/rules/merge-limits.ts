/**
 * merge-limits: collapses a Limit directly over another Limit into one.
 *
 *   Limit(count=a, offset=b)              Limit(count=min(a, max(0, c-b)), offset=d+b)
 *     Limit(count=c, offset=d)    ==>       input
 *       input
 *
 * The outer limit sees the inner one's rows [d, d+c); skipping b more and taking a gives rows
 * [d+b, d+b+min(a, c-b)). Fires only when all four values are constants and neither limit has
 * WITH TIES (ties depend on the rows around the cut, which merging would change).
 */
import { T } from '../../common/types.js';
import type { Expr } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';

function constNum(e: Expr | null, dflt: number | null): number | null | undefined {
  if (e === null) return dflt;
  if (e.kind !== 'const') return undefined;
  return e.value === null ? dflt : Number(e.value as number | bigint);
}

export const mergeLimits: OptimizerRule = {
  name: 'merge-limits',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit' || node.input.op !== 'limit') return null;
    const inner = node.input;
    if (node.ties !== null || inner.ties !== null) return null;
    const a = constNum(node.count, null);
    const b = constNum(node.offset, 0);
    const c = constNum(inner.count, null);
    const d = constNum(inner.offset, 0);
    if (a === undefined || b === undefined || c === undefined || d === undefined) return null;
    const offset = (d ?? 0) + (b ?? 0);
    let count: number | null;
    if (c === null) count = a;
    else {
      const avail = Math.max(0, c - (b ?? 0));
      count = a === null ? avail : Math.min(a, avail);
    }
    return {
      op: 'limit',
      input: inner.input,
      offset: offset === 0 ? null : { kind: 'const', value: offset, type: T.int8 },
      count: count === null ? null : { kind: 'const', value: count, type: T.int8 },
      ties: null,
      schema: node.schema,
    };
  },
};
