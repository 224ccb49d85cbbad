/**
 * Two sessions taking turns, one statement at a time, on Quire or on PostgreSQL (the same steps on
 * both, for tests whose expected outcomes are PostgreSQL's): each step's outcome as both engines
 * report it, a statement that waits for the other session included.
 */
import { pause } from './waits.js';

export interface Conn {
  query(sql: string, params?: unknown[]): Promise<{ command: string; rowCount: number | null; rows: unknown[] }>;
}

/**
 * A statement's outcome as both engines report it: the SQLSTATE it failed with, the rows of a SELECT,
 * `ok <count>` for INSERT, UPDATE, DELETE and COPY, `ok` for anything else.
 */
export function outcome(p: Promise<{ command: string; rowCount: number | null; rows: unknown[] }>): Promise<string> {
  return p.then(
    (r) => (r.command === 'SELECT' ? JSON.stringify(r.rows) : /^(INSERT|UPDATE|DELETE|COPY)$/.test(r.command) ? `ok ${r.rowCount}` : 'ok'),
    (e: { code?: string }) => e.code ?? String(e),
  );
}

/**
 * A step: session `a` or `b`, the statement and its expected outcome. `waits` expects the statement
 * to be still running after a pause; `await` then names no statement and expects the outcome the
 * waiting one of that session finally has.
 */
export type Step = [session: 'a' | 'b', sql: string, expected: string];

/** Runs `steps` on sessions `a` and `b`: each one's outcome (`params` for a statement with `$1`). */
export async function runSteps(steps: readonly Step[], a: Conn, b: Conn, params: unknown[] = []): Promise<string[]> {
  const got: string[] = [];
  const waiting = new Map<string, Promise<string>>();
  for (const [session, sql, expected] of steps) {
    const c = session === 'a' ? a : b;
    if (sql === 'await') {
      got.push(await (waiting.get(session) ?? Promise.resolve('nothing waits')));
      waiting.delete(session);
      continue;
    }
    const p = outcome(c.query(sql, sql.includes('$1') ? params : undefined));
    if (expected !== 'waits') {
      got.push(await p);
      continue;
    }
    let done: string | null = null;
    void p.then((o) => (done = o));
    await pause(200);
    got.push(done ?? 'waits');
    waiting.set(session, p);
  }
  return got;
}
