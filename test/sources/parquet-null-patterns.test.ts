/**
 * read_parquet over columns with every shape of NULLs the flat decoder handles differently, against
 * DuckDB reading the same files: no NULLs (levels skipped), all NULL, alternating, long runs, one row
 * in seven (bit-packed levels), and whole NULL pages among pages without any; each as dictionary and
 * plain integers, doubles, dictionary text, plain (unique) text and multibyte text; written by DuckDB
 * (version 1 pages, several row groups) and by hyparquet-writer (version 2 pages, several pages per
 * chunk). Read whole, projected, grouped, and under filters that the row filters and statistics prune.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const N = 30_000;
let dir: string;
let db: Database;
let duck: DuckDBConnection;

const norm = (rows: unknown[][]): unknown[][] =>
  rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);

/** NULL patterns by name, as a condition on the row number i (true: the row is NULL). */
const PATTERNS: Record<string, (i: number) => boolean> = {
  none: () => false,
  all: () => true,
  alt: (i) => i % 2 === 1,
  runs: (i) => Math.floor(i / 1000) % 3 === 1,
  sparse: (i) => i % 7 === 3,
  // Rows [8000, 16000): whole pages of NULLs between pages without any.
  page: (i) => i >= 8000 && i < 16000,
};
const SQL_PATTERNS: Record<string, string> = {
  none: 'false',
  all: 'true',
  alt: 'i % 2 = 1',
  runs: '(i // 1000) % 3 = 1',
  sparse: 'i % 7 = 3',
  page: 'i >= 8000 AND i < 16000',
};
const names = Object.keys(PATTERNS);

