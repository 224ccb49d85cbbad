/**
 * A SELECT over files asked again reuses its plan (src/api/file-plan-cache.ts) only while nothing it
 * was bound against has changed: the file (rewritten in place, also with the same size), a setting,
 * the catalog (a function it calls), the statement clock. Each case checks the answer against a fresh
 * session's, so a stale plan fails it.
 */
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

let dir: string;
let db: Database;
let duck: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-file-plans-'));
  db = await Database.create();
  duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
});
afterAll(async () => {
  await db.close();
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

/** Plans the session keeps (a private field: the test's only window onto reuse). */
const kept = (d: Database): number => (d as unknown as { filePlans: { size: number } }).filePlans.size;

/** The same statement in a session that has kept nothing. */
async function fresh(sql: string): Promise<unknown[][]> {
  const other = await Database.create();
  try {
    return (await other.query(sql)).rows;
  } finally {
    await other.close();
  }
}

function write(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

describe('file plan cache', () => {
  it('reuses the plan of a repeated query and answers as a fresh session does', async () => {
    const f = join(dir, 'a.parquet');
    await duck.run(`COPY (SELECT i::INTEGER AS id, 'n' || (i % 7) AS s FROM range(20000) t(i)) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
    const sql = `SELECT count(*), min(s), max(id) FROM read_parquet('${f}') WHERE id BETWEEN 5000 AND 5999`;
    const before = kept(db);
    const first = (await db.query(sql)).rows;
    expect(kept(db)).toBe(before + 1);
    expect((await db.query(sql)).rows).toEqual(first);
    expect(kept(db)).toBe(before + 1);
    expect(first).toEqual(await fresh(sql));
    expect(first).toEqual([[1000, 'n0', 5999]]);
  });

  it('plans afresh when a Parquet file is rewritten in place with other columns, rows and row groups', async () => {
    const f = join(dir, 'b.parquet');
    await duck.run(`COPY (SELECT i::INTEGER AS id FROM range(10000) t(i)) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
    const sql = `SELECT * FROM read_parquet('${f}') WHERE id >= 9000 ORDER BY id LIMIT 2`;
    expect((await db.query(sql)).rows).toEqual([[9000], [9001]]);
    expect((await db.query(sql)).rows).toEqual([[9000], [9001]]);
    await duck.run(`COPY (SELECT (i * 3)::INTEGER AS id, 'w' || i AS w FROM range(4000) t(i)) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 1000)`);
    const r = await db.query(sql);
    expect(r.columns.map((c) => c.name)).toEqual(['id', 'w']);
    expect(r.rows).toEqual([[9000, 'w3000'], [9003, 'w3001']]);
    expect(r.rows).toEqual(await fresh(sql));
  });

  it('plans afresh when a CSV file changes its columns', async () => {
    const f = write('c.csv', 'a,b\n1,2\n');
    const sql = `SELECT * FROM read_csv('${f}')`;
    const r1 = await db.query(sql);
    expect(r1.columns.map((c) => c.name)).toEqual(['a', 'b']);
    expect((await db.query(sql)).rows).toEqual([[1, 2]]);
    write('c.csv', 'x,y,z\n5,6,7\n8,9,10\n');
    const r2 = await db.query(sql);
    expect(r2.columns.map((c) => c.name)).toEqual(['x', 'y', 'z']);
    expect(r2.rows).toEqual([[5, 6, 7], [8, 9, 10]]);
  });

  it('plans afresh when a file is rewritten with the same size', async () => {
    // The schema is inferred when the plan is made: 'abc' is text, '123' an integer.
    const f = write('d.csv', 'v\nabc\n');
    const sql = `SELECT v, pg_typeof(v)::text FROM read_csv('${f}')`;
    expect((await db.query(sql)).rows).toEqual([['abc', 'text']]);
    expect((await db.query(sql)).rows).toEqual([['abc', 'text']]);
    const size = statSync(f).size;
    write('d.csv', 'v\n123\n');
    expect(statSync(f).size).toBe(size);
    // A modification time one second on: the change must not hinge on the clock's resolution.
    const t = statSync(f).mtime;
    utimesSync(f, t, new Date(t.getTime() + 1000));
    expect((await db.query(sql)).rows).toEqual([[123, 'integer']]);
  });

  it('plans afresh after a setting changes (a literal cast in the session time zone)', async () => {
    const f = write('e.csv', 't\n2020-01-01 00:30:00+00\n');
    const sql = `SELECT count(*) FROM read_csv('${f}') WHERE t > '2020-01-01 01:00:00'::timestamptz`;
    expect((await db.query(sql)).rows).toEqual([[0]]);
    expect((await db.query(sql)).rows).toEqual([[0]]);
    await db.query(`SET timezone = 'Asia/Tokyo'`);
    try {
      // 01:00 in Tokyo is 16:00 UTC the day before: the row is after it.
      expect((await db.query(sql)).rows).toEqual([[1]]);
    } finally {
      await db.query('RESET timezone');
    }
    expect((await db.query(sql)).rows).toEqual([[0]]);
  });

  it('plans afresh when a function the query calls is replaced', async () => {
    const f = write('g.csv', 'a\n1\n2\n');
    await db.query('CREATE FUNCTION fpc_twice(x int) RETURNS int AS $$ SELECT x * 2 $$ LANGUAGE SQL');
    const sql = `SELECT sum(fpc_twice(a)) FROM read_csv('${f}')`;
    expect((await db.query(sql)).rows).toEqual([[6]]);
    expect((await db.query(sql)).rows).toEqual([[6]]);
    await db.query('CREATE OR REPLACE FUNCTION fpc_twice(x int) RETURNS int AS $$ SELECT x * 10 $$ LANGUAGE SQL');
    expect((await db.query(sql)).rows).toEqual([[30]]);
  });

  it('a catalog change by a second session drops the first session\'s kept plan; a SET there does not reach it', async () => {
    const f = write('two.csv', 'a\n1\n2\n');
    const other = db.connect();
    await db.query('CREATE FUNCTION fpc_two(x int) RETURNS int AS $$ SELECT x + 1 $$ LANGUAGE SQL');
    const sql = `SELECT sum(fpc_two(a)), current_setting('timezone') FROM read_csv('${f}')`;
    const first = (await db.query(sql)).rows;
    expect(first[0]![0]).toBe(5);
    const keptBefore = kept(db);
    // The other session's SET is its own: this session's kept plan still answers, with its own setting.
    await other.query(`SET timezone = 'Asia/Tokyo'`);
    expect((await db.query(sql)).rows).toEqual(first);
    expect(kept(db)).toBe(keptBefore);
    // The other session replaces the function in the shared catalog: the kept plan must not be used.
    await other.query('CREATE OR REPLACE FUNCTION fpc_two(x int) RETURNS int AS $$ SELECT x + 100 $$ LANGUAGE SQL');
    expect((await db.query(sql)).rows).toEqual([[203, first[0]![1]]]);
    expect((await other.query(sql)).rows).toEqual([[203, 'Asia/Tokyo']]);
  });

  it('keeps no plan that read the statement clock while binding', async () => {
    const f = write('h.csv', 'a\n1\n');
    const sql = `SELECT 'now'::timestamptz AS t, now() AS n FROM read_csv('${f}')`;
    const before = kept(db);
    const [[t1, n1]] = (await db.query(sql)).rows;
    await new Promise((r) => setTimeout(r, 5));
    const [[t2, n2]] = (await db.query(sql)).rows;
    expect(kept(db)).toBe(before);
    expect(t2).not.toEqual(t1);
    expect(n2).not.toEqual(n1);
  });

  it('gives now() each run its own time when the plan is kept', async () => {
    const f = write('i.csv', 'a\n1\n');
    const sql = `SELECT now() AS n, a FROM read_csv('${f}')`;
    const before = kept(db);
    const [[n1]] = (await db.query(sql)).rows;
    await new Promise((r) => setTimeout(r, 5));
    const [[n2]] = (await db.query(sql)).rows;
    expect(kept(db)).toBe(before + 1);
    expect(n2).not.toEqual(n1);
  });

  it('keeps nothing for a statement naming a table, a glob or a missing file, or with quire.file_plan_cache off', async () => {
    const f = write('j.csv', 'a\n1\n');
    await db.query('CREATE TABLE fpc_t (a int)');
    const before = kept(db);
    await db.query(`SELECT * FROM read_csv('${f}') JOIN fpc_t USING (a)`);
    await db.query(`SELECT * FROM read_csv('${join(dir, 'j*.csv')}')`);
    await expect(db.query(`SELECT * FROM read_csv('${join(dir, 'missing.csv')}')`)).rejects.toMatchObject({ code: '58P01' });
    await db.query(`SET quire.file_plan_cache = 'off'`);
    await db.query(`SELECT a + 1 FROM read_csv('${f}')`);
    await db.query(`RESET quire.file_plan_cache`);
    expect(kept(db)).toBe(before);
  });
  it('runs a kept plan under the statement_timeout of the run', async () => {
    const f = write('k.csv', 'a\n1\n2\n3\n');
    const sql = `SELECT count(*) FROM read_csv('${f}'), generate_series(1, 20000000) AS g WHERE g % 7 = a`;
    await db.query(`SET statement_timeout = '50ms'`);
    const before = kept(db);
    try {
      await expect(db.query(sql)).rejects.toMatchObject({ code: '57014' });
      expect(kept(db)).toBe(before + 1);
      await expect(db.query(sql)).rejects.toMatchObject({ code: '57014' });
    } finally {
      await db.query('RESET statement_timeout');
    }
  });
});
