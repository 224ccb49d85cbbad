/**
 * Columns read_parquet reads for their NULLs only (rule presence-only-table-function-columns): a column
 * the query only counts or tests for NULL is never decoded. Answers must equal DuckDB's reading the same
 * files and Quire's own with the rule switched off: NULLs in runs and scattered, row groups with no NULL
 * and with nothing else, rows picked sparsely by a row filter across pages and row groups, version 1
 * and version 2 data pages (DuckDB writes version 1 headers, hyparquet-writer version 2 ones, in pages of
 * 2 KB), required columns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const N = 120_000;
let dir: string;
let v1: string;
let v2: string;
let hw: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const explain = async (sql: string): Promise<string> => (await db.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => String(r[0])).join('\n');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-presence-'));
  v1 = join(dir, 'v1.parquet');
  v2 = join(dir, 'v2.parquet');
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // Row groups of 10,000 rows: t is NULL in a seventh of the rows, nowhere in rows 20,000-29,999 and
  // everywhere in rows 50,000-59,999; u (dictionary text) is NULL in long runs; v (double) every 5th row;
  // w is never NULL (statistics say so: nothing is read).
  const select = `SELECT i::INTEGER AS id, ((i * 7919) % 1000)::INTEGER AS k, (i % 13)::INTEGER AS g,
      CASE WHEN i BETWEEN 20000 AND 29999 THEN 'x' || i WHEN i BETWEEN 50000 AND 59999 OR i % 7 = 3 THEN NULL ELSE 'héllo ' || i END AS t,
      CASE WHEN (i // 3000) % 3 = 1 THEN NULL ELSE 'cat' || (i % 17) END AS u,
      CASE WHEN i % 5 = 0 THEN NULL ELSE i / 3.0 END AS v,
      'w' || (i % 5) AS w
    FROM range(${N}) t(i)`;
  await duck.run(`COPY (${select}) TO '${v1}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
  await duck.run(`COPY (${select}) TO '${v2}' (FORMAT parquet, ROW_GROUP_SIZE 10000, PARQUET_VERSION V2)`);
  // The same rows through hyparquet-writer: DATA_PAGE_V2 pages of 2 KB, id, k, g and w required.
  hw = join(dir, 'hw.parquet');
  const ids = Array.from({ length: N }, (_, i) => i);
  parquetWriteFile({
    filename: hw,
    rowGroupSize: 10_000,
    pageSize: 2048,
    columnData: [
      { name: 'id', data: Int32Array.from(ids), type: 'INT32' },
      { name: 'k', data: Int32Array.from(ids, (i) => (i * 7919) % 1000), type: 'INT32' },
      { name: 'g', data: Int32Array.from(ids, (i) => i % 13), type: 'INT32' },
      { name: 't', data: ids.map((i) => (i >= 20000 && i <= 29999 ? 'x' + i : (i >= 50000 && i <= 59999) || i % 7 === 3 ? null : 'héllo ' + i)), type: 'STRING', nullable: true },
      { name: 'u', data: ids.map((i) => (Math.floor(i / 3000) % 3 === 1 ? null : 'cat' + (i % 17))), type: 'STRING', nullable: true },
      { name: 'v', data: ids.map((i) => (i % 5 === 0 ? null : i / 3)), type: 'DOUBLE', nullable: true },
      { name: 'w', data: ids.map((i) => 'w' + (i % 5)), type: 'STRING' },
    ],
  });
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  `SELECT count(*), count(t), count(u), count(v), count(w) FROM read_parquet('$F')`,
  // Rows picked by a row filter: a few per page (k = 17), and most of them.
  `SELECT count(*), count(t), count(u), count(v) FROM read_parquet('$F') WHERE k = 17`,
  `SELECT g, count(*), count(t), count(u), sum(k) FROM read_parquet('$F') WHERE k < 900 GROUP BY g ORDER BY g`,
  `SELECT g, count(t), count(v) FROM read_parquet('$F') WHERE id >= 45000 AND id < 65000 GROUP BY g ORDER BY g`,
  // IS [NOT] NULL in a filter, in a projection and in an aggregate's FILTER.
  `SELECT count(*) FROM read_parquet('$F') WHERE t IS NULL`,
  `SELECT g, count(*) FROM read_parquet('$F') WHERE u IS NOT NULL AND v IS NULL GROUP BY g ORDER BY g`,
  `SELECT id, t IS NULL, u IS NOT NULL FROM read_parquet('$F') WHERE k = 3 ORDER BY id`,
  `SELECT g, count(*) FILTER (WHERE t IS NULL), count(u) FILTER (WHERE v IS NOT NULL) FROM read_parquet('$F') GROUP BY g ORDER BY g`,
  // The same column also read for its value: decoded in full.
  `SELECT count(t), min(t), count(DISTINCT u) FROM read_parquet('$F') WHERE k > 500`,
];

describe('read_parquet reads columns only tested for NULL as presence', () => {
  it('EXPLAIN names the columns read for their NULLs only, and only those', async () => {
    expect(await explain(`SELECT g, count(t), count(*) FROM read_parquet('${v1}') WHERE k < 5 GROUP BY g`)).toMatch(/NULLs only: \[t\]/);
    expect(await explain(`SELECT count(*) FROM read_parquet('${v1}') WHERE u IS NULL`)).toMatch(/NULLs only: \[u\]/);
    expect(await explain(`SELECT count(t), max(t) FROM read_parquet('${v1}')`)).not.toMatch(/NULLs only/);
    expect(await explain(`SELECT count(DISTINCT t) FROM read_parquet('${v1}')`)).not.toMatch(/NULLs only/);
    expect(await explain(`SELECT t IS NULL, t FROM read_parquet('${v1}')`)).not.toMatch(/NULLs only/);
  });

  for (const q of QUERIES) {
    for (const version of ['v1', 'v2', 'hw'] as const) {
      it(`${version}: ${q.replace(`'$F'`, '…')}`, async () => {
        const sql = q.replaceAll('$F', version === 'v1' ? v1 : version === 'v2' ? v2 : hw);
        const got = await quire(sql);
        const casted = sql.replace('sum(k)', 'CAST(sum(k) AS BIGINT)');
        expect(await quire(casted)).toEqual(norm((await duck.runAndReadAll(casted)).getRows() as unknown[][]));
        await db.query(`SET quire.disabled_rules = 'presence-only-table-function-columns'`);
        try {
          expect(await quire(sql)).toEqual(got);
        } finally {
          await db.query('RESET quire.disabled_rules');
        }
      });
    }
  }

  it('nested, boolean and decimal columns counted: the general path gives their NULLs', async () => {
    const nested = join(dir, 'nested.parquet');
    await duck.run(`COPY (SELECT i AS id, CASE WHEN i % 3 = 0 THEN NULL ELSE {'a': i, 'b': 'x'} END AS st,
                     CASE WHEN i % 4 = 0 THEN NULL ELSE [i, i] END AS li, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 2 = 0 END AS bo,
                     CASE WHEN i % 6 = 0 THEN NULL ELSE i::DECIMAL(10,2) END AS de
                   FROM range(5000) t(i)) TO '${nested}' (FORMAT parquet, ROW_GROUP_SIZE 1000)`);
    const sql = `SELECT count(st), count(li), count(bo), count(de), count(*) FILTER (WHERE st IS NULL) FROM read_parquet('${nested}') WHERE id >= 1234`;
    // st is a record: PostgreSQL's st IS NULL is true also when every field is NULL, so it reads the fields.
    expect(await explain(sql)).toMatch(/NULLs only: \[li, de\]/);
    expect(await quire(sql)).toEqual(norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]));
    const counted = `SELECT count(st), count(li), count(bo), count(de) FROM read_parquet('${nested}') WHERE id >= 1234`;
    expect(await explain(counted)).toMatch(/NULLs only: \[st, li, de\]/);
    expect(await quire(counted)).toEqual(norm((await duck.runAndReadAll(counted)).getRows() as unknown[][]));
  });

  it('a glob of files, one per row group pattern, counts the same', async () => {
    const sql = `SELECT count(t), count(u), count(*) FROM read_parquet('${join(dir, 'v*.parquet')}') WHERE k >= 250`;
    const one = await quire(`SELECT count(t), count(u), count(*) FROM read_parquet('${v1}') WHERE k >= 250`);
    expect(await quire(sql)).toEqual([one[0]!.map((x) => 2 * Number(x))]);
  });
});
