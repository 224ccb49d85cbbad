/**
 * PLAIN-encoded text kept as bytes until a batch is cut, and DECIMAL read as unscaled integers with
 * its Numerics built a batch at a time (parquet-flat-column.ts): answers equal DuckDB's reading of the
 * same files. Shapes that defeat the shortcuts: DECIMAL as INT32, INT64 and FIXED_LEN_BYTE_ARRAY with
 * values next to 10^p, negative and NULL, and a DECIMAL(38) chunk whose values pass 2^53 after its first
 * rows (read again as Numeric objects); text with multibyte and invalid UTF-8, empty strings and NULLs,
 * PLAIN pages after a dictionary's pages in one chunk, pages v1 and v2, several row groups, rows picked
 * by a row filter.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { readParquetMetadataSync } from '../../src/storage/table-functions/read-parquet.js';

let dir: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);
const f = (name: string): string => join(dir, name);

/** Encodings of a column's chunks across the file's row groups. */
function encodingsOf(file: string, column: string): Set<string> {
  const out = new Set<string>();
  for (const rg of readParquetMetadataSync(file).row_groups) {
    for (const c of rg.columns) if (c.meta_data!.path_in_schema[0] === column) for (const e of c.meta_data!.encodings) out.add(e);
  }
  return out;
}

const DEC_ROWS = 20_000;
// d32: DECIMAL(9,2) (INT32); d64: DECIMAL(18,4) (INT64); d38: DECIMAL(38,10) (FIXED_LEN_BYTE_ARRAY),
// small in the first row groups, then ±(10^28 - 10^-10) on some rows of the last (past 2^53 unscaled);
// s38: DECIMAL(38,2) that stays small (FIXED_LEN_BYTE_ARRAY read as numbers).
const DEC_SELECT = `SELECT i::INTEGER AS id,
    CASE WHEN i % 7 = 3 THEN NULL WHEN i % 101 = 0 THEN '9999999.99'::DECIMAL(9,2) WHEN i % 103 = 0 THEN '-9999999.99'::DECIMAL(9,2)
         ELSE CAST(((i * 7919) % 2000003 - 1000001) / 100.0 AS DECIMAL(9,2)) END::DECIMAL(9,2) AS d32,
    CASE WHEN i % 9 = 4 THEN NULL WHEN i % 97 = 0 THEN '99999999999999.9999'::DECIMAL(18,4) WHEN i % 89 = 0 THEN '-99999999999999.9999'::DECIMAL(18,4)
         ELSE CAST(((i * 104729) % 1000003 - 500001) / 10000.0 AS DECIMAL(18,4)) END::DECIMAL(18,4) AS d64,
    CASE WHEN i % 11 = 5 THEN NULL
         WHEN i >= 16500 AND i % 13 = 0 THEN CASE WHEN i % 2 = 0 THEN '999999999999999999999999999.9999999999'::DECIMAL(38,10) ELSE '-999999999999999999999999999.9999999999'::DECIMAL(38,10) END
         ELSE CAST((i - 10000) / 1024.0 AS DECIMAL(38,10)) END::DECIMAL(38,10) AS d38,
    CASE WHEN i % 6 = 1 THEN NULL ELSE ((i * 31) % 20011 - 10005) / 100.0 END::DECIMAL(38,2) AS s38
  FROM range(${DEC_ROWS}) r(i)`;
const DEC_COLS = `id, CAST(d32 AS VARCHAR) AS d32, CAST(d64 AS VARCHAR) AS d64, CAST(d38 AS VARCHAR) AS d38, CAST(s38 AS VARCHAR) AS s38`;

const TEXT_ROWS = 150_000;
// Unique (PLAIN in row groups of 100,000): multibyte in one stretch, long values, empty strings, NULLs.
const TEXT_SELECT = `SELECT i::INTEGER AS id,
    CASE WHEN i % 9 = 4 THEN NULL WHEN i % 13 = 0 THEN ''
         WHEN i BETWEEN 40000 AND 60000 AND i % 5 = 0 THEN 'ü-' || i || ' ñandú 日本語 🎉'
         WHEN i % 17 = 0 THEN 'long-' || i || repeat('x', i % 50)
         ELSE 'u-' || i END AS t
  FROM range(${TEXT_ROWS}) r(i)`;

