/**
 * Row filters over a column the query also outputs: the column is decoded for the filter and its
 * passing values handed on (gathered, or the whole range when every row passes). Answers must equal
 * DuckDB's and Quire's own without the pushdown for dictionary and PLAIN pages, NULLs (some, and a row
 * group all NULL), a one-entry dictionary, int32, doubles, int64, dates and timestamps, and selections
 * of every row, of none, and between.
 */
import { describe, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const G = 4096;
const N = 6 * G;
// Row groups of 4096 rows. d: 100 distinct eighths (dictionary), NULL in every 7th row of groups 0-2;
// f: distinct doubles (PLAIN); k: 50 ints (dictionary); p: distinct ints (PLAIN); c: one value
// (a one-entry dictionary); n: NULL in all of group 1 and every 5th row elsewhere; b: int64;
// big: int64 past 2^53; dt: dates; ts: timestamps; q and g: distinct (PLAIN) with NULLs.
const fx = duckdbParquetFixture(
  'parquet-filter-output',
  `SELECT i::INTEGER AS id,
     CASE WHEN i < ${3 * G} AND i % 7 = 3 THEN NULL ELSE (i % 100)::DOUBLE / 8 END AS d,
     i::DOUBLE * 1.5 AS f,
     (i % 50)::INTEGER AS k,
     (${N} - i)::INTEGER AS p,
     7::INTEGER AS c,
     CASE WHEN i BETWEEN ${G} AND ${2 * G - 1} OR i % 5 = 0 THEN NULL ELSE (i % 9)::INTEGER END AS n,
     (i::BIGINT * 3 - 20000) AS b,
     (4503599627370496 * 4 + i * 2)::BIGINT AS big,
     DATE '2020-01-01' + (i % 40)::INTEGER AS dt,
     TIMESTAMP '2021-06-01' + to_seconds((i % 300) * 60) AS ts,
     CASE WHEN i % 11 = 0 THEN NULL ELSE i * 3 END::INTEGER AS q,
     CASE WHEN i % 13 = 0 THEN NULL ELSE i::DOUBLE / 4 END AS g
   FROM range(${N}) t(i)`,
  `ROW_GROUP_SIZE ${G}`,
);

const QUERIES = [
  `SELECT count(*), sum(d), min(d), max(d) FROM read_parquet('$F') WHERE d > 6.25`,
  `SELECT d, count(*) FROM read_parquet('$F') WHERE d >= 2 AND d < 3 GROUP BY d ORDER BY d`,
  `SELECT id, d FROM read_parquet('$F') WHERE d = 11.5 ORDER BY id LIMIT 40`,
  `SELECT count(*), sum(d) FROM read_parquet('$F') WHERE d <> 0.5`,
  `SELECT count(*), sum(f), min(f), max(f) FROM read_parquet('$F') WHERE f < 5000`,
  `SELECT id, f FROM read_parquet('$F') WHERE f > 1000 AND f <= 1100 ORDER BY id`,
  `SELECT k, count(*), sum(id) FROM read_parquet('$F') WHERE k >= 40 GROUP BY k ORDER BY k`,
  `SELECT count(*), sum(p), min(p), max(p) FROM read_parquet('$F') WHERE p BETWEEN 3000 AND 9000`,
  `SELECT count(*), sum(c) FROM read_parquet('$F') WHERE c = 7`,
  `SELECT count(*), sum(c) FROM read_parquet('$F') WHERE c > 7`,
  `SELECT count(*), sum(n), min(n), max(n) FROM read_parquet('$F') WHERE n > 4`,
  `SELECT n, count(*) FROM read_parquet('$F') WHERE n <= 2 GROUP BY n ORDER BY n`,
  `SELECT count(*), sum(b)::BIGINT, min(b), max(b) FROM read_parquet('$F') WHERE b >= 0`,
  `SELECT count(*), min(big), max(big) FROM read_parquet('$F') WHERE big > 18014398509481984 + 1000`,
  `SELECT dt::VARCHAR, count(*) FROM read_parquet('$F') WHERE dt > DATE '2020-01-30' GROUP BY dt ORDER BY dt`,
  `SELECT count(*), min(ts)::VARCHAR, max(ts)::VARCHAR FROM read_parquet('$F') WHERE ts >= TIMESTAMP '2021-06-01 04:00:00'`,
  `SELECT count(*), sum(q), min(q), max(q) FROM read_parquet('$F') WHERE q > 30000`,
  `SELECT id, q FROM read_parquet('$F') WHERE q BETWEEN 300 AND 420 ORDER BY id`,
  `SELECT count(*), sum(g), min(g), max(g) FROM read_parquet('$F') WHERE g < 3000.5`,
  // Every row passes, and none does.
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE k >= 0`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE k < 0`,
  // The column output twice, and beside others decoded at the passing rows.
  `SELECT d, d * 2, id, k FROM read_parquet('$F') WHERE d > 12.25 ORDER BY id LIMIT 50 OFFSET 300`,
  // Filters over two columns: the column's values are then decoded whole and gathered.
  `SELECT count(*), sum(d), sum(k) FROM read_parquet('$F') WHERE d > 6.25 AND k < 10`,
];

describe('read_parquet: row filters over an output column', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      await fx.sameAsDuckDbAndUnpushed(q);
    });
  }
});
