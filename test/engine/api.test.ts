import { describe, expect, it, beforeAll } from 'vitest';
import { Decimal, makeVector, Table, tableFromArrays, TimestampMicrosecond, vectorFromArray } from 'apache-arrow';
import { Database, QuireError, formatValue, type QueryResult } from '../../src/index.js';

const text = (r: QueryResult): (string | null)[][] => r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type)));

async function error(db: Database, sql: string): Promise<QuireError> {
  try {
    await db.query(sql);
  } catch (e) {
    expect(e).toBeInstanceOf(QuireError);
    return e as QuireError;
  }
  throw new Error(`expected an error from: ${sql}`);
}

describe('library API', () => {
  let db: Database;
  beforeAll(async () => {
    db = await Database.create();
    await db.query(`create table t (a int primary key, b text not null default 'none', c float8);
      insert into t values (1, 'x', 1.5), (2, 'y', null), (3, 'z', -2);`);
  });

  it('returns typed columns and a command tag', async () => {
    const r = await db.query('select a, b, c from t order by a');
    expect(r.command).toBe('SELECT');
    expect(r.commandTag).toBe('SELECT 3');
    expect(r.columns.map((c) => [c.name, c.type.name])).toEqual([
      ['a', 'int4'],
      ['b', 'text'],
      ['c', 'float8'],
    ]);
    expect(r.rows).toEqual([
      [1, 'x', 1.5],
      [2, 'y', null],
      [3, 'z', -2],
    ]);
  });

  it('infers parameter types from their use', async () => {
    const r = await db.query('select b from t where a = $1 or c < $2 order by a', [1, 0]);
    expect(r.rows).toEqual([['x'], ['z']]);
    const s = await db.query('select $1::int + 1 as n, $2 || \'!\' as s', ['41', 'hi']);
    expect(s.rows).toEqual([[42, 'hi!']]);
  });

  it('keeps int8 exact beyond 2^53', async () => {
    const r = await db.query('select 9007199254740993::int8 + 2 as big, 9223372036854775807::int8 as max');
    expect(r.rows[0]).toEqual([9007199254740995n, 9223372036854775807n]);
    const e = await error(db, 'select 9223372036854775807::int8 + 1');
    expect(e.code).toBe('22003');
  });

  it('streams rows with backpressure', async () => {
    const s = await db.stream('select i from generate_series(1, 100000) i');
    let n = 0;
    for await (const row of s.rows()) {
      n++;
      if (n === 10) break;
    }
    expect(n).toBe(10);
    expect(s.columns[0]!.name).toBe('i');
  });

  it('registers JavaScript rows and Arrow tables', async () => {
    db.registerRows('people', [
      { name: 'ann', age: 31, score: 1.5, ok: true },
      { name: 'bob', age: null, score: 2, ok: false },
    ]);
    const r = await db.query('select name, age, score, ok from people order by name');
    expect(r.columns.map((c) => c.type.name)).toEqual(['text', 'int4', 'float8', 'bool']);
    expect(text(r)).toEqual([
      ['ann', '31', '1.5', 't'],
      ['bob', null, '2', 'f'],
    ]);
    db.registerArrow('arrow_t', tableFromArrays({ x: Int32Array.from([3, 1, 2]), y: Float64Array.from([0.5, 1.5, 2.5]) }));
    const a = await db.query('select x, y from arrow_t order by x desc');
    expect(a.rows).toEqual([
      [3, 0.5],
      [2, 2.5],
      [1, 1.5],
    ]);
    // Strings from tableFromArrays are dictionary-encoded; decimals, nulls and timestamps convert as read_arrow's do.
    const dec = makeVector({ type: new Decimal(2, 9, 64), data: new BigInt64Array([12345n, -5n, 0n]) as never });
    const ts = makeVector({ type: new TimestampMicrosecond(), data: new BigInt64Array([1_700_000_000_123_456n, 0n, -1n]) as never });
    db.registerArrow('arrow_d', new Table({ name: vectorFromArray(['x', null, 'x']), amount: dec, at: ts }));
    const d = await db.query('select name, amount, at, pg_typeof(name), pg_typeof(amount) from arrow_d');
    expect(d.rows.map((r) => r.map((v, i) => (v === null ? null : db.formatValue(v as never, d.columns[i]!.type))))).toEqual([
      ['x', '123.45', '2023-11-14 22:13:20.123456', 'text', 'numeric'],
      [null, '-0.05', '1970-01-01 00:00:00', 'text', 'numeric'],
      ['x', '0.00', '1969-12-31 23:59:59.999999', 'text', 'numeric'],
    ]);
  });

  it('enforces NOT NULL, defaults and primary keys', async () => {
    await db.query('insert into t (a) values (10)');
    expect((await db.query('select b from t where a = 10')).rows).toEqual([['none']]);
    expect((await error(db, 'insert into t values (1, \'dup\', 0)')).code).toBe('23505');
    expect((await error(db, 'insert into t (a, b) values (11, null)')).code).toBe('23502');
    await db.query('delete from t where a = 10');
  });

  it('runs UPDATE, DELETE and rolls back transactions', async () => {
    await db.query('create table m (k int, v text); insert into m values (1, \'a\'), (2, \'b\'), (3, \'c\')');
    expect((await db.query('update m set v = v || \'!\' where k >= 2')).commandTag).toBe('UPDATE 2');
    expect((await db.query('delete from m where k = 1')).commandTag).toBe('DELETE 1');
    await db.query('begin; insert into m values (9, \'z\'); delete from m where k = 2; rollback');
    expect(text(await db.query('select k, v from m order by k'))).toEqual([
      ['2', 'b!'],
      ['3', 'c!'],
    ]);
  });

  it('returns rows from INSERT/UPDATE/DELETE … RETURNING', async () => {
    await db.query('create table r (id serial, v text)');
    const ins = await db.query("insert into r (v) values ('a'), ('b') returning id, upper(v) as up");
    expect(ins.commandTag).toBe('INSERT 0 2');
    expect(ins.columns.map((c) => c.name)).toEqual(['id', 'up']);
    expect(ins.rows).toEqual([
      [1, 'A'],
      [2, 'B'],
    ]);
    const up = await db.query("update r set v = v || '!' where id = 2 returning *");
    expect(up.rows).toEqual([[2, 'b!']]);
    const del = await db.query('delete from r where id = 1 returning v');
    expect(del.rows).toEqual([['a']]);
    expect((await db.query('select count(*) from r')).rows).toEqual([[1]]);
  });

  it('supports views, CREATE TABLE AS and SELECT INTO', async () => {
    await db.query('create view tv as select a, c * 2 as c2 from t where c is not null');
    expect(text(await db.query('select * from tv order by a'))).toEqual([
      ['1', '3'],
      ['3', '-4'],
    ]);
    const r = await db.query('create table t2 as select a, b from t where a > 1');
    expect(r.commandTag).toBe('SELECT 2');
    await db.query('select a into t3 from t2 where a = 3');
    expect((await db.query('select * from t3')).rows).toEqual([[3]]);
  });

  it('reports errors with SQLSTATE and position', async () => {
    const cases: [string, string, number][] = [
      ['select * from missing', '42P01', 15],
      ['select nope from t', '42703', 8],
      ['select a from t where b', '42804', 23],
      ['selec 1', '42601', 1],
      ['select 1 from t limit -1', '2201W', 23],
      ['select 1 from t offset -5', '2201X', 24],
      ['select a from t fetch first 2 rows with ties', '42601', 0],
      ['select count(*) from t where sum(a) > 1', '42803', 30],
      ['select a, count(*) from t', '42803', 0],
      ['select 1 + \'abc\'', '22P02', 12],
    ];
    for (const [sql, code, position] of cases) {
      const e = await error(db, sql);
      expect([sql, e.code]).toEqual([sql, code]);
      if (position > 0) expect([sql, e.position]).toEqual([sql, position]);
    }
    expect((await error(db, 'select a / 0 from t')).code).toBe('22012');
  });

  it('explains plans and switches rules off by name', async () => {
    const plan = (await db.query('explain (format quire) select a from t order by c desc limit 2')).rows.map((r) => r[0]).join('\n');
    expect(plan).toMatch(/TopN \(keys: \[c DESC\], limit: 2/);
    expect(plan).not.toMatch(/Sort/);
    await db.query("set quire.disabled_rules = 'sort-limit-to-topn'");
    const plain = (await db.query('explain (format quire) select a from t order by c desc limit 2')).rows.map((r) => r[0]).join('\n');
    expect(plain).toMatch(/Limit/);
    expect(plain).toMatch(/Sort/);
    const same = await db.query('select a from t order by c desc nulls last limit 2');
    await db.query('reset quire.disabled_rules');
    const fused = await db.query('select a from t order by c desc nulls last limit 2');
    expect(fused.rows).toEqual(same.rows);
    const analyzed = (await db.query('explain (format quire, analyze) select b, count(*) from t group by b')).rows.map((r) => r[0]).join('\n');
    expect(analyzed).toMatch(/HashAggregate .*actual rows=\d+ loops=1/);
  });

  it('cancels a running statement even inside a blocking operator', async () => {
    await db.query('create table big as select i from generate_series(1, 2000000) i');
    const started = db.query("select i % 1000, count(*), string_agg(i::text, ',') from big group by 1");
    setTimeout(() => db.cancel(), 20);
    await expect(started).rejects.toMatchObject({ code: '57014' });
    await db.query('drop table big');
  });

  it('accounts the hash join build side against memory_limit (53200, not a heap crash)', async () => {
    await db.query('create table hj as select i from generate_series(1, 300000) i');
    await db.query("set memory_limit = '1MB'");
    try {
      await expect(db.query('select count(*) from hj x join hj y on x.i = y.i')).rejects.toMatchObject({ code: '53200' });
    } finally {
      await db.query('reset memory_limit');
    }
    expect((await db.query('select count(*) from hj x join hj y on x.i = y.i')).rows).toEqual([[300000]]);
    await db.query('drop table hj');
  });

  it('SET and SHOW settings', async () => {
    await db.query("set timezone = 'America/New_York'");
    expect((await db.query('show timezone')).rows).toEqual([['America/New_York']]);
    await db.query('set timezone to default');
    expect((await db.query('show timezone')).rows).toEqual([['UTC']]);
    expect((await error(db, 'show no_such_setting')).code).toBe('42704');
  });
});
