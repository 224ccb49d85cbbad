/**
 * read_parquet's typed-array path for flat numeric columns (parquet-flat-column.ts): files written by
 * DuckDB (data pages v1, dictionary and plain encodings, several row groups and pages) and by
 * hyparquet-writer (data pages v2), with NULLs, read whole, projected, and row-group pruned; every
 * value checked against the generator, and the DuckDB file also against DuckDB's own reading.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const N = 20_000;
let dir: string;
let db: Database;

// The generator both writers use: NULL every 7th (i2), 11th (d), 13th (f8) row.
const i4 = (i: number): number => (i * 37) % 1000 - 500;
const i2 = (i: number): number | null => (i % 7 === 0 ? null : (i % 300) - 150);
const f8 = (i: number): number | null => (i % 13 === 0 ? null : i / 8);
const day = (i: number): number | null => (i % 11 === 0 ? null : 18000 + (i % 400));
const ts = (i: number): number => 1_600_000_000_000_000 + i * 1_000_003;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-flat-'));
  db = await Database.create();
  const duck = await DuckDBInstance.create(':memory:', { threads: '1' });
  const c = await duck.connect();
  await c.run(`COPY (SELECT i::INTEGER AS id, ((i * 37) % 1000 - 500)::INTEGER AS a,
                 CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 300) - 150 END::SMALLINT AS b,
                 CASE WHEN i % 13 = 0 THEN NULL ELSE i / 8 END::DOUBLE AS v,
                 CASE WHEN i % 11 = 0 THEN NULL ELSE DATE '1970-01-01' + (18000 + i % 400)::INTEGER END AS d,
                 make_timestamp(1600000000000000::BIGINT + i * 1000003) AS t
               FROM range(${N}) r(i)) TO '${join(dir, 'duck.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 6000)`);
  c.closeSync();
  const ids = Array.from({ length: N }, (_, i) => i);
  parquetWriteFile({
    filename: join(dir, 'hyp.parquet'),
    columnData: [
      { name: 'id', data: Int32Array.from(ids), type: 'INT32' },
      { name: 'a', data: Int32Array.from(ids, i4), type: 'INT32' },
      { name: 'b', data: ids.map(i2), type: 'INT32', nullable: true },
      { name: 'v', data: ids.map(f8), type: 'DOUBLE', nullable: true },
    ],
    rowGroupSize: 7000,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectRows(rows: unknown[][], from: number, withTime: boolean): void {
  expect(rows.length).toBe(N - from);
  for (let k = 0; k < rows.length; k++) {
    const i = from + k;
    const want: unknown[] = [i, i4(i), i2(i), f8(i)];
    if (withTime) want.push(day(i), ts(i));
    expect(rows[k]).toEqual(want);
  }
}

describe('read_parquet flat numeric columns', () => {
  it('DuckDB-written file (pages v1, dictionaries, 4 row groups): every value', async () => {
    const f = join(dir, 'duck.parquet');
    const r = await db.query(`SELECT id, a, b, v, d, t FROM read_parquet('${f}') ORDER BY id`);
    expect(r.columns.map((c) => c.type.name)).toEqual(['int4', 'int4', 'int2', 'float8', 'date', 'timestamp']);
    expectRows(r.rows, 0, true);
  });

  it('DuckDB-written file: pruned to a range inside a row group, and aggregates match DuckDB', async () => {
    const f = join(dir, 'duck.parquet');
    expectRows((await db.query(`SELECT id, a, b, v, d, t FROM read_parquet('${f}') WHERE id >= 13000 ORDER BY id`)).rows, 13000, true);
    const sql = `SELECT count(b), sum(b), count(v), sum(v), count(d), min(d)::text, max(t)::text FROM read_parquet('${f}') WHERE a > 0`;
    const duck = await DuckDBInstance.create(':memory:', { threads: '1' });
    const c = await duck.connect();
    const want = (await c.runAndReadAll(sql)).getRows().map((row) => row.map((x) => (typeof x === 'bigint' ? Number(x) : x)));
    c.closeSync();
    const got = (await db.query(sql)).rows.map((row) => row.map((x) => (typeof x === 'object' && x !== null ? Number(String(x)) : x)));
    expect(got).toEqual(want);
  });

  it('hyparquet-written file (pages v2, 3 row groups): every value, projected and pruned', async () => {
    const f = join(dir, 'hyp.parquet');
    expectRows((await db.query(`SELECT id, a, b, v FROM read_parquet('${f}') ORDER BY id`)).rows, 0, false);
    expectRows((await db.query(`SELECT id, a, b, v FROM read_parquet('${f}') WHERE id >= 6500 ORDER BY id`)).rows, 6500, false);
    expect((await db.query(`SELECT count(*), count(b), sum(v) FROM read_parquet('${f}')`)).rows).toEqual([
      [N, N - Math.ceil(N / 7), Array.from({ length: N }, (_, i) => f8(i) ?? 0).reduce((x, y) => x + y, 0)],
    ]);
  });
});
