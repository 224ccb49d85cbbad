/**
 * Patterns RE2 cannot run (back references, lookaround) run on JavaScript's backtracking engine,
 * which can take exponential time and cannot be interrupted. So they run in a worker thread while
 * this thread waits at most BUDGET_MS for the answer; past it the worker is terminated (a fresh one
 * starts on the next call) and the evaluation fails with 2201B, the code PostgreSQL uses for a
 * regular expression too complex to run. Functions are synchronous, hence the blocking wait
 * (Atomics.wait) and the synchronous receive (receiveMessageOnPort).
 */
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { err, SQLSTATE } from '../../../common/errors.js';
import type { PgRegex } from './regex.js';

/** Longest one evaluation may hold the event loop. */
export const BUDGET_MS = 50;
/** A fresh worker needs time to start before its first answer. */
const STARTUP_BUDGET_MS = 5_000;

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { port, flag } = workerData;
const cache = new Map();
port.on('message', (m) => {
  Atomics.store(flag, 1, 1);
  let reply;
  try {
    const key = m.flags + '\\u0000' + m.source;
    let re = cache.get(key);
    if (re === undefined) {
      re = new RegExp(m.source, m.flags);
      if (cache.size > 256) cache.clear();
      cache.set(key, re);
    }
    re.lastIndex = m.lastIndex;
    const r = re.exec(m.input);
    reply = r === null ? { match: null, lastIndex: re.lastIndex } : { match: Array.from(r), index: r.index, lastIndex: re.lastIndex };
  } catch (e) {
    reply = { error: String(e && e.message || e) };
  }
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

interface Reply {
  match?: (string | undefined)[] | null;
  index?: number;
  lastIndex?: number;
  error?: string;
}

let worker: { w: Worker; port: MessagePort; flag: Int32Array; fresh: boolean } | null = null;

function start(): NonNullable<typeof worker> {
  const { port1, port2 } = new MessageChannel();
  // [0]: the answer is posted; [1]: the worker has begun evaluating.
  const flag = new Int32Array(new SharedArrayBuffer(8));
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
  // The worker must never keep the process alive nor take it down.
  w.unref();
  w.on('error', () => {
    if (worker?.w === w) worker = null;
  });
  port1.unref();
  return { w, port: port1, flag, fresh: true };
}

function run(source: string, flags: string, input: string, lastIndex: number): Reply {
  const h = (worker ??= start());
  Atomics.store(h.flag, 0, 0);
  Atomics.store(h.flag, 1, 0);
  h.port.postMessage({ source, flags, input, lastIndex });
  // The budget is the pattern's: on a loaded machine the worker may wait for a core before it begins,
  // and that wait (up to the startup budget) does not count against it.
  const startBy = performance.now() + STARTUP_BUDGET_MS;
  let waited = Atomics.wait(h.flag, 0, 0, h.fresh ? STARTUP_BUDGET_MS : BUDGET_MS);
  let late = false;
  while (waited === 'timed-out' && performance.now() < startBy) {
    const begun = Atomics.load(h.flag, 1) === 1;
    // Begun after a wait that found it idle: it gets one budget from then; begun before: it had its budget.
    if (begun && !late) break;
    late = !begun;
    waited = Atomics.wait(h.flag, 0, 0, BUDGET_MS);
  }
  h.fresh = false;
  const msg = waited === 'timed-out' ? undefined : receiveMessageOnPort(h.port);
  if (msg === undefined) {
    worker = null;
    void h.w.terminate();
    h.port.close();
    throw err(SQLSTATE.invalidRegularExpression, 'invalid regular expression: regular expression is too complex', undefined, {
      detail: `Evaluating it took longer than ${BUDGET_MS} ms; patterns without back references or lookaround run in linear time.`,
    });
  }
  return msg.message as Reply;
}

class SandboxedRegex implements PgRegex {
  lastIndex = 0;
  readonly global: boolean;
  constructor(
    private readonly source: string,
    private readonly flags: string,
  ) {
    this.global = flags.includes('g');
  }

  exec(s: string): RegExpExecArray | null {
    const r = run(this.source, this.flags, s, this.global ? this.lastIndex : 0);
    if (r.error !== undefined) throw err(SQLSTATE.invalidRegularExpression, `invalid regular expression: ${r.error}`);
    if (this.global) this.lastIndex = r.lastIndex ?? 0;
    if (r.match === null || r.match === undefined) return null;
    const arr = r.match as unknown as RegExpExecArray;
    arr.index = r.index ?? 0;
    arr.input = s;
    return arr;
  }

  test(s: string): boolean {
    return this.exec(s) !== null;
  }
}

export function sandboxedRegex(source: string, flags: string): PgRegex {
  return new SandboxedRegex(source, flags);
}
