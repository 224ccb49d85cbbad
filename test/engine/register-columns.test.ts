/**
 * Database.registerColumns: a table from arrays and typed arrays, without row objects. Its tables must
 * answer exactly as the same data registered as rows does, and PostgreSQL's results over the same rows.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { newPGlite } from '../common/pglite.js';

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
    const pg = newPGlite();
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

  it('columns of many batches, NULLs in some batches only, and an int8 past 2^53, as registerRows gives them', async () => {
    const n = 10_000;
    const i4: (number | null)[] = [];
    const f8: (number | null)[] = [];
    const b: (boolean | null)[] = [];
    const i8: (bigint | number | null)[] = [];
    for (let i = 0; i < n; i++) {
      // NULLs only in rows 4096..8191 (the second batch) and in the last row
      const isNull = (i >= 4096 && i < 8192 && i % 3 === 0) || i === n - 1;
      i4.push(isNull ? null : i * 7 - 20_000);
      f8.push(isNull ? null : i / 3);
      b.push(isNull ? null : i % 2 === 0);
      i8.push(i === 9000 ? 2n ** 60n + 1n : isNull ? null : i * 1_000_000_007);
    }
    const db = await Database.create();
    db.registerColumns('c', { i4, f8, b, i8 }, { i4: 'integer', f8: 'double precision', b: 'boolean', i8: 'bigint' });
    db.registerRows(
      'r',
      Array.from({ length: n }, (_, i) => ({ i4: i4[i], f8: f8[i], b: b[i], i8: i8[i] })),
      { i4: 'integer', f8: 'double precision', b: 'boolean', i8: 'bigint' },
    );
    const q = (t: string): string =>
      `select (rn - 1) / 4096 as part, count(*), count(i4), sum(i4), sum(f8), count(b) filter (where b), max(i8), sum(i8) from (select *, row_number() over () as rn from ${t}) x group by 1 order by 1`;
    expect((await db.query(q('c'))).rows).toEqual((await db.query(q('r'))).rows);
    expect((await db.query('select * from c where i4 is null or i8 > 2^53 order by i4 nulls last')).rows).toEqual(
      (await db.query('select * from r where i4 is null or i8 > 2^53 order by i4 nulls last')).rows,
    );
    expect((await db.query('select count(*) from c where i4 is null')).rows).toEqual([[1366]]);
  });

  it('with copy: false, typed arrays become the storage as they are, and answer as copies do', async () => {
    const n = 1 << 21;
    const id = new Int32Array(n);
    const v = new Float64Array(n);
    const ts = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      id[i] = n - i;
      v[i] = (i % 1000) / 8;
      ts[i] = 1_700_000_000_000_000 + i * 1_000_000;
    }
    const types = { id: 'integer', v: 'double precision', ts: 'timestamp' };
    const db = await Database.create();
    db.registerColumns('shared', { id, v, ts }, types, { copy: false });
    db.registerColumns('copied', { id, v, ts }, types);
    // every stored batch of `shared` is a view of the caller's arrays; `copied` holds buffers of its own
    const buffers = (name: string): Set<ArrayBufferLike> => {
      const out = new Set<ArrayBufferLike>();
      for (const b of db.catalog.tables.get(name)!.snapshot()) for (const c of b.columns) out.add((c.data as Int32Array | Float64Array).buffer);
      return out;
    };
    expect(buffers('shared')).toEqual(new Set([id.buffer, v.buffer, ts.buffer]));
    for (const buf of buffers('copied')) expect([id.buffer, v.buffer, ts.buffer]).not.toContain(buf);
    const q = (t: string): string => `select count(*), sum(id), sum(v), min(ts)::text, max(ts)::text from ${t} where id % 3 = 0`;
    expect((await db.query(q('shared'))).rows).toEqual((await db.query(q('copied'))).rows);
    const row = (i: number): unknown[] => [id[i], v[i], new Date(ts[i]! / 1000).toISOString().replace('T', ' ').replace('.000Z', '')];
    expect((await db.query('select id, v, ts::text from shared order by id limit 3')).rows).toEqual([row(n - 1), row(n - 2), row(n - 3)]);
  });

  it('with copy: false, arrays that are not the column\'s storage are copied, converted and checked as without it', async () => {
    const db = await Database.create();
    // a fractional timestamp is refused as without the option; an Int32Array for bigint and a
    // Float64Array with an integer past 2^53 for bigint are copied
    expect(() => db.registerColumns('t', { ts: new Float64Array([1.5]) }, { ts: 'timestamp' }, { copy: false })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^(22|42)/) }),
    );
    const small = new Int32Array([5, -6]);
    const wide = new Float64Array([2 ** 53 + 2, 3]);
    const s = ['a', 'b'];
    db.registerColumns('t', { small, wide, s }, { small: 'bigint', wide: 'bigint' }, { copy: false });
    small[0] = 100;
    expect((await db.query('select small, wide::text, s from t order by small')).rows).toEqual([
      [-6, '3', 'b'],
      [5, '9007199254740994', 'a'],
    ]);
  });
});