/** Values of the hand-written text file: invalid UTF-8 among valid ones, empty strings, NULLs. */
function handValue(i: number): Uint8Array | string | null {
  if (i % 7 === 2) return null;
  if (i % 11 === 0) return '';
  if (i % 23 === 0) return new Uint8Array([0x61, 0xff, 0x62]);
  if (i % 29 === 0) return new Uint8Array([0xc3]);
  if (i % 31 === 0) return new Uint8Array([0xe6, 0x97, 0xa5, 0x80, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e]);
  if (i % 37 === 0) return `é${i}`;
  return `v${i}${'y'.repeat(i % 20)}`;
}
const HAND_ROWS = 9_000;
const GLOB_FILES = 150;
const decoder = new TextDecoder();
const asText = (v: Uint8Array | string | null): string | null => (v === null ? null : typeof v === 'string' ? v : decoder.decode(v));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-plain-dec-'));
  db = await Database.create();
  duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
  for (const v of ['V1', 'V2']) {
    await duck.run(`COPY (${DEC_SELECT}) TO '${f(`dec-${v}.parquet`)}' (FORMAT parquet, ROW_GROUP_SIZE 4096, PARQUET_VERSION ${v})`);
  }
  await duck.run(`COPY (${TEXT_SELECT}) TO '${f('text.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 100000)`);
  // Pages v2 (hyparquet-writer's), PLAIN, several per chunk and several row groups; statistics off
  // (they would compare invalid UTF-8).
  const values = Array.from({ length: HAND_ROWS }, (_, i) => handValue(i));
  const buf = parquetWriteBuffer({
    schema: [
      { name: 'root', num_children: 2 },
      { name: 'id', type: 'INT32', repetition_type: 'REQUIRED' },
      { name: 't', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
    ],
    columnData: [
      { name: 'id', data: Int32Array.from({ length: HAND_ROWS }, (_, i) => i) },
      { name: 't', data: values, encoding: 'PLAIN' },
    ],
    rowGroupSize: 4000,
    pageSize: 3000,
    statistics: false,
  });
  writeFileSync(f('hand.parquet'), new Uint8Array(buf));
  // A glob of more files than footers were once cached for; every third file has its columns in
  // another order, every fifth is written with pages v2.
  mkdirSync(f('many'));
  for (let k = 0; k < GLOB_FILES; k++) {
    const cols = k % 3 === 0 ? 'u, price, g, id' : 'id, g, price, u';
    await duck.run(`COPY (SELECT ${cols} FROM (SELECT (i + ${k * 500})::INTEGER AS id, (i % 17)::INTEGER AS g,
        CASE WHEN i % 19 = 0 THEN NULL ELSE ((i * 7919 + ${k}) % 100003 - 50000) / 100.0 END::DECIMAL(12,2) AS price,
        CASE WHEN i % 23 = 0 THEN NULL ELSE 'f${k}-' || i END AS u FROM range(500) r(i)))
      TO '${f(`many/p${String(k).padStart(3, '0')}.parquet`)}' (FORMAT parquet${k % 5 === 0 ? ', PARQUET_VERSION V2' : ''})`);
  }
});
afterAll(() => {
  duck?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('DECIMAL as unscaled integers', () => {
  for (const v of ['V1', 'V2']) {
    it(`pages ${v}: every row, INT32, INT64 and FIXED_LEN_BYTE_ARRAY, past 2^53 included`, async () => {
      const file = f(`dec-${v}.parquet`);
      expect(encodingsOf(file, 'd38').has('PLAIN')).toBe(true);
      const q = `SELECT ${DEC_COLS} FROM read_parquet('${file}') ORDER BY id`;
      const got = await quire(q);
      expect(got).toEqual(await duckdb(q));
      // The wide values are there (the chunk read as Numeric objects) and keep every digit.
      expect(got.some((r) => r[3] === '-999999999999999999999999999.9999999999')).toBe(true);
    });

    it(`pages ${v}: sums, extremes and counts per group keep the scale exactly`, async () => {
      const file = f(`dec-${v}.parquet`);
      // DuckDB's sum of d38 overflows its 128-bit integers (its exact sum is compared with typed-in values below).
      const sums = ['d32', 'd64', 'd38', 's38'].map((c) => `${c === 'd38' ? '' : `CAST(sum(${c}) AS VARCHAR), `}CAST(min(${c}) AS VARCHAR), CAST(max(${c}) AS VARCHAR), count(${c})`).join(', ');
      const q = `SELECT id % 10 AS g, ${sums} FROM read_parquet('${file}') GROUP BY g ORDER BY g`;
      expect(await quire(q)).toEqual(await duckdb(q));
    });

    it(`pages ${v}: rows picked by a row filter, and a Top-N`, async () => {
      const file = f(`dec-${v}.parquet`);
      const picked = `SELECT ${DEC_COLS} FROM read_parquet('${file}') WHERE id > 16000 AND id < 16900 ORDER BY id`;
      expect(await quire(picked)).toEqual(await duckdb(picked));
      const top = `SELECT id, CAST(d64 AS VARCHAR) FROM read_parquet('${file}') WHERE d64 IS NOT NULL ORDER BY d64 DESC, id LIMIT 7`;
      expect(await quire(top)).toEqual(await duckdb(top));
    });
  }

  it('sum and avg equal those over the same values typed in (scale kept, no float rounding)', async () => {
    const file = f('dec-V1.parquet');
    const typed = (await duckdb(`SELECT CAST(d32 AS VARCHAR), CAST(d38 AS VARCHAR) FROM read_parquet('${file}')`)) as (string | null)[][];
    await db.query('CREATE TABLE typed_dec (d32 numeric(9,2), d38 numeric(38,10))');
    for (let i = 0; i < typed.length; i += 2000) {
      const rows = typed.slice(i, i + 2000).map(([a, b]) => `(${a ?? 'NULL'}, ${b ?? 'NULL'})`);
      await db.query(`INSERT INTO typed_dec VALUES ${rows.join(', ')}`);
    }
    const agg = `CAST(sum(d32) AS VARCHAR), CAST(avg(d32) AS VARCHAR), CAST(sum(d38) AS VARCHAR), CAST(avg(d38) AS VARCHAR)`;
    const fromFile = await quire(`SELECT ${agg} FROM read_parquet('${file}')`);
    expect(fromFile).toEqual(await quire(`SELECT ${agg} FROM typed_dec`));
    expect(fromFile[0]![1]).toMatch(/^-?\d+\.\d{16}$/);
  });
});

// INT64 DECIMAL(18,2) at the ends of what doubles hold: 2^53 - 1 and -(2^53 - 1) unscaled, -2^53 (still
// exact as a double), both signs next to 2^32 (the low word's sign bit), and from row 5000 on 2^53
// (the chunk read again as Numerics). req has no NULLs (values at offset 0 of the page); opt has NULLs
// (values after the definition levels, at any byte offset). Row groups of 2048 rows: four row groups.
const EDGE_ROWS = 7_000;
const EDGE_VALUE = `CASE WHEN i % 11 = 0 THEN 90071992547409.91 WHEN i % 11 = 1 THEN -90071992547409.91
    WHEN i % 11 = 2 THEN -90071992547409.92 WHEN i % 11 = 3 THEN 42949672.95 WHEN i % 11 = 4 THEN -42949672.96
    WHEN i % 11 = 5 THEN 42949672.96 WHEN i % 11 = 6 THEN -42949672.97
    WHEN i >= 5000 AND i % 11 = 7 THEN 90071992547409.92 ELSE (i * 7919 % 2000003 - 1000001) / 100.0 END`;
const EDGE_SELECT = `SELECT i::INTEGER AS id, (i % 4)::INTEGER AS g, (${EDGE_VALUE})::DECIMAL(18,2) AS req,
    CASE WHEN i % 3 = 1 OR i % 17 = 0 THEN NULL ELSE ${EDGE_VALUE} END::DECIMAL(18,2) AS opt
  FROM range(${EDGE_ROWS}) r(i)`;

describe('INT64 DECIMAL next to 2^53', () => {
  for (const v of ['V1', 'V2']) {
    it(`pages ${v}: every row, sums and extremes, a filter, with and without NULLs`, async () => {
      const file = f(`edge-${v}.parquet`);
      await duck.run(`COPY (${EDGE_SELECT}) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048, PARQUET_VERSION ${v})`);
      // Pages v1 are PLAIN (the decoder here); v2's DELTA pages go to the general reader, a cross-check.
      if (v === 'V1') for (const c of ['req', 'opt']) expect(encodingsOf(file, c).has('PLAIN')).toBe(true);
      const rows = `SELECT id, CAST(req AS VARCHAR), CAST(opt AS VARCHAR) FROM read_parquet('${file}') ORDER BY id`;
      const got = await quire(rows);
      expect(got).toEqual(await duckdb(rows));
      expect(got.some((r) => r[1] === '-90071992547409.92')).toBe(true);
      for (const where of ['', 'WHERE id < 5000', 'WHERE id % 5 <> 2']) {
        const agg = `SELECT g, CAST(sum(req) AS VARCHAR), CAST(sum(opt) AS VARCHAR), CAST(min(req) AS VARCHAR), CAST(max(opt) AS VARCHAR), count(opt)
          FROM read_parquet('${file}') ${where} GROUP BY g ORDER BY g`;
        expect(await quire(agg)).toEqual(await duckdb(agg));
      }
      const filtered = `SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('${file}') WHERE req < -42949672.96 OR opt >= 90071992547409.91`;
      expect(await quire(filtered)).toEqual(await duckdb(filtered));
    });
  }
});

describe('PLAIN text as bytes', () => {
  it('DuckDB file: pages are PLAIN, every row byte-exact', async () => {
    const file = f('text.parquet');
    expect([...encodingsOf(file, 't')]).toEqual(['PLAIN']);
    const q = `SELECT id, t FROM read_parquet('${file}') ORDER BY id`;
    expect(await quire(q)).toEqual(await duckdb(q));
  });

  const QUERIES = [
    `SELECT count(*), count(t), sum(length(t)), min(t), max(t), count(*) FILTER (WHERE t = '') FROM read_parquet('$F')`,
    `SELECT count(*), max(t) FROM read_parquet('$F') WHERE t LIKE 'u-99%'`,
    `SELECT id, t FROM read_parquet('$F') WHERE id > 49990 AND id < 50150 ORDER BY id`,
    `SELECT id, t FROM read_parquet('$F') WHERE t LIKE '%日本%' ORDER BY id LIMIT 20`,
    `SELECT length(t) AS n, count(*) FROM read_parquet('$F') GROUP BY n ORDER BY n NULLS FIRST`,
  ];
  for (const sql of QUERIES) {
    it(sql.replace(`'$F'`, '…'), async () => {
      const q = sql.replaceAll('$F', f('text.parquet'));
      expect(await quire(q)).toEqual(await duckdb(q));
    });
  }

  it('invalid UTF-8 decodes as before (U+FFFD), empty strings stay apart from NULLs, pages v2', async () => {
    const file = f('hand.parquet');
    expect(encodingsOf(file, 't').has('PLAIN')).toBe(true);
    const got = await quire(`SELECT id, t FROM read_parquet('${file}') ORDER BY id`);
    expect(got).toEqual(Array.from({ length: HAND_ROWS }, (_, i) => [i, asText(handValue(i))]));
    const picked = await quire(`SELECT id, t FROM read_parquet('${file}') WHERE id >= 3990 AND id < 4100 ORDER BY id`);
    expect(picked).toEqual(Array.from({ length: 110 }, (_, k) => [3990 + k, asText(handValue(3990 + k))]));
  });
});

describe('a glob of many small files', () => {
  it('columns in another order in some files, the same answers on a repeated query', async () => {
    const glob = f('many/*.parquet');
    const q = `SELECT g, count(*), count(price), CAST(sum(price) AS VARCHAR), count(u), max(u), min(id) FROM read_parquet('${glob}') GROUP BY g ORDER BY g`;
    const want = await duckdb(q.replace(`read_parquet('${glob}')`, `read_parquet('${glob}', union_by_name = true)`));
    expect(await quire(q)).toEqual(want);
    expect(await quire(q)).toEqual(want);
    const rowsQ = `SELECT id, g, CAST(price AS VARCHAR), u FROM read_parquet('$G') WHERE id % 97 = 3 ORDER BY id`;
    expect(await quire(rowsQ.replace('$G', glob))).toEqual(await duckdb(rowsQ.replace(`read_parquet('$G')`, `read_parquet('${glob}', union_by_name = true)`)));
  });
});
