/**
 * A database directory and the new objects: serial / identity counters and time / timetz columns survive
 * reopening (the counter is stored with its table), setval'd positions too; a standalone CREATE SEQUENCE
 * is refused there with 0A000 (it would not survive), while CREATE TEMP SEQUENCE works.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { formatValue } from '../../src/index.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh } = scratchDirs('quire-sequences-time-');

async function texts(db: Database, sql: string): Promise<(string | null)[][]> {
  const r = await db.query(sql);
  return r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type, { timezone: 'UTC' })));
}

describe('sequences and time types in a database directory', () => {
  it('serial and identity counters and time values survive reopening', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id serial, g bigint GENERATED ALWAYS AS IDENTITY (START WITH 50 INCREMENT BY 5), at time(3), tz timetz, v text)');
    await db.query("INSERT INTO t (at, tz, v) VALUES ('10:00:00.12345', '10:00+05:30', 'a'), ('24:00', '23:59:59.5-08', 'b')");
    await db.query("SELECT setval('t_id_seq', 40)");
    await db.close();
    const again = await Database.create({ path: dir });
    await again.query("INSERT INTO t (at, tz, v) VALUES (NULL, NULL, 'c')");
    expect(await texts(again, 'SELECT id, g, at, tz, v FROM t ORDER BY v')).toEqual([
      ['1', '50', '10:00:00.123', '10:00:00+05:30', 'a'],
      ['2', '55', '24:00:00', '23:59:59.5-08', 'b'],
      ['41', '60', null, null, 'c'],
    ]);
    expect(await texts(again, 'SELECT tz FROM t WHERE tz IS NOT NULL ORDER BY tz')).toEqual([['10:00:00+05:30'], ['23:59:59.5-08']]);
    await again.close();
  });

  it('refuses CREATE SEQUENCE in a directory, allows TEMP sequences', async () => {
    const db = await Database.create({ path: fresh() });
    await expect(db.query('CREATE SEQUENCE s')).rejects.toMatchObject({ code: '0A000' });
    await db.query('CREATE TEMP SEQUENCE s START 3');
    expect(await texts(db, "SELECT nextval('s'), nextval('s')")).toEqual([['3', '4']]);
    await db.close();
  });
});
