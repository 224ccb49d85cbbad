/**
 * OFFSET pushed into read_parquet (push-offset-into-table-function): the reader passes over whole
 * files and row groups inside the offset and starts mid-group where it ends. Every page must equal
 * DuckDB's reading of the same files and Quire's own with the rule switched off, at group and file
 * boundaries, past the end, with projections, presence-only columns, nested columns, dictionary and
 * v2 pages, and across a glob; filters, parameters and sorts leave the offset above the reader.
 */
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

// 2,500 rows in groups of 1,000 (DuckDB rounds its groups to vectors: the test reads the boundaries).
const fx = duckdbParquetFixture(
  'offset',
  `SELECT i AS id, CASE WHEN i % 7 = 3 THEN NULL ELSE i % 13 END AS k, 'cat' || (i % 17) AS s, 'u' || i AS u,
          CASE WHEN i % 5 = 0 THEN NULL ELSE [i, i + 1] END AS l, {'a': i, 'b': 'x' || (i % 3)} AS st
     FROM range(2500) t(i)`,
  'ROW_GROUP_SIZE 1000, PARQUET_VERSION v2',
);

const rows = async (sql: string): Promise<unknown[][]> => fx.quire(sql.replaceAll('$F', fx.file));
const withoutRule = <R>(f: () => Promise<R>): Promise<R> => fx.withoutRule('push-offset-into-table-function', f);
const explain = (sql: string): Promise<string> => fx.explain(sql);
async function same(sql: string): Promise<unknown[][]> {
  const got = await rows(sql);
  expect(await withoutRule(() => rows(sql)), sql).toEqual(got);
  return got;
}

describe('OFFSET pushed into read_parquet', () => {
  it('skips whole groups and starts mid-group: every page as DuckDB reads it', async () => {
    const groups = (await fx.duckdb(`SELECT row_group_id, row_group_num_rows FROM parquet_metadata('${fx.file}') WHERE path_in_schema = 'id' ORDER BY 1`)) as [number, number][];
    expect(groups.length).toBeGreaterThan(1);
    const starts = groups.reduce<number[]>((a, [, n]) => [...a, a[a.length - 1]! + n], [0]);
    const offsets = new Set([1, 999, 1000, 1001, ...starts.slice(1), ...starts.slice(1).map((s) => s - 1), 2499, 2500, 2501, 10_000]);
    for (const off of offsets) {
      for (const limit of ['LIMIT 3', 'LIMIT 1500', '']) {
        const sql = `SELECT id, k, s, u FROM read_parquet('$F') ${limit} OFFSET ${off}`;
        const got = await same(sql);
        expect(got, sql).toEqual(await fx.duckdb(sql.replaceAll('$F', fx.file)));
        expect(got.length, sql).toBe(Math.max(0, Math.min(limit === 'LIMIT 3' ? 3 : limit === '' ? Infinity : 1500, 2500 - off)));
      }
    }
    expect(await explain(`SELECT id FROM read_parquet('$F') LIMIT 5 OFFSET 1200`)).toMatch(/skip: 1200 rows/i);
  });

  it('nested columns, presence-only columns and whole-row output', async () => {
    for (const off of [0, 7, 1000, 1995, 2400]) {
      await same(`SELECT id, l, (st).a, (st).b FROM read_parquet('$F') LIMIT 20 OFFSET ${off}`);
      await same(`SELECT count(*), count(k), count(l) FROM (SELECT k, l FROM read_parquet('$F') LIMIT 700 OFFSET ${off}) x`);
      await same(`SELECT * FROM read_parquet('$F') LIMIT 4 OFFSET ${off}`);
    }
  });

  it('across a glob: whole files inside the offset are not opened', async () => {
    const { dir, duck } = fx;
    for (let f = 0; f < 4; f++) {
      await duck.run(`COPY (SELECT ${f * 1000} + i AS id, 'f${f}' AS src FROM range(${[300, 1, 1200, 50][f]}) t(i)) TO '${dir}/part-${f}.parquet' (FORMAT parquet, ROW_GROUP_SIZE 500)`);
    }
    const total = 300 + 1 + 1200 + 50;
    for (const off of [0, 299, 300, 301, 302, 800, 1500, 1501, 1502, total - 1, total, total + 5]) {
      const sql = `SELECT id, src FROM read_parquet('${dir}/part-*.parquet') LIMIT 10 OFFSET ${off}`;
      const got = await same(sql);
      expect(got, sql).toEqual(await fx.duckdb(sql));
    }
    expect(await explain(`SELECT id FROM read_parquet('${dir}/part-*.parquet') LIMIT 1 OFFSET 400`)).toMatch(/skip: 400 rows/i);
  });

  it('refuses what changes which rows the offset counts', async () => {
    // A WHERE (pushed into the reader or not), an ORDER BY, an aggregate, a parameter, WITH TIES.
    for (const sql of [
      `SELECT id FROM read_parquet('$F') WHERE k > 5 LIMIT 5 OFFSET 100`,
      `SELECT id FROM read_parquet('$F') WHERE u LIKE 'u1%' LIMIT 5 OFFSET 100`,
      `SELECT id FROM read_parquet('$F') ORDER BY id DESC LIMIT 5 OFFSET 100`,
      `SELECT k, count(*) FROM read_parquet('$F') GROUP BY k ORDER BY k LIMIT 5 OFFSET 3`,
      `SELECT DISTINCT s FROM read_parquet('$F') ORDER BY s LIMIT 5 OFFSET 3`,
    ]) {
      expect(await explain(sql), sql).not.toMatch(/skip:/i);
      expect(await same(sql), sql).toEqual(await fx.duckdb(sql.replaceAll('$F', fx.file)));
    }
    const p = await fx.db.query(`SELECT id FROM read_parquet('${fx.file}') LIMIT 3 OFFSET $1`, [1001]);
    expect(p.rows.map((r) => Number(r[0]))).toEqual([1001, 1002, 1003]);
  });

  it('a projection over the reader under a LIMIT reads only its columns', async () => {
    const plan = await explain(`SELECT id + 1 FROM read_parquet('$F') LIMIT 10`);
    expect(plan).toMatch(/columns: \[id\]/i);
    expect(await same(`SELECT id + 1, upper(s) FROM read_parquet('$F') LIMIT 10 OFFSET 1234`)).toEqual(
      Array.from({ length: 10 }, (_, i) => [1235 + i, `CAT${(1234 + i) % 17}`]),
    );
  });
});