// Per pattern p: k_p dictionary int, v_p double (10007 distinct: plain once the dictionary is too big
// for DuckDB), s_p dictionary text, u_p unique text, m_p multibyte text.
const kOf = (i: number): number => (i * 13) % 1000;
const vOf = (i: number): number => ((i * 7919) % 10007) / 64;
const sOf = (i: number): string => `cat${i % 17}`;
const uOf = (i: number): string => `unique-${i}-${'x'.repeat(i % 30)}`;
const mOf = (i: number): string => `héllo ${i % 40} 日本語 🎉`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-nulls-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  const cols = names.flatMap((p) => {
    const c = SQL_PATTERNS[p]!;
    return [
      `CASE WHEN ${c} THEN NULL ELSE ((i * 13) % 1000)::INTEGER END AS k_${p}`,
      `CASE WHEN ${c} THEN NULL ELSE ((i * 7919) % 10007) / 64.0 END::DOUBLE AS v_${p}`,
      `CASE WHEN ${c} THEN NULL ELSE 'cat' || (i % 17) END AS s_${p}`,
      `CASE WHEN ${c} THEN NULL ELSE 'unique-' || i || '-' || repeat('x', (i % 30)::INTEGER) END AS u_${p}`,
      `CASE WHEN ${c} THEN NULL ELSE 'héllo ' || (i % 40) || ' 日本語 🎉' END AS m_${p}`,
    ];
  });
  await duck.run(`COPY (SELECT i::INTEGER AS id, ${cols.join(', ')} FROM range(${N}) r(i))
                  TO '${join(dir, 'duck.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 7000)`);
  const ids = Array.from({ length: N }, (_, i) => i);
  const nullable = <T>(p: string, f: (i: number) => T): (T | null)[] => ids.map((i) => (PATTERNS[p]!(i) ? null : f(i)));
  parquetWriteFile({
    filename: join(dir, 'pages.parquet'),
    columnData: [
      { name: 'id', data: Int32Array.from(ids), type: 'INT32' },
      ...names.flatMap((p) => [
        { name: `k_${p}`, data: nullable(p, kOf), type: 'INT32' as const, nullable: true },
        { name: `v_${p}`, data: nullable(p, vOf), type: 'DOUBLE' as const, nullable: true },
        { name: `s_${p}`, data: nullable(p, sOf), type: 'STRING' as const, nullable: true },
        { name: `u_${p}`, data: nullable(p, uOf), type: 'STRING' as const, nullable: true },
        { name: `m_${p}`, data: nullable(p, mOf), type: 'STRING' as const, nullable: true },
      ]),
    ],
    rowGroupSize: 20_000,
    // Small pages: every chunk holds several, and the 'page' pattern's NULL rows fill whole ones.
    pageSize: 8_000,
  });
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['duck.parquet', 'pages.parquet'])('read_parquet NULL patterns match DuckDB (%s)', (file) => {
  const f = (): string => join(dir, file);

  it('every column of every pattern, row by row', async () => {
    const sql = `SELECT * FROM read_parquet('${f()}') ORDER BY id`;
    const got = await quire(sql);
    expect(got.length).toBe(N);
    expect(got).toEqual(await duckdb(sql));
    // And against the generator, so that a shared misreading cannot pass.
    for (const i of [0, 1, 3, 999, 1000, 1999, 7999, 8000, 15999, 16000, N - 1]) {
      const row = got[i]!;
      names.forEach((p, k) => {
        const nul = PATTERNS[p]!(i);
        expect(row.slice(1 + 5 * k, 6 + 5 * k)).toEqual(nul ? [null, null, null, null, null] : [kOf(i), Number(vOf(i).toPrecision(12)), sOf(i), uOf(i), mOf(i)]);
      });
    }
  });

  it.each(names)('pattern %s: projected, filtered by a row filter, counted and grouped', async (p) => {
    const file = f();
    const queries = [
      `SELECT id, s_${p}, v_${p} FROM read_parquet('${file}') WHERE k_${p} < 300 ORDER BY id`,
      `SELECT id, m_${p}, u_${p}, k_${p} FROM read_parquet('${file}') WHERE v_${p} > 100 ORDER BY id`,
      `SELECT s_${p}, count(*), count(k_${p}), count(u_${p}), sum(v_${p}), min(m_${p}), max(u_${p}) FROM read_parquet('${file}') WHERE k_${p} >= 500 GROUP BY 1 ORDER BY 1`,
      `SELECT count(*), count(v_${p}), count(m_${p}), sum(k_${p}) FROM read_parquet('${file}') WHERE id % 5 = 0`,
      `SELECT count(*) FROM read_parquet('${file}') WHERE s_${p} IS NULL`,
      `SELECT m_${p}, count(*) FROM read_parquet('${file}') WHERE k_${p} BETWEEN 10 AND 20 GROUP BY 1 ORDER BY 1`,
    ];
    for (const sql of queries) expect(await quire(sql), sql).toEqual(await duckdb(sql));
  });

  // The one-pass aggregate loop with NULLs of its own in the key (the NULL group) and in each argument
  // (count(x), sum, avg skip them), under a filter on a third column's NULLs or none: every pairing of
  // patterns, so NULL rows fall at batch (4,096 rows), page and row-group boundaries in each column.
  it.each(names)('key NULLs %s beside argument and filter NULLs of every other pattern, grouped', async (a) => {
    const file = f();
    for (const b of names) {
      const c = names[(names.indexOf(b) + 1) % names.length]!;
      const queries = [
        `SELECT s_${a}, count(*), count(u_${b}), count(v_${b}), sum(v_${b}), avg(v_${c}) FROM read_parquet('${file}') WHERE k_${c} < 500 GROUP BY 1 ORDER BY 1`,
        `SELECT s_${a}, count(*), count(m_${b}), sum(v_${b}) FROM read_parquet('${file}') GROUP BY 1 ORDER BY 1`,
      ];
      for (const sql of queries) expect(await quire(sql), sql).toEqual(await duckdb(sql));
    }
  });

  it('an id range the row-group statistics prune, over every pattern', async () => {
    const cols = names.map((p) => `k_${p}, v_${p}, s_${p}, m_${p}`).join(', ');
    for (const [lo, hi] of [[7500, 8500], [15990, 16010], [21000, 21100]] as const) {
      const sql = `SELECT id, ${cols} FROM read_parquet('${f()}') WHERE id BETWEEN ${lo} AND ${hi} ORDER BY id`;
      const got = await quire(sql);
      expect(got.length).toBe(hi - lo + 1);
      expect(got).toEqual(await duckdb(sql));
    }
  });
});
