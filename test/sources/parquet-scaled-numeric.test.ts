/**
 * DECIMAL columns of Parquet files carried as unscaled doubles and one scale (scaledNumericColumn), their
 * Numerics built only when read: every answer equals PostgreSQL's (PGlite) over the same values typed
 * into numeric columns, and the rows equal DuckDB's reading of the files. Shapes that defeat the
 * shortcut: a filter before the aggregate (the column passes through takeColumn or a selection), ORDER
 * BY / LIMIT over the column, a join, a UNION ALL mixing it with numerics of other scales, DISTINCT, window
 * sums, the value read as text, a spill under a small memory_limit, all-NULL groups, empty input,
 * coefficients next to 2^53 (sums leaving the exact range) and past it (chunks read as Numerics beside
 * chunks read as doubles), and DECIMAL(38) stored as FIXED_LEN_BYTE_ARRAY.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { formatValue } from '../../src/common/format-value.js';
import { newPglite, quireConnection, rowsText, type SqlConnection } from '../harness/connection.js';

let dir: string;
let db: Database;
let quire: SqlConnection;
let pg: SqlConnection;
let duck: DuckDBConnection;
const f = (name: string): string => join(dir, name);

const ROWS = 30_000;
// price: DECIMAL(12,2) as INT64, NULL on a group of its own (g = 6) and scattered; wide: DECIMAL(38,3) as
// FIXED_LEN_BYTE_ARRAY with small values (read as doubles too); amt: no NULLs (the one-pass aggregate
// loop); r: the same in no order (rows of a Top-N arrive late).
const MAIN = `SELECT i::INTEGER AS id, (i % 7)::INTEGER AS g,
    CASE WHEN i % 7 = 6 OR i % 13 = 0 THEN NULL ELSE ((i * 7919) % 2000003 - 1000001) / 100.0 END::DECIMAL(12,2) AS price,
    CASE WHEN i % 5 = 0 THEN NULL ELSE ((i * 31) % 20011 - 10005) / 1000.0 END::DECIMAL(38,3) AS wide,
    (((i * 104729) % 1000003 - 500001) / 100.0)::DECIMAL(12,2) AS amt,
    (((hash(i) % 2000001)::BIGINT - 1000000) / 100.0)::DECIMAL(12,2) AS r
  FROM range(${ROWS}) r(i)`;
// v: DECIMAL(18,2) next to 2^53 unscaled (90071992547409.91 is 2^53 - 1), both signs, so sums leave the
// exact range at once; from row 6000 on, some rows past 2^53 make their chunks Numeric objects. w: the
// same without NULLs.
const BIG_ROWS = 9_000;
const BIG = `SELECT i::INTEGER AS id, (i % 3)::INTEGER AS g,
    CASE WHEN i % 17 = 0 THEN NULL
         WHEN i >= 6000 AND i % 5 = 0 THEN 90071992547409.93 + i
         WHEN i % 2 = 0 THEN 90071992547409.91 - i ELSE -90071992547409.91 + i / 100.0 END::DECIMAL(18,2) AS v,
    CASE WHEN i >= 7000 AND i % 7 = 0 THEN 90071992547409.93 + i
         WHEN i % 3 = 0 THEN 90071992547409.91 - i ELSE -90071992547409.91 + i / 100.0 END::DECIMAL(18,2) AS w
  FROM range(${BIG_ROWS}) r(i)`;

/** Rows of `sql` over the files in Quire and over the typed-in tables in PostgreSQL, sorted unless ordered. */
async function check(sql: string, ordered = false): Promise<string[]> {
  const q = sql.replaceAll('$P', `read_parquet('${f('main.parquet')}')`).replaceAll('$B', `read_parquet('${f('big.parquet')}')`);
  const p = sql.replaceAll('$P', 'main').replaceAll('$B', 'big');
  const want = (await rowsText(pg, p)).split('\n');
  const got = (await rowsText(quire, q)).split('\n');
  if (!ordered) {
    want.sort();
    got.sort();
  }
  expect(got).toEqual(want);
  return got;
}

