/**
 * Differential window-function test: seeded random window queries (window-gen.ts) run on Quire and on PGlite
 * (PostgreSQL 17) must print identical results, errors included (same SQLSTATE). WIN_SEED / WIN_COUNT
 * replay another seed or run more queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSqlError, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { setupSql, windowQuery } from './window-gen.js';

const SEED = Number(process.env.WIN_SEED ?? 4004);
const COUNT = Number(process.env.WIN_COUNT ?? 500);

async function outcome(c: SqlConnection, sql: string): Promise<string> {
  try {
    const r = await c.query(sql);
    return r.rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|')).join('\n');
  } catch (e) {
    return `ERROR ${asSqlError(e).code ?? '?'}`;
  }
}

function suite(title: string, rows: number, count: number, seed: number): void {
describe(title, () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(setupSql(seed, rows)));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
    await q.close?.();
  });

  it(`${count} queries agree`, async () => {
    const failures: string[] = [];
    let errors = 0;
    for (let i = 0; i < count; i++) {
      const sql = windowQuery(seed * 7919 + i);
      const want = await outcome(pg, sql);
      const got = await outcome(q, sql);
      if (want.startsWith('ERROR')) errors++;
      if (want !== got && failures.length < 10) failures.push(`${sql}\n  postgres: ${want.slice(0, 600)}\n  quire:    ${got.slice(0, 600)}`);
    }
    // Most generated queries must be valid, or the test would only compare error codes.
    expect(errors).toBeLessThan(count / 10);
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 600_000);
});
}

suite('window functions: random queries vs PostgreSQL (60 rows)', 60, COUNT, SEED);
// 5,000 rows: partitions span several input batches and frames are long enough for the segment tree.
suite('window functions: random queries vs PostgreSQL (5,000 rows)', 5000, Math.ceil(COUNT / 20), SEED + 1);
