/**
 * LIMIT pushed into read_parquet (push-limit-into-table-function): the reader reads at most the rows
 * the LIMIT (and an OFFSET's skip before them) covers, and a range that is a small part of its row
 * group is read at its rows, the pages holding none of them left undecoded. Every answer must equal
 * DuckDB's reading of the same file and Quire's own with the rule switched off: at group boundaries,
 * across groups and files, for every column kind the flat decoder reads (dictionary and PLAIN, with
 * and without NULLs, decimals, timestamps, booleans) and a nested one it does not. (DuckDB writes one
 * data page per column chunk: the rows of a small range are picked from that page, its other values
 * never unpacked or converted.)
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const ROWS = 300_000;
const fx = duckdbParquetFixture(
  'limit',
  `SELECT i::INTEGER AS id, CASE WHEN i % 7 = 3 THEN NULL ELSE (i % 13)::INTEGER END AS k,
          CASE WHEN i % 11 = 4 THEN NULL ELSE ((i * 7919) % 10007) / 10007.0 END AS v, 'cat' || (i % 17) AS s,
          CASE WHEN i % 5 = 0 THEN NULL ELSE 'user-' || i END AS u, TIMESTAMP '2020-01-01' + to_seconds(i * 7) AS ts,
          ((i * 31) % 100003 / 100.0)::DECIMAL(12,2) AS d, i % 3 = 0 AS b,
          CASE WHEN i % 9 = 0 THEN NULL ELSE [i, i + 1] END AS l
     FROM range(${ROWS}) t(i)`,
  'ROW_GROUP_SIZE 100000',
);

const RULE = 'push-limit-into-table-function';
const sqlOf = (sql: string): string => sql.replaceAll('$F', fx.file);
const withoutRule = <R>(f: () => Promise<R>): Promise<R> => fx.withoutRule(RULE, f);
const explain = (sql: string): Promise<string> => fx.explain(sql);
/** Quire's answer, which must equal DuckDB's and Quire's own without the rule. */
async function same(sql: string): Promise<unknown[][]> {
  const got = await fx.quire(sqlOf(sql));
  expect(got, sql).toEqual(await fx.duckdb(sqlOf(sql)));
  expect(await withoutRule(() => fx.quire(sqlOf(sql))), `${sql} without the rule`).toEqual(got);
  return got;
}
const COLS = 'id, k, v, s, u, CAST(ts AS VARCHAR) AS ts, CAST(d AS VARCHAR) AS d, b';

