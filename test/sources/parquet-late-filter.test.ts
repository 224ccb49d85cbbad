/**
 * Late materialization in read_parquet: filter columns are decoded first and the other columns only for
 * row groups with rows that may pass. Answers must equal DuckDB's and Quire's own without the pushdown,
 * whether no row, a few rows or most rows of a group pass, with NULLs and NaN in the filter columns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const N = 60_000;
let dir: string;
let file: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-late-'));
  file = join(dir, 'late.parquet');
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // k is shuffled (statistics cannot prune it); g is NULL in a ninth of the rows; f holds NaN; fn holds
  // NaN and NULLs.
  await duck.run(`COPY (SELECT i::INTEGER AS id, ((i * 7919) % 1000)::INTEGER AS k,
                   CASE WHEN i % 9 = 4 THEN NULL ELSE (i % 37)::BIGINT END AS g,
                   CASE WHEN i % 101 = 0 THEN 'NaN'::DOUBLE ELSE (i % 1000) / 7.0 END AS f,
                   CASE WHEN i % 11 = 2 THEN NULL WHEN i % 101 = 0 THEN 'NaN'::DOUBLE ELSE (i % 1000) / 7.0 END AS fn,
                   'name' || (i % 313) AS s, DATE '2020-01-01' + (i % 400)::INTEGER AS d
                 FROM range(${N}) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  // No row of any group passes.
  `SELECT count(*), max(s) FROM read_parquet('$F') WHERE k > 5000`,
  // A few rows per group.
  `SELECT id, k, g, s, CAST(d AS VARCHAR) FROM read_parquet('$F') WHERE k = 17 ORDER BY id`,
  `SELECT id, s FROM read_parquet('$F') WHERE k < 3 AND g >= 30 ORDER BY id`,
  // Most rows.
  `SELECT g, count(*), count(s), sum(k) FROM read_parquet('$F') WHERE k <> 5 GROUP BY g ORDER BY g`,
  // Integer column against a bigint constant and a double constant; dates.
  `SELECT count(*), min(id) FROM read_parquet('$F') WHERE k >= 998::bigint AND k < 998.5`,
  `SELECT count(*), min(s) FROM read_parquet('$F') WHERE d = DATE '2020-02-01'`,
];

describe('read_parquet decodes filter columns first', () => {
  it('EXPLAIN names the comparisons checked before the other columns are decoded', async () => {
    const plan = (await db.query(`EXPLAIN SELECT s FROM read_parquet('${file}') WHERE k = 17 AND g > 3`)).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/decoded first: k = 17 AND g > 3/);
  });

  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      const sql = q.replaceAll('$F', file);
      const got = await quire(sql);
      const casted = sql.replace('sum(k)', 'CAST(sum(k) AS BIGINT)');
      expect(await quire(casted)).toEqual(norm((await duck.runAndReadAll(casted)).getRows() as unknown[][]));
      await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
      try {
        expect(await quire(sql)).toEqual(got);
      } finally {
        await db.query('RESET quire.disabled_rules');
      }
    });
  }

  it('NaN passes > and <> and fails <, as PostgreSQL orders it', async () => {
    for (const w of ['f > 100', 'f >= 142', 'f < 1', 'f <> 3', 'f = 0']) {
      const sql = `SELECT count(*), min(id), max(id) FROM read_parquet('${file}') WHERE ${w}`;
      const got = await quire(sql);
      await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
      try {
        expect(await quire(sql), w).toEqual(got);
      } finally {
        await db.query('RESET quire.disabled_rules');
      }
    }
    // The same over a column with NULLs too (each row decided in one step there): NULLs never pass.
    for (const w of ['fn > 100', 'fn >= 142', 'fn < 1', 'fn <= 1', 'fn <> 3', 'fn = 0']) {
      const sql = `SELECT count(*), min(id), max(id), sum(k) FROM read_parquet('${file}') WHERE ${w}`;
      const got = await quire(sql);
      await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
      try {
        expect(await quire(sql), w).toEqual(got);
      } finally {
        await db.query('RESET quire.disabled_rules');
      }
    }
    // 594 NaN rows: all counted by >.
    expect(await quire(`SELECT count(*) FROM read_parquet('${file}') WHERE f > 1000000`)).toEqual([[Math.ceil(N / 101)]]);
  });
});
