/**
 * REST cursors over real sockets: /close revokes a paging session for the rest of its life (every
 * page's cursor, on every replica sharing the revocation directory), a cursor is bound to the
 * definitions of the tables and views it reads (redefining one makes it stale: 400), rows written
 * between pages do not, and an unchanged table keeps paging across a restart with the same secret.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { CursorCodec } from '../../src/cursor/cursor-codec.js';
import { Pager } from '../../src/cursor/pager.js';
import { DirectoryRevocations, MemoryRevocations } from '../../src/cursor/revocations.js';
import { startRestServer, type RestServerOptions, type RunningRestServer } from '../../src/server/rest/app.js';

const SECRET = [{ id: 'k1', secret: 'a-secret-of-at-least-16-bytes' }];
const servers: RunningRestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function fixtureDb(): Promise<Database> {
  const db = await Database.create();
  await db.query('create table t1 (id int primary key, v text)');
  await db.query("insert into t1 select i, 'one-' || i from generate_series(1, 10) i");
  await db.query('create table t2 (id int primary key, v text)');
  await db.query("insert into t2 select i, 'two-' || i from generate_series(1, 10) i");
  return db;
}

async function serve(db: Database, opts: Partial<RestServerOptions> = {}): Promise<RunningRestServer> {
  const s = await startRestServer({ db, host: '127.0.0.1', port: 0, cursorKeys: SECRET, ...opts });
  servers.push(s);
  return s;
}

async function post(srv: RunningRestServer, body: unknown, path = '/_plugins/_sql'): Promise<{ status: number; json: any }> {
  const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: JSON.parse(await res.text()) };
}

async function selectOne(srv: RunningRestServer): Promise<unknown> {
  return (await post(srv, { query: 'select 1 as x' })).json.datarows;
}

describe('close', () => {
  it('revokes every cursor of the paging session, earlier pages included; closing again succeeds', async () => {
    const srv = await serve(await fixtureDb());
    const p1 = await post(srv, { query: 'select id, v from t1 order by id', fetch_size: 3 });
    const p2 = await post(srv, { cursor: p1.json.cursor });
    expect(p2.json.datarows.map((r: unknown[]) => r[0])).toEqual([4, 5, 6]);
    expect(await post(srv, { cursor: p2.json.cursor }, '/_plugins/_sql/close')).toEqual({ status: 200, json: { succeeded: true } });
    for (const c of [p2.json.cursor, p1.json.cursor]) {
      const r = await post(srv, { cursor: c });
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ type: 'CursorClosedException', reason: 'Invalid Query' });
      expect(r.json.error.details).toMatch(/^cursor was closed\. /);
    }
    expect((await post(srv, { cursor: p1.json.cursor }, '/_opendistro/_sql/close')).json).toEqual({ succeeded: true });
    // A tampered token is still an error, not a silent success.
    expect((await post(srv, { cursor: `${p1.json.cursor}x` }, '/_plugins/_sql/close')).status).toBe(400);
    expect(await selectOne(srv)).toEqual([[1]]);
  });

  it('two concurrent sessions: closing one leaves the other paging to the end', async () => {
    const srv = await serve(await fixtureDb());
    let a = await post(srv, { query: 'select id from t1 order by id', fetch_size: 2 });
    let b = await post(srv, { query: 'select id from t1 order by id', fetch_size: 2 });
    const seenB: number[] = b.json.datarows.map((r: number[]) => r[0]);
    a = await post(srv, { cursor: a.json.cursor });
    await post(srv, { cursor: a.json.cursor }, '/_plugins/_sql/close');
    while (b.json.cursor) {
      const [na, nb] = await Promise.all([post(srv, { cursor: a.json.cursor }), post(srv, { cursor: b.json.cursor })]);
      expect(na.status).toBe(400);
      b = nb;
      seenB.push(...b.json.datarows.map((r: number[]) => r[0]));
    }
    expect(seenB).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('a page cannot lengthen the session it belongs to', async () => {
    const srv = await serve(await fixtureDb());
    const p1 = await post(srv, { query: 'select id from t1 order by id', fetch_size: 3, keep_alive: '10m' });
    const longer = await post(srv, { cursor: p1.json.cursor, keep_alive: '2h' });
    expect(longer.status).toBe(400);
    expect(longer.json.error.details).toMatch(/keep_alive of a cursor page cannot exceed the 600000 ms/);
    expect((await post(srv, { cursor: p1.json.cursor, keep_alive: '1m' })).status).toBe(200);
  });

  it('replicas sharing the secret and a revocation directory share closes; without it they do not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-revoked-'));
    dirs.push(dir);
    const db = await fixtureDb();
    const ra = new DirectoryRevocations(dir, Date.now, 0);
    const rb = new DirectoryRevocations(dir, Date.now, 0);
    const a = await serve(db, { revocations: ra });
    const b = await serve(db, { revocations: rb });
    const lone = await serve(db);
    const p1 = await post(a, { query: 'select id from t1 order by id', fetch_size: 3 });
    expect((await post(b, { cursor: p1.json.cursor })).status).toBe(200);
    await post(a, { cursor: p1.json.cursor }, '/_plugins/_sql/close');
    expect((await post(b, { cursor: p1.json.cursor })).json.error.type).toBe('CursorClosedException');
    expect((await post(lone, { cursor: p1.json.cursor })).status).toBe(200); // the documented limit
    expect(readdirSync(dir)).toHaveLength(1);
    expect(await ra.sweep()).toBe(0); // not expired: kept
    // A restarted replica (new store over the same directory) still refuses it.
    const rc = new DirectoryRevocations(dir, Date.now, 0);
    const c = await serve(db, { revocations: rc });
    expect((await post(c, { cursor: p1.json.cursor })).status).toBe(400);
    // Once no cursor of the session can be valid any more, the record is swept.
    const later = new DirectoryRevocations(dir, () => Date.now() + 2 * 3_600_000, 0);
    expect(await later.sweep()).toBe(1);
    expect(readdirSync(dir)).toHaveLength(0);
    for (const r of [ra, rb, rc, later]) r.close();
    expect(await selectOne(b)).toEqual([[1]]);
  });

  it('a full in-memory list refuses further closes with 429 instead of forgetting one; expired entries make room', async () => {
    let now = Date.now();
    const revocations = new MemoryRevocations(2, () => now);
    const srv = await serve(await fixtureDb(), { revocations });
    const cursors: string[] = [];
    for (let i = 0; i < 3; i++) cursors.push((await post(srv, { query: 'select id from t1 order by id', fetch_size: 3, keep_alive: '1m' })).json.cursor);
    expect((await post(srv, { cursor: cursors[0] }, '/_plugins/_sql/close')).status).toBe(200);
    expect((await post(srv, { cursor: cursors[1] }, '/_plugins/_sql/close')).status).toBe(200);
    const full = await post(srv, { cursor: cursors[2] }, '/_plugins/_sql/close');
    expect(full.status).toBe(429);
    expect(full.json.error.type).toBe('TooManyClosedException');
    expect((await post(srv, { cursor: cursors[0] })).status).toBe(400); // still revoked
    expect(await selectOne(srv)).toEqual([[1]]);
    now += 61_000; // the first two sessions have ended by themselves
    expect((await post(srv, { cursor: cursors[2] }, '/_plugins/_sql/close')).status).toBe(200);
    expect(revocations.size).toBe(1);
  });
});

describe('cursors bound to the definitions they read', () => {
  it('a view redefined to read other data makes its cursor stale (400); a new query pages the new data', async () => {
    const db = await fixtureDb();
    await db.query('create view v as select id, v from t1');
    const srv = await serve(db);
    const p1 = await post(srv, { query: 'select * from v order by id', fetch_size: 4 });
    expect(p1.json.datarows[0]).toEqual([1, 'one-1']);
    await db.query('create or replace view v as select id, v from t2');
    const r = await post(srv, { cursor: p1.json.cursor });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ type: 'CursorStaleException', reason: 'Invalid Query' });
    expect(r.json.error.details).toMatch(/^table or view "v" was redefined since this cursor was issued\. /);
    const fresh = await post(srv, { query: 'select * from v order by id', fetch_size: 4 });
    expect(fresh.json.datarows[0]).toEqual([1, 'two-1']);
    expect(await selectOne(srv)).toEqual([[1]]);
  });

  it('follows views into views, subqueries and joins', async () => {
    const db = await fixtureDb();
    await db.query('create view inner_v as select id, v from t1');
    await db.query('create view outer_v as select id from inner_v where id > 0');
    const srv = await serve(db);
    const viaView = await post(srv, { query: 'select * from outer_v order by id', fetch_size: 3 });
    const viaSubquery = await post(srv, { query: 'select id from t2 where id in (select id from inner_v) order by id', fetch_size: 3 });
    await db.query('create or replace view inner_v as select id, v from t2');
    expect((await post(srv, { cursor: viaView.json.cursor })).json.error.details).toMatch(/^table or view "inner_v" was redefined since this cursor was issued/);
    expect((await post(srv, { cursor: viaSubquery.json.cursor })).json.error.type).toBe('CursorStaleException');
  });

  it('a table dropped, or recreated with other columns, makes the cursor stale; rows written between pages do not', async () => {
    const db = await fixtureDb();
    const srv = await serve(db, { allowWrites: true });
    const live = await post(srv, { query: 'select id, v from t1 order by id', fetch_size: 3 });
    await post(srv, { query: "insert into t1 values (0, 'zero'), (11, 'eleven')" });
    await post(srv, { query: 'delete from t1 where id = 5' });
    let page = await post(srv, { cursor: live.json.cursor });
    const ids: number[] = page.json.datarows.map((r: unknown[]) => r[0]);
    while (page.json.cursor) {
      page = await post(srv, { cursor: page.json.cursor });
      ids.push(...page.json.datarows.map((r: unknown[]) => r[0]));
    }
    expect(ids).toEqual([4, 6, 7, 8, 9, 10, 11]);

    const p1 = await post(srv, { query: 'select id, v from t2 order by id', fetch_size: 3 });
    await post(srv, { query: 'drop table t2' });
    await post(srv, { query: 'create table t2 (id bigint primary key, v text)' });
    const r = await post(srv, { cursor: p1.json.cursor });
    expect(r.status).toBe(400);
    expect(r.json.error.details).toMatch(/^table or view "t2" was redefined since this cursor was issued/);
    await post(srv, { query: 'drop table t2' });
    expect((await post(srv, { cursor: p1.json.cursor })).json.error.details).toMatch(/^table or view "t2" was dropped since this cursor was issued/);
    expect(await selectOne(srv)).toEqual([[1]]);
  });

  it('an unchanged table keeps paging across a restart with the same secret', async () => {
    const first = await serve(await fixtureDb());
    const p1 = await post(first, { query: 'select id, v from t1 order by id', fetch_size: 4 });
    await first.close();
    servers.splice(servers.indexOf(first), 1);
    const again = await serve(await fixtureDb()); // a new process would load the same data
    const p2 = await post(again, { cursor: p1.json.cursor });
    expect(p2.json).toMatchObject({ status: 200 });
    expect(p2.json.datarows.map((r: unknown[]) => r[0])).toEqual([5, 6, 7, 8]);
    // The same after a redefinition that ends where it started (the digest is of the definition).
    const db = await fixtureDb();
    await db.query('create view v as select id from t1');
    const third = await serve(db);
    const q1 = await post(third, { query: 'select id from v order by id', fetch_size: 4 });
    await db.query('create or replace view v as select id from t2');
    await db.query('create or replace view v as select id from t1');
    expect((await post(third, { cursor: q1.json.cursor })).status).toBe(200);
  });

  it('a cursor from before sessions and definitions were signed into it is stale, not accepted', async () => {
    const db = await fixtureDb();
    const codec = new CursorCodec({ keys: SECRET });
    const pager = new Pager(db, { codec });
    const page = await pager.first('select id from t1 order by id', { fetchSize: 3 });
    const payload = codec.decode(page.cursor!);
    delete payload.n;
    delete payload.t;
    delete payload.rv;
    const old = codec.encode(payload as { exp: number } & Record<string, unknown>);
    await expect(pager.next(old)).rejects.toMatchObject({ kind: 'CursorStale', message: 'cursor was issued by an earlier version of this server' });
    await expect(pager.close(old)).resolves.toBeUndefined();
  });
});