describe('LIMIT pushed into read_parquet', () => {
  it('pages anywhere in the file, small and across row groups: every column kind as DuckDB reads it', async () => {
    const groups = (await fx.duckdb(`SELECT row_group_id, row_group_num_rows FROM parquet_metadata('${fx.file}') WHERE path_in_schema = 'id' ORDER BY 1`)) as [number, number][];
    expect(groups.length).toBeGreaterThan(2);
    const starts = groups.reduce<number[]>((a, [, n]) => [...a, a[a.length - 1]! + n], [0]);
    const inner = starts.slice(1, -1);
    const offsets = new Set([0, 1, 777, 4095, 4096, 50_001, ...inner, ...inner.map((s) => s - 1), ...inner.map((s) => s - 10), ROWS - 20, ROWS - 1, ROWS, ROWS + 3]);
    for (const off of offsets) {
      for (const limit of [1, 20, 5000]) {
        const got = await same(`SELECT ${COLS} FROM read_parquet('$F') LIMIT ${limit} OFFSET ${off}`);
        expect(got.length).toBe(Math.max(0, Math.min(limit, ROWS - off)));
        if (got.length > 0) expect(got[0]![0]).toBe(off);
      }
    }
    // Past a group's end, over the next group whole and into a third.
    await same(`SELECT ${COLS} FROM read_parquet('$F') LIMIT 150000 OFFSET ${inner[0]! - 30}`);
    const nested = `SELECT id, l FROM read_parquet('$F') LIMIT 25 OFFSET ${inner[0]! - 10}`;
    expect(await fx.quire(sqlOf(nested))).toEqual(await withoutRule(() => fx.quire(sqlOf(nested))));
    expect((await fx.quire(sqlOf(`SELECT id, l[1], l[2] FROM (${nested}) x`))).map((r) => r.map(Number))).toEqual((await fx.duckdb(sqlOf(`SELECT id, l[1], l[2] FROM (${nested}) x`))).map((r) => r.map(Number)));
    expect(await explain(`SELECT id FROM read_parquet('$F') LIMIT 20 OFFSET 1200`)).toMatch(/skip: 1200 rows.*reads at most: 20 rows/is);
    expect(await explain(`SELECT id + 1 FROM read_parquet('$F') LIMIT 7`)).toMatch(/reads at most: 7 rows/i);
  });

  it('aggregates over a limited scan, and rows counted for their NULLs only', async () => {
    for (const off of [0, 12_345, 99_990, ROWS - 500]) {
      await same(`SELECT count(*), count(k), count(u), sum(k), CAST(sum(d) AS VARCHAR), min(s), CAST(max(ts) AS VARCHAR), CAST(round(sum(v) * 1000000) AS BIGINT) FROM (SELECT k, u, v, d, s, ts FROM read_parquet('$F') LIMIT 1000 OFFSET ${off}) x`);
    }
  });

  it('across a glob: files past the rows it reads are not opened', async () => {
    const { dir, duck } = fx;
    for (let f = 0; f < 3; f++) await duck.run(`COPY (SELECT ${f * 1000} + i AS id, 'f${f}' AS src FROM range(${[300, 40, 500][f]}) t(i)) TO '${dir}/part-${f}.parquet' (FORMAT parquet)`);
    for (const [limit, off] of [[10, 0], [10, 295], [50, 300], [5, 339], [400, 0], [1000, 0]] as const) {
      await same(`SELECT id, src FROM read_parquet('${dir}/part-*.parquet') LIMIT ${limit} OFFSET ${off}`);
    }
    // A fourth file whose data pages are damaged (its footer intact): a LIMIT that ends before it
    // never reads them; one that reaches it meets the damage.
    copyFileSync(join(dir, 'part-2.parquet'), join(dir, 'part-3.parquet'));
    const bytes = readFileSync(join(dir, 'part-3.parquet'));
    bytes.fill(0xff, 4, 200);
    writeFileSync(join(dir, 'part-3.parquet'), bytes);
    const glob = `${dir}/part-*.parquet`;
    expect(await fx.quire(`SELECT id, src FROM read_parquet('${glob}') LIMIT 20 OFFSET 800`)).toEqual(
      Array.from({ length: 20 }, (_, i) => [2460 + i, 'f2']),
    );
    await expect(fx.quire(`SELECT id, src FROM read_parquet('${glob}') LIMIT 20 OFFSET 835`)).rejects.toThrow(/part-3/);
  });

  it('refuses what it cannot count before reading', async () => {
    for (const sql of [
      `SELECT id FROM read_parquet('$F') WHERE k > 5 LIMIT 5 OFFSET 100`,
      `SELECT id FROM read_parquet('$F') WHERE u LIKE 'user-1%' LIMIT 5`,
      `SELECT id FROM read_parquet('$F') ORDER BY id DESC LIMIT 5`,
      `SELECT k, count(*) FROM read_parquet('$F') GROUP BY k ORDER BY k LIMIT 5`,
      `SELECT DISTINCT s FROM read_parquet('$F') ORDER BY s LIMIT 5`,
    ]) {
      expect(await explain(sql), sql).not.toMatch(/reads at most/i);
      await same(sql);
    }
    const p = await fx.db.query(`SELECT id FROM read_parquet('${fx.file}') LIMIT $1 OFFSET 5`, [3]);
    expect(p.rows.map((r) => Number(r[0]))).toEqual([5, 6, 7]);
    expect(await explain(`SELECT id FROM read_parquet('$F') LIMIT ALL`)).not.toMatch(/reads at most/i);
  });
});
