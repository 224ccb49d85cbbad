/**
 * `INSERT INTO t VALUES ($1, …)` through the extended protocol, as node-postgres sends every query
 * with values (Parse, Bind, Describe, Execute, Sync): outside a transaction block the Bind runs the
 * row through the literal INSERT's cached plan as its own transaction. Values, errors, transaction
 * blocks and pipelines of several statements must come out as PostgreSQL (PGlite) has them.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/index.js';
import { startPgServer, type PgServer } from '../../src/server/pgwire/index.js';
import { names, RawClient, rowsOf, serialize } from './helpers.js';
import { readyPGlite } from '../common/pglite.js';

const TABLE = 'CREATE TABLE t (id int PRIMARY KEY, a int2, b int8, c float8, d numeric, e text, f bool, g date, h varchar(5), k int NOT NULL DEFAULT 0)';
const INSERT = 'INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';

let db: Database;
let server: PgServer;
let client: pg.Client;
let lite: PGlite;

beforeAll(async () => {
  db = await Database.create();
  server = await startPgServer(db, { port: 0, allowWrites: true, log: () => undefined });
  client = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'tester', database: 'quire' });
  await client.connect();
  lite = await readyPGlite();
}, 60_000);

afterAll(async () => {
  await client?.end();
  await server?.close();
  await lite?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function fresh(): Promise<void> {
  for (const run of [(s: string) => client.query(s), (s: string) => lite.query(s)]) {
    await run('DROP TABLE IF EXISTS t');
    await run(TABLE);
  }
}

type Outcome = string;

async function quireInsert(values: unknown[]): Promise<Outcome> {
  try {
    const r = await client.query(INSERT, values);
    return `ok ${r.rowCount}`;
  } catch (e) {
    return `error ${(e as { code?: string }).code}`;
  }
}

async function liteInsert(values: unknown[]): Promise<Outcome> {
  try {
    const r = await lite.query(INSERT, values);
    return `ok ${r.affectedRows}`;
  } catch (e) {
    return `error ${(e as { code?: string }).code}`;
  }
}

const SELECT = "SELECT id, a, b, c, d, e, f, g::text, h, k FROM t ORDER BY id";

async function quireRows(): Promise<string> {
  const r = await client.query({ text: SELECT, rowMode: 'array' });
  return JSON.stringify(r.rows.map((row: unknown[]) => row.map((v) => (v === null ? null : String(v)))));
}

async function liteRows(): Promise<string> {
  const r = await lite.query<unknown[]>(SELECT, [], { rowMode: 'array' });
  return JSON.stringify(r.rows.map((row) => row.map((v) => (v === null ? null : typeof v === 'number' && Object.is(v, -0) ? '0' : String(v)))));
}

describe('parameter INSERT over the extended protocol', () => {
  it('stores what PostgreSQL stores and refuses what it refuses, committing each row on its own', async () => {
    await fresh();
    const taken = vi.spyOn(Database.prototype, 'paramInsertSync');
    const rows: unknown[][] = [
      [1, 2, 3, 0.5, '1.25', 'x', true, '2024-02-29', 'abc', 7],
      [2, null, null, null, null, null, null, null, null, 0],
      [3, '-0', '9007199254740993', '-0', '-0.0', '', 'f', '2024-01-01', 'abcde', '5'],
      [4, ' 12 ', '+5', '1e3', '1e3', "it's", 'yes', '2024-12-31', 'ab', '-3'],
      [5, '32768', 1, 1, 1, 'a', true, '2024-01-01', 'a', 1],
      [6, 'x', 1, 1, 1, 'a', true, '2024-01-01', 'a', 1],
      [7, 1, 1, 'nan', 'NaN', 'a', true, '2024-01-01', 'toolong', 1],
      [9, 1, 1, 1, 1, 'a', true, '2024-02-30', 'a', 1],
      [1, 1, 1, 1, 1, 'duplicate', true, '2024-01-01', 'a', 1],
      [10, 1, 1, 1, 1, 'a', true, '2024-01-01', 'a', null],
      [11, '-32768', '-9223372036854775808', '1.7976931348623157e308', '123456789012345678901234567890.5', 'ü', 'on', 'epoch', 'ü', '2147483647'],
      [12, '007', '-007', '.5', '5.', 'z', '1', '2024-01-01', 'z', '-2147483648'],
    ];
    const got: string[] = [];
    const want: string[] = [];
    for (const r of rows) {
      got.push(await quireInsert(r));
      want.push(await liteInsert(r));
    }
    expect(got).toEqual(want);
    // PGlite's client refuses a bool it cannot read before sending it; PostgreSQL's boolin says 22P02.
    expect(await quireInsert([8, 1, 1, 1, 1, 'a', 'maybe', '2024-01-01', 'a', 1])).toBe('error 22P02');
    expect(await quireRows()).toEqual(await liteRows());
    // The rows PostgreSQL takes went in by the parameter path (the others fell back or failed there).
    const byPath = taken.mock.results.filter((x) => x.type === 'return' && x.value !== null).length;
    expect(byPath).toBeGreaterThanOrEqual(want.filter((w) => w.startsWith('ok')).length - 1);
    // An autocommit loop leaves no transaction open behind it.
    expect((await client.query('SELECT 1')).rowCount).toBe(1);
  });

  it('inside a transaction block the rows go with the block', async () => {
    await fresh();
    await client.query('BEGIN');
    await client.query(INSERT, [1, 1, 1, 1, 1, 'a', true, '2024-01-01', 'a', 1]);
    await client.query('ROLLBACK');
    await client.query('BEGIN');
    await client.query(INSERT, [2, 1, 1, 1, 1, 'b', true, '2024-01-01', 'a', 1]);
    await expect(client.query(INSERT, [2, 1, 1, 1, 1, 'c', true, '2024-01-01', 'a', 1])).rejects.toMatchObject({ code: '23505' });
    await expect(client.query(INSERT, [3, 1, 1, 1, 1, 'd', true, '2024-01-01', 'a', 1])).rejects.toMatchObject({ code: '25P02' });
    await client.query('ROLLBACK');
    await client.query('BEGIN');
    await client.query(INSERT, [4, 1, 1, 1, 1, 'e', true, '2024-01-01', 'a', 1]);
    await client.query('COMMIT');
    const r = await client.query('SELECT id, e FROM t ORDER BY id');
    expect(r.rows).toEqual([{ id: 4, e: 'e' }]);
  });

  it('a named statement with declared types, and columns named in another order', async () => {
    await fresh();
    const text = 'INSERT INTO t (e, id, k) VALUES ($1, $2, $3)';
    for (let i = 1; i <= 3; i++) await client.query({ name: 'ins', text, values: [`v${i}`, i, i * 10], types: [25, 23, 23] } as pg.QueryConfig);
    // Declared types that differ from the columns' convert as PostgreSQL converts them (int8 into int).
    await client.query({ text, values: ['big', '4', '5'], types: [25, 20, 20] } as pg.QueryConfig);
    await expect(client.query({ text, values: ['x', '1.5', '1'], types: [25, 20, 20] } as pg.QueryConfig)).rejects.toMatchObject({ code: '22P02' });
    const r = await client.query('SELECT id, e, k FROM t ORDER BY id');
    expect(r.rows).toEqual([
      { id: 1, e: 'v1', k: 10 },
      { id: 2, e: 'v2', k: 20 },
      { id: 3, e: 'v3', k: 30 },
      { id: 4, e: 'big', k: 5 },
    ]);
  });

  it('two INSERTs in one pipeline are one transaction: the second failing undoes the first', async () => {
    await client.query('DROP TABLE IF EXISTS p');
    await client.query('CREATE TABLE p (id int PRIMARY KEY, e text)');
    const taken = vi.spyOn(Database.prototype, 'paramInsertSync');
    const c = await RawClient.ready(server.port);
    const bind = (id: string): Buffer[] => [serialize.bind({ statement: 'p', values: [id, 'x'] }), serialize.execute({})];
    await c.roundTrip([serialize.parse({ name: 'p', text: 'INSERT INTO p (id, e) VALUES ($1, $2)' }), serialize.sync()]);
    const ms = await c.roundTrip([...bind('1'), ...bind('1'), serialize.sync()]);
    expect(names(ms)).toEqual(['bindComplete', 'commandComplete', 'error', 'readyForQuery']);
    expect(ms[2]).toMatchObject({ code: '23505' });
    const ok = await c.roundTrip([...bind('2'), serialize.sync()]);
    expect(names(ok)).toEqual(['bindComplete', 'commandComplete', 'readyForQuery']);
    expect(ok[1]).toMatchObject({ text: 'INSERT 0 1' });
    // Alone before its Sync, the statement committed on its own; not so the two of the pipeline.
    expect(taken.mock.results.map((x) => x.type === 'return' && x.value !== null)).toEqual([true]);
    // A Sync that arrives later than the Execute: the statement waits for it in the implicit transaction.
    c.send([...bind('3'), serialize.flush()]);
    await c.next('commandComplete');
    const late = await c.roundTrip(serialize.sync());
    expect(names(late)).toEqual(['readyForQuery']);
    const rows = await c.roundTrip([serialize.query('SELECT id FROM p ORDER BY id')]);
    expect(rowsOf(rows)).toEqual([['2'], ['3']]);
    c.end();
  });
  it('two sessions at once: autocommit rows from both survive, a block stays private until it ends', async () => {
    await client.query('DROP TABLE IF EXISTS q');
    await client.query('CREATE TABLE q (id int PRIMARY KEY, who text)');
    const other = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'tester', database: 'quire' });
    await other.connect();
    try {
      const ins = 'INSERT INTO q VALUES ($1, $2)';
      // B opens a block and inserts into it while A autocommits concurrently.
      await other.query('BEGIN');
      const a: Promise<unknown>[] = [];
      const b: Promise<unknown>[] = [];
      for (let i = 0; i < 50; i++) {
        a.push(client.query(ins, [i, 'a']));
        b.push(other.query(ins, [1000 + i, 'b']));
      }
      await Promise.all([...a, ...b]);
      // A sees its own 50 and none of B's uncommitted rows; B sees both.
      expect((await client.query('SELECT count(*)::int AS n FROM q')).rows).toEqual([{ n: 50 }]);
      expect((await other.query('SELECT count(*)::int AS n FROM q')).rows).toEqual([{ n: 100 }]);
      await other.query('COMMIT');
      const r = await client.query('SELECT who, count(*)::int AS n FROM q GROUP BY who ORDER BY who');
      expect(r.rows).toEqual([
        { who: 'a', n: 50 },
        { who: 'b', n: 50 },
      ]);
      // One key inserted by both: B's block holds it uncommitted when A autocommits it. As in
      // PostgreSQL, A waits for B: B commits, so A fails with 23505 and B's row holds the key.
      await other.query('BEGIN');
      await other.query(ins, [5000, 'b']);
      let aSettled = false;
      const aOutcome = client.query(ins, [5000, 'a']).then(
        () => 'ok',
        (e: { code?: string }) => `error ${e.code}`,
      );
      void aOutcome.then(() => (aSettled = true));
      await new Promise((r) => setTimeout(r, 80));
      expect(aSettled).toBe(false);
      await other.query('COMMIT');
      expect(await aOutcome).toBe('error 23505');
      expect((await client.query('SELECT who FROM q WHERE id = 5000')).rows).toEqual([{ who: 'b' }]);
      // The same with B rolling back: A's row goes in once B's block ends.
      await other.query('BEGIN');
      await other.query(ins, [5001, 'b']);
      const again = client.query(ins, [5001, 'a']);
      await new Promise((r) => setTimeout(r, 80));
      await other.query('ROLLBACK');
      await again;
      expect((await client.query('SELECT who FROM q WHERE id = 5001')).rows).toEqual([{ who: 'a' }]);
    } finally {
      await other.end();
    }
  });

  it('a hostile client: wrong parameter counts, bad text and a disconnect mid-pipeline leave the server serving', async () => {
    await client.query('DROP TABLE IF EXISTS h');
    await client.query('CREATE TABLE h (id int PRIMARY KEY, n int)');
    const c = await RawClient.ready(server.port);
    await c.roundTrip([serialize.parse({ name: 'h', text: 'INSERT INTO h VALUES ($1, $2)' }), serialize.sync()]);
    // One value for two parameters: 08P01, as PostgreSQL answers a Bind with the wrong count.
    const few = await c.roundTrip([serialize.bind({ statement: 'h', values: ['1'] }), serialize.execute({}), serialize.sync()]);
    expect(names(few)).toEqual(['error', 'readyForQuery']);
    expect(few[0]).toMatchObject({ code: '08P01' });
    // Text that is not an integer, and one past int4: 22P02 and 22003, nothing stored.
    for (const [v, code] of [['x1', '22P02'], ['2147483648', '22003']] as const) {
      const bad = await c.roundTrip([serialize.bind({ statement: 'h', values: ['1', v] }), serialize.execute({}), serialize.sync()]);
      expect(names(bad)).toEqual(['error', 'readyForQuery']);
      expect(bad[0]).toMatchObject({ code });
    }
    // A pipeline cut off before its Sync: nothing of it is committed.
    c.send([serialize.bind({ statement: 'h', values: ['7', '7'] }), serialize.execute({})]);
    c.end();
    await new Promise((r) => setTimeout(r, 200));
    expect((await client.query('SELECT count(*)::int AS n FROM h')).rows).toEqual([{ n: 0 }]);
    await client.query('INSERT INTO h VALUES ($1, $2)', [1, 2]);
    expect((await client.query('SELECT id, n FROM h')).rows).toEqual([{ id: 1, n: 2 }]);
  });
});
