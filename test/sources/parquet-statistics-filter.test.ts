/**
 * read_parquet leaves a row filter's column undecoded in a row group whose statistics prove every row
 * passes (no NULLs counted, bounds past the constant). Answers must equal DuckDB's reading the same file
 * and Quire's own without the pushdown, for row groups where the statistics decide, where they do not,
 * and where they must not be trusted: NULLs in the group, NaN beyond a double's bounds, unsigned integers.
 */
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 80_000;
// Row groups of 10,000 rows in id order. n is NULL only in rows 30,000-39,999; f is NaN in row group
// 5 (rows 50,000-59,999, every 100th row) beside values 0-9,999; b is int64; u is an unsigned int32
// (values past 2^31 in row group 7); ts a timestamp rising with id.
const fx = duckdbParquetFixture(
  'parquet-stats',
  `SELECT i::INTEGER AS id, i::BIGINT * 3 AS b, (i % 1000)::INTEGER AS k,
     CASE WHEN i BETWEEN 30000 AND 39999 AND i % 3 = 0 THEN NULL ELSE i END::INTEGER AS n,
     CASE WHEN i BETWEEN 50000 AND 59999 AND i % 100 = 0 THEN 'NaN'::DOUBLE ELSE (i % 10000)::DOUBLE END AS f,
     (CASE WHEN i >= 70000 THEN 3000000000 + i ELSE i END)::UINTEGER AS u,
     TIMESTAMP '2020-01-01' + to_seconds(i) AS ts
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 10000',
);

const QUERIES = [
  // Groups wholly above, wholly below and across the constant.
  `SELECT count(*), sum(k), min(id), max(id) FROM read_parquet('$F') WHERE id >= 25000`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE id < 45000 AND k > 10`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE id <> 12345`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE id > 9999 AND id <= 70000`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE b > 60000`,
  // NULLs in the group: its statistics do not decide.
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE n >= 20000`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE n < 1000000`,
  // NaN: bounds 0-9,999 leave it out; NaN passes > and fails <.
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE f >= 0`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE f < 100000`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE f <= 9999 AND id >= 40000`,
  // Unsigned: not trusted.
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE u > 5`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE u < 2000000`,
  `SELECT count(*), sum(k) FROM read_parquet('$F') WHERE ts >= TIMESTAMP '2020-01-01 05:00:00'`,
  // The filter column is also output.
  `SELECT id % 7, count(*), sum(id) FROM read_parquet('$F') WHERE id >= 15000 AND k < 500 GROUP BY 1 ORDER BY 1`,
];

describe('read_parquet skips row filters its statistics decide', () => {
  it('NaN left out of a double column\'s bounds (as hyparquet-writer writes them) passes > and fails <', async () => {
    const nan = join(fx.dir, 'nan.parquet');
    const ids = Array.from({ length: 20_000 }, (_, i) => i);
    // Two row groups; bounds 0-99 leave out the NaN in every 50th row.
    parquetWriteFile({
      filename: nan,
      rowGroupSize: 10_000,
      columnData: [
        { name: 'id', data: Int32Array.from(ids), type: 'INT32' },
        { name: 'f', data: Float64Array.from(ids, (i) => (i % 50 === 7 ? NaN : i % 100)), type: 'DOUBLE' },
      ],
    });
    for (const w of ['f < 1000', 'f <= 99', 'f >= 0', 'f > -1', 'f <> 500', 'f = 5']) {
      const sql = `SELECT count(*), sum(id) FROM read_parquet('${nan}') WHERE ${w}`;
      const expected = ids.filter((i) => {
        const f = i % 50 === 7 ? NaN : i % 100;
        // PostgreSQL: NaN equals itself and sorts above every number.
        const c = Number.isNaN(f) ? 1 : 0;
        const k = Number(w.split(' ')[2]);
        const op = w.split(' ')[1];
        const cmp = c === 1 ? 1 : f < k ? -1 : f > k ? 1 : 0;
        return op === '<' ? cmp < 0 : op === '<=' ? cmp <= 0 : op === '>' ? cmp > 0 : op === '>=' ? cmp >= 0 : op === '=' ? cmp === 0 : cmp !== 0;
      });
      expect(await fx.quire(sql), w).toEqual([[expected.length, expected.reduce((a, b) => a + b, 0)]]);
    }
  });

  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      await fx.sameAsDuckDbAndUnpushed(q, (sql) => sql.replace(/sum\((\w+)\)/g, 'CAST(sum($1) AS BIGINT)'));
    });
  }
});
