/**
 * Database.registerColumns: a table from arrays and typed arrays, without row objects. Its tables must
 * answer exactly as the same data registered as rows does, and PostgreSQL's results over the same rows.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { PGlite } from '@electric-sql/pglite';

describe('registerColumns', () => {
  it('typed arrays and plain arrays give the table registerRows gives', async () => {
    const n = 3000;
    const id = new Int32Array(n);
    const v = new Float64Array(n);
    const big = new BigInt64Array(n);
    const s: (string | null)[] = [];
    const flag: (boolean | null)[] = [];
    for (let i = 0; i < n; i++) {
      id[i] = i - 1500;
      v[i] = i % 7 === 0 ? NaN : i / 8;
      big[i] = BigInt(i) * 3_000_000_000n;
      s.push(i % 11 === 0 ? null : `name ${i % 97} é`);
      flag.push(i % 5 === 0 ? null : i % 2 === 0);
    }
    const db = await Database.create();
    db.registerColumns('c', { id, v, big, s, flag });
    db.registerRows(
      'r',
      Array.from({ length: n }, (_, i) => ({ id: id[i], v: v[i], big: big[i], s: s[i], flag: flag[i] })),
      { big: 'bigint' },
    );
    const cols = await db.query('select * from c limit 0');
    expect(cols.columns.map((c) => [c.name, c.type.name])).toEqual([
      ['id', 'int4'],
      ['v', 'float8'],
      ['big', 'int8'],
      ['s', 'text'],
      ['flag', 'bool'],
    ]);
    const q = (t: string): string => `select s, count(*), sum(id), max(big), count(flag), sum(v) filter (where v = v) from ${t} group by s order by s nulls first`;
    expect((await db.query(q('c'))).rows).toEqual((await db.query(q('r'))).rows);
    expect((await db.query('select * from c order by id limit 5 offset 1000')).rows).toEqual((await db.query('select * from r order by id limit 5 offset 1000')).rows);
  });

  it('dates and timestamps as Quire represents them, or as Date objects and strings, against PostgreSQL', async () => {
    const pg = new PGlite();
    await pg.exec("set timezone = 'UTC'; create table t (d date, ts timestamp, tz timestamptz)");
    const days = [0, 19723, -1, null];
    const micros = [0, 1_700_000_000_123_456, -1, null];
    const dates = [new Date(0), new Date(Date.UTC(2024, 0, 1, 12, 30)), new Date(-1000), null];
    await pg.query(
      "insert into t values ('1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00'), ('2024-01-01', '2023-11-14 22:13:20.123456', '2024-01-01 12:30:00+00'), ('1969-12-31', '1969-12-31 23:59:59.999999', '1969-12-31 23:59:59+00'), (null, null, null)",
    );
    const quire = await Database.create();
    await quire.query("set timezone = 'UTC'");
    quire.registerColumns('t', { d: days, ts: micros, tz: dates }, { d: 'date', ts: 'timestamp', tz: 'timestamptz' });
    const sql = 'select d::text, ts::text, tz::text from t order by d nulls last';
    const want = (await pg.query<Record<string, unknown>>(sql)).rows.map((r) => Object.values(r));
    expect((await quire.query(sql)).rows).toEqual(want);
    await pg.close();
  });

  it('copies the arrays it is given', async () => {
    const db = await Database.create();
    const a = new Int32Array([1, 2, 3]);
    const names = ['x', 'y', 'z'];
    db.registerColumns('t', { a, names });
    a[0] = 100;
    names[0] = 'changed';
    expect((await db.query('select a, names from t order by a')).rows).toEqual([
      [1, 'x'],
      [2, 'y'],
      [3, 'z'],
    ]);
  });

  it('refuses columns of different lengths, unknown typed columns and values that do not fit', async () => {
    const db = await Database.create();
    expect(() => db.registerColumns('t', { a: [1, 2], b: [1] })).toThrow(expect.objectContaining({ code: '22023' }));
    expect(() => db.registerColumns('t', { a: [1] }, { b: 'int' })).toThrow(expect.objectContaining({ code: '42703' }));
    expect(() => db.registerColumns('t', { a: [2 ** 40] }, { a: 'integer' })).toThrow(expect.objectContaining({ code: '22003' }));
    expect(() => db.registerColumns('t', { a: [1.5] }, { a: 'timestamp' })).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(22|42)/) }));
    // Nothing half-registered is left behind.
    await expect(db.query('select * from t')).rejects.toMatchObject({ code: '42P01' });
  });
});
