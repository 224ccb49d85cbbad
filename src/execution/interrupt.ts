/**
 * Statement limits: a cancel signal and a deadline (statement_timeout, a server's query timeout).
 *
 * The deadline is a time, not a timer: a CPU-bound plan only awaits microtasks, so a timer would not
 * get to fire until the statement had finished anyway. Operators compare the clock with it at their
 * cancellation points instead (checkCancel / yieldIfDue in context.ts).
 *
 * Limits that apply to everything a call runs (a server request, a library call with options) are
 * carried in AsyncLocalStorage, so concurrent statements on one Database never see each other's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { QuireError } from '../common/errors.js';

export interface StatementLimits {
  /** Aborting it cancels the statement (57014 "… due to user request"). */
  readonly signal?: AbortSignal;
  /** performance.now() after which the statement fails with 57014 "… due to statement timeout". */
  readonly deadline?: number;
}

const scope = new AsyncLocalStorage<StatementLimits>();

/** Runs `f` with limits on every statement it starts; nested scopes keep the stricter deadline. */
export function runWithLimits<X>(limits: StatementLimits, f: () => Promise<X>): Promise<X> {
  const outer = scope.getStore();
  if (outer === undefined) return scope.run(limits, f);
  const signals = [outer.signal, limits.signal].filter((s): s is AbortSignal => s !== undefined);
  return scope.run(
    {
      ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}),
      ...(outer.deadline !== undefined || limits.deadline !== undefined
        ? { deadline: Math.min(outer.deadline ?? Infinity, limits.deadline ?? Infinity) }
        : {}),
    },
    f,
  );
}

export function currentLimits(): StatementLimits | undefined {
  return scope.getStore();
}

export function timeoutError(): QuireError {
  return new QuireError('57014', 'canceling statement due to statement timeout');
}

export function cancelError(): QuireError {
  return new QuireError('57014', 'canceling statement due to user request');
}

/** The error for an aborted signal: AbortSignal.timeout() and friends count as a timeout. */
export function abortError(signal: AbortSignal): QuireError {
  const r: unknown = signal.reason;
  if (r instanceof QuireError) return r;
  if (r instanceof Error && r.name === 'TimeoutError') return timeoutError();
  return cancelError();
}

export function isTimeoutError(e: unknown): boolean {
  return e instanceof QuireError && e.code === '57014' && e.message.endsWith('statement timeout');
}

const UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_MS = 2147483647;

/**
 * A statement_timeout value in milliseconds: an integer (ms) or a number with a PostgreSQL time unit
 * ('1s', '250ms', '1.5min'); null when it is not one.
 */
export function parseDurationMs(text: string): number | null {
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (m === null) return null;
  const unit = m[2] === '' ? 'ms' : m[2]!;
  const f = UNITS[unit];
  if (f === undefined) return null;
  return Math.round(Number(m[1]) * f);
}

/** PostgreSQL's display of a millisecond setting: the largest unit that divides it exactly. */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0';
  for (const [u, f] of [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) {
    if (ms % f === 0) return `${ms / f}${u}`;
  }
  return `${ms}ms`;
}

/** Checks and normalises a statement_timeout value as SET stores it. */
export function normalizeTimeoutSetting(name: string, value: string): string {
  const ms = parseDurationMs(value);
  if (ms === null) {
    throw new QuireError('22023', `invalid value for parameter "${name}": "${value}"`, {
      hint: 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".',
    });
  }
  if (ms < 0 || ms > MAX_MS) {
    throw new QuireError('22023', `${ms} ms is outside the valid range for parameter "${name}" (0 .. ${MAX_MS})`);
  }
  return formatDurationMs(ms);
}
