/**
 * Sessions with their own transactions, through real clients at once: two pgwire connections (pg),
 * a REST client and the library on one database directory. Uncommitted writes stay private, ROLLBACK
 * and disconnects discard only their own writes, concurrent inserts all survive, two rewrites of one
 * table cannot both commit, a multi-statement string is one transaction, and what pgwire commits is
 * on disk. Over the extended protocol, the statements up to a Sync are one implicit transaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { startPgServer, type PgServer } from '../../src/server/pgwire/index.js';
import { startRestServer, type RunningRestServer } from '../../src/server/rest/app.js';
import { names, RawClient, serialize, startFixture, type Fixture, type Msg } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'quire-tx-'));
let db: Database;
let server: PgServer;
let rest: RunningRestServer;

beforeAll(async () => {
  db = await Database.create({ path: join(dir, 'db') });
  server = await startPgServer(db, { port: 0, allowWrites: true });
  rest = await startRestServer({ db, host: '127.0.0.1', port: 0, allowWrites: true });
});
afterAll(async () => {
  await rest.close();
  await server.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'tx', database: 'quire' });
  await c.connect();
  return c;
}

async function restQuery(query: string): Promise<{ status: number; json: { datarows?: unknown[][] } }> {
  const r = await fetch(`${rest.url}/_plugins/_sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: r.status, json: (await r.json()) as { datarows?: unknown[][] } };
}

const rows = async (c: pg.Client, sql: string): Promise<unknown[][]> => (await c.query({ text: sql, rowMode: 'array' })).rows as unknown[][];

describe('transactions across pgwire, REST and the library', () => {
  it('keeps a transaction private until COMMIT; ROLLBACK discards only its own writes', async () => {
    await db.query('CREATE TABLE acct (id int PRIMARY KEY, bal int)');
    await db.query('INSERT INTO acct VALUES (1, 100), (2, 50)');
    const a = await client();
    const b = await client();
    try {
      await a.query('BEGIN');
      await a.query('UPDATE acct SET bal = bal - 30 WHERE id = 1');
      expect(await rows(a, 'SELECT bal FROM acct WHERE id = 1')).toEqual([[70]]);
      // No dirty read: B, REST and the library see the committed balance.
      expect(await rows(b, 'SELECT bal FROM acct WHERE id = 1')).toEqual([[100]]);
      expect((await restQuery('SELECT bal FROM acct WHERE id = 1')).json.datarows).toEqual([[100]]);
      expect((await db.query('SELECT bal FROM acct WHERE id = 1')).rows).toEqual([[100]]);
      // Autocommit writes from B and REST while A is open.
      await b.query('INSERT INTO acct VALUES (3, 7)');
      expect((await restQuery('INSERT INTO acct VALUES (4, 8)')).status).toBe(200);
      // READ COMMITTED: A's next statement sees them.
      expect(await rows(a, 'SELECT count(*)::int FROM acct')).toEqual([[4]]);
      await a.query('ROLLBACK');
      expect((await db.query('SELECT id, bal FROM acct ORDER BY id')).rows).toEqual([[1, 100], [2, 50], [3, 7], [4, 8]]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('a client that disconnects inside a transaction leaves nothing behind', async () => {
    const a = await client();
    await a.query('BEGIN');
    await a.query('INSERT INTO acct VALUES (99, 99)');
    await a.end();
    await new Promise((r) => setTimeout(r, 50));
    expect((await db.query('SELECT count(*) FROM acct WHERE id = 99')).rows).toEqual([[0]]);
  });

  it('concurrent inserts all survive; two rewrites of different rows of one table both commit', async () => {
    const a = await client();
    const b = await client();
    try {
      await db.query('CREATE TABLE ev (id int, who text)');
      await a.query('BEGIN');
      await b.query('BEGIN');
      await a.query("INSERT INTO ev SELECT i, 'a' FROM generate_series(1, 100) i");
      await b.query("INSERT INTO ev SELECT i, 'b' FROM generate_series(1, 50) i");
      await b.query('COMMIT');
      await a.query('COMMIT');
      expect((await db.query('SELECT who, count(*) FROM ev GROUP BY who ORDER BY who')).rows).toEqual([['a', 100], ['b', 50]]);

      await a.query('BEGIN');
      await b.query('BEGIN');
      await a.query("DELETE FROM ev WHERE who = 'a'");
      // Different rows (a row A deletes would make B wait for A, as in PostgreSQL).
      await b.query("UPDATE ev SET who = 'c' WHERE id = 1 AND who = 'b'");
      await a.query('COMMIT');
      // As in PostgreSQL: the rows each changed are different, so B's COMMIT merges over A's.
      await b.query('COMMIT');
      expect(await rows(b, "SELECT who, count(*)::int FROM ev GROUP BY who ORDER BY who")).toEqual([['b', 49], ['c', 1]]);
      await db.query("DELETE FROM ev WHERE who = 'c'");
      // A DELETE does not remove rows another transaction inserted after its snapshot.
      await a.query('BEGIN');
      await a.query('DELETE FROM ev');
      await b.query("INSERT INTO ev VALUES (7, 'late')");
      await a.query('COMMIT');
      expect((await db.query('SELECT who FROM ev')).rows).toEqual([['late']]);
      // Two transactions inserting one primary key: as in PostgreSQL the second INSERT waits for the
      // first transaction and fails with 23505 once it commits.
      await a.query('BEGIN');
      await b.query('BEGIN');
      await a.query('INSERT INTO acct VALUES (10, 1)');
      const second = b.query('INSERT INTO acct VALUES (10, 2)').then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      );
      await new Promise((r) => setTimeout(r, 60));
      await a.query('COMMIT');
      expect(await second).toBe('23505');
      await b.query('ROLLBACK');
      expect((await db.query('SELECT bal FROM acct WHERE id = 10')).rows).toEqual([[1]]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('REPEATABLE READ keeps its snapshot; an error aborts the block until ROLLBACK', async () => {
    const a = await client();
    const b = await client();
    try {
      await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const before = await rows(a, 'SELECT count(*)::int FROM acct');
      await b.query('INSERT INTO acct VALUES (20, 1)');
      expect(await rows(a, 'SELECT count(*)::int FROM acct')).toEqual(before);
      await a.query('COMMIT');
      expect((await rows(a, 'SELECT count(*)::int FROM acct'))[0]![0]).toBe((before[0]![0] as number) + 1);
      await expect(a.query('BEGIN ISOLATION LEVEL SERIALIZABLE')).rejects.toMatchObject({ code: '0A000' });

      await a.query('BEGIN');
      await a.query('INSERT INTO acct VALUES (21, 1)');
      await expect(a.query('SELECT 1/0')).rejects.toMatchObject({ code: '22012' });
      await expect(a.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' });
      await a.query('ROLLBACK');
      expect(await rows(a, 'SELECT count(*)::int FROM acct WHERE id = 21')).toEqual([[0]]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('a multi-statement string is one transaction: an error undoes all of it', async () => {
    const a = await client();
    try {
      await expect(a.query('CREATE TABLE ms (a int); INSERT INTO ms VALUES (1); SELECT 1/0')).rejects.toMatchObject({ code: '22012' });
      await expect(a.query('SELECT * FROM ms')).rejects.toMatchObject({ code: '42P01' });
      await expect(db.query('CREATE TABLE ms2 (a int); INSERT INTO ms2 VALUES (1); INSERT INTO ms2 VALUES (1/0)')).rejects.toMatchObject({ code: '22012' });
      expect(db.listTables().some((t) => t.name === 'ms2')).toBe(false);
    } finally {
      await a.end();
    }
  });

  it('TEMP tables belong to their session: private, shadowing, relpersistence t, dropped at disconnect, never on disk', async () => {
    const a = await client();
    const b = await client();
    try {
      await db.query('CREATE TABLE shadow (x int)');
      await db.query('INSERT INTO shadow VALUES (1)');
      await a.query('CREATE TEMP TABLE shadow (x int)');
      await a.query('INSERT INTO shadow VALUES (42)');
      await a.query('CREATE TEMP TABLE mine AS SELECT 5 AS y');
      expect(await rows(a, 'SELECT x FROM shadow')).toEqual([[42]]);
      expect(await rows(b, 'SELECT x FROM shadow')).toEqual([[1]]);
      await expect(b.query('SELECT * FROM mine')).rejects.toMatchObject({ code: '42P01' });
      expect(await rows(a, "SELECT relname, relpersistence FROM pg_class WHERE relname IN ('mine', 'shadow') ORDER BY relname, relpersistence")).toEqual([
        ['mine', 't'],
        ['shadow', 'p'],
        ['shadow', 't'],
      ]);
      expect(await rows(b, "SELECT relname FROM pg_class WHERE relname = 'mine'")).toEqual([]);
      // A TEMP table is transactional too.
      await a.query('BEGIN');
      await a.query('INSERT INTO mine VALUES (6)');
      await a.query('ROLLBACK');
      expect(await rows(a, 'SELECT y FROM mine')).toEqual([[5]]);
    } finally {
      await a.end();
    }
    await new Promise((r) => setTimeout(r, 50));
    try {
      await expect(b.query('SELECT * FROM mine')).rejects.toMatchObject({ code: '42P01' });
      await b.query('CREATE TEMP TABLE mine (z int)');
      expect(await rows(b, 'SELECT * FROM mine')).toEqual([]);
    } finally {
      await b.end();
    }
    const reader = await Database.create({ path: join(dir, 'db'), readOnly: true });
    expect(reader.listTables().map((t) => t.name)).not.toContain('mine');
    expect((await reader.query('SELECT x FROM shadow')).rows).toEqual([[1]]);
  });

  it('what pgwire and REST commit is in the directory', async () => {
    const a = await client();
    try {
      await a.query('CREATE TABLE durable (x int)');
      await a.query('INSERT INTO durable VALUES (1)');
      await a.query('BEGIN');
      await a.query('INSERT INTO durable VALUES (2)');
      await a.query('COMMIT');
      expect((await restQuery('INSERT INTO durable VALUES (3)')).status).toBe(200);
    } finally {
      await a.end();
    }
    const reader = await Database.create({ path: join(dir, 'db'), readOnly: true });
    expect((await reader.query('SELECT x FROM durable ORDER BY x')).rows).toEqual([[1], [2], [3]]);
  });
});

describe('extended protocol: statements up to Sync are one implicit transaction', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture();
    await fx.db.query('CREATE TABLE pipe (k int PRIMARY KEY, note text)');
  });
  afterAll(async () => {
    await fx.server.close();
  });

  /** Parse (unnamed), Bind and Execute of one statement. */
  const step = (sql: string): Buffer[] => [serialize.parse({ text: sql }), serialize.bind({}), serialize.execute({})];
  const keys = async (): Promise<unknown[]> => (await fx.db.query('SELECT k FROM pipe ORDER BY k')).rows.map((r) => r[0]);
  const tags = (ms: Msg[]): unknown[] => ms.filter((m) => m.name === 'commandComplete').map((m) => m.text);

  it('an error rolls back every statement since the last Sync, and skips the rest', async () => {
    const c = await RawClient.ready(fx.server.port);
    try {
      const ms = await c.roundTrip([...step('INSERT INTO pipe VALUES (1)'), ...step('INSERT INTO pipe VALUES (2)'), ...step('SELECT 1/0'), ...step('INSERT INTO pipe VALUES (3)'), serialize.sync()]);
      expect(tags(ms)).toEqual(['INSERT 0 1', 'INSERT 0 1']);
      expect(ms.filter((m) => m.name === 'error').map((m) => m.code)).toEqual(['22012']);
      expect(ms.at(-1)).toMatchObject({ name: 'readyForQuery', status: 'I' });
      expect(await keys()).toEqual([]);
      // The connection goes on: the next pipeline commits at its Sync.
      const ok = await c.roundTrip([...step('INSERT INTO pipe VALUES (1)'), ...step('INSERT INTO pipe VALUES (2)'), serialize.sync()]);
      expect(names(ok).filter((n) => n === 'error')).toEqual([]);
      expect(await keys()).toEqual([1, 2]);
    } finally {
      c.end();
      await fx.db.query('DELETE FROM pipe');
    }
  });

  it('commits at Sync: before it other sessions see nothing; a commit that fails at Sync reports its error', async () => {
    const c = await RawClient.ready(fx.server.port);
    try {
      c.take();
      c.send([...step('INSERT INTO pipe VALUES (10)'), ...step('INSERT INTO pipe VALUES (11)'), serialize.flush()]);
      await c.next('commandComplete');
      await c.next('commandComplete');
      expect(await keys()).toEqual([]);
      let ms = await c.roundTrip(serialize.sync());
      expect(ms.at(-1)).toMatchObject({ name: 'readyForQuery', status: 'I' });
      expect(await keys()).toEqual([10, 11]);

      // Another session inserts key 12 while this pipeline holds an uncommitted 12: as in PostgreSQL it
      // waits for the pipeline's transaction, which commits at the Sync, and then fails with 23505.
      c.send([...step('INSERT INTO pipe VALUES (12)'), ...step('INSERT INTO pipe VALUES (13)'), serialize.flush()]);
      await c.next('commandComplete');
      await c.next('commandComplete');
      const other = fx.db.query('INSERT INTO pipe VALUES (12)').then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      );
      await new Promise((r) => setTimeout(r, 60));
      ms = await c.roundTrip(serialize.sync());
      expect(ms.filter((m) => m.name === 'error')).toEqual([]);
      expect(await other).toBe('23505');
      expect(await keys()).toEqual([10, 11, 12, 13]);

      // A commit that fails at Sync: the pipeline's row references a parent another session deletes
      // and commits meanwhile; the Sync's commit checks the reference again and reports 23503.
      await fx.db.query('CREATE TABLE pipe_parent (id int PRIMARY KEY)');
      await fx.db.query('CREATE TABLE pipe_child (p int REFERENCES pipe_parent)');
      await fx.db.query('INSERT INTO pipe_parent VALUES (1)');
      c.send([...step('INSERT INTO pipe_child VALUES (1)'), ...step('INSERT INTO pipe VALUES (14)'), serialize.flush()]);
      await c.next('commandComplete');
      await c.next('commandComplete');
      await fx.db.query('DELETE FROM pipe_parent WHERE id = 1');
      ms = await c.roundTrip(serialize.sync());
      expect(ms.filter((m) => m.name === 'error').map((m) => m.code)).toEqual(['23503']);
      expect(ms.at(-1)).toMatchObject({ name: 'readyForQuery', status: 'I' });
      expect(await keys()).toEqual([10, 11, 12, 13]);
      expect((await fx.db.query('SELECT count(*)::int FROM pipe_child')).rows).toEqual([[0]]);
    } finally {
      c.end();
      await fx.db.query('DELETE FROM pipe');
      await fx.db.query('DROP TABLE IF EXISTS pipe_child');
      await fx.db.query('DROP TABLE IF EXISTS pipe_parent');
    }
  });

  it('a client that disconnects holding an uncommitted key frees it: the session waiting for it inserts', async () => {
    const c = await RawClient.ready(fx.server.port);
    await c.roundTrip([serialize.query("BEGIN; INSERT INTO pipe VALUES (15, 'gone')")]);
    const other = fx.db.query("INSERT INTO pipe VALUES (15, 'kept')").then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    );
    let settled = false;
    void other.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 60));
    expect(settled).toBe(false);
    // Cut without a Terminate message, as a crashed client or a dropped network leaves it.
    c.socket.destroy();
    try {
      expect(await other).toBe('ok');
      expect((await fx.db.query('SELECT k, note FROM pipe')).rows).toEqual([[15, 'kept']]);
    } finally {
      await fx.db.query('DELETE FROM pipe');
    }
  });

  it('BEGIN in a pipeline makes it a transaction block; COMMIT without BEGIN ends the implicit transaction', async () => {
    const c = await RawClient.ready(fx.server.port);
    try {
      let ms = await c.roundTrip([...step('INSERT INTO pipe VALUES (20)'), ...step('BEGIN'), ...step('INSERT INTO pipe VALUES (21)'), serialize.sync()]);
      expect(ms.at(-1)).toMatchObject({ name: 'readyForQuery', status: 'T' });
      expect(await keys()).toEqual([]);
      ms = await c.roundTrip([...step('ROLLBACK'), serialize.sync()]);
      expect(ms.at(-1)).toMatchObject({ name: 'readyForQuery', status: 'I' });
      // The statement before BEGIN joined the block and went with its ROLLBACK, as in PostgreSQL.
      expect(await keys()).toEqual([]);

      ms = await c.roundTrip([...step('INSERT INTO pipe VALUES (30)'), ...step('COMMIT'), ...step('INSERT INTO pipe VALUES (31)'), ...step('SELECT 1/0'), serialize.sync()]);
      expect(ms.filter((m) => m.name === 'notice').map((m) => m.message)).toEqual(['there is no transaction in progress']);
      expect(ms.filter((m) => m.name === 'error').map((m) => m.code)).toEqual(['22012']);
      expect(await keys()).toEqual([30]);
    } finally {
      c.end();
      await fx.db.query('DELETE FROM pipe');
    }
  });

  it('node-postgres: each parameterized query is committed by its own Sync', async () => {
    const c = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'tx', database: 'quire' });
    await c.connect();
    try {
      await c.query('INSERT INTO pipe VALUES ($1, $2)', [40, 'a']);
      await expect(c.query('INSERT INTO pipe VALUES ($1, $2)', [40, 'dup'])).rejects.toMatchObject({ code: '23505' });
      await c.query('INSERT INTO pipe VALUES ($1, $2)', [41, 'b']);
      expect((await fx.db.query('SELECT k, note FROM pipe ORDER BY k')).rows).toEqual([
        [40, 'a'],
        [41, 'b'],
      ]);
    } finally {
      await c.end();
      await fx.db.query('DELETE FROM pipe');
    }
  });
});
