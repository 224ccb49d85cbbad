/**
 * SELECT … FOR UPDATE/SHARE between sessions: a locked row makes another transaction's UPDATE,
 * DELETE or FOR UPDATE wait until the lock holder ends (then it runs on what was committed, so no
 * update is lost), NOWAIT refuses (55P03), SKIP LOCKED leaves the row out, the four strengths
 * conflict as PostgreSQL's table says, two waits in a circle fail with 40P01, waiting obeys
 * statement_timeout, and a read-only session refuses row locks like a write (25006). The same
 * wait is checked through two PostgreSQL-protocol clients.
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { startPgServer, type PgServer } from '../../src/server/pgwire/index.js';
import { pending } from '../harness/waits.js';

let db: Database;

beforeAll(async () => {
  db = await Database.create();
});

beforeEach(async () => {
  await db.query('DROP TABLE IF EXISTS acct');
  await db.query('CREATE TABLE acct (id int PRIMARY KEY, bal int)');
  await db.query('INSERT INTO acct VALUES (1, 100), (2, 50), (3, 10)');
});

async function rows(s: Database, sql: string): Promise<unknown[][]> {
  return (await s.query(sql)).rows;
}

describe('row locks between library sessions', () => {
  it('UPDATE of a row locked FOR UPDATE waits for the holder, then applies to the committed row (no lost update)', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    expect(await rows(a, 'SELECT bal FROM acct WHERE id = 1 FOR UPDATE')).toEqual([[100]]);
    const upd = b.query('UPDATE acct SET bal = bal + 1 WHERE id = 1');
    expect(await pending(upd)).toBe(true);
    await a.query('UPDATE acct SET bal = bal - 30 WHERE id = 1');
    await a.query('COMMIT');
    expect((await upd).rowCount).toBe(1);
    // Both changes survive: B ran again on A's committed row.
    expect(await rows(db, 'SELECT bal FROM acct WHERE id = 1')).toEqual([[71]]);
  });

  it('locks rows, not tables: other rows are updated at once; ROLLBACK releases the lock', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 1 FOR UPDATE');
    expect((await b.query('UPDATE acct SET bal = 0 WHERE id = 2')).rowCount).toBe(1);
    const del = b.query('DELETE FROM acct WHERE id = 1');
    expect(await pending(del)).toBe(true);
    await a.query('ROLLBACK');
    expect((await del).rowCount).toBe(1);
    expect(await rows(db, 'SELECT id, bal FROM acct ORDER BY id')).toEqual([
      [2, 0],
      [3, 10],
    ]);
  });

  it('NOWAIT refuses a locked row with 55P03; SKIP LOCKED leaves it out', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 2 FOR UPDATE');
    await b.query('BEGIN');
    await expect(b.query('SELECT * FROM acct FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03', message: 'could not obtain lock on row in relation "acct"' });
    await b.query('ROLLBACK');
    await b.query('BEGIN');
    expect(await rows(b, 'SELECT id FROM acct ORDER BY id FOR UPDATE SKIP LOCKED')).toEqual([[1], [3]]);
    // B now holds rows 1 and 3: A's NOWAIT on them fails the same way.
    await expect(a.query('SELECT id FROM acct WHERE id = 3 FOR SHARE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await a.query('ROLLBACK');
    await b.query('COMMIT');
  });

  it('SKIP LOCKED with LIMIT: the job-queue query hands each worker the next rows no one holds', async () => {
    await db.query('CREATE TABLE IF NOT EXISTS jobs (id int, done bool)');
    await db.query('DELETE FROM jobs');
    await db.query('INSERT INTO jobs SELECT i, i % 5 = 0 FROM generate_series(1, 12) i');
    const take = "SELECT id FROM jobs WHERE NOT done ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED";
    const workers = [db.connect(), db.connect(), db.connect()];
    for (const w of workers) await w.query('BEGIN');
    // The limit counts only rows this worker locked: rows the others hold are passed over, not counted.
    expect(await rows(workers[0]!, take)).toEqual([[1], [2]]);
    expect(await rows(workers[1]!, take)).toEqual([[3], [4]]);
    expect(await rows(workers[2]!, take)).toEqual([[6], [7]]);
    // Rows past the limit were not locked: a fourth worker still gets 8 and 9.
    const fourth = db.connect();
    expect(await rows(fourth, 'SELECT id FROM jobs WHERE id IN (8, 9) ORDER BY id FOR UPDATE NOWAIT')).toEqual([[8], [9]]);
    await fourth.query('ROLLBACK');
    // OFFSET passes over locked rows too (and keeps the rows it skipped locked, as PostgreSQL's Limit over LockRows does).
    await workers[0]!.query('COMMIT');
    expect(await rows(workers[0]!, "SELECT id FROM jobs WHERE NOT done ORDER BY id LIMIT 1 OFFSET 1 FOR UPDATE SKIP LOCKED")).toEqual([[2]]);
    await workers[1]!.query('UPDATE jobs SET done = true WHERE id IN (3, 4)');
    await workers[1]!.query('COMMIT');
    // Parameters give the limit; a LIMIT past what is free returns what is free; LIMIT 0 locks nothing.
    const w = db.connect();
    await w.query('BEGIN');
    expect((await w.execute('SELECT id FROM jobs WHERE NOT done ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED', [10])).at(-1)!.rows).toEqual([[1], [2], [8], [9], [11], [12]]);
    await w.query('ROLLBACK');
    await w.query('BEGIN');
    expect(await rows(w, 'SELECT id FROM jobs ORDER BY id LIMIT 0 FOR UPDATE SKIP LOCKED')).toEqual([]);
    expect(await rows(workers[0]!, 'SELECT id FROM jobs WHERE id = 1 FOR UPDATE NOWAIT')).toEqual([[1]]);
    await expect(w.query('SELECT id FROM jobs ORDER BY id LIMIT -1 FOR UPDATE SKIP LOCKED')).rejects.toMatchObject({ code: '2201W' });
    await w.query('ROLLBACK');
    expect(((await db.query(`EXPLAIN (COSTS OFF) ${take}`)).rows as string[][]).map((r) => r[0])).toEqual([
      'Limit',
      '  ->  LockRows',
      '        ->  Sort',
      '              Sort Key: id',
      '              ->  Seq Scan on jobs',
      '                    Filter: (NOT done)',
    ]);
    for (const x of [...workers, w]) await x.query('ROLLBACK').catch(() => undefined);
  });

  it('SKIP LOCKED past a long run of held rows reads further until the limit is filled', async () => {
    await db.query('DROP TABLE IF EXISTS q2');
    await db.query('CREATE TABLE q2 (id int)');
    await db.query('INSERT INTO q2 SELECT i FROM generate_series(1, 2000) i');
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    expect((await a.query('SELECT id FROM q2 ORDER BY id LIMIT 1500 FOR UPDATE SKIP LOCKED')).rows.length).toBe(1500);
    await b.query('BEGIN');
    // The first reads (a few times the ten wanted) find only rows A holds; the statement reads on.
    expect(await rows(b, 'SELECT id FROM q2 ORDER BY id LIMIT 10 OFFSET 2 FOR UPDATE SKIP LOCKED')).toEqual(Array.from({ length: 10 }, (_, i) => [1503 + i]));
    expect(await rows(b, 'SELECT id FROM q2 ORDER BY id DESC LIMIT 3 FOR UPDATE SKIP LOCKED')).toEqual([[2000], [1999], [1998]]);
    await a.query('ROLLBACK');
    await b.query('ROLLBACK');
  });

  it('FOR UPDATE with OFFSET locks the rows OFFSET passes over, as PostgreSQL’s Limit over LockRows does', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 1 FOR UPDATE');
    await b.query('BEGIN');
    // Row 1 is passed over by OFFSET but still locked on the way: NOWAIT fails, a wait waits.
    await expect(b.query('SELECT id FROM acct ORDER BY id OFFSET 1 LIMIT 1 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await b.query('ROLLBACK');
    await b.query('BEGIN');
    const waiting = b.query('SELECT id, bal FROM acct ORDER BY id OFFSET 1 LIMIT 1 FOR UPDATE');
    expect(await pending(waiting)).toBe(true);
    await a.query('UPDATE acct SET bal = 0 WHERE id = 2');
    await a.query('COMMIT');
    // It ran again on what A committed.
    expect((await waiting).rows).toEqual([[2, 0]]);
    // And now holds rows 1 and 2, not 3.
    await a.query('BEGIN');
    await expect(a.query('SELECT * FROM acct WHERE id = 1 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await a.query('ROLLBACK');
    await a.query('BEGIN');
    expect(await rows(a, 'SELECT id FROM acct WHERE id = 3 FOR UPDATE NOWAIT')).toEqual([[3]]);
    await a.query('ROLLBACK');
    await b.query('COMMIT');
  });

  it('strengths conflict as in PostgreSQL: SHARE with SHARE and KEY SHARE with a non-key UPDATE do not', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 1 FOR SHARE');
    expect(await rows(b, 'SELECT id FROM acct WHERE id = 1 FOR SHARE NOWAIT')).toEqual([[1]]);
    await expect(b.query('SELECT id FROM acct WHERE id = 1 FOR NO KEY UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await a.query('ROLLBACK');
    await b.query('ROLLBACK');

    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 1 FOR KEY SHARE');
    // Not changing a key column: FOR NO KEY UPDATE strength, compatible with KEY SHARE.
    expect((await b.query('UPDATE acct SET bal = 1 WHERE id = 1')).rowCount).toBe(1);
    // Changing the primary key needs FOR UPDATE strength: waits.
    const keyUpd = b.query('UPDATE acct SET id = 9 WHERE id = 1');
    expect(await pending(keyUpd)).toBe(true);
    await a.query('COMMIT');
    expect((await keyUpd).rowCount).toBe(1);
    expect(await rows(db, 'SELECT id, bal FROM acct ORDER BY id')).toEqual([
      [2, 50],
      [3, 10],
      [9, 1],
    ]);
  });

  it('a FOR UPDATE waits for a FOR UPDATE and returns the row as committed', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 3 FOR UPDATE');
    const sel = b.query('SELECT bal FROM acct WHERE id = 3 FOR UPDATE');
    expect(await pending(sel)).toBe(true);
    await a.query('UPDATE acct SET bal = 11 WHERE id = 3');
    await a.query('COMMIT');
    expect((await sel).rows).toEqual([[11]]);
    await b.query('COMMIT');
  });

  it('a cursor FOR UPDATE locks the rows it reads', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('DECLARE c CURSOR FOR SELECT * FROM acct ORDER BY id FOR UPDATE');
    await a.query('FETCH 1 FROM c');
    await expect(b.query('SELECT * FROM acct WHERE id = 1 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await a.query('UPDATE acct SET bal = bal * 2 WHERE CURRENT OF c');
    await a.query('COMMIT');
    expect(await rows(b, 'SELECT bal FROM acct WHERE id = 1 FOR UPDATE NOWAIT')).toEqual([[200]]);
  });

  it('WHERE CURRENT OF finds its row after another session committed a change to a neighbouring row', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('DECLARE c CURSOR FOR SELECT * FROM acct');
    expect((await a.query('FETCH 1 FROM c')).rows).toEqual([[1, 100]]);
    // B rewrites the batch row 1 lives in; A (READ COMMITTED) sees B's commit at its next statement.
    await b.query('UPDATE acct SET bal = 0 WHERE id = 2');
    expect((await a.query('UPDATE acct SET bal = bal + 1 WHERE CURRENT OF c RETURNING *')).rows).toEqual([[1, 101]]);
    await a.query('COMMIT');
    expect(await rows(db, 'SELECT id, bal FROM acct ORDER BY id')).toEqual([
      [1, 101],
      [2, 0],
      [3, 10],
    ]);
  });

  it('EXPLAIN DECLARE shows the cursor query plan; pg_cursors shows each session its own cursors', async () => {
    const a = db.connect();
    const b = db.connect();
    const plan = (await a.query('EXPLAIN (FORMAT QUIRE) SELECT id FROM acct WHERE bal > 20')).rows;
    expect((await a.query('EXPLAIN (FORMAT QUIRE) DECLARE c CURSOR FOR SELECT id FROM acct WHERE bal > 20')).rows).toEqual(plan);
    const analyzed = (await a.query('EXPLAIN ANALYZE DECLARE c SCROLL CURSOR FOR SELECT id FROM acct WHERE bal > 20')).rows.map((r) => String(r[0]));
    expect(analyzed.some((l) => /rows/.test(l))).toBe(true);
    // EXPLAIN declares nothing.
    expect(await rows(a, 'SELECT count(*) FROM pg_cursors')).toEqual([[0]]);
    const before = Date.now();
    await a.query('BEGIN');
    await a.query('DECLARE mine SCROLL CURSOR FOR SELECT * FROM acct');
    const r = await rows(a, 'SELECT name, is_holdable, is_scrollable, creation_time FROM pg_cursors');
    expect(r.map((x) => x.slice(0, 3))).toEqual([['mine', false, true]]);
    // timestamptz: microseconds since 1970.
    const created = Number(r[0]![3]) / 1000;
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(Date.now());
    expect(await rows(b, 'SELECT name FROM pg_cursors')).toEqual([]);
    await a.query('ROLLBACK');
    expect(await rows(a, 'SELECT name FROM pg_cursors')).toEqual([]);
  });

  it('two transactions waiting for each other: deadlock detected (40P01)', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 1 FOR UPDATE');
    await b.query('SELECT * FROM acct WHERE id = 2 FOR UPDATE');
    const aWaits = a.query('UPDATE acct SET bal = 0 WHERE id = 2');
    expect(await pending(aWaits)).toBe(true);
    await expect(b.query('UPDATE acct SET bal = 0 WHERE id = 1')).rejects.toMatchObject({ code: '40P01' });
    await b.query('ROLLBACK');
    expect((await aWaits).rowCount).toBe(1);
    await a.query('COMMIT');
  });

  it('waiting for a lock obeys statement_timeout and cancel', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 1 FOR UPDATE');
    await b.query("SET statement_timeout = '150ms'");
    await expect(b.query('UPDATE acct SET bal = 0 WHERE id = 1')).rejects.toMatchObject({ code: '57014' });
    await b.query('RESET statement_timeout');
    const ac = new AbortController();
    const p = b.query('DELETE FROM acct WHERE id = 1', [], { signal: ac.signal });
    expect(await pending(p)).toBe(true);
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: '57014' });
    await a.query('ROLLBACK');
    expect(await rows(db, 'SELECT bal FROM acct WHERE id = 1')).toEqual([[100]]);
  });

  it('a read-only session refuses row locks like a write (25006)', async () => {
    const ro = db.connect({ access: { allowWrites: false } });
    expect(await rows(ro, 'SELECT count(*) FROM acct')).toEqual([[3]]);
    await expect(ro.query('SELECT * FROM acct FOR UPDATE')).rejects.toMatchObject({ code: '25006', message: 'cannot execute SELECT FOR UPDATE in a read-only transaction' });
    await expect(ro.query('SELECT * FROM (SELECT * FROM acct FOR KEY SHARE) s')).rejects.toMatchObject({ code: '25006', message: 'cannot execute SELECT FOR KEY SHARE in a read-only transaction' });
    await ro.query('BEGIN');
    await expect(ro.query('DECLARE c CURSOR FOR SELECT * FROM acct FOR SHARE')).rejects.toMatchObject({ code: '25006' });
    await ro.query('ROLLBACK');
  });
});

describe('row locks over the PostgreSQL protocol', () => {
  let server: PgServer;
  let roServer: PgServer;
  beforeAll(async () => {
    server = await startPgServer(db, { port: 0, allowWrites: true });
    roServer = await startPgServer(db, { port: 0, allowWrites: false });
  });
  afterAll(async () => {
    await server.close();
    await roServer.close();
  });

  async function client(port: number): Promise<pg.Client> {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'locks', database: 'quire' });
    await c.connect();
    return c;
  }

  it('UPDATE waits for a FOR UPDATE of another connection; extended-protocol FOR UPDATE returns its rows', async () => {
    const a = await client(server.port);
    const b = await client(server.port);
    try {
      await a.query('BEGIN');
      const locked = await a.query({ text: 'SELECT id, bal FROM acct WHERE id = $1 FOR UPDATE', values: [2], rowMode: 'array' });
      expect(locked.rows).toEqual([[2, 50]]);
      const upd = b.query('UPDATE acct SET bal = bal + 5 WHERE id = 2');
      expect(await pending(upd)).toBe(true);
      await a.query('UPDATE acct SET bal = bal * 2 WHERE id = 2');
      await a.query('COMMIT');
      expect((await upd).rowCount).toBe(1);
      expect((await b.query({ text: 'SELECT bal FROM acct WHERE id = 2', rowMode: 'array' })).rows).toEqual([[105]]);
      await b.query('BEGIN');
      await b.query('SELECT * FROM acct WHERE id = 3 FOR SHARE');
      await expect(a.query('SELECT * FROM acct WHERE id = 3 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
      await b.query('COMMIT');
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('a read-only server refuses SELECT … FOR UPDATE with 25006', async () => {
    const c = await client(roServer.port);
    try {
      await expect(c.query('SELECT * FROM acct FOR UPDATE')).rejects.toMatchObject({ code: '25006' });
      await expect(c.query({ text: 'SELECT * FROM acct WHERE id = $1 FOR NO KEY UPDATE', values: [1] })).rejects.toMatchObject({ code: '25006' });
      expect((await c.query('SELECT count(*) AS n FROM acct')).rows).toEqual([{ n: '3' }]);
    } finally {
      await c.end();
    }
  });
});
