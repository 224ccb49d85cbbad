/**
 * Dictionary-encoded numbers read at the rows a filter kept: when those rows come in stretches of
 * consecutive rows, a page without NULLs is looked up whole into a scratch and each stretch copied;
 * scattered rows are looked up one by one. Every answer must equal DuckDB's over the same file and
 * Quire's own without the pushdown: stretches shorter than, exactly and longer than the copy's
 * threshold, stretches across page and row-group boundaries, scattered rows, a few rows, int4, int8
 * past 2^31, doubles with NaN and -0, dates and timestamps, beside a column with NULLs and one whose
 * dictionary gives way to PLAIN pages; and a file of many small pages per column chunk (written by
 * hyparquet-writer: DuckDB writes one page per chunk at these sizes), so stretches start, end and cross
 * inside chunks.
 */
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 50_000;
const fx = duckdbParquetFixture(
  'parquet-clustered-pick',
  `SELECT i::INTEGER AS id, ((i // 37) % 10)::INTEGER AS blk, (i % 20)::INTEGER AS r20, ((i * 7919) % 1000)::INTEGER AS sc,
     ((i * 7919) % 997)::INTEGER AS i4,
     ((i * 31) % 991)::BIGINT * 1000000007 AS i8,
     CASE WHEN i % 997 = 5 THEN 'NaN'::DOUBLE WHEN i % 991 = 6 THEN -0.0::DOUBLE ELSE ((i * 13) % 1009) / 8.0 END AS f,
     DATE '2020-01-01' + ((i * 3) % 500)::INTEGER AS d,
     TIMESTAMP '2021-06-01 00:00:00' + to_seconds(((i * 11) % 600)::BIGINT) AS ts,
     CASE WHEN i % 50 = 7 THEN NULL ELSE (i % 300)::INTEGER END AS nul,
     (i % 20000) / 4.0 AS many
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 12000',
);

const COLUMNS = `id, i4, i8, f, CAST(d AS VARCHAR) AS d, CAST(ts AS VARCHAR) AS ts, nul, many`;
const FILTERS = [
  // Stretches of 185 and 37 rows.
  'blk < 5',
  'blk = 3',
  // Stretches of 15, 16 and 17 rows: either side of the threshold.
  'r20 < 15',
  'r20 < 16',
  'r20 >= 3',
  // Scattered.
  'sc < 500',
  'sc % 7 = 1 AND sc < 900',
  // One stretch across a row-group boundary; a few rows.
  'id >= 5000 AND id < 30000',
  'id BETWEEN 11990 AND 12010',
];

describe('read_parquet picks dictionary numbers by stretches of rows', () => {
  for (const w of FILTERS) {
    it(`rows where ${w}`, async () => {
      const got = await fx.sameAsDuckDbAndUnpushed(`SELECT ${COLUMNS} FROM read_parquet('$F') WHERE ${w} ORDER BY id`);
      expect(got.length).toBeGreaterThan(0);
    });
    it(`aggregates where ${w}`, async () => {
      await fx.sameAsDuckDbAndUnpushed(
        `SELECT blk, count(*), sum(i4), min(i8), max(i8), count(f), min(d), max(ts), count(nul), sum(nul), min(many), max(many) FROM read_parquet('$F') WHERE ${w} GROUP BY blk ORDER BY blk`,
        (sql) => sql.replace('sum(i4)', 'CAST(sum(i4) AS BIGINT)').replace('sum(nul)', 'CAST(sum(nul) AS BIGINT)').replace('min(d)', 'CAST(min(d) AS VARCHAR)').replace('max(ts)', 'CAST(max(ts) AS VARCHAR)'),
      );
    });
  }

  it('NaN comes back as NaN, and -0 with the sign DuckDB reads', async () => {
    const sql = `SELECT id, f FROM read_parquet('${fx.file}') WHERE r20 < 16 AND (id % 997 = 5 OR id % 991 = 6) ORDER BY id`;
    const rows = (await fx.quire(sql)) as [number, number][];
    const theirs = (await fx.duckdb(sql)) as [number, number][];
    expect(rows.length).toBeGreaterThan(10);
    rows.forEach(([id, f], k) => {
      if (id % 997 === 5) expect(f).toBeNaN();
      else expect(Object.is(f, theirs[k]![1]), `row ${id}`).toBe(true);
    });
  });
});

describe('read_parquet picks by stretches across many pages of a chunk', () => {
  const ROWS = 30_000;
  let file = '';
  beforeAll(() => {
    file = join(fx.dir, 'pages.parquet');
    parquetWriteFile({
      filename: file,
      columnData: [
        { name: 'id', data: Int32Array.from({ length: ROWS }, (_, i) => i), type: 'INT32' },
        { name: 'blk', data: Int32Array.from({ length: ROWS }, (_, i) => Math.floor(i / 53) % 4), type: 'INT32' },
        { name: 'a', data: Int32Array.from({ length: ROWS }, (_, i) => ((i * 7919) % 211) - 100), type: 'INT32' },
        { name: 'b', data: Float64Array.from({ length: ROWS }, (_, i) => ((i * 13) % 173) / 4), type: 'DOUBLE' },
        { name: 'c', data: BigInt64Array.from({ length: ROWS }, (_, i) => BigInt((i * 17) % 97) * 10_000_000_000n), type: 'INT64' },
      ],
      rowGroupSize: 12_000,
      pageSize: 2048,
    });
  });

  for (const w of ['blk = 1', 'blk < 3', 'id % 40 < 20', 'id >= 700 AND id < 25000', 'a > 0']) {
    it(`rows where ${w}`, async () => {
      const sql = `SELECT id, a, b, c FROM read_parquet('${file}') WHERE ${w} ORDER BY id`;
      const got = await fx.quire(sql);
      expect(got.length).toBeGreaterThan(100);
      expect(got, 'against DuckDB').toEqual(await fx.duckdb(sql));
      expect(await fx.unpushed(() => fx.quire(sql)), 'without the pushdown').toEqual(got);
    });
  }

  it('the file has many dictionary pages per chunk', async () => {
    const pages = await fx.duckdb(`SELECT count(*) FROM parquet_metadata('${file}') WHERE path_in_schema = 'a' AND encodings LIKE '%DICTIONARY%'`);
    expect(pages[0]![0]).toBeGreaterThan(0);
    const sizes = await fx.duckdb(`SELECT max(total_uncompressed_size) FROM parquet_metadata('${file}') WHERE path_in_schema = 'a'`);
    // A chunk of over 8 KB in pages of 2 KB.
    expect(Number(sizes[0]![0])).toBeGreaterThan(4 * 2048);
  });
});
