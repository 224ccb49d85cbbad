/**
 * Arrays over the wire: node-postgres reads every array type in text and in binary result format,
 * sends arrays as parameters, and a second session sees the same values; REST returns arrays as JSON
 * arrays typed by their elements.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './helpers.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({});
  await fx.db.query('create table arr (id int, i int[], t text[], n numeric(6,2)[], d date[], b bool[], f float8[], big int8[])');
  await fx.db.query(
    `insert into arr values (1, '{1,NULL,3}', array['a b', NULL, '', 'x"y'], '{1.5,-2}', '{2024-02-29,infinity}', '{t,f,NULL}', '{1.5,NaN,-Infinity}', '{9007199254740993,-1}'),
                            (2, '{}', NULL, NULL, NULL, NULL, NULL, NULL)`,
  );
});
afterAll(async () => {
  await fx.server.close();
});

function client(): pg.Client {
  return new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire' });
}

const SELECT_ALL = 'select id, i, t, n, d, b, f, big from arr order by id';

describe('arrays on the PostgreSQL protocol', () => {
  it('reads every array type in text format, with array type OIDs', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query(SELECT_ALL);
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([23, 1007, 1009, 1231, 1182, 1000, 1022, 1016]);
      const [row1, row2] = r.rows;
      expect(row1.i).toEqual([1, null, 3]);
      expect(row1.t).toEqual(['a b', null, '', 'x"y']);
      // node-postgres reads numeric[] elements as floats; the text form keeps the scale.
      expect(row1.n).toEqual([1.5, -2]);
      expect((await c.query('select n::text as s from arr where id = 1')).rows).toEqual([{ s: '{1.50,-2.00}' }]);
      expect(row1.b).toEqual([true, false, null]);
      expect(row1.f).toEqual([1.5, NaN, -Infinity]);
      expect(row1.big).toEqual(['9007199254740993', '-1']);
      expect(row1.d[1]).toBe(Infinity);
      expect(row2.i).toEqual([]);
      expect(row2.t).toBeNull();
    } finally {
      await c.end();
    }
  });

  it('reads arrays in binary format (array_send) with the same values', async () => {
    const c = client();
    await c.connect();
    try {
      const text = (await c.query('select i, t, f, big from arr order by id')).rows;
      const bin = (await c.query({ text: 'select i, t, f, big from arr order by id', binary: true })).rows;
      expect(bin[0].i).toEqual(text[0].i);
      expect(bin[0].t).toEqual(text[0].t);
      expect(bin[0].f).toEqual(text[0].f);
      expect(bin[1].i).toEqual([]);
    } finally {
      await c.end();
    }
  });

  it('takes arrays as parameters, and a second session sees the rows the first inserted', async () => {
    const a = client();
    const b = client();
    await a.connect();
    await b.connect();
    try {
      expect((await a.query('select $1::int[] as x, 3 = any($1::int[]) as has3, cardinality($2::text[]) as n', [[1, 2, 3], ['a', null]])).rows).toEqual([
        { x: [1, 2, 3], has3: true, n: 2 },
      ]);
      await a.query('create table arr2 (k int, v text[])');
      await a.query('insert into arr2 values ($1, $2)', [1, ['p', 'q r', null]]);
      expect((await b.query('select v, v[2] as second from arr2')).rows).toEqual([{ v: ['p', 'q r', null], second: 'q r' }]);
      // A malformed array parameter is an error for that statement only.
      await expect(a.query('select $1::int[]', ['{1,x}'])).rejects.toMatchObject({ code: '22P02' });
      expect((await a.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await a.end();
      await b.end();
    }
  });
});