async function load(table: string, columns: string, select: string): Promise<void> {
  const rows = (await duck.runAndReadAll(`SELECT * FROM (${select})`)).getRows();
  await pg.query(`CREATE TABLE ${table} (${columns})`);
  for (let i = 0; i < rows.length; i += 3000) {
    const part = rows.slice(i, i + 3000).map((r) => `(${r.map((v) => (v === null ? 'NULL' : String(v))).join(', ')})`);
    await pg.query(`INSERT INTO ${table} VALUES ${part.join(', ')}`);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-scaled-numeric-'));
  db = await Database.create();
  quire = quireConnection(db, formatValue);
  pg = await newPglite();
  duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
  await duck.run(`COPY (${MAIN}) TO '${f('main.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 8192)`);
  await duck.run(`COPY (${BIG}) TO '${f('big.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
  await load('main', 'id int, g int, price numeric(12,2), wide numeric(38,3), amt numeric(12,2), r numeric(12,2)', `SELECT id, g, CAST(price AS VARCHAR), CAST(wide AS VARCHAR), CAST(amt AS VARCHAR), CAST(r AS VARCHAR) FROM (${MAIN})`);
  await load('big', 'id int, g int, v numeric(18,2), w numeric(18,2)', `SELECT id, g, CAST(v AS VARCHAR), CAST(w AS VARCHAR) FROM (${BIG})`);
}, 120_000);

afterAll(async () => {
  duck?.closeSync();
  await pg?.close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('scaled DECIMAL columns: aggregates as PostgreSQL computes them', () => {
  it('grouped sum, avg, min, max, count (an all-NULL group included)', async () => {
    const got = await check(`SELECT g, sum(price), avg(price), min(price), max(price), count(price), count(*), sum(wide), avg(wide), min(wide), max(wide) FROM $P GROUP BY g`);
    // The scale shows: sums keep two decimals, and the all-NULL group is NULL, not 0.
    expect(got.some((l) => l.startsWith('6|NULL|NULL|NULL|NULL|0|'))).toBe(true);
    expect(got[0]).toMatch(/^0\|-?\d+\.\d{2}\|/);
  });

  it('a column without NULLs (one pass over the rows for every aggregate), also through a filter', async () => {
    await check(`SELECT g, sum(amt), avg(amt), min(amt), max(amt), count(amt), count(*) FROM $P GROUP BY g`);
    await check(`SELECT g, sum(amt), max(amt), min(amt) FROM $P WHERE id % 4 <> 1 GROUP BY g`);
    await check(`SELECT g, sum(amt), min(amt), max(price), sum(wide) FROM $P GROUP BY g`);
    await check(`SELECT sum(amt), avg(amt), min(amt), max(amt) FROM $P`);
    // sum, avg and count(*) alone (the bench's shape): the loop's step is the checked one while a group
    // has no value yet, the one without a scale test after, never changing within a batch.
    await check(`SELECT g, sum(amt), avg(amt), count(*) FROM $P GROUP BY g`);
    await check(`SELECT id % 100 AS k, sum(amt), avg(amt), count(*) FROM $P GROUP BY k`);
    await check(`SELECT g, sum(amt), count(*) FROM $P GROUP BY g`);
    await check(`SELECT g, sum(w), avg(w), min(w), max(w), count(*) FROM $B GROUP BY g`);
    await check(`SELECT g, sum(w), min(w), max(w) FROM $B WHERE id % 3 = 0 GROUP BY g`);
  });

  it('ungrouped, and over no rows', async () => {
    await check(`SELECT sum(price), avg(price), min(price), max(price), count(price), sum(wide), max(wide) FROM $P`);
    await check(`SELECT sum(price), avg(price), min(price), max(price), count(price) FROM $P WHERE id < 0`);
    await check(`SELECT g, sum(price), min(price) FROM $P WHERE id < 0 GROUP BY g`);
  });

  it('after a filter (the column taken by a selection or copied)', async () => {
    await check(`SELECT g, sum(price), avg(price), min(price), max(price), count(price) FROM $P WHERE id % 3 = 1 GROUP BY g`);
    await check(`SELECT sum(price), avg(price), min(price), max(price) FROM $P WHERE id % 3 = 1`);
    await check(`SELECT g, sum(price), max(price), count(*) FROM $P WHERE price > 100.5 GROUP BY g`);
    await check(`SELECT sum(price), min(price), count(*) FROM $P WHERE price <= -2500.25`);
    await check(`SELECT g, sum(price) FILTER (WHERE id % 2 = 0), max(price) FILTER (WHERE id % 4 = 1) FROM $P GROUP BY g`);
  });

  it('comparisons with constants decided on the doubles: every operator, constants of other scales and beyond 2^53', async () => {
    const consts = ['100.5', '-100.5', '100.505', '-100.505', '100', '0', '-2500.25', '9999.999', '1e20', '-1e20', "'NaN'::numeric", "'Infinity'::numeric", 'NULL::numeric'];
    // A value that is in the file (row 1: ((7919 % 2000003) - 1000001) / 100), so = and <> meet equal values.
    consts.push('-9920.82');
    for (const op of ['<', '<=', '=', '<>', '>', '>=']) {
      for (const c of consts) {
        await check(`SELECT count(*), sum(id), min(price) FROM $P WHERE price ${op} ${c}`);
        await check(`SELECT count(*), sum(id) FROM $P WHERE ${c} ${op} amt`);
      }
    }
    await check(`SELECT g, count(*), sum(price) FROM $P WHERE price > 100.5 AND amt <= -10.015 GROUP BY g`);
    // Chunks read as Numerics beside chunks read as doubles.
    await check(`SELECT count(*), sum(id) FROM $B WHERE v > 90071992547409.9`);
    await check(`SELECT count(*), sum(id) FROM $B WHERE w <= -90071992547400.005`);
  });

  it('ORDER BY and LIMIT over the column', async () => {
    await check(`SELECT id, price FROM $P ORDER BY price DESC NULLS LAST, id LIMIT 25`, true);
    await check(`SELECT id, price FROM $P WHERE price IS NOT NULL ORDER BY price, id OFFSET 100 LIMIT 10`, true);
    await check(`SELECT id, price, wide FROM $P ORDER BY wide NULLS FIRST, id LIMIT 30`, true);
    await check(`SELECT g, sum(price) AS s FROM $P GROUP BY g ORDER BY s DESC NULLS LAST`, true);
    // Top-N's boundary test on the doubles: both directions, small and large heaps, values next to 2^53.
    await check(`SELECT id, amt FROM $P ORDER BY amt, id LIMIT 7`, true);
    await check(`SELECT id, amt FROM $P ORDER BY amt DESC, id LIMIT 200`, true);
    await check(`SELECT id, price FROM $P ORDER BY price NULLS LAST, id LIMIT 40`, true);
    for (const dir of ['', 'DESC']) for (const n of [3, 100]) await check(`SELECT id, r FROM $P ORDER BY r ${dir}, id LIMIT ${n}`, true);
    await check(`SELECT id, w FROM $B ORDER BY w DESC, id LIMIT 15`, true);
    await check(`SELECT id, w FROM $B ORDER BY w, id LIMIT 15`, true);
  });

  it('a join, and a UNION ALL with numerics of other scales', async () => {
    await check(`SELECT a.g, sum(a.price), max(b.price), min(a.price + b.price) FROM $P a JOIN $P b ON a.id = b.id + 1 WHERE a.id < 5000 GROUP BY a.g`);
    await check(`SELECT g, sum(x), avg(x), min(x), max(x), count(x) FROM (
        SELECT g, price AS x FROM $P UNION ALL SELECT g, wide FROM $P UNION ALL SELECT g, (id * 0.5)::numeric FROM $P WHERE id % 100 = 0) u GROUP BY g`);
    await check(`SELECT sum(x), max(x), min(x) FROM (SELECT price AS x FROM $P UNION ALL SELECT 1.5 UNION ALL SELECT 'NaN'::numeric) u`);
  });

  it('DISTINCT, window sums, the value as text', async () => {
    await check(`SELECT g, count(DISTINCT price), sum(DISTINCT price), avg(DISTINCT price) FROM $P GROUP BY g`);
    await check(`SELECT DISTINCT price FROM $P WHERE id < 3000`);
    await check(`SELECT id, sum(price) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW), avg(price) OVER (PARTITION BY g), max(price) OVER (PARTITION BY g) FROM $P WHERE id < 3000`);
    await check(`SELECT id, price::text, price, wide::text FROM $P WHERE id % 997 = 0`);
    await check(`SELECT g, string_agg(price::text, ',' ORDER BY id) FROM $P WHERE id < 60 GROUP BY g`);
  });

  it('coefficients next to 2^53 and past it (sums leave the exact range; some chunks are Numerics)', async () => {
    await check(`SELECT g, sum(v), avg(v), min(v), max(v), count(v) FROM $B GROUP BY g`);
    await check(`SELECT sum(v), avg(v), min(v), max(v) FROM $B`);
    await check(`SELECT sum(v), avg(v), min(v), max(v) FROM $B WHERE id < 6000`);
    await check(`SELECT id, v FROM $B ORDER BY v DESC NULLS LAST, id LIMIT 20`, true);
    await check(`SELECT id, v FROM $B ORDER BY v, id LIMIT 20`, true);
    await check(`SELECT g, sum(x), min(x), max(x) FROM (SELECT g, v AS x FROM $B UNION ALL SELECT g, price FROM $P) u GROUP BY g`);
  });

  it('under a small memory_limit: sorted and grouped inputs spill and come back exact', async () => {
    await db.query(`SET memory_limit = '2MB'`);
    try {
      const sort = `SELECT id, price FROM $P ORDER BY price NULLS FIRST, id`;
      await check(sort, true);
      await check(`SELECT id, v FROM $B ORDER BY v, id`, true);
      // The scan's row group needs more than the sort did; the groups' states spill under this limit.
      await db.query(`SET memory_limit = '4MB'`);
      const grouped = `SELECT id AS k, sum(price), avg(price), min(price), max(price), count(price) FROM $P GROUP BY k`;
      await check(grouped);
      // Both did spill (else this test would not test it).
      for (const sql of [sort, grouped]) {
        await db.query(`SET memory_limit = '${sql === sort ? '2MB' : '4MB'}'`);
        const plan = (await db.query(`EXPLAIN (ANALYZE, FORMAT QUIRE) ${sql.replaceAll('$P', `read_parquet('${f('main.parquet')}')`)}`)).rows.map((r) => String(r[0])).join('\n');
        expect(plan).toMatch(/spill runs=[1-9]|spilled rows=[1-9]/);
      }
    } finally {
      await db.query(`RESET memory_limit`);
    }
  });

  it('rows equal DuckDB reading the same file', async () => {
    const q = `SELECT id, CAST(price AS VARCHAR), CAST(wide AS VARCHAR) FROM read_parquet('${f('main.parquet')}') WHERE id % 7 = 2 ORDER BY id`;
    const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));
    expect(norm((await db.query(q)).rows)).toEqual(norm((await duck.runAndReadAll(q)).getRows() as unknown[][]));
  });
});
