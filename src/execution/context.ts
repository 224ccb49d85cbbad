/**
 * What a running statement carries down the operator tree: evaluation context for functions,
 * bound parameter values, cancellation, and the enclosing rows of correlated subqueries.
 */
import { QuireError } from '../common/errors.js';
import type { Value } from '../common/types.js';
import type { EvalContext } from '../functions/eval-context.js';

export interface ExecContext {
  readonly eval: EvalContext;
  readonly params: readonly Value[];
  /** Rows of enclosing queries, innermost last (correlated subqueries read them). */
  readonly outer: readonly (readonly Value[])[];
  readonly signal?: AbortSignal;
  /** Working tables of recursive CTEs being evaluated, by CTE id. */
  readonly worktables: Map<number, import('./column.js').Batch[]>;
  /** Results of uncorrelated subqueries, computed once per statement (PostgreSQL's InitPlans). */
  readonly initPlans: Map<object, unknown>;
  /** When the running statement last let the event loop run (see yieldIfDue). */
  readonly ticker?: { last: number };
  /** Operator metrics are collected when true (EXPLAIN ANALYZE). */
  readonly analyze: boolean;
}

export function withOuterRow(ctx: ExecContext, row: readonly Value[]): ExecContext {
  return { ...ctx, outer: [...ctx.outer, row] };
}

export function checkCancel(ctx: ExecContext): void {
  if (ctx.signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
}

/**
 * Plans are CPU-bound and would otherwise keep the event loop blocked until they finish, so cancel
 * requests, timers and other connections could not get a turn. Sources call this once per batch; it
 * yields about every 10 ms and costs a clock read otherwise.
 */
export async function yieldIfDue(ctx: ExecContext): Promise<void> {
  const t = ctx.ticker;
  if (t === undefined) return;
  const now = performance.now();
  if (now - t.last < 10) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.last = performance.now();
  checkCancel(ctx);
}
