/**
 * Literal INSERTs over the PostgreSQL port: a session granted writes runs them (through the cached
 * plan, as the library does) with the same unique-key errors; a read-only session is refused with
 * 25006 whether or not the statement's prefix already has a plan.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/index.js';
import { startPgServer, type PgServer } from '../../src/server/pgwire/index.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { setSlowSyncMs } from '../../src/storage/persist/wal.js';
import { scratchDirs } from '../persist/scratch-dirs.js';
import { RawClient, serialize } from '../pgwire/helpers.js';

const { fresh, crashCopy } = scratchDirs('quire-literal-pgwire-');
let dir: string;

let db: Database;
let writer: PgServer;
let reader: PgServer;
const clients: pg.Client[] = [];

async function client(server: PgServer): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'quire', database: 'quire' });
  await c.connect();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  dir = fresh();
  db = await Database.create({ path: dir });
  writer = await startPgServer(db, { port: 0, allowWrites: true, log: () => undefined });
  reader = await startPgServer(db, { port: 0, log: () => undefined });
});

afterAll(async () => {
  for (const c of clients) await c.end();
  await writer.close();
  await reader.close();
  await db.close();
});

describe('literal INSERT over pgwire', () => {
  it('a writing session inserts, and duplicate keys fail with the constraint and key', async () => {
    const w = await client(writer);
    await w.query('CREATE TABLE p (id int PRIMARY KEY, v text, UNIQUE (v))');
    for (let i = 1; i <= 300; i++) await w.query(`INSERT INTO p VALUES (${i}, 'v${i}')`);
    await expect(w.query("INSERT INTO p VALUES (7, 'other')")).rejects.toMatchObject({
      code: '23505',
      message: 'duplicate key value violates unique constraint "p_pkey"',
      detail: 'Key (id)=(7) already exists.',
    });
    await expect(w.query("INSERT INTO p VALUES (301, 'v9')")).rejects.toMatchObject({ code: '23505', detail: 'Key (v)=(v9) already exists.' });
    // A second session sees every row, and the same keys are taken for it.
    const w2 = await client(writer);
    await expect(w2.query("INSERT INTO p VALUES (300, 'x')")).rejects.toMatchObject({ code: '23505', detail: 'Key (id)=(300) already exists.' });
    await w2.query("INSERT INTO p VALUES (301, NULL), (302, NULL)");
    const r = await w.query('SELECT count(*)::int AS n, sum(id)::int AS s FROM p');
    expect(r.rows).toEqual([{ n: 302, s: (302 * 303) / 2 }]);
  });

  it('takes the plan cached for its prefix (no planning), inside and outside transaction blocks, and is durable', async () => {
    const a = await client(writer);
    const b = await client(writer);
    await a.query('CREATE TABLE q (id int PRIMARY KEY, s text)');
    await a.query("INSERT INTO q VALUES (0, 'learn')");
    await a.query("INSERT INTO q VALUES (-1, 'learn')");
    // Statements that go through planning walk their read_* globs first; these never do.
    const planned = vi.spyOn(db, 'prepareFiles');
    for (let i = 1; i <= 50; i++) await a.query(`INSERT INTO q VALUES (${i}, 'a${i}')`);
    await a.query('BEGIN');
    await a.query("INSERT INTO q VALUES (100, 'tx')");
    // Uncommitted: the other session does not see it, and its own insert of the key waits for none.
    expect((await b.query('SELECT count(*)::int AS n FROM q WHERE id = 100')).rows).toEqual([{ n: 0 }]);
    await expect(a.query("INSERT INTO q VALUES (1, 'dup')")).rejects.toMatchObject({ code: '23505' });
    // The block has failed: the next literal INSERT is refused, not run.
    await expect(a.query("INSERT INTO q VALUES (101, 'after error')")).rejects.toMatchObject({ code: '25P02' });
    await a.query('ROLLBACK');
    await a.query('BEGIN');
    await a.query("INSERT INTO q VALUES (102, 'kept')");
    await a.query('COMMIT');
    const literalCalls = planned.mock.calls.length;
    planned.mockRestore();
    // BEGIN, ROLLBACK and COMMIT are planned as usual; no INSERT was.
    expect(literalCalls).toBeLessThanOrEqual(4);
    const expected = { n: 53, s: 1275 + 102 - 1 };
    expect((await b.query('SELECT count(*)::int AS n, sum(id)::int AS s FROM q')).rows).toEqual([expected]);
    // Every acknowledged commit is in the directory (a copy taken as a crash would leave it).
    const copy = await Database.create({ path: crashCopy(dir), readOnly: true });
    expect((await copy.query('SELECT count(*)::int AS n, sum(id)::int AS s FROM q')).rows).toEqual([[expected.n, expected.s]]);
    await copy.close();
  });

  it('through Parse/Bind/Execute too: a named literal INSERT runs once per Execute, with key errors and rollback', async () => {
    const a = await client(writer);
    await a.query('CREATE TABLE e (id int PRIMARY KEY, s text)');
    for (let i = 1; i <= 3; i++) await a.query({ name: `e${i}`, text: `INSERT INTO e VALUES (${i}, 'x${i}')` });
    await expect(a.query({ name: 'e1', text: "INSERT INTO e VALUES (1, 'x1')" })).rejects.toMatchObject({ code: '23505', detail: 'Key (id)=(1) already exists.' });
    await a.query('BEGIN');
    await a.query({ name: 'e4', text: "INSERT INTO e VALUES (4, 'x4')" });
    await a.query('ROLLBACK');
    const r = await a.query({ text: 'SELECT count(*)::int AS n, string_agg(s, \',\' ORDER BY id) AS s FROM e', values: [] });
    expect(r.rows).toEqual([{ n: 3, s: 'x1,x2,x3' }]);
  });

  for (const mode of ['inline', 'thread pool'] as const) {
    it(`pipelined autocommit INSERTs (syncs ${mode}): each acknowledged only once durable, in order, a duplicate failing alone`, async () => {
      // Every sync counts as fast (inline O_DSYNC writes), or every one as slow (fdatasync on the thread pool).
      setSlowSyncMs(mode === 'inline' ? Infinity : -1);
      try {
        const table = mode === 'inline' ? 'pipe_a' : 'pipe_b';
        const a = await client(writer);
        await a.query(`CREATE TABLE ${table} (id int PRIMARY KEY, s text)`);
        await a.query(`INSERT INTO ${table} VALUES (0, 'learn')`);
        const store = storeFor(db.catalog)!;
        const base = store.walStats()!.lsn;
        const raw = await RawClient.ready(writer.port);
        // Whenever replies reach the client: how many INSERTs they acknowledged, and how far the log was on disk.
        const seen: { acked: number; durable: number }[] = [];
        raw.socket.on('data', () => seen.push({ acked: raw.messages.filter((m) => m.name === 'commandComplete').length, durable: store.walStats()!.durable }));
        const ids = Array.from({ length: 120 }, (_, i) => (i === 60 ? 30 : i + 1));
        raw.send(ids.map((id) => serialize.query(`INSERT INTO ${table} VALUES (${id}, 's${id}')`)));
        for (let i = 0; i < ids.length; i++) await raw.next('readyForQuery');
        const replies = raw.messages.filter((m) => m.name === 'commandComplete' || m.name === 'error');
        expect(replies.map((m) => (m.name === 'error' ? (m as unknown as { code: string }).code : m.text))).toEqual(ids.map((id, i) => (i === 60 ? '23505' : 'INSERT 0 1')));
        expect(seen.length).toBeGreaterThan(0);
        for (const x of seen) expect(x.durable - base).toBeGreaterThanOrEqual(x.acked);
        raw.end();
        const expected = [0, ...ids.filter((_, i) => i !== 60)];
        expect((await a.query(`SELECT id FROM ${table}`)).rows.map((r: { id: number }) => r.id)).toEqual(expected);
        // The log holds them in commit order: replayed from a copy taken as a crash would leave it.
        const copy = await Database.create({ path: crashCopy(dir), readOnly: true });
        expect((await copy.query(`SELECT id FROM ${table}`)).rows.map((r) => r[0])).toEqual(expected);
        await copy.close();
      } finally {
        setSlowSyncMs(null);
      }
    });
  }

  it('a read-only session is refused with 25006, also for a prefix the writer has a plan for', async () => {
    const r = await client(reader);
    await expect(r.query("INSERT INTO p VALUES (1000, 'ro')")).rejects.toMatchObject({ code: '25006', message: 'cannot execute INSERT in a read-only transaction' });
    await expect(r.query("INSERT INTO p VALUES (1000, 'ro')")).rejects.toMatchObject({ code: '25006' });
    const w = await client(writer);
    expect((await w.query('SELECT count(*)::int AS n FROM p WHERE id = 1000')).rows).toEqual([{ n: 0 }]);
  });
});
