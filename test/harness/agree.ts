/**
 * Many queries run on PostgreSQL (PGlite) and Quire, their outcomes compared as text, and up to five
 * disagreements reported together, so one failing run shows the pattern rather than the first case.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { asSqlError, pgliteAndQuire, type SqlConnection } from './connection.js';

/** Rows as `a|b` lines (NULL spelled out), or `ERROR code` (with the message when `withMessage`). */
export async function rowsOrError(c: SqlConnection, sql: string, withMessage = false): Promise<string> {
  try {
    const res = await c.query(sql);
    return res.rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|')).join('\n');
  } catch (e) {
    const err = asSqlError(e);
    return `ERROR ${err.code ?? '?'}${withMessage ? ` ${err.message}` : ''}`;
  }
}

export interface AgreeOptions {
  /** What PostgreSQL may reject: none of the queries (the default), fewer than a tenth, or any. */
  readonly pgRejects?: 'none' | 'few' | 'any';
  readonly withMessage?: boolean;
}

export async function expectAgreement(pg: SqlConnection, q: SqlConnection, queries: readonly string[], opts: AgreeOptions = {}): Promise<void> {
  const failures: string[] = [];
  let rejected = 0;
  for (const sql of queries) {
    const want = await rowsOrError(pg, sql, opts.withMessage);
    const got = await rowsOrError(q, sql, opts.withMessage);
    if (want.startsWith('ERROR')) {
      rejected++;
      if ((opts.pgRejects ?? 'none') === 'none') expect.fail(`PostgreSQL rejected: ${sql}: ${want}`);
    }
    if (want !== got && failures.length < 5) failures.push(`${sql}\n  postgres: ${want.slice(0, 400)}\n  quire:    ${got.slice(0, 400)}`);
  }
  if (opts.pgRejects === 'few') expect(rejected, 'queries PostgreSQL rejected').toBeLessThan(queries.length / 10);
  expect(failures, failures.join('\n\n')).toEqual([]);
}

/**
 * For a describe block: PGlite and Quire loaded with `setup` before its tests and closed after them.
 * `agree` compares queries on both; `postgres()` and `quire()` are the connections, for checks of their own.
 */
export function agreementSuite(setup: () => Iterable<string>, opts: AgreeOptions = {}): { agree: (queries: readonly string[]) => Promise<void>; postgres: () => SqlConnection; quire: () => SqlConnection } {
  let pg: SqlConnection | undefined;
  let q: SqlConnection | undefined;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(setup()));
  }, 120_000);
  afterAll(async () => {
    await pg?.close?.();
    await q?.close?.();
  });
  return { agree: (queries) => expectAgreement(pg!, q!, queries, opts), postgres: () => pg!, quire: () => q! };
}
