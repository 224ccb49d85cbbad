/**
 * read_parquet reads the column chunks its own decoder handles into one buffer shared by every scan
 * (each chunk is decoded before the next is read). Scans interleaved at their await points (statements
 * run side by side, a join of two files, a glob) must each see their own bytes: answers equal DuckDB's
 * reading the same files, uncompressed (pages decoded straight from the shared bytes) and Snappy.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const select = (seed: number): string => `SELECT i::INTEGER AS id, ((i * ${seed}) % 1000)::INTEGER AS k,
    CASE WHEN i % 9 = ${seed % 9} THEN NULL ELSE 'v${seed}-' || (i % 701) END AS s,
    CASE WHEN i % 5 = 0 THEN NULL ELSE (i * ${seed}.5)::DOUBLE END AS d,
    'plain ' || md5((i * ${seed})::VARCHAR) AS p
  FROM range(50000) t(i)`;
const fx = duckdbParquetFixture('parquet-shared-a', select(7919), 'ROW_GROUP_SIZE 8000, COMPRESSION uncompressed');

describe('read_parquet scans sharing one read buffer', () => {
  it('statements side by side, a self-join of two files and a glob answer as DuckDB does', async () => {
    const b = join(fx.dir, 'parquet-shared-b.parquet');
    const c = join(fx.dir, 'parquet-shared-c.parquet');
    await fx.duck.run(`COPY (${select(104729)}) TO '${b}' (FORMAT parquet, ROW_GROUP_SIZE 7000)`);
    await fx.duck.run(`COPY (${select(31)}) TO '${c}' (FORMAT parquet, ROW_GROUP_SIZE 9000, COMPRESSION uncompressed)`);
    const queries = [
      `SELECT k % 10 AS g, count(*), count(s), min(s), max(p), sum(d) FROM read_parquet('${fx.file}') WHERE k < 600 GROUP BY g ORDER BY g`,
      `SELECT k % 10 AS g, count(*), count(s), min(s), max(p), sum(d) FROM read_parquet('${b}') WHERE k >= 200 GROUP BY g ORDER BY g`,
      `SELECT count(*), min(x.s), max(y.s), sum(x.d) FROM read_parquet('${fx.file}') x JOIN read_parquet('${c}') y ON x.id = y.id WHERE x.k < 300 AND y.k > 100`,
      `SELECT count(*), count(s), min(p), max(s) FROM read_parquet('${join(fx.dir, 'parquet-shared-*.parquet')}') WHERE k BETWEEN 10 AND 900`,
      `SELECT id, s, p FROM read_parquet('${c}') WHERE k = 17 ORDER BY id LIMIT 40`,
    ];
    const expected = await Promise.all(queries.map((q) => fx.duckdb(q)));
    // All at once, twice over: their scans interleave at every await.
    const got = await Promise.all([...queries, ...queries].map((q) => fx.quire(q)));
    for (let i = 0; i < got.length; i++) {
      const want = expected[i % queries.length]!;
      expect(want.length).toBeGreaterThan(0);
      // Sums of doubles are compared to 9 significant digits (the order of addition differs).
      const round = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(9)) : x)));
      expect(round(got[i]!), queries[i % queries.length]).toEqual(round(want));
    }
  });
});
