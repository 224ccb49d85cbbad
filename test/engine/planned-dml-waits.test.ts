/**
 * UPDATE and DELETE as plans between sessions: a statement that meets another transaction's row lock
 * waits for it to end and is planned again on what was committed (RETURNING shows the re-run's rows),
 * plain statements and ones with FROM/USING, subqueries or WHERE CURRENT OF alike.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { pending } from '../harness/waits.js';

let db: Database;

beforeEach(async () => {
  db = await Database.create();
  await db.query('CREATE TABLE acct (id int PRIMARY KEY, bal int)');
  await db.query('CREATE TABLE fee (id int, amount int)');
  await db.query('INSERT INTO acct VALUES (1, 100), (2, 50), (3, 10)');
  await db.query('INSERT INTO fee VALUES (1, 5), (2, 7)');
});

async function rows(s: Database, sql: string): Promise<unknown[][]> {
  return (await s.query(sql)).rows;
}

describe('planned UPDATE/DELETE waiting on row locks', () => {
  it('plain UPDATE … RETURNING waits for the holder and returns the row recomputed on its commit', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 2 FOR UPDATE');
    const upd = b.query('UPDATE acct SET bal = bal * 2 WHERE id = 2 RETURNING id, bal');
    expect(await pending(upd)).toBe(true);
    await a.query('UPDATE acct SET bal = bal + 1 WHERE id = 2');
    await a.query('COMMIT');
    expect((await upd).rows).toEqual([[2, 102]]);
    expect(await rows(db, 'SELECT * FROM acct ORDER BY id')).toEqual([[1, 100], [2, 102], [3, 10]]);
  });

  it('UPDATE … FROM and DELETE with a subquery wait too, and run once the holder rolls back', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 1 FOR UPDATE');
    const upd = b.query('UPDATE acct SET bal = bal - fee.amount FROM fee WHERE fee.id = acct.id RETURNING acct.id, acct.bal');
    expect(await pending(upd)).toBe(true);
    await a.query('ROLLBACK');
    expect((await upd).rows.sort()).toEqual([
      [1, 95],
      [2, 43],
    ]);
    await a.query('BEGIN');
    await a.query('SELECT * FROM acct WHERE id = 3 FOR SHARE');
    const del = b.query('DELETE FROM acct WHERE bal < (SELECT max(amount) * 10 FROM fee) RETURNING id');
    expect(await pending(del)).toBe(true);
    await a.query('ROLLBACK');
    expect((await del).rows.map((r) => r[0]).sort()).toEqual([2, 3]);
    expect(await rows(db, 'SELECT * FROM acct')).toEqual([[1, 95]]);
  });

  it('WHERE CURRENT OF with FROM changes the cursor’s row and leaves other rows alone', async () => {
    const a = db.connect();
    await a.query('BEGIN');
    await a.query('DECLARE c CURSOR FOR SELECT id FROM acct ORDER BY id FOR UPDATE');
    await a.query('FETCH 2 FROM c');
    const sql = 'UPDATE acct SET bal = acct.bal + f.amount FROM (SELECT max(amount) AS amount FROM fee) f WHERE CURRENT OF c RETURNING acct.id, acct.bal';
    expect((await a.query(sql)).rows).toEqual([[2, 57]]);
    expect((await a.query('DELETE FROM acct USING fee WHERE CURRENT OF c RETURNING acct.id')).rows).toEqual([[2]]);
    await a.query('COMMIT');
    expect(await rows(db, 'SELECT * FROM acct ORDER BY id')).toEqual([[1, 100], [3, 10]]);
  });
});
