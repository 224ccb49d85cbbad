/**
 * SQL functions and aggregates where Quire deliberately differs from PostgreSQL by refusing (0A000)
 * rather than answering wrongly; the matching behaviour is covered differentially by test/slt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Database, QuireError } from '../../src/index.js';

async function error(db: Database, sql: string): Promise<QuireError> {
  try {
    await db.query(sql);
  } catch (e) {
    expect(e).toBeInstanceOf(QuireError);
    return e as QuireError;
  }
  throw new Error(`expected an error from: ${sql}`);
}

describe('SQL functions and aggregates: refusals', () => {
  let db: Database;
  beforeAll(async () => {
    db = await Database.create();
    await db.query(`create table o (a int, b int); insert into o values (1, 10), (2, 20), (3, 30);`);
  });

  it('gives an aggregate whose arguments read only an outer query to that query', async () => {
    const r = await db.query('select (select max((select i.b from o i where i.a = o2.a))) from o o2');
    expect(r.rows).toEqual([[30]]);
  });

  it('refuses recursive SQL functions instead of recursing forever', async () => {
    await db.query("create function fact(n int) returns int language sql as 'select case when n <= 1 then 1 else n * fact(n - 1) end'");
    const e = await error(db, 'select fact(5)');
    expect(e.code).toBe('0A000');
    expect(e.message).toBe('recursive call of SQL function "fact" is not supported');
  });

  it('refuses other languages; a VARIADIC parameter must be a last, array-typed one', async () => {
    expect((await error(db, "create function p(int) returns int language plpgsql as 'begin perform 1; return 1; end'")).code).toBe('0A000');
    expect((await error(db, "create function p(int) returns int language plperl as 'return 1'")).code).toBe('0A000');
    expect((await error(db, "create function v(variadic int) returns int language sql as 'select 1'")).code).toBe('42P13');
    expect((await error(db, "create function v(variadic int[], b int) returns int language sql as 'select 1'")).code).toBe('42P13');
  });

  it('runs a user-defined aggregate as a window function', async () => {
    await db.query("create aggregate mysum(int) (sfunc = int4pl, stype = int4, initcond = '0')");
    expect((await db.query('select mysum(b) from o')).rows).toEqual([[60]]);
    expect((await db.query('select distinct mysum(b) over () from o')).rows).toEqual([[60]]);
    expect((await error(db, 'select mysum(distinct b) over () from o')).code).toBe('0A000');
  });

  it('stops a user-defined aggregate over moving frames at statement_timeout', async () => {
    // Without an inverse, each frame is aggregated again: O(rows × frame) transition calls in one
    // partition, which must still end at the deadline.
    const quad = await Database.create();
    await quad.query("create aggregate slow_sum(int) (sfunc = int4pl, stype = int4, initcond = '0')");
    await quad.query("set statement_timeout = '300ms'");
    const started = performance.now();
    const e = await error(quad, 'select count(x) from (select slow_sum(i) over (order by i rows between current row and unbounded following) x from generate_series(1, 60000) i) s');
    expect(e.code).toBe('57014');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('checks the body result against the declared type when the function is called', async () => {
    await db.query("create function two() returns int language sql as 'select 1, 2'");
    const e = await error(db, 'select two()');
    expect(e.code).toBe('42P13');
    expect(e.message).toBe('return type mismatch in function declared to return integer');
  });
});
