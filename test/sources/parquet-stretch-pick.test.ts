/**
 * Dictionary-encoded columns read at the rows a filter kept, when those rows come in stretches that are
 * consecutive among a page's present rows: each stretch is decoded from its place in the RLE /
 * bit-packed encoding straight into the output (the rows between never unpacked), NULL rows between
 * or inside stretches flagged one by one. Every answer must equal DuckDB's over the same file and
 * Quire's own without the pushdown: NULLs every 2nd, 7th and 50th row, a row group with only NULLs and
 * columns without any, a filter column with the same NULLs as the columns read (stretches that skip
 * exactly the NULL rows) and with others, stretches starting and ending inside groups of 8 values and
 * across row groups, scattered rows (the other path), coded ASCII and multibyte text, a text column
 * whose dictionary gives way to PLAIN pages, int4, int8, doubles, dates and timestamps; and a file of
 * 2 KB pages with NULLs (written by hyparquet-writer), so stretches start, end and cross inside chunks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { flatColumnChunk, presenceChunk, readFlatColumn, readFlatNulls } from '../../src/storage/table-functions/parquet-flat-column.js';
import { readParquetMetadataSync } from '../../src/storage/table-functions/read-parquet.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 60_000;
const fx = duckdbParquetFixture(
  'parquet-stretch-pick',
  `SELECT i::INTEGER AS id, ((i // 37) % 10)::INTEGER AS blk,
     CASE WHEN i % 7 = 3 THEN NULL ELSE (i % 1000)::INTEGER END AS k7,
     CASE WHEN i % 2 = 0 THEN NULL ELSE ((i * 7919) % 997)::INTEGER END AS n2,
     CASE WHEN i % 7 = 3 THEN NULL ELSE ((i * 7919) % 1009) / 1009.0 END AS v7,
     CASE WHEN i % 7 = 3 THEN NULL ELSE 'cat' || (i % 17) END AS s7,
     CASE WHEN i % 50 = 7 THEN NULL ELSE 'ü' || (i % 23) || '日本' END AS t50,
     'plain' || (i % 13) AS s0,
     CASE WHEN i >= 20000 AND i < 40000 THEN NULL ELSE ((i * 31) % 300)::BIGINT * 10000000007 END AS big,
     CASE WHEN i % 11 = 4 THEN NULL ELSE 'n' || ((i * 7) % 30000) END AS many,
     CASE WHEN i % 13 = 5 THEN NULL ELSE DATE '2020-01-01' + ((i * 3) % 500)::INTEGER END AS d,
     CASE WHEN i % 3 = 0 THEN NULL ELSE TIMESTAMP '2021-06-01 00:00:00' + to_seconds(((i * 11) % 600)::BIGINT) END AS ts
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 20000',
);

const COLUMNS = `id, k7, n2, v7, s7, t50, s0, big, many, CAST(d AS VARCHAR) AS d, CAST(ts AS VARCHAR) AS ts`;
const FILTERS = [
  // Present rows in stretches of about 430, the NULL rows of k7 (and of v7, s7) skipped exactly.
  'k7 < 500',
  'k7 >= 250 AND k7 < 260',
  // Stretches of 185 rows with other columns' NULLs inside them.
  'blk < 5',
  'blk = 3 AND k7 < 900',
  // Stretches of 15, 16, 17 and 20 rows starting and ending inside groups of 8.
  'id % 20 < 15',
  'id % 20 < 16',
  'id % 40 >= 23',
  // One stretch across row groups, through the group whose big is all NULL.
  'id >= 15000 AND id < 45000',
  // Scattered rows.
  'k7 % 3 = 1',
];

describe('read_parquet picks dictionary columns by stretches of present rows', () => {
  for (const w of FILTERS) {
    it(`rows where ${w}`, async () => {
      const got = await fx.sameAsDuckDbAndUnpushed(`SELECT ${COLUMNS} FROM read_parquet('$F') WHERE ${w} ORDER BY id`);
      expect(got.length).toBeGreaterThan(0);
    });
    it(`aggregates where ${w}`, async () => {
      await fx.sameAsDuckDbAndUnpushed(
        `SELECT s7, count(*), count(v7), sum(v7), sum(n2), count(t50), min(t50), max(big), count(many), min(many), min(d), max(ts) FROM read_parquet('$F') WHERE ${w} GROUP BY s7 ORDER BY s7 NULLS FIRST`,
        (sql) => sql.replace('sum(n2)', 'CAST(sum(n2) AS BIGINT)').replace('min(d)', 'CAST(min(d) AS VARCHAR)').replace('max(ts)', 'CAST(max(ts) AS VARCHAR)'),
      );
    });
  }

  it('the file has the encodings the cases are about', async () => {
    const enc = async (col: string): Promise<string> =>
      ((await fx.duckdb(`SELECT string_agg(DISTINCT encodings, ',') FROM parquet_metadata('${fx.file}') WHERE path_in_schema = '${col}'`))[0]![0] as string) ?? '';
    for (const c of ['k7', 'v7', 's7', 't50', 'n2']) expect(await enc(c), c).toContain('DICTIONARY');
    // many: a dictionary that gives way to PLAIN in some row group.
    expect(await enc('many')).toMatch(/PLAIN/);
  });
});

describe('picked rows without a NULL among them carry no NULL flags', () => {
  it('v7 and s7 at the rows k7 < 500 keeps (their NULLs fall where k7 is NULL), and at rows with a NULL', async () => {
    const bytes = readFileSync(fx.file);
    const source = { byteLength: bytes.byteLength, slice: async (a: number, b?: number) => bytes.buffer.slice(bytes.byteOffset + a, bytes.byteOffset + (b ?? bytes.byteLength)) };
    const meta = readParquetMetadataSync(fx.file);
    const rg = meta.row_groups[1]!;
    const first = Number(meta.row_groups[0]!.num_rows);
    const rows = Number(rg.num_rows);
    const kept = Int32Array.from({ length: rows }, (_, r) => r).filter((r) => (first + r) % 7 !== 3 && (first + r) % 1000 < 500);
    const v = await readFlatColumn(source, rg, flatColumnChunk(meta, rg, 'v7', 'float8')!, kept, kept.length);
    expect(v.nulls).toBeNull();
    expect(Array.from(v.values)).toEqual(Array.from(kept, (r) => (((first + r) * 7919) % 1009) / 1009));
    const s = await readFlatColumn(source, rg, flatColumnChunk(meta, rg, 's7', 'text')!, kept, kept.length);
    expect(s.nulls).toBeNull();
    expect(await readFlatNulls(source, rg, presenceChunk(meta, rg, 'v7')!, kept, kept.length)).toBeNull();
    // One NULL row among them: flagged, and only it.
    const nullRow = ((3 - (first % 7) + 7) % 7) + 70;
    const withNull = Int32Array.from([...kept, nullRow].sort((a, b) => a - b));
    const at = withNull.indexOf(nullRow);
    const vn = await readFlatColumn(source, rg, flatColumnChunk(meta, rg, 'v7', 'float8')!, withNull, withNull.length);
    expect(Array.from(vn.nulls!).flatMap((f, j) => (f === 1 ? [j] : []))).toEqual([at]);
    const pn = await readFlatNulls(source, rg, presenceChunk(meta, rg, 'v7')!, withNull, withNull.length);
    expect(Array.from(pn!).flatMap((f, j) => (f === 1 ? [j] : []))).toEqual([at]);
  });
});

describe('read_parquet picks by stretches across 2 KB pages with NULLs', () => {
  const ROWS = 30_000;
  let file = '';
  const nullEvery = (every: number, f: (i: number) => number | string): (number | string | null)[] =>
    Array.from({ length: ROWS }, (_, i) => (i % every === 2 ? null : f(i)));
  beforeAll(() => {
    file = join(fx.dir, 'pages-nulls.parquet');
    parquetWriteFile({
      filename: file,
      columnData: [
        { name: 'id', data: Int32Array.from({ length: ROWS }, (_, i) => i), type: 'INT32' },
        { name: 'blk', data: Int32Array.from({ length: ROWS }, (_, i) => Math.floor(i / 53) % 4), type: 'INT32' },
        { name: 'a', data: nullEvery(3, (i) => ((i * 7919) % 211) - 100), type: 'INT32' },
        { name: 'b', data: nullEvery(9, (i) => ((i * 13) % 173) / 4), type: 'DOUBLE' },
        { name: 's', data: nullEvery(5, (i) => `é${(i * 7) % 41}`), type: 'STRING' },
        { name: 'q', data: nullEvery(3, (i) => i % 500), type: 'INT32' },
      ],
      rowGroupSize: 12_000,
      pageSize: 2048,
    });
  });

  for (const w of ['blk = 1', 'blk < 3', 'id % 40 < 20', 'id >= 700 AND id < 25000', 'q < 250', 'q >= 100 AND blk <> 2']) {
    it(`rows where ${w}`, async () => {
      const sql = `SELECT id, a, b, s FROM read_parquet('${file}') WHERE ${w} ORDER BY id`;
      const got = await fx.quire(sql);
      expect(got.length).toBeGreaterThan(100);
      expect(got, 'against DuckDB').toEqual(await fx.duckdb(sql));
      expect(await fx.unpushed(() => fx.quire(sql)), 'without the pushdown').toEqual(got);
    });
  }

  it('the file has many dictionary pages per chunk', async () => {
    const pages = await fx.duckdb(`SELECT count(*) FROM parquet_metadata('${file}') WHERE path_in_schema = 's' AND encodings LIKE '%DICTIONARY%'`);
    expect(pages[0]![0]).toBeGreaterThan(0);
    const sizes = await fx.duckdb(`SELECT max(total_uncompressed_size) FROM parquet_metadata('${file}') WHERE path_in_schema = 'a'`);
    expect(Number(sizes[0]![0])).toBeGreaterThan(4 * 2048);
  });
});
