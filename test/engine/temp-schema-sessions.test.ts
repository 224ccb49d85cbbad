/**
 * A TEMP table shadows a permanent one only in its own session, and only for unqualified names:
 * public.x stays the shared table another session writes, pg_temp.x the session's own.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

describe('TEMP tables beside a permanent table of the same name, two sessions', () => {
  it('each session reads and writes the table its names resolve to', async () => {
    const db = await Database.create();
    const a = db.connect();
    const b = db.connect();
    await a.query('create table x (v int)');
    await a.query('create temp table x (v int)');
    await a.query('insert into x values (1)');
    await a.query('insert into public.x values (2)');
    await b.query('insert into x values (3)');
    await b.query('insert into public.x select 4');
    expect((await a.query('select v from x order by v')).rows).toEqual([[1]]);
    expect((await a.query('select v from public.x order by v')).rows).toEqual([[2], [3], [4]]);
    expect((await b.query('select v from x order by v')).rows).toEqual([[2], [3], [4]]);
    await expect(b.query('select v from pg_temp.x')).rejects.toMatchObject({ code: '42P01' });
    await a.query('update public.x set v = v * 10');
    await a.query('delete from pg_temp.x');
    expect((await b.query('select v from x order by v')).rows).toEqual([[20], [30], [40]]);
    expect((await a.query('select count(*) from x')).rows).toEqual([[0]]);
  });
});
