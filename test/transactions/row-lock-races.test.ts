/**
 * Writers of the same rows between sessions: an UPDATE or DELETE locks the rows it changes until its
 * transaction ends, so the next writer of one of them waits and then runs again on what was
 * committed (READ COMMITTED), as PostgreSQL does; no increment is lost and none fails with 40001
 * merely because two statements computed from the same version of a row.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { pause, pending } from '../harness/waits.js';

let db: Database;

beforeEach(async () => {
  db = await Database.create();
  await db.query('CREATE TABLE acct (id int PRIMARY KEY, bal int)');
  await db.query('INSERT INTO acct VALUES (1, 100), (2, 50), (3, 10)');
});

async function rows(s: Database, sql: string): Promise<unknown[][]> {
  return (await s.query(sql)).rows;
}

/** A predicate slow enough (a few hundred thousand rows counted) for other sessions to commit meanwhile. */
const SLOW = '(SELECT count(*) FROM generate_series(1, 400000) g WHERE g % 7 = 3) > 0';

describe('row locks of UPDATE and DELETE', () => {
  it('INSERT … ON CONFLICT DO UPDATE waits for an open transaction that changed the conflicting row, then applies to its result', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('INSERT INTO acct VALUES (2, 0) ON CONFLICT (id) DO UPDATE SET bal = acct.bal + 1');
    const ups = b.query('INSERT INTO acct VALUES (2, 0), (7, 70) ON CONFLICT (id) DO UPDATE SET bal = acct.bal * 2 RETURNING id, bal');
    expect(await pending(ups)).toBe(true);
    // A row nobody locked: no wait.
    expect((await db.query('INSERT INTO acct VALUES (3, 0) ON CONFLICT (id) DO UPDATE SET bal = 11 RETURNING bal')).rows).toEqual([[11]]);
    await a.query('COMMIT');
    expect((await ups).rows).toEqual([[2, 102], [7, 70]]);
    // The lock holder deleted the row: the waiting upsert inserts it instead.
    await a.query('BEGIN');
    await a.query('DELETE FROM acct WHERE id = 1');
    const ins = b.query('INSERT INTO acct VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET bal = -1 RETURNING bal');
    expect(await pending(ins)).toBe(true);
    await a.query('COMMIT');
    expect((await ins).rows).toEqual([[5]]);
    expect(await rows(db, 'SELECT * FROM acct ORDER BY id')).toEqual([[1, 5], [2, 102], [3, 11], [7, 70]]);
  });

  it('an UPDATE waits for an open transaction that updated the same row, then applies to its result', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('UPDATE acct SET bal = bal + 1 WHERE id = 2');
    const upd = b.query('UPDATE acct SET bal = bal * 2 WHERE id = 2 RETURNING bal');
    expect(await pending(upd)).toBe(true);
    // Another row of the same table is not locked.
    const c = db.connect();
    await c.query('BEGIN');
    expect((await c.query('UPDATE acct SET bal = 0 WHERE id = 3')).rowCount).toBe(1);
    await c.query('ROLLBACK');
    await a.query('COMMIT');
    expect((await upd).rows).toEqual([[102]]);
    expect(await rows(db, 'SELECT * FROM acct ORDER BY id')).toEqual([[1, 100], [2, 102], [3, 10]]);
  });

  it('a DELETE waits for an UPDATE of its row and deletes nothing when the new version no longer matches', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('UPDATE acct SET bal = 5 WHERE id = 1');
    const del = b.query('DELETE FROM acct WHERE bal > 20 RETURNING id');
    expect(await pending(del)).toBe(true);
    await a.query('COMMIT');
    expect((await del).rows).toEqual([[2]]);
    expect(await rows(db, 'SELECT * FROM acct ORDER BY id')).toEqual([[1, 5], [3, 10]]);
  });

  it('a row lock holds when a commit fills the open batch the row is in', async () => {
    const a = db.connect();
    const b = db.connect();
    const c = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 2 FOR UPDATE');
    // One-row commits extend the table's open last batch: the locked row is now in a longer batch.
    await c.query('INSERT INTO acct VALUES (4, 1)');
    await c.query('INSERT INTO acct VALUES (5, 1)');
    const upd = b.query('UPDATE acct SET bal = bal + 10 WHERE id = 2');
    expect(await pending(upd)).toBe(true);
    await expect(b.connect().query('SELECT * FROM acct WHERE id = 2 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await a.query('UPDATE acct SET bal = 51 WHERE id = 2');
    await a.query('COMMIT');
    await upd;
    expect(await rows(db, 'SELECT bal FROM acct WHERE id = 2')).toEqual([[61]]);
  });

  it('an UPDATE whose row was changed and committed while it ran runs again instead of failing with 40001', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 2 FOR UPDATE');
    const upd = b.query(`UPDATE acct SET bal = bal * 2 WHERE id = 2 AND ${SLOW} RETURNING bal`);
    await pause(1);
    await a.query('UPDATE acct SET bal = bal + 1 WHERE id = 2');
    await a.query('COMMIT');
    expect((await upd).rows).toEqual([[102]]);
    const del = b.query(`DELETE FROM acct WHERE bal > 60 AND ${SLOW} RETURNING id`);
    await pause(1);
    await a.query('UPDATE acct SET bal = 0 WHERE id = 1');
    expect((await del).rows).toEqual([[2]]);
    expect(await rows(db, 'SELECT * FROM acct ORDER BY id')).toEqual([[1, 0], [3, 10]]);
  });

  it('REPEATABLE READ: an UPDATE of a row another transaction changed and committed fails with 40001', async () => {
    const a = db.connect();
    const b = db.connect();
    await b.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    expect(await rows(b, 'SELECT bal FROM acct WHERE id = 2')).toEqual([[50]]);
    await a.query('UPDATE acct SET bal = 7 WHERE id = 2');
    await expect(b.query('UPDATE acct SET bal = bal + 1 WHERE id = 2')).rejects.toMatchObject({ code: '40001' });
    await b.query('ROLLBACK');
    expect(await rows(db, 'SELECT bal FROM acct WHERE id = 2')).toEqual([[7]]);
  });

  it('many sessions incrementing the same rows at once: the final values count every successful increment', async () => {
    await db.query('CREATE TABLE ctr (id int PRIMARY KEY, n int)');
    await db.query('INSERT INTO ctr SELECT g, 0 FROM generate_series(1, 200) g');
    const sessions = 12;
    const rounds = 15;
    let ok = 0;
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: sessions }, async (_, k) => {
        const s = db.connect();
        for (let r = 0; r < rounds; r++) {
          try {
            if ((k + r) % 3 === 0) {
              // An explicit transaction touching two hot rows and a wide range.
              await s.query('BEGIN');
              await s.query('UPDATE ctr SET n = n + 1 WHERE id = 1');
              await s.query('UPDATE ctr SET n = n + 1 WHERE id > 100');
              await s.query('COMMIT');
            } else {
              await s.query('UPDATE ctr SET n = n + 1 WHERE id = 1 OR id > 100');
            }
            ok++;
          } catch (e) {
            failures.push((e as { code?: string }).code ?? String(e));
            if (s.inAnyTransaction) await s.query('ROLLBACK');
          }
        }
      }),
    );
    // Every writer takes the rows in the same order: nothing deadlocks and nothing is lost.
    expect(failures).toEqual([]);
    expect(ok).toBe(sessions * rounds);
    expect(await rows(db, 'SELECT min(n), max(n), count(*) FROM ctr WHERE id = 1 OR id > 100')).toEqual([[ok, ok, 101]]);
    expect(await rows(db, 'SELECT count(*) FROM ctr WHERE id BETWEEN 2 AND 100 AND n <> 0')).toEqual([[0]]);
  });

  it('sessions taking hot rows in opposite orders: deadlocks fail with 40P01 and the counts match the commits', async () => {
    await db.query('CREATE TABLE ctr (id int PRIMARY KEY, n int)');
    await db.query('INSERT INTO ctr VALUES (1, 0), (2, 0)');
    let ok = 0;
    const codes = new Set<string>();
    await Promise.all(
      Array.from({ length: 8 }, async (_, k) => {
        const s = db.connect();
        const [x, y] = k % 2 === 0 ? [1, 2] : [2, 1];
        for (let r = 0; r < 10; r++) {
          try {
            await s.query('BEGIN');
            await s.query(`UPDATE ctr SET n = n + 1 WHERE id = ${x}`);
            await pause(1);
            await s.query(`UPDATE ctr SET n = n + 1 WHERE id = ${y}`);
            await s.query('COMMIT');
            ok++;
          } catch (e) {
            codes.add((e as { code?: string }).code ?? String(e));
            await s.query('ROLLBACK');
          }
        }
      }),
    );
    expect([...codes].filter((c) => c !== '40P01' && c !== '40001')).toEqual([]);
    expect(ok).toBeGreaterThan(0);
    expect(await rows(db, 'SELECT n FROM ctr ORDER BY id')).toEqual([[ok], [ok]]);
  });
});
