/**
 * FOREIGN KEY constraints survive a database directory: replayed from the log (a copy taken before
 * any checkpoint) and read back from a checkpoint, they still refuse orphans and still cascade.
 * ALTER TABLE … ADD / DROP CONSTRAINT, which change no rows, are logged too.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-foreign-key-');

async function check(dir: string): Promise<void> {
  const db = await Database.create({ path: dir });
  await expect(db.query('INSERT INTO c VALUES (10, 3)')).rejects.toMatchObject({ code: '23503', detail: 'Key (pid)=(3) is not present in table "p".' });
  await expect(db.query('DELETE FROM p WHERE id = 1')).rejects.toMatchObject({ code: '23503', message: 'update or delete on table "p" violates foreign key constraint "c_pid_fkey" on table "c"' });
  // The constraint dropped before the copy stays dropped.
  await db.query('INSERT INTO d VALUES (99)');
  // ON DELETE CASCADE of the grandchild still acts.
  await db.query('DELETE FROM c WHERE id = 2');
  expect((await db.query('SELECT id FROM g ORDER BY id')).rows).toEqual([[1]]);
  // The names were kept: a second unnamed key on the same column is numbered after the first.
  await db.query('ALTER TABLE g ADD FOREIGN KEY (cid) REFERENCES c');
  await expect(db.query('ALTER TABLE g DROP CONSTRAINT g_cid_fkey1')).resolves.toMatchObject({ command: 'ALTER TABLE' });
  await db.close();
}

describe('foreign keys in a database directory', () => {
  it('are replayed from the log and read from a checkpoint', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE p (id int PRIMARY KEY)');
    await db.query('CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p)');
    await db.query('CREATE TABLE g (id int, cid int)');
    await db.query('CREATE TABLE d (x int)');
    await db.query('INSERT INTO p VALUES (1), (2)');
    await db.query('INSERT INTO c VALUES (1, 1), (2, 2)');
    await db.query('INSERT INTO g VALUES (1, 1), (2, 2)');
    await db.query('INSERT INTO d VALUES (1)');
    await db.query('ALTER TABLE g ADD FOREIGN KEY (cid) REFERENCES c ON DELETE CASCADE');
    await db.query('ALTER TABLE d ADD CONSTRAINT d_x_fkey FOREIGN KEY (x) REFERENCES p');
    await db.query('ALTER TABLE d DROP CONSTRAINT d_x_fkey');
    const crashed = crashCopy(dir);
    await db.close();
    await check(crashed);
    await check(dir);
  });
});
