/**
 * Late materialization in read_parquet: filter columns are decoded first and the other columns only for
 * row groups with rows that may pass. Answers must equal DuckDB's and Quire's own without the pushdown,
 * whether no row, a few rows or most rows of a group pass, with NULLs and NaN in the filter columns.
 */
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 60_000;
// k is shuffled (statistics cannot prune it); g is NULL in a ninth of the rows; f holds NaN; fn holds
// NaN and NULLs.
const fx = duckdbParquetFixture(
  'parquet-late',
  `SELECT i::INTEGER AS id, ((i * 7919) % 1000)::INTEGER AS k,
     CASE WHEN i % 9 = 4 THEN NULL ELSE (i % 37)::BIGINT END AS g,
     CASE WHEN i % 101 = 0 THEN 'NaN'::DOUBLE ELSE (i % 1000) / 7.0 END AS f,
     CASE WHEN i % 11 = 2 THEN NULL WHEN i % 101 = 0 THEN 'NaN'::DOUBLE ELSE (i % 1000) / 7.0 END AS fn,
     'name' || (i % 313) AS s, DATE '2020-01-01' + (i % 400)::INTEGER AS d
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 10000',
);
const quire = (sql: string): Promise<unknown[][]> => fx.quire(sql);

const QUERIES = [
  // No row of any group passes.
  `SELECT count(*), max(s) FROM read_parquet('$F') WHERE k > 5000`,
  // A few rows per group.
  `SELECT id, k, g, s, CAST(d AS VARCHAR) FROM read_parquet('$F') WHERE k = 17 ORDER BY id`,
  `SELECT id, s FROM read_parquet('$F') WHERE k < 3 AND g >= 30 ORDER BY id`,
  // Most rows.
  `SELECT g, count(*), count(s), sum(k) FROM read_parquet('$F') WHERE k <> 5 GROUP BY g ORDER BY g`,
  // Integer column against a bigint constant and a double constant; dates.
  `SELECT count(*), min(id) FROM read_parquet('$F') WHERE k >= 998::bigint AND k < 998.5`,
  `SELECT count(*), min(s) FROM read_parquet('$F') WHERE d = DATE '2020-02-01'`,
];

describe('read_parquet decodes filter columns first', () => {
  it('EXPLAIN names the comparisons checked before the other columns are decoded', async () => {
    const plan = (await fx.db.query(`EXPLAIN (FORMAT QUIRE) SELECT s FROM read_parquet('${fx.file}') WHERE k = 17 AND g > 3`)).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/decoded first: k = 17 AND g > 3/);
  });

  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      await fx.sameAsDuckDbAndUnpushed(q, (sql) => sql.replace('sum(k)', 'CAST(sum(k) AS BIGINT)'));
    });
  }

  it('NaN passes > and <> and fails <, as PostgreSQL orders it', async () => {
    for (const w of ['f > 100', 'f >= 142', 'f < 1', 'f <> 3', 'f = 0']) {
      const sql = `SELECT count(*), min(id), max(id) FROM read_parquet('${fx.file}') WHERE ${w}`;
      const got = await quire(sql);
      expect(await fx.unpushed(() => quire(sql)), w).toEqual(got);
    }
    // The same over a column with NULLs too (each row decided in one step there): NULLs never pass.
    for (const w of ['fn > 100', 'fn >= 142', 'fn < 1', 'fn <= 1', 'fn <> 3', 'fn = 0']) {
      const sql = `SELECT count(*), min(id), max(id), sum(k) FROM read_parquet('${fx.file}') WHERE ${w}`;
      const got = await quire(sql);
      expect(await fx.unpushed(() => quire(sql)), w).toEqual(got);
    }
    // 594 NaN rows: all counted by >.
    expect(await quire(`SELECT count(*) FROM read_parquet('${fx.file}') WHERE f > 1000000`)).toEqual([[Math.ceil(N / 101)]]);
  });
});
