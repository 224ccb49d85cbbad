/**
 * Library parameters and registerRows type inference. Parameter handling is compared with PGlite's
 * query(sql, params), which binds over the extended protocol as a client library does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database, formatValue, type QueryResult } from '../../src/index.js';
import { newPGlite } from '../common/pglite.js';

const text = (r: QueryResult): (string | null)[][] => r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type)));

interface Outcome {
  rows?: (string | null)[][];
  code?: string;
  message?: string;
}

describe('library parameters match PostgreSQL', () => {
  let db: Database;
  let pg: PGlite;
  const setup = "create table t (id int, g text, b bigint, s smallint); insert into t values (1, 'a', 1, 1), (2, 'b', 2, 2)";
  beforeAll(async () => {
    db = await Database.create();
    await db.query(setup);
    pg = newPGlite();
    await pg.waitReady;
    await pg.exec(setup);
  });
  afterAll(async () => {
    await pg.close();
  });

  async function quire(sql: string, params: unknown[]): Promise<Outcome> {
    try {
      return { rows: text(await db.query(sql, params)) };
    } catch (e) {
      const q = e as { code: string; message: string };
      return { code: q.code, message: q.message };
    }
  }
  async function postgres(sql: string, params: unknown[]): Promise<Outcome> {
    try {
      const r = await pg.query<unknown[]>(sql, params, { rowMode: 'array' });
      return { rows: r.rows.map((row) => row.map((v) => (v === null ? null : String(v)))) };
    } catch (e) {
      const q = e as { code: string; message: string };
      return { code: q.code, message: q.message };
    }
  }

  const cases: [string, unknown[]][] = [
    ['select $1::int + $2::int', [1]],
    ['select $1::int + $2::int', [1, 2]],
    ['select $1::int', [1, 2]],
    ['select 1', [1]],
    ['select g from t where id = $1', [1.5]],
    ['select g from t where id = $1', [2]],
    ['select g from t where id = $1', [3000000000]],
    ['select g from t where b = $1', [2.5]],
    ['select g from t where s = $1', [1.25]],
    ['select g from t where s = $1', [70000]],
    ['select $1::int8', [1e21]],
    ['select $1::int + 0', [-0]],
    ['select $1::numeric', [2.5]],
    ['select $1::float8', [2.5]],
    ['insert into t (id, g) values ($1, $2)', [1]],
    ['insert into t (id) values ($1)', [1.5]],
    ['update t set g = $1 where id = $2', ['z']],
    ['delete from t where id = $1', [1, 2]],
  ];
  it.each(cases)('%s with %j', async (sql, params) => {
    const [q, p] = [await quire(sql, params), await postgres(sql, params)];
    expect(q).toEqual(p);
  });

  it('reports the count mismatch as a protocol violation', async () => {
    await expect(db.query('select $1::int + $2::int', [1])).rejects.toMatchObject({
      code: '08P01',
      message: 'bind message supplies 1 parameters, but prepared statement "" requires 2',
    });
    await expect(db.stream('select $1::int', [1, 2])).rejects.toMatchObject({ code: '08P01' });
  });

  it('treats a $n without any values as a simple query does (no such parameter)', async () => {
    await expect(db.query('select $1::int')).rejects.toMatchObject({ code: '42P02', message: 'there is no parameter $1', position: 8 });
    const r = await pg.exec('select $1::int').catch((e: { code: string; message: string; position: string }) => e);
    expect(r).toMatchObject({ code: '42P02', message: 'there is no parameter $1', position: '8' });
  });

  it('keeps PREPARE and EXECUTE working without values', async () => {
    await db.query('prepare dbl (int) as select $1 * 2');
    expect(text(await db.query('execute dbl(2)'))).toEqual([['4']]);
    expect(text(await db.query('execute dbl($1)', [5]))).toEqual([['10']]);
    await db.query('deallocate dbl');
  });
});

describe('registerRows type inference keeps every value exact', () => {
  it('widens a mix of fractions and bigints to numeric', async () => {
    const db = await Database.create();
    db.registerRows('m', [{ a: 2.5 }, { a: 1n }, { a: null }, { a: 9007199254740993n }, { a: 0.1 }]);
    const r = await db.query('select a from m');
    expect(r.columns[0]!.type.name).toBe('numeric');
    expect(text(r)).toEqual([['2.5'], ['1'], [null], ['9007199254740993'], ['0.1']]);
    expect(text(await db.query('select sum(a) from m'))).toEqual([['9007199254740996.6']]);
  });

  it('uses numeric for bigints beyond int8 and float8 for numbers beyond it', async () => {
    const db = await Database.create();
    db.registerRows('m', [{ a: 2n ** 70n, b: 1e20 }, { a: 1, b: 1 }]);
    const r = await db.query('select a, b from m');
    expect(r.columns.map((c) => c.type.name)).toEqual(['numeric', 'float8']);
    expect(text(r)).toEqual([
      ['1180591620717411303424', '1e+20'],
      ['1', '1'],
    ]);
  });

  it('still infers int4, int8 and float8 where they fit', async () => {
    const db = await Database.create();
    db.registerRows('m', [{ i: 1, l: 1n, big: 2 ** 40, f: 1.5 }, { i: 2, l: 2, big: 1, f: 2 }]);
    const r = await db.query('select * from m');
    expect(r.columns.map((c) => c.type.name)).toEqual(['int4', 'int8', 'int8', 'float8']);
    expect(text(r)).toEqual([
      ['1', '1', '1099511627776', '1.5'],
      ['2', '2', '1', '2'],
    ]);
  });

  it('rejects a fraction for a declared integer column instead of rounding it', async () => {
    const db = await Database.create();
    expect(() => db.registerRows('m', [{ a: 1.5 }], { a: 'bigint' })).toThrow(/invalid input syntax for type bigint: "1.5"/);
  });
});
