/**
 * Shared arithmetic for the limit rules (not a rule itself). Limits are only rewritten when their
 * count and offset are integer constants: parameters and `LIMIT (SELECT …)` are folded later, at
 * execution start, and moving them would evaluate a subquery twice.
 */
import { T } from '../../common/types.js';
import type { Expr } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';

/** Integer value of a constant; `dflt` for an absent or NULL expression; undefined when not a constant. */
export function constInt(e: Expr | null, dflt: number | null): number | null | undefined {
  if (e === null) return dflt;
  if (e.kind !== 'const') return undefined;
  if (e.value === null) return dflt;
  if (typeof e.value !== 'number' && typeof e.value !== 'bigint') return undefined;
  const n = Number(e.value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

export function int8(n: number): Expr {
  return { kind: 'const', value: n, type: T.int8 };
}

/** Rows a Limit (without WITH TIES) needs from its input: offset + count; null when not bounded or not constant. */
export function rowsNeeded(node: LogicalPlan & { op: 'limit' }): number | null {
  if (node.ties !== null) return null;
  const count = constInt(node.count, null);
  const offset = constInt(node.offset, 0);
  if (count === undefined || count === null || offset === undefined || offset === null) return null;
  return Math.min(count + offset, Number.MAX_SAFE_INTEGER);
}

/** A plain `LIMIT n` node over `input`. */
export function limitOver(input: LogicalPlan, n: number): LogicalPlan {
  return { op: 'limit', input, offset: null, count: int8(n), ties: null, schema: input.schema };
}

/**
 * True when `p` already yields at most `n` rows by construction (a limit or Top-N of at most n rows, or a
 * scan fetching at most n): pushing another limit of n onto it would change nothing, and checking this
 * keeps the push-down rules from firing again and again on their own output.
 */
export function boundedBy(p: LogicalPlan, n: number): boolean {
  // Projections map rows one to one (and push-limit-through-project puts new limits below them).
  while (p.op === 'project') p = p.input;
  if (p.op === 'limit' && p.ties === null) {
    const c = constInt(p.count, null);
    return c !== undefined && c !== null && c <= n;
  }
  if (p.op === 'topn' && !p.withTies) {
    const c = constInt(p.count, null);
    return c !== undefined && c !== null && c <= n;
  }
  if (p.op === 'empty') return !p.oneRow || n >= 1;
  return false;
}

type Project = LogicalPlan & { op: 'project' };

/**
 * A table function straight under a limit's input, through projections (which keep rows one to one),
 * or null: for the rules that hand a limit's rows to the function (push-offset- and
 * push-limit-into-table-function).
 */
export function tableFunctionUnderProjections(input: LogicalPlan): { projs: Project[]; fn: LogicalPlan & { op: 'table-function' } } | null {
  const projs: Project[] = [];
  let cur = input;
  while (cur.op === 'project') {
    projs.push(cur);
    cur = cur.input;
  }
  return cur.op === 'table-function' ? { projs, fn: cur } : null;
}

/** The projections tableFunctionUnderProjections found, over `base` again. */
export function overProjections(projs: readonly Project[], base: LogicalPlan): LogicalPlan {
  let input = base;
  for (let i = projs.length - 1; i >= 0; i--) input = { ...projs[i]!, input };
  return input;
}
