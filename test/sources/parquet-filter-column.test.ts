/**
 * A filter column the query does not output is filtered as its pages are decoded (readFilterColumn):
 * a dictionary page's entries tested once and rows looked up in the table of passing entries, PLAIN
 * pages filtered in a scratch array, every filter over the column applied together. Answers must equal
 * DuckDB's reading the same file and Quire's own without the pushdown: dictionary and PLAIN chunks,
 * with and without NULLs, NaN, int64 past 2^31, dates and timestamps, several filters over one column
 * and over several, version 2 pages, and the same column also output (the ordinary path).
 */
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 90_000;
// dk: dictionary (500 values), NULL in every 7th row; pk: PLAIN (distinct values), NULL every 11th row;
// df: dictionary doubles holding NaN; pf: distinct doubles with NaN and NULLs; b: int64 past 2^31;
// d: dates; ts: timestamps; nn: never NULL, dictionary; an: NULL in every row of the first row group.
const select = `SELECT i::INTEGER AS id,
    CASE WHEN i % 7 = 3 THEN NULL ELSE ((i * 7919) % 500)::INTEGER END AS dk,
    CASE WHEN i % 11 = 5 THEN NULL ELSE (i * 13)::INTEGER END AS pk,
    CASE WHEN i % 97 = 0 THEN 'NaN'::DOUBLE ELSE ((i * 31) % 200) / 4.0 END AS df,
    CASE WHEN i % 13 = 0 THEN NULL WHEN i % 89 = 0 THEN 'NaN'::DOUBLE ELSE i / 3.0 END AS pf,
    (i::BIGINT * 100000) AS b,
    DATE '2020-01-01' + ((i * 17) % 900)::INTEGER AS d,
    TIMESTAMP '2021-01-01' + to_seconds(i * 61) AS ts,
    ((i * 101) % 1000)::INTEGER AS nn,
    CASE WHEN i < 15000 THEN NULL ELSE i % 50 END::INTEGER AS an,
    'x' || (i % 23) AS s,
    DATE '2000-01-01' + i::INTEGER AS pd
  FROM range(${N}) t(i)`;
const fx = duckdbParquetFixture('parquet-filter-column', select, 'ROW_GROUP_SIZE 15000');

const QUERIES = [
  `SELECT count(*), sum(id), min(s) FROM read_parquet('$F') WHERE dk < 100`,
  `SELECT s, count(*), sum(id) FROM read_parquet('$F') WHERE dk >= 250 AND dk <> 300 GROUP BY s ORDER BY s`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE dk = 17`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE dk > 1000`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pk BETWEEN 300000 AND 900000`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pk > 500000 AND dk < 300`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE df > 40`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE df >= 49.75`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE df < 10 OR df IS NULL`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE df <> 12.5 AND df <= 30`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pf > 20000`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pf < 100 AND pf >= 10`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE b > 5000000000 AND b <= 8000000000`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE d < DATE '2020-03-01'`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE ts >= TIMESTAMP '2021-01-20' AND ts < TIMESTAMP '2021-02-01'`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE nn < 10 AND dk > 400`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE an = 3`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE an <> 3`,
  // PLAIN INT32 pages: every filter over the column as one interval of int32 values.
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE id BETWEEN 1000 AND 1999`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id > 89990`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id < 5 AND id >= 2`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id >= 100 AND id <= 99`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id = 44444`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id > 3000000000`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id >= -3000000000 AND id < 2.5`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id > 10.5 AND id <= 20.5`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id >= -2147483648 AND id <= 2147483647`,
  `SELECT count(*), sum(dk) FROM read_parquet('$F') WHERE id <> 7 AND id < 20`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pk >= 13 AND pk <= 1300 AND pk <> 650`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pk BETWEEN 130 AND 1169999`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pd BETWEEN DATE '2000-03-01' AND DATE '2000-04-01'`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE pd > DATE '2200-01-01'`,
  // The filter column also output: decoded and stored as before.
  `SELECT dk, count(*) FROM read_parquet('$F') WHERE dk < 5 GROUP BY dk ORDER BY dk`,
  `SELECT count(*), sum(pk) FROM read_parquet('$F') WHERE pk < 100000 AND dk = 7`,
];

const castSums = (sql: string): string => sql.replace(/sum\((\w+)\)/g, 'CAST(sum($1) AS BIGINT)');

describe('read_parquet filters a column it does not output as its pages are decoded', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      await fx.sameAsDuckDbAndUnpushed(q, castSums);
    });
  }

  it('version 2 pages and uncompressed pages answer the same', async () => {
    for (const options of ['ROW_GROUP_SIZE 15000, PARQUET_VERSION V2', 'ROW_GROUP_SIZE 15000, COMPRESSION uncompressed', 'ROW_GROUP_SIZE 4000, COMPRESSION zstd']) {
      const f = join(fx.dir, `${options.replace(/\W+/g, '_')}.parquet`);
      await fx.duck.run(`COPY (${select}) TO '${f}' (FORMAT parquet, ${options})`);
      for (const q of QUERIES.slice(0, 12)) await fx.sameAsDuckDbAndUnpushed(q.replaceAll('$F', f), castSums);
    }
  });
});
