/**
 * What a running statement carries down the operator tree: evaluation context for functions,
 * bound parameter values, cancellation, and the enclosing rows of correlated subqueries.
 */
import { abortError, timeoutError } from './interrupt.js';
import { park, shouldPark, type SliceTicker } from './scheduler.js';
import type { Value } from '../common/types.js';
import type { EvalContext } from '../functions/eval-context.js';
import type { StatementContext } from '../logical/statement-context.js';

export interface ExecContext extends StatementContext {
  readonly eval: EvalContext;
  readonly params: readonly Value[];
  /** Rows of enclosing queries, innermost last (correlated subqueries read them). */
  readonly outer: readonly (readonly Value[])[];
  readonly signal?: AbortSignal;
  /** performance.now() after which the statement fails with 57014 (a caller's time limit); none when absent. */
  readonly deadline?: number;
  /**
   * The session's statement_timeout deadline, shared by reference: it restarts with each statement
   * (a FETCH from a cursor, an Execute of a suspended portal), as PostgreSQL's does per command.
   */
  readonly clock?: StatementClock;
  /** Working tables of recursive CTEs being evaluated, by CTE id. */
  readonly worktables: Map<number, import('../common/column.js').Batch[]>;
  /** Results of uncorrelated subqueries, computed once per statement (PostgreSQL's InitPlans). */
  readonly initPlans: Map<object, unknown>;
  /** The statement's share of the event loop (see yieldIfDue and scheduler.ts). */
  readonly ticker?: SliceTicker;
  /** Operator metrics are collected when true (EXPLAIN ANALYZE). */
  readonly analyze: boolean;
  /** Receives messages raised while the statement runs (PL/pgSQL RAISE NOTICE); dropped when absent. */
  readonly notice?: (message: string, level: string) => void;
}

export interface StatementClock {
  /** performance.now() after which the statement fails with 57014; Infinity when statement_timeout is 0. */
  at: number;
}

function pastDeadline(ctx: ExecContext, now: number): boolean {
  return (ctx.deadline !== undefined && now > ctx.deadline) || (ctx.clock !== undefined && now > ctx.clock.at);
}

export function withOuterRow(ctx: ExecContext, row: readonly Value[]): ExecContext {
  return { ...ctx, outer: [...ctx.outer, row] };
}

export function checkCancel(ctx: ExecContext): void {
  if (ctx.signal?.aborted) throw abortError(ctx.signal);
  if ((ctx.deadline !== undefined || ctx.clock !== undefined) && pastDeadline(ctx, performance.now())) throw timeoutError();
}

/**
 * Plans are CPU-bound and would otherwise keep the event loop blocked until they finish, so cancel
 * requests, timers and other connections could not get a turn. Operator loops call this once per
 * batch (or every few thousand rows). It costs a clock read until the loop turn's budget is spent,
 * then parks the statement until the scheduler gives it another turn (scheduler.ts). Returns a promise
 * only when it parks, so a hot loop can skip the await (and its microtask turn) otherwise.
 */
export function yieldIfDue(ctx: ExecContext): Promise<void> | undefined {
  const t = ctx.ticker;
  if (t === undefined) {
    checkCancel(ctx);
    return undefined;
  }
  const now = performance.now();
  if (pastDeadline(ctx, now)) throw timeoutError();
  if (ctx.signal?.aborted) throw abortError(ctx.signal);
  // Nothing to wait for: no promise, so a loop that tests the result before awaiting it (once per
  // batch on every scan) allocates nothing and takes no microtask turn.
  if (!shouldPark(t, now)) return undefined;
  return parkAndCheck(ctx, t, now);
}

async function parkAndCheck(ctx: ExecContext, t: SliceTicker, now: number): Promise<void> {
  const deadline = Math.min(ctx.deadline ?? Infinity, ctx.clock?.at ?? Infinity);
  await park(t, now, { deadline, ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}) });
  checkCancel(ctx);
}

/** yieldIfDue every `every` calls: for loops whose iterations are too cheap for a clock read each. */
export function yieldEvery(ctx: ExecContext, every: number): Promise<void> | undefined {
  const t = ctx.ticker;
  if (t === undefined) return undefined;
  if (++t.count < every) return undefined;
  t.count = 0;
  return yieldIfDue(ctx);
}
