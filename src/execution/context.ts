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
  /**
   * The statement's cancel state, shared by every context derived from it. Hot loops read its flag,
   * never the AbortSignal: Node gives each AbortSignal its own hidden class, so optimized code that
   * read `signal.aborted` met a new map with every statement and was thrown away (a deopt per query).
   */
  readonly interrupt: Interrupt;
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

/**
 * A statement's cancellation as a plain flag that an abort listener sets. One class, fields set in
 * one order, so every statement's instance has the same hidden class and the checks inlined into
 * operator loops stay optimized from one statement to the next.
 */
export class Interrupt {
  aborted: boolean;
  readonly signal: AbortSignal | undefined;
  constructor(signal: AbortSignal | undefined) {
    this.aborted = signal?.aborted ?? false;
    this.signal = signal;
    if (signal !== undefined && !this.aborted) {
      signal.addEventListener(
        'abort',
        () => {
          this.aborted = true;
        },
        { once: true },
      );
    }
  }
}

/** The fields a context is made from; `interrupt` is made from `signal` when not given. */
export type ExecContextInit = Omit<ExecContext, 'interrupt' | 'outer' | 'worktables' | 'initPlans'> &
  Partial<Pick<ExecContext, 'interrupt' | 'outer' | 'worktables' | 'initPlans'>>;

/**
 * Every ExecContext is one of these: each field is assigned in the constructor in one order, absent
 * ones as undefined, so a context never changes shape and all statements' contexts share one map
 * (object literals with optional fields spread in made several).
 */
class StatementExecContext implements ExecContext {
  readonly eval: EvalContext;
  readonly params: readonly Value[];
  readonly outer: readonly (readonly Value[])[];
  readonly signal: AbortSignal | undefined;
  readonly interrupt: Interrupt;
  readonly deadline: number | undefined;
  readonly clock: StatementClock | undefined;
  readonly worktables: Map<number, import('../common/column.js').Batch[]>;
  readonly initPlans: Map<object, unknown>;
  readonly ticker: SliceTicker | undefined;
  readonly analyze: boolean;
  readonly notice: ((message: string, level: string) => void) | undefined;
  constructor(f: ExecContextInit) {
    this.eval = f.eval;
    this.params = f.params;
    this.outer = f.outer ?? [];
    this.signal = f.signal;
    this.interrupt = f.interrupt ?? new Interrupt(f.signal);
    this.deadline = f.deadline;
    this.clock = f.clock;
    this.worktables = f.worktables ?? new Map();
    this.initPlans = f.initPlans ?? new Map();
    this.ticker = f.ticker;
    this.analyze = f.analyze;
    this.notice = f.notice;
  }
}

export function makeExecContext(f: ExecContextInit): ExecContext {
  return new StatementExecContext(f);
}

/**
 * A copy of `ctx` with some fields replaced. It shares the statement's interrupt unless it is given
 * another signal, which then cancels it instead (as a spread `{ ...ctx, signal }` used to).
 */
export function deriveContext(ctx: ExecContext, changes: Partial<ExecContextInit>): ExecContext {
  const signal = 'signal' in changes ? changes.signal : ctx.signal;
  const interrupt = changes.interrupt ?? (signal === ctx.signal ? ctx.interrupt : new Interrupt(signal));
  return new StatementExecContext({
    eval: ctx.eval,
    params: ctx.params,
    outer: ctx.outer,
    deadline: ctx.deadline,
    clock: ctx.clock,
    worktables: ctx.worktables,
    initPlans: ctx.initPlans,
    ticker: ctx.ticker,
    analyze: ctx.analyze,
    notice: ctx.notice,
    ...changes,
    signal,
    interrupt,
  });
}

function pastDeadline(ctx: ExecContext, now: number): boolean {
  return (ctx.deadline !== undefined && now > ctx.deadline) || (ctx.clock !== undefined && now > ctx.clock.at);
}

export function withOuterRow(ctx: ExecContext, row: readonly Value[]): ExecContext {
  return deriveContext(ctx, { outer: [...ctx.outer, row] });
}

function interrupted(ctx: ExecContext): never {
  throw abortError(ctx.interrupt.signal!);
}

export function checkCancel(ctx: ExecContext): void {
  if (ctx.interrupt.aborted) interrupted(ctx);
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
  if (ctx.interrupt.aborted) interrupted(ctx);
  // Nothing to wait for: no promise, so a loop that tests the result before awaiting it (once per
  // batch on every scan) allocates nothing and takes no microtask turn.
  if (!shouldPark(t, now)) return undefined;
  return parkAndCheck(ctx, t, now);
}

async function parkAndCheck(ctx: ExecContext, t: SliceTicker, now: number): Promise<void> {
  const deadline = Math.min(ctx.deadline ?? Infinity, ctx.clock?.at ?? Infinity);
  const signal = ctx.interrupt.signal;
  await park(t, now, { deadline, ...(signal !== undefined ? { signal } : {}) });
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
