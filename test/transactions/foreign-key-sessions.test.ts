/**
 * Two sessions cannot together leave a child row without its parent. Quire takes no FOR KEY SHARE
 * lock on the parent row as PostgreSQL does; instead a COMMIT checks again the foreign keys between
 * a table it wrote and one another session changed since, so the second of the two to commit fails
 * with 23503 and applies nothing (README.md (FOREIGN KEY constraints)).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

let db: Database;

beforeEach(async () => {
  db = await Database.create();
  await db.query('CREATE TABLE p (id int PRIMARY KEY)');
  await db.query('CREATE TABLE c (id int, pid int REFERENCES p)');
  await db.query('INSERT INTO p VALUES (1), (2)');
});

async function orphans(): Promise<unknown[][]> {
  return (await db.query('SELECT c.id, c.pid FROM c LEFT JOIN p ON p.id = c.pid WHERE c.pid IS NOT NULL AND p.id IS NULL')).rows;
}

describe('foreign keys across sessions', () => {
  it('a child inserted in an open transaction fails at COMMIT when another session deleted its parent', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('INSERT INTO c VALUES (1, 1)');
    await b.query('DELETE FROM p WHERE id = 1');
    await expect(a.query('COMMIT')).rejects.toMatchObject({ code: '23503', detail: 'Key (pid)=(1) is not present in table "p".' });
    expect((await db.query('SELECT count(*) FROM c')).rows).toEqual([[0]]);
    expect(await orphans()).toEqual([]);
  });

  it('a parent deleted in an open transaction fails at COMMIT when another session inserted a child of it', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('DELETE FROM p WHERE id = 2');
    await b.query('INSERT INTO c VALUES (7, 2)');
    await expect(a.query('COMMIT')).rejects.toMatchObject({ code: '23503', message: 'update or delete on table "p" violates foreign key constraint "c_pid_fkey" on table "c"' });
    expect((await db.query('SELECT id FROM p ORDER BY id')).rows).toEqual([[1], [2]]);
    expect(await orphans()).toEqual([]);
  });

  it('both in open transactions: whichever commits second fails', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query('DELETE FROM p WHERE id = 1');
    await b.query('INSERT INTO c VALUES (3, 1)');
    await b.query('COMMIT');
    await expect(a.query('COMMIT')).rejects.toMatchObject({ code: '23503' });
    expect(await orphans()).toEqual([]);
    expect((await db.query('SELECT id, pid FROM c')).rows).toEqual([[3, 1]]);
  });

  it('a table created in an open transaction is checked at COMMIT too', async () => {
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await a.query('CREATE TABLE n (pid int REFERENCES p)');
    await a.query('INSERT INTO n VALUES (2)');
    await b.query('DELETE FROM p WHERE id = 2');
    await expect(a.query('COMMIT')).rejects.toMatchObject({ code: '23503', detail: 'Key (pid)=(2) is not present in table "p".' });
    await expect(db.query('SELECT * FROM n')).rejects.toMatchObject({ code: '42P01' });
  });

  it('a cascade rolled back with its transaction leaves the child rows', async () => {
    await db.query('CREATE TABLE k (pid int REFERENCES p ON DELETE CASCADE)');
    await db.query('INSERT INTO k VALUES (1), (1), (2)');
    const a = db.connect();
    await a.query('BEGIN');
    await a.query('DELETE FROM p WHERE id = 1');
    expect((await a.query('SELECT count(*) FROM k')).rows).toEqual([[1]]);
    expect((await db.query('SELECT count(*) FROM k')).rows).toEqual([[3]]);
    await a.query('ROLLBACK');
    expect((await db.query('SELECT count(*) FROM k')).rows).toEqual([[3]]);
  });
});
