/**
 * read_parquet decodes row groups into arrays it reuses only when its consumer is done with each batch
 * before pulling the next (a HashAggregate whose aggregates keep nothing of their input, through
 * Filters and Projects): the planner marks that scan and no other. Aggregates over many row groups,
 * NULLs at several densities, filters, several files and repeated scans (arrays handed from one scan to
 * the next) must equal DuckDB's answers; so must every query that keeps batches (ORDER BY, joins,
 * windows, string_agg, DISTINCT, a table created from the file, UNION ALL), whose scans are not marked.
 * And the reuse is real: a marked scan's early batches are overwritten when later groups are read.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Batch } from '../../src/common/column.js';
import { TableFunctionScan } from '../../src/physical/operators/table-function-scan.js';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';
import { planOperators } from '../harness/physical-plan.js';

const N = 40_000;
const fx = duckdbParquetFixture(
  'parquet-value-pool',
  `SELECT i::INTEGER AS id, (i % 1000)::INTEGER AS k,
     CASE WHEN i % 7 = 3 THEN NULL ELSE ((i * 7919) % 10007) / 10007.0 END AS v,
     CASE WHEN i % 2 = 1 THEN NULL ELSE (i % 97)::INTEGER END AS h,
     CASE WHEN i % 50 = 9 THEN NULL ELSE 'cat' || (i % 17) END AS s,
     'name' || (i % 5003) AS name,
     (i * 3)::BIGINT AS p
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 5000',
);

const scans = async (sql: string): Promise<boolean[]> =>
  (await planOperators(fx.db, sql.replaceAll('$F', fx.file))).filter((o): o is TableFunctionScan => o instanceof TableFunctionScan).map((o) => o.dropsBatches);

describe('the planner marks only scans whose batches are dropped before the next is pulled', () => {
  it('a HashAggregate of plain aggregates over the scan, through a Filter or a Project', async () => {
    expect(await scans(`SELECT s, count(*), count(name), sum(v) FROM read_parquet('$F') WHERE k < 500 GROUP BY s`)).toEqual([true]);
    expect(await scans(`SELECT k % 10, min(v), max(s), avg(h) FROM read_parquet('$F') WHERE v * 2 > 0.5 GROUP BY 1`)).toEqual([true]);
    expect(await scans(`SELECT count(*), sum(p) FROM read_parquet('$F')`)).toEqual([true]);
  });

  it('no other consumer', async () => {
    const kept = [
      `SELECT * FROM read_parquet('$F') ORDER BY id`,
      `SELECT id, v FROM read_parquet('$F') WHERE k < 10`,
      `SELECT s, string_agg(name, ',') FROM read_parquet('$F') GROUP BY s`,
      `SELECT s, count(DISTINCT h) FROM read_parquet('$F') GROUP BY s`,
      `SELECT s, sum(v) FILTER (WHERE h > 3) FROM read_parquet('$F') GROUP BY s`,
      `SELECT a.s, count(*) FROM read_parquet('$F') a JOIN read_parquet('$F') b ON a.id = b.id + 1 GROUP BY a.s`,
      `SELECT id, sum(v) OVER (ORDER BY id) FROM read_parquet('$F')`,
    ];
    for (const sql of kept) expect(await scans(sql), sql).not.toContain(true);
  });

  it('not under memory_limit, where the aggregate may keep batches in its partitions', async () => {
    await fx.db.query(`SET memory_limit = '1GB'`);
    try {
      expect(await scans(`SELECT s, count(*), sum(v) FROM read_parquet('$F') GROUP BY s`)).toEqual([false]);
    } finally {
      await fx.db.query('RESET memory_limit');
    }
  });
});

describe('aggregates over reused arrays equal DuckDB', () => {
  const AGGS = [
    `SELECT s, count(*), count(v), count(h), sum(v), min(v), max(h), count(name), sum(p) FROM read_parquet('$F') GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT s, count(*), count(name), sum(v) FROM read_parquet('$F') WHERE k < 500 GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT h, count(*), sum(v), min(name), max(s) FROM read_parquet('$F') WHERE k >= 250 AND k < 260 GROUP BY h ORDER BY h NULLS FIRST`,
    `SELECT k % 10 AS g, count(*), sum(v), min(h), max(v) FROM read_parquet('$F') WHERE v > 0.25 AND id >= 12345 GROUP BY 1 ORDER BY 1`,
    `SELECT count(*), sum(v), min(name), max(p) FROM read_parquet('$F') WHERE id BETWEEN 17000 AND 23999`,
  ];
  for (const sql of AGGS) {
    it(sql, async () => {
      // Twice: the second scan starts from the arrays the first one handed back.
      const duck = (q: string): string => q.replace(/sum\(p\)/g, 'CAST(sum(p) AS BIGINT)');
      const a = await fx.sameAsDuckDbAndUnpushed(sql, duck);
      expect(await fx.quire(sql.replaceAll('$F', fx.file))).toEqual(a);
    });
  }

  it('over several files, and two aggregates over scans in one query', async () => {
    copyFileSync(fx.file, join(fx.dir, 'pool-a.parquet'));
    copyFileSync(fx.file, join(fx.dir, 'pool-b.parquet'));
    const glob = join(fx.dir, 'pool-*.parquet');
    for (const sql of [
      `SELECT s, count(*), sum(v), count(h) FROM read_parquet('${glob}') WHERE k < 700 GROUP BY s ORDER BY s NULLS FIRST`,
      `SELECT (SELECT sum(v) FROM read_parquet('${fx.file}') WHERE k < 300) AS a, (SELECT count(h) FROM read_parquet('${glob}')) AS b`,
      `SELECT s, count(*) FROM read_parquet('${fx.file}') GROUP BY s UNION ALL SELECT s, count(*) FROM read_parquet('${glob}') WHERE h > 10 GROUP BY s ORDER BY 1 NULLS FIRST, 2`,
    ]) {
      expect(await fx.quire(sql), sql).toEqual(await fx.duckdb(sql));
    }
  });
});

describe('queries that keep batches equal DuckDB', () => {
  const KEPT = [
    `SELECT id, v, h, s, name FROM read_parquet('$F') WHERE k < 500 ORDER BY id`,
    `SELECT id, v, s FROM read_parquet('$F') ORDER BY v NULLS FIRST, id LIMIT 3000`,
    `SELECT a.id, a.v, b.s, b.h FROM read_parquet('$F') a JOIN read_parquet('$F') b ON a.id = b.id + 7 WHERE a.k < 400 AND b.k < 600 ORDER BY a.id`,
    `SELECT id, s, count(v) OVER (PARTITION BY s ORDER BY id), max(v) OVER (PARTITION BY s ORDER BY id) FROM read_parquet('$F') WHERE k < 100 ORDER BY id`,
    `SELECT s, string_agg(name, ',' ORDER BY id) FROM read_parquet('$F') WHERE k < 30 GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT s, count(DISTINCT h) FROM read_parquet('$F') GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT t.s, t.n FROM (SELECT s, count(*) AS n FROM read_parquet('$F') GROUP BY s) t JOIN read_parquet('$F') r ON r.s = t.s AND r.id < 40 ORDER BY r.id`,
  ];
  for (const sql of KEPT) it(sql, async () => void (await fx.sameAsDuckDbAndUnpushed(sql)));

  it('a table created from the file, read after the scan ended', async () => {
    await fx.db.query(`CREATE TABLE pool_copy AS SELECT id, v, s, h FROM read_parquet('${fx.file}') WHERE k < 800`);
    // Another scan over the same file in between: had the table kept the scan's arrays, it would now read this one's values.
    await fx.quire(`SELECT s, sum(v) FROM read_parquet('${fx.file}') GROUP BY s`);
    const sql = (from: string): string => `SELECT id, v, s, h FROM ${from} ORDER BY id`;
    expect(await fx.quire(sql('pool_copy'))).toEqual(await fx.duckdb(sql(`read_parquet('${fx.file}') WHERE k < 800`)));
  });
});

describe('a marked scan reuses its arrays', () => {
  it("batches held past the next row group's are overwritten; unmarked, they are not", async () => {
    const sql = `SELECT count(*), sum(p) FROM read_parquet('${fx.file}') WHERE k < 500`;
    const scan = (await planOperators(fx.db, sql)).find((o): o is TableFunctionScan => o instanceof TableFunctionScan)!;
    expect(scan.dropsBatches).toBe(true);
    const run = async (drops: boolean): Promise<{ first: number[]; later: number[] }> => {
      const ctx = fx.db.execContext([], [], false);
      const held: Batch[] = [];
      for await (const b of scan.impl.execute([fx.file], ctx.eval, undefined, ctx, drops)) held.push(b);
      const p = (b: Batch): number[] => Array.from(b.columns.at(-1)!.data as ArrayLike<number>).slice(0, 5);
      return { first: p(held[0]!), later: p(held.at(-1)!) };
    };
    const kept = await run(false);
    // The file's first rows kept by k < 500: ids 0, 1, 2, … so p = 0, 3, 6, …
    expect(kept.first).toEqual([0, 3, 6, 9, 12]);
    const reused = await run(true);
    expect(reused.first).not.toEqual([0, 3, 6, 9, 12]);
  });
});
