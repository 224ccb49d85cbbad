/**
 * read_parquet's scan from start to end: cancelled between two of a file's ranges (57014, the file
 * closed, the next query right), stopped early by a LIMIT, several files in one scan, and the same
 * scan repeated over files of differently shaped columns (NULLs or none, dictionary pages beside
 * plain ones, multibyte text, filters falling on row-group boundaries) answering as DuckDB does.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { setProgressListener } from '../../src/storage/progress.js';

const N = 40_000;
let dir: string;
let db: Database;
let duck: DuckDBConnection;

const norm = (rows: unknown[][]): unknown[][] =>
  rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);

/** Open file descriptors of this process (Linux), or -1 where /proc is not there. */
const openFds = (): number => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : -1);

/**
 * Rows whose columns are NULL at different strides (`nulls`), text repeating (dictionary) and text
 * unique per row (the writer's dictionary overflows into plain pages), 2- to 4-byte UTF-8.
 */
const rowsSql = (from: number, to: number, nulls: boolean): string => {
  const n = (stride: number, at: number, e: string): string => (nulls ? `CASE WHEN i % ${stride} = ${at} THEN NULL ELSE ${e} END` : e);
  return `SELECT i::INTEGER AS id, ${n(7, 3, '(i % 1000)::INTEGER')} AS k, ${n(5, 1, '((i * 7919) % 10007) / 10007.0')} AS v,
            ${n(4, 2, `'cat' || (i % 17)`)} AS s, ${n(6, 0, `'név ' || i || ' 日本 🎉'`)} AS u,
            ${n(9, 4, `TIMESTAMP '2020-01-01' + to_seconds((i * 7) % 94608000)`)} AS ts
          FROM range(${from}, ${to}) t(i)`;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-life-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // 20 row groups of 2,000 rows: many ranges to cancel between.
  await duck.run(`COPY (${rowsSql(0, N, true)}) TO '${join(dir, 'big.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 2000)`);
  // Three files for one glob: with NULLs, without, with NULLs again; row groups of unequal sizes.
  await duck.run(`COPY (${rowsSql(0, 7000, true)}) TO '${join(dir, 'part-1.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 3000)`);
  await duck.run(`COPY (${rowsSql(7000, 12000, false)}) TO '${join(dir, 'part-2.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
  await duck.run(`COPY (${rowsSql(12000, 20000, true)}) TO '${join(dir, 'part-3.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 5000)`);
});
afterAll(() => {
  setProgressListener(null);
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('read_parquet cancellation', () => {
  it('a signal aborted between ranges stops the scan with 57014, mid-file, and the file is closed', async () => {
    const f = join(dir, 'big.parquet');
    const sql = `SELECT s, count(*) AS n, count(u) AS us, sum(v) AS total FROM read_parquet('${f}') WHERE k < 500 GROUP BY s ORDER BY s`;
    const fds = openFds();
    const ac = new AbortController();
    let doneAtAbort = -1;
    let total = 0;
    setProgressListener((tasks) => {
      const t = tasks.find((x) => x.label === 'read_parquet');
      if (t !== undefined && t.done > 0 && !ac.signal.aborted) {
        doneAtAbort = t.done;
        total = t.total;
        ac.abort();
      }
    });
    try {
      await expect(db.query(sql, [], { signal: ac.signal })).rejects.toMatchObject({ code: '57014' });
    } finally {
      setProgressListener(null);
    }
    // Aborted after the first range was handed on, with most of the file unread.
    expect(doneAtAbort).toBeGreaterThan(0);
    expect(doneAtAbort).toBeLessThan(total / 2);
    if (fds >= 0) expect(openFds()).toBe(fds);
    // The same database answers the query in full afterwards.
    expect(await quire(sql)).toEqual(await duckdb(sql));
  });

  it('a signal aborted before the statement reads nothing', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(db.query(`SELECT count(*) FROM read_parquet('${join(dir, 'big.parquet')}')`, [], { signal: ac.signal })).rejects.toMatchObject({ code: '57014' });
  });

  it('a LIMIT stops the scan early and closes the file', async () => {
    const f = join(dir, 'big.parquet');
    const fds = openFds();
    const got = await quire(`SELECT id, k, s FROM read_parquet('${f}') WHERE k < 500 LIMIT 3`);
    expect(got.length).toBe(3);
    if (fds >= 0) expect(openFds()).toBe(fds);
    const s = await db.stream(`SELECT id, u FROM read_parquet('${f}')`);
    let seen = 0;
    for await (const batch of s.batches()) {
      seen += batch.length;
      break;
    }
    expect(seen).toBeGreaterThan(0);
    if (fds >= 0) expect(openFds()).toBe(fds);
  });
});

describe('read_parquet over several files and repeated scans', () => {
  const glob = (): string => join(dir, 'part-*.parquet');
  const queries = (from: string): string[] => [
    `SELECT s, count(*), count(u), count(k), sum(v), min(u), max(ts)::VARCHAR FROM ${from} WHERE k < 500 GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT count(*), sum(k), count(u) FROM ${from} WHERE id BETWEEN 2990 AND 7010`,
    `SELECT id, k, s, u FROM ${from} WHERE id >= 11990 AND id < 12010 ORDER BY id`,
    `SELECT count(*), count(v), sum(v) FROM ${from} WHERE v > 0.5`,
    `SELECT u, ts::VARCHAR FROM ${from} WHERE k = 3 ORDER BY id`,
    `SELECT count(*) FROM ${from}`,
  ];

  it('a glob of files with and without NULLs answers as DuckDB does', async () => {
    for (const q of queries(`read_parquet('${glob()}')`)) expect(await quire(q), q).toEqual(await duckdb(q));
  });

  it('under a memory_limit that holds one file at a time', async () => {
    await db.query(`SET memory_limit = '8MB'`);
    try {
      for (const q of queries(`read_parquet('${glob()}')`)) expect(await quire(q), q).toEqual(await duckdb(q));
    } finally {
      await db.query('RESET memory_limit');
    }
  });

  it('scans running at once, each with its own row filter, keep their own selections', async () => {
    const f = join(dir, 'big.parquet');
    const sqls = [
      `SELECT s, count(*), sum(k), count(u) FROM read_parquet('${f}') WHERE k < 300 GROUP BY s ORDER BY s NULLS FIRST`,
      `SELECT s, count(*), sum(k), count(u) FROM read_parquet('${f}') WHERE k >= 700 GROUP BY s ORDER BY s NULLS FIRST`,
      `SELECT count(*), sum(v), min(id), max(id) FROM read_parquet('${f}') WHERE id BETWEEN 3000 AND 30000 AND k <> 5`,
    ];
    const dbs = await Promise.all(sqls.map(() => Database.create()));
    try {
      const got = await Promise.all(sqls.map(async (q, i) => norm((await dbs[i]!.query(q)).rows)));
      for (let i = 0; i < sqls.length; i++) expect(got[i], sqls[i]).toEqual(await duckdb(sqls[i]!));
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it('the same queries alternating between differently shaped files keep their answers', async () => {
    // Repeated scans give V8 the chance to optimize the scan for one file's shapes; the next file's
    // must still come out right.
    const files = [join(dir, 'part-2.parquet'), join(dir, 'big.parquet'), join(dir, 'part-1.parquet')];
    const expected = new Map<string, unknown[][]>();
    for (let round = 0; round < 4; round++) {
      for (const f of files) {
        for (const q of queries(`read_parquet('${f}')`)) {
          let want = expected.get(q);
          if (want === undefined) expected.set(q, (want = await duckdb(q)));
          expect(await quire(q), q).toEqual(want);
        }
      }
    }
  });
});
