/**
 * Sharing the one event loop between running statements.
 *
 * Every statement of a server runs on the same thread, and a CPU-bound plan only gives the loop
 * back at its yield points. Yielding by itself is not enough: if each of N busy statements yields
 * with setImmediate, all N continuations run in the same check phase, so the loop polls sockets
 * only once per N slices and a `select 1` arriving meanwhile waits N × slice.
 *
 * So the loop turn is the unit of budget, not the statement:
 * - A turn has a budget of SLICE_MS of query work, shared by every statement that runs in it
 *   (the one resumed at the start of the turn and those started by the socket events of its poll
 *   phase). A statement at a yield point whose turn is spent parks itself in a queue.
 * - A statement runs at least MIN_RUN_MS each time it starts or resumes, so most short statements
 *   finish in the turn they arrive in without parking at all.
 * - One pump per turn (a setImmediate, so the poll phase runs between two pumps) resumes one
 *   parked statement: the one that has had the least CPU so far (least attained service), aged by
 *   how long it has waited. A short statement therefore waits for about one slice of the long
 *   ones, however many there are; long statements share what is left, and a statement whose time
 *   limit passes or that is cancelled while parked is woken at once to fail.
 */

/** Per-statement accounting, kept on the statement's ExecContext. */
export interface SliceTicker {
  /** performance.now() when the statement last (re)started running. */
  last: number;
  /** Calls since the last clock read (see yieldEvery). */
  count: number;
  /** Milliseconds of the loop this statement has had so far: its priority (less runs first). */
  used?: number;
}

/** The budget of query work per loop turn. */
export const SLICE_MS = 5;

/**
 * What a statement may run after it starts or is resumed before it parks, even in a spent turn.
 * Without it, a new statement would park at its first yield point behind every other newcomer, so
 * under a steady stream of them a short statement could wait for all of their slices; with it, most
 * short statements (a `select 1`, a page, a small aggregate) finish in the turn they arrive in.
 */
export const MIN_RUN_MS = 2;

interface Parked {
  /** Its place in the queue: CPU used so far, plus its parking time scaled down by AGING. */
  readonly key: number;
  readonly seq: number;
  /** Resumes the statement; a second call does nothing (an entry can be woken early, then popped). */
  readonly resume: () => void;
  /** False once resumed (woken early entries stay in the heap until popped, then are skipped). */
  live: boolean;
}

/** What wakes a parked statement before its turn: it must fail promptly, not wait behind others. */
export interface WakeEarly {
  /** performance.now() at which the statement times out. */
  readonly deadline?: number;
  readonly signal?: AbortSignal;
}

/** A binary min-heap of parked statements by (used, arrival). */
const parked: Parked[] = [];
let seq = 0;
let pumpPending = false;

/** The current turn's budget: when it started, and which turn it is (so a stale closer is ignored). */
let turnStart = 0;
let turnOpen = false;
let turnId = 0;

/**
 * Waiting AGING ms counts as having used 1 ms less CPU. Pure least-CPU-first starves, under a
 * steady stream of newcomers, anything that has run a little (a statement that parked once after
 * its minimum run would wait as long as newcomers keep arriving). With aging, a statement that has
 * used U ms waits behind newcomers for at most about U × AGING ms; a long statement still yields to
 * short ones for long enough that it reaches its time limit first when the server is overloaded.
 * Since every entry ages at the same rate, the order is fixed when it parks: key = used + parkedAt / AGING.
 */
const AGING = 20;

function before(a: Parked, b: Parked): boolean {
  return a.key < b.key || (a.key === b.key && a.seq < b.seq);
}

function push(p: Parked): void {
  parked.push(p);
  let i = parked.length - 1;
  while (i > 0) {
    const up = (i - 1) >> 1;
    if (!before(parked[i]!, parked[up]!)) break;
    [parked[i], parked[up]] = [parked[up]!, parked[i]!];
    i = up;
  }
}

function pop(): Parked | undefined {
  const top = parked[0];
  const last = parked.pop();
  if (parked.length > 0 && last !== undefined) {
    parked[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < parked.length && before(parked[l]!, parked[m]!)) m = l;
      if (r < parked.length && before(parked[r]!, parked[m]!)) m = r;
      if (m === i) break;
      [parked[i], parked[m]] = [parked[m]!, parked[i]!];
      i = m;
    }
  }
  return top;
}

/**
 * Starts this turn's budget if none is running. The closer is a setImmediate: queued from a poll
 * phase it runs in the same iteration's check phase; queued from a check phase (a pump), in the
 * next one, so a pumped slice and the poll phase after it share one budget.
 */
function openTurn(now: number): void {
  if (turnOpen) return;
  turnOpen = true;
  turnStart = now;
  const id = ++turnId;
  setImmediate(() => {
    if (turnId === id) turnOpen = false;
  });
}

function pump(): void {
  pumpPending = false;
  let next = pop();
  while (next !== undefined && !next.live) next = pop();
  if (next === undefined) return;
  turnOpen = false;
  openTurn(performance.now());
  if (parked.length > 0) schedulePump();
  next.resume();
}

function schedulePump(): void {
  if (pumpPending) return;
  pumpPending = true;
  setImmediate(pump);
}

/** Whether this turn's budget is spent. */
export function turnSpent(now: number): boolean {
  openTurn(now);
  return now - turnStart >= SLICE_MS;
}

/** Whether a statement at a yield point should park: the turn is spent and it has had its minimum run. */
export function shouldPark(ticker: SliceTicker | undefined, now: number): boolean {
  if (!turnSpent(now)) return false;
  return ticker === undefined || now - ticker.last >= MIN_RUN_MS;
}

/**
 * Parks the statement until a pump resumes it. Resolves at the start of a later loop turn; the
 * caller checks for cancellation afterwards.
 */
export function park(ticker: SliceTicker | undefined, now: number, wake?: WakeEarly): Promise<void> {
  let used = 0;
  if (ticker !== undefined) {
    // What it ran since it was last resumed, but no more than this turn: time spent waiting (for
    // sockets, for other statements' turns) before this turn is not CPU, and counting it would push
    // a statement that waited back behind everything that arrives after it.
    used = (ticker.used ?? 0) + Math.max(0, now - Math.max(ticker.last, turnOpen ? turnStart : now));
    ticker.used = used;
  }
  return new Promise<void>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const resume = (): void => {
      if (!entry.live) return;
      entry.live = false;
      if (timer !== undefined) clearTimeout(timer);
      wake?.signal?.removeEventListener('abort', resume);
      resolve();
    };
    // A statement that has timed out or been cancelled is woken at once: it only has to unwind,
    // and with the least-CPU-first order a long statement could otherwise wait long past its limit.
    if (wake?.deadline !== undefined && Number.isFinite(wake.deadline)) {
      timer = setTimeout(resume, Math.max(0, wake.deadline - now) + 1);
    }
    const entry: Parked = { key: used + now / AGING, seq: seq++, resume, live: true };
    wake?.signal?.addEventListener('abort', resume);
    push(entry);
    schedulePump();
  }).then(() => {
    if (ticker !== undefined) ticker.last = performance.now();
  });
}

/**
 * A yield point for work that is not a statement (a connection streaming a result, a request
 * handler): parks with the given priority when the turn is spent. Work without accounting passes
 * an undefined ticker and is resumed as new work.
 */
export async function yieldTurn(ticker?: SliceTicker): Promise<void> {
  const now = performance.now();
  if (!shouldPark(ticker, now)) return;
  await park(ticker, now);
}

/** Statements parked right now (for tests and diagnostics). */
export function parkedCount(): number {
  return parked.length;
}
