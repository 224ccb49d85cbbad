/**
 * Which unique key is the PRIMARY KEY survives a database directory: replayed from the log after a
 * crash and read back from a checkpoint, so GROUP BY the key still lets the other columns appear. A
 * UNIQUE NOT NULL key stays what it is (the same query fails with 42803).
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-primary-key-');
const GROUPED = 'SELECT id, name FROM k GROUP BY id ORDER BY id';

async function check(dir: string): Promise<void> {
  const db = await Database.create({ path: dir });
  expect((await db.query(GROUPED)).rows).toEqual([[1, 'a'], [2, 'b']]);
  await expect(db.query('SELECT id, name FROM u GROUP BY id')).rejects.toMatchObject({ code: '42803' });
  await db.close();
}

describe('primary key in a database directory', () => {
  it('is replayed from the log and read from a checkpoint', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE k (id int PRIMARY KEY, name text)');
    await db.query('CREATE TABLE u (id int UNIQUE NOT NULL, name text)');
    await db.query("INSERT INTO k VALUES (1, 'a'), (2, 'b')");
    await db.query("INSERT INTO u VALUES (1, 'a')");
    // A copy taken before any checkpoint: the tables exist only in the log.
    const crashed = crashCopy(dir);
    await db.close();
    await check(crashed);
    await check(dir);
  });
});
