/**
 * Two transactions that change different rows of one table both commit, as in PostgreSQL: the
 * second COMMIT (and, under READ COMMITTED, its next statement) merges its changes row by row over
 * what the first committed instead of failing with 40001. A row both changed still conflicts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { scratchDirs } from '../persist/scratch-dirs.js';

const { fresh } = scratchDirs('quire-row-merge-');

let db: Database;

async function setup(rows = 3, path?: string): Promise<void> {
  db = await Database.create(path === undefined ? {} : { path });
  await db.query('CREATE TABLE acct (id int PRIMARY KEY, bal int)');
  await db.query(`INSERT INTO acct SELECT i, i * 10 FROM generate_series(1, ${rows}) i`);
}

afterEach(async () => {
  await db.close();
});

async function all(s: Database = db): Promise<unknown[][]> {
  return (await s.query('SELECT id, bal FROM acct ORDER BY id')).rows;
}

describe('row-level merge at COMMIT', () => {
  it('READ COMMITTED: two open transactions update different rows, both commit', async () => {
    await setup();
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query('UPDATE acct SET bal = bal + 1 WHERE id = 1');
    await b.query('UPDATE acct SET bal = bal + 2 WHERE id = 2');
    await b.query('COMMIT');
    await a.query('COMMIT');
    expect(await all()).toEqual([[1, 11], [2, 22], [3, 30]]);
  });

  it('a DELETE and an UPDATE of other rows, and rows inserted meanwhile, all survive', async () => {
    await setup();
    const a = db.connect();
    await a.query('BEGIN');
    await a.query('DELETE FROM acct WHERE id = 1');
    await a.query('INSERT INTO acct VALUES (10, 100)');
    await db.query('UPDATE acct SET bal = 0 WHERE id = 3');
    await db.query('INSERT INTO acct VALUES (4, 40)');
    await db.query('DELETE FROM acct WHERE id = 2');
    await a.query('COMMIT');
    expect(await all()).toEqual([[3, 0], [4, 40], [10, 100]]);
  });

  it("READ COMMITTED: the next statement sees others' committed changes over its own, and writes again", async () => {
    await setup();
    const a = db.connect();
    await a.query('BEGIN');
    await a.query('UPDATE acct SET bal = -1 WHERE id = 1');
    await db.query('UPDATE acct SET bal = 99 WHERE id = 2');
    expect(await all(a)).toEqual([[1, -1], [2, 99], [3, 30]]);
    await a.query('UPDATE acct SET bal = bal + 1 WHERE id = 2');
    await a.query('UPDATE acct SET bal = -3 WHERE id = 3');
    expect(await all()).toEqual([[1, 10], [2, 99], [3, 30]]);
    await a.query('COMMIT');
    expect(await all()).toEqual([[1, -1], [2, 100], [3, -3]]);
  });

  it('REPEATABLE READ: different rows commit; the snapshot does not move meanwhile', async () => {
    await setup();
    const a = db.connect();
    await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await a.query('UPDATE acct SET bal = 1 WHERE id = 1');
    await db.query('UPDATE acct SET bal = 2 WHERE id = 2');
    expect(await all(a)).toEqual([[1, 1], [2, 20], [3, 30]]);
    await a.query('COMMIT');
    expect(await all()).toEqual([[1, 1], [2, 2], [3, 30]]);
  });

  it('REPEATABLE READ: an UPDATE of a row another transaction changed fails with 40001; of another row it goes on', async () => {
    await setup();
    const a = db.connect();
    await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    expect(await all(a)).toEqual([[1, 10], [2, 20], [3, 30]]);
    await db.query('UPDATE acct SET bal = 7 WHERE id = 1');
    await a.query('UPDATE acct SET bal = 5 WHERE id = 3');
    await a.query('DELETE FROM acct WHERE id = 2');
    await expect(a.query('UPDATE acct SET bal = 1 WHERE id = 1')).rejects.toMatchObject({ code: '40001' });
    await a.query('ROLLBACK');
    const b = db.connect();
    await b.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    expect(await all(b)).toEqual([[1, 7], [2, 20], [3, 30]]);
    await db.query('DELETE FROM acct WHERE id = 3');
    await b.query('UPDATE acct SET bal = 8 WHERE id = 2');
    await expect(b.query('DELETE FROM acct WHERE id = 3')).rejects.toMatchObject({ code: '40001' });
    await b.query('ROLLBACK');
    expect(await all()).toEqual([[1, 7], [2, 20]]);
  });

  it('a key both transactions set: the second UPDATE waits for the first, then fails with 23505', async () => {
    await setup();
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query('UPDATE acct SET id = 10 WHERE id = 1');
    let settled = false;
    const second = b.query('UPDATE acct SET id = 10 WHERE id = 2').finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 60));
    expect(settled).toBe(false);
    await a.query('COMMIT');
    await expect(second).rejects.toMatchObject({ code: '23505' });
    await b.query('ROLLBACK');
    expect(await all()).toEqual([[2, 20], [3, 30], [10, 10]]);
  });

  it('many rows over several batches: each session changes its own rows, all commit, nothing lost', async () => {
    await setup(20000);
    const sessions = Array.from({ length: 6 }, () => db.connect());
    for (const s of sessions) await s.query('BEGIN');
    // Session k changes rows with id % 6 = k (spread over every batch), in two statements.
    for (let k = 0; k < sessions.length; k++) await sessions[k]!.query(`UPDATE acct SET bal = bal + 1 WHERE id % 6 = ${k} AND id < 10000`);
    for (let k = 0; k < sessions.length; k++) await sessions[k]!.query(`UPDATE acct SET bal = bal + 1 WHERE id % 6 = ${k} AND id >= 10000`);
    await sessions[2]!.query('DELETE FROM acct WHERE id % 6 = 2 AND id % 5 = 0');
    await sessions[4]!.query('INSERT INTO acct SELECT i, 0 FROM generate_series(20001, 20100) i');
    for (const k of [3, 0, 5, 1, 4, 2]) await sessions[k]!.query('COMMIT');
    const r = (await db.query('SELECT count(*), sum(bal), sum(id) FROM acct')).rows[0]!;
    const deleted = Array.from({ length: 20000 }, (_, i) => i + 1).filter((i) => i % 6 === 2 && i % 5 === 0);
    const kept = 20000 - deleted.length;
    const sumBal = Array.from({ length: 20000 }, (_, i) => i + 1)
      .filter((i) => !(i % 6 === 2 && i % 5 === 0))
      .reduce((s, i) => s + i * 10 + 1, 0);
    // The rows inserted by session 4 are not the DELETE's: it ran on rows that were there.
    const sumId = Array.from({ length: 20000 }, (_, i) => i + 1)
      .filter((i) => !(i % 6 === 2 && i % 5 === 0))
      .reduce((s, i) => s + i, 0) + (20001 + 20100) * 50;
    expect(r.map(Number)).toEqual([kept + 100, sumBal, sumId]);
  });

  it('a row locked by a third transaction stays locked after the merge moves it', async () => {
    await setup();
    const a = db.connect();
    const c = db.connect();
    await a.query('BEGIN');
    await a.query('UPDATE acct SET bal = 0 WHERE id = 1');
    await db.query('UPDATE acct SET bal = 0 WHERE id = 2');
    await c.query('BEGIN');
    await c.query('SELECT * FROM acct WHERE id = 3 FOR UPDATE');
    await a.query('COMMIT');
    const d = db.connect();
    await d.query('BEGIN');
    await expect(d.query('SELECT * FROM acct WHERE id = 3 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await d.query('ROLLBACK');
    await c.query('COMMIT');
    expect(await all()).toEqual([[1, 0], [2, 0], [3, 30]]);
  });

  it('in a database directory, the merged commit is what a reopen reads', async () => {
    const dir = fresh();
    await setup(3, dir);
    const a = db.connect();
    await a.query('BEGIN');
    await a.query('UPDATE acct SET bal = 1 WHERE id = 1');
    await db.query('UPDATE acct SET bal = 2 WHERE id = 2');
    await a.query('COMMIT');
    const before = await all();
    await db.close();
    db = await Database.create({ path: dir });
    expect(await all()).toEqual(before);
    expect(before).toEqual([[1, 1], [2, 2], [3, 30]]);
  });

  it('random interleavings: sessions owning disjoint rows update, delete, insert, commit or roll back; the result is their committed work', async () => {
    for (const seed of [1, 2, 3]) {
      await db?.close();
      await setup(300);
      let r = seed;
      const rnd = (n: number): number => {
        r = (Math.imul(r, 1103515245) + 12345) >>> 0;
        return r % n;
      };
      const K = 4;
      const sessions = Array.from({ length: K }, () => db.connect());
      // The model: id -> bal for committed rows; each session's pending changes.
      const model = new Map<number, number>(Array.from({ length: 300 }, (_, i) => [i + 1, (i + 1) * 10]));
      const pending: (Map<number, number | null> | null)[] = sessions.map(() => null);
      let nextId = 1000;
      for (let step = 0; step < 120; step++) {
        const k = rnd(K);
        const s = sessions[k]!;
        if (pending[k] === null) {
          await s.query(rnd(2) === 0 ? 'BEGIN' : 'BEGIN ISOLATION LEVEL REPEATABLE READ');
          pending[k] = new Map();
        }
        const mine = pending[k]!;
        const op = rnd(10);
        const view = (id: number): number | null | undefined => (mine.has(id) ? mine.get(id) : model.get(id));
        if (op < 4) {
          const lo = 1 + rnd(300);
          await s.query(`UPDATE acct SET bal = bal + ${k + 1} WHERE id % ${K} = ${k} AND id BETWEEN ${lo} AND ${lo + 40}`);
          for (let id = lo; id <= lo + 40; id++) {
            const v = view(id);
            if (id % K === k && v !== null && v !== undefined) mine.set(id, v + k + 1);
          }
        } else if (op < 6) {
          const id = k + K * rnd(75);
          await s.query(`DELETE FROM acct WHERE id = ${id}`);
          if (view(id) !== undefined && view(id) !== null) mine.set(id, null);
        } else if (op < 7) {
          const id = nextId++ * K + k;
          await s.query(`INSERT INTO acct VALUES (${id}, 1)`);
          mine.set(id, 1);
        } else if (op < 9) {
          await s.query('COMMIT');
          for (const [id, v] of mine) {
            if (v === null) model.delete(id);
            else model.set(id, v);
          }
          pending[k] = null;
        } else {
          await s.query('ROLLBACK');
          pending[k] = null;
        }
      }
      for (let k = 0; k < K; k++) if (pending[k] !== null) await sessions[k]!.query('ROLLBACK');
      const want = [...model].sort((x, y) => x[0] - y[0]);
      expect(await all(), `seed ${seed}`).toEqual(want);
    }
  });
});
