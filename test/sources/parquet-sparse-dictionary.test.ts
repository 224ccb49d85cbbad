/**
 * A text column read at a few rows picked by a row filter decodes only the dictionary entries those rows
 * use (its dictionary has too many entries per row for codes). Answers must equal DuckDB's reading the
 * same file and Quire's own without the pushdown: NULLs, multibyte and long values, entries shared by
 * several picked rows, several row groups.
 */
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 60_000;
// 1,200 distinct t per row group of 10,000 rows (a dictionary, as DuckDB writes it, without codes): ASCII, multibyte, and long (over 16 bytes) values.
const fx = duckdbParquetFixture(
  'parquet-sparse-dict',
  `SELECT i::INTEGER AS id, ((i * 7919) % 1000)::INTEGER AS k,
     CASE WHEN i % 11 = 0 THEN NULL
          WHEN i % 3 = 0 THEN 'ñame ' || ((i * 7) % 400)
          WHEN i % 3 = 1 THEN 'plain' || ((i * 7) % 400)
          ELSE 'a rather longer value number ' || ((i * 7) % 400) END AS t
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 10000',
);

const QUERIES = [
  `SELECT id, t FROM read_parquet('$F') WHERE k = 17 ORDER BY id`,
  `SELECT id, t FROM read_parquet('$F') WHERE k < 4 AND id > 15000 ORDER BY id`,
  `SELECT min(t), max(t), count(t), count(DISTINCT t) FROM read_parquet('$F') WHERE k BETWEEN 100 AND 120`,
  `SELECT t, count(*) FROM read_parquet('$F') WHERE k >= 990 GROUP BY t ORDER BY t LIMIT 50`,
];

describe('read_parquet decodes the dictionary entries picked rows use', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      expect((await fx.sameAsDuckDbAndUnpushed(q)).length).toBeGreaterThan(0);
    });
  }
});
