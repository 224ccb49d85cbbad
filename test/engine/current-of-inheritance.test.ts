/**
 * WHERE CURRENT OF on a parent whose cursor row is in an inheriting table with more columns: RETURNING
 * of named columns works (checked against PostgreSQL in test/slt/cursor_inheritance.slt); RETURNING *
 * would list the child's extra columns where PostgreSQL lists the parent's, so it is refused, leaving
 * the row unchanged.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

describe('WHERE CURRENT OF through inheritance', () => {
  it('refuses RETURNING * for a row of a wider child, with a hint', async () => {
    const db = await Database.create();
    for (const q of ['CREATE TABLE p (a int, s text)', 'CREATE TABLE w (extra int) INHERITS (p)', "INSERT INTO p VALUES (1, 'p')", "INSERT INTO w VALUES (2, 'w', 9)", 'BEGIN', 'DECLARE k CURSOR FOR SELECT * FROM p', 'FETCH 2 FROM k']) await db.query(q);
    await expect(db.query('DELETE FROM p WHERE CURRENT OF k RETURNING *')).rejects.toMatchObject({ code: '0A000', hint: 'Name the columns to return.' });
    await db.query('ROLLBACK');
    expect((await db.query('SELECT * FROM w')).rows).toEqual([[2, 'w', 9]]);
  });
});
