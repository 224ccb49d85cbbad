import { beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { asSqlError, pgliteConnection, quireConnection, type SqlConnection } from '../harness/connection.js';
import { newPGlite } from '../common/pglite.js';

let quire: SqlConnection;
let pg: SqlConnection;

/** Runs the statements one by one on both engines; every result (or error code) must match. */
async function same(statements: string[]): Promise<void> {
  for (const sql of statements) {
    const run = async (c: SqlConnection): Promise<unknown> => {
      try {
        const r = await c.query(sql);
        return { columns: r.columns, rows: r.rows };
      } catch (e) {
        return { error: asSqlError(e).code };
      }
    };
    const [a, b] = [await run(quire), await run(pg)];
    expect({ sql, result: a }).toEqual({ sql, result: b });
  }
}

beforeAll(async () => {
  quire = quireConnection(await Database.create());
  pg = await pgliteConnection(newPGlite());
  const setup = 'create table c8 (q1 int8, q2 int8); insert into c8 select i, i * 10 from generate_series(1, 6) i';
  await quire.query(setup);
  await pg.query(setup);
});

describe('DECLARE / FETCH / MOVE / CLOSE', () => {
  it('moves forward, backward, absolute and relative like PostgreSQL', async () => {
    await same([
      'begin',
      'declare c1 scroll cursor for select * from c8 order by q1 limit 5',
      'fetch 2 in c1',
      'fetch all in c1',
      'fetch 1 in c1',
      'fetch backward 1 in c1',
      'fetch backward all in c1',
      'fetch backward 1 in c1',
      'fetch first in c1',
      'fetch last in c1',
      'fetch absolute -2 in c1',
      'fetch absolute 3 in c1',
      'fetch relative 0 in c1',
      'fetch relative -1 in c1',
      'fetch relative 10 in c1',
      'fetch prior in c1',
      'move backward 2 in c1',
      'fetch next in c1',
      'close c1',
      'fetch 1 in c1',
      'rollback',
    ]);
  });

  it('refuses backward scans on NO SCROLL cursors and DECLARE outside transactions', async () => {
    await same(['declare c2 cursor for select 1', 'begin', 'declare c2 no scroll cursor for select * from c8 order by q1', 'fetch 2 from c2', 'fetch backward 1 from c2', 'rollback']);
  });

  it('keeps WITH HOLD cursors across COMMIT and closes the others', async () => {
    await same([
      'begin',
      'declare h scroll cursor with hold for select q2 from c8 order by q2 desc',
      'declare nh cursor for select 1',
      'fetch 2 from h',
      'commit',
      'fetch 2 from h',
      'fetch 1 from nh',
      'close all',
      'fetch 1 from h',
    ]);
  });
});
