/** overlay, scale, num_nulls/num_nonnulls, gen_random_uuid and date_bin against PostgreSQL. */
import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, i4, num, Pg, txt, f8, type Arg } from './harness.js';
import { startEngines, type SqlDiff } from './sql-diff.js';

let pg: Pg;
let sql: SqlDiff;
beforeAll(async () => {
  ({ pg, sql } = await startEngines(
    "create table m (a int4, b text, c float8, d timestamp); insert into m values (1, 'x', null, '2020-02-11 15:44:17'), (null, null, null, null), (3, null, 2.5, '1999-12-31 23:59:59.999999')",
  ));
});
afterAll(async () => {
  await sql.close();
});

group('overlay', () => {
  it('positions, counts (zero, negative, past the end), multibyte, errors', async () => {
    const STR = ['Txxxxas', 'abcdef', '', 'héllo wörld', '😀a😀b'];
    const REPL = ['hom', '', 'XY', 'ü'];
    const START = [1, 2, 3, 6, 7, 8, 20, 0, -1, 2147483647];
    const COUNT = [0, 1, 2, 4, 100, -1, -3, 2147483647, -2147483648];
    const cases: { name: string; args: Arg[] }[] = [];
    for (const s of STR) {
      for (const r of REPL) {
        for (const st of START) {
          cases.push({ name: 'overlay', args: [txt(s), txt(r), i4(st)] });
          for (const n of COUNT) cases.push({ name: 'overlay', args: [txt(s), txt(r), i4(st), i4(n)] });
        }
      }
    }
    cases.push({ name: 'overlay', args: [txt(null), txt('a'), i4(1)] }, { name: 'overlay', args: [txt('a'), txt('b'), i4(1), i4(null)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('SQL syntax', async () => {
    expect(
      await sql.mismatches([
        "select overlay('Txxxxas' placing 'hom' from 2 for 4), overlay('Txxxxas' placing 'hom' from 2)",
        "select overlay(b placing 'zz' from a) from m order by a",
        "select overlay('abc' placing 'x' from 0)",
      ]),
    ).toEqual([]);
  });
});

group('scale, num_nulls, num_nonnulls', () => {
  it('scale', async () => {
    const N = ['0', '1', '1.0', '1.50', '-0.001', '123.4567890123456789', '1e10', '1.5e-5', '0.000', 'NaN', 'Infinity', '-Infinity'];
    expect(await compareAll(pg, [...N.map((v) => ({ name: 'scale', args: [num(v)] })), { name: 'scale', args: [num(null)] }])).toEqual([]);
  });
  it('num_nulls / num_nonnulls over mixed types', async () => {
    const rows: Arg[][] = [[i4(1)], [i4(null)], [i4(1), txt(null), f8(2)], [txt(null), txt(null)], [num(null), i4(3), txt('a'), f8(null)]];
    const cases = ['num_nulls', 'num_nonnulls'].flatMap((name) => rows.map((args) => ({ name, args })));
    expect(await compareAll(pg, cases)).toEqual([]);
    expect(
      await sql.mismatches([
        "select num_nulls(1, null, 'a', null::int), num_nonnulls(1, null, 'a', null::int), num_nulls(null), num_nonnulls(null)",
        'select num_nulls(a, b, c, d), num_nonnulls(a, b, c, d) from m order by a nulls first',
        'select num_nulls()',
        'select num_nonnulls()',
        "select num_nulls(variadic array['a', null]), num_nonnulls(variadic array['a', null, 'b'])",
        'select num_nulls(variadic null::int[]), num_nulls(variadic array[]::int[])',
      ]),
    ).toEqual([]);
  });
});

group('gen_random_uuid', () => {
  it('is a version 4 UUID, different per row', async () => {
    const r = await sql.db.query('select gen_random_uuid() as u from generate_series(1, 50)');
    const us = r.rows.map((row) => row[0] as string);
    for (const u of us) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(us).size).toBe(50);
    // Volatile: not folded into one constant, and its text is accepted by PostgreSQL's uuid input.
    const back = await pg.run(`select count(distinct u::uuid)::text as r from unnest(array[${us.map((u) => `'${u}'`).join(',')}]) u`);
    expect(back).toEqual({ ok: '50' });
  });
});

group('date_bin', () => {
  it('timestamp and timestamptz, before and after origin, errors', async () => {
    const STRIDES = ['15 minutes', '1 day', '1 hour 30 minutes', '7 days', '1 microsecond', '1 second', '10 days 5 hours', '-1 hour 120 minutes'];
    const SOURCES = ['2020-02-11 15:44:17', '2001-01-01 00:00:00', '2000-12-31 23:59:59.999999', '1900-05-05 05:05:05.5', '0010-01-01 00:00:00', 'infinity', '-infinity'];
    const ORIGINS = ['2001-01-01', '2020-02-11 15:30:00', '1970-01-01 00:07:00', '4000-01-01'];
    const sqls: string[] = [];
    for (const s of STRIDES) {
      for (const ts of SOURCES) {
        sqls.push(`select ${ORIGINS.map((o) => `date_bin('${s}', '${ts}'::timestamp, '${o}'::timestamp)`).join(', ')}`);
        sqls.push(`select ${ORIGINS.map((o) => `date_bin('${s}', '${ts}'::timestamptz, '${o}'::timestamptz)`).join(', ')}`);
      }
    }
    sqls.push(
      "select date_bin('1 month', '2020-02-11'::timestamp, '2001-01-01'::timestamp)",
      "select date_bin('1 year 1 day', '2020-02-11'::timestamptz, '2001-01-01'::timestamptz)",
      "select date_bin('0 seconds', '2020-02-11'::timestamp, '2001-01-01'::timestamp)",
      "select date_bin('-1 day', '2020-02-11'::timestamp, '2001-01-01'::timestamp)",
      "select date_bin('1 day', '2020-02-11'::timestamp, 'infinity'::timestamp)",
      "select date_bin('infinity'::interval, '2020-02-11'::timestamp, '2001-01-01'::timestamp)",
      "select date_bin('-infinity'::interval, 'infinity'::timestamp, '2001-01-01'::timestamp)",
      "select date_bin('1 day', '4713-01-01 BC'::timestamp, '2001-01-01 00:00:00.5'::timestamp)",
      "select date_bin('100000 days', '294276-12-31'::timestamp, '4713-11-24 BC'::timestamp)",
      "select date_bin('2147483647 days', '294276-12-31'::timestamp, '4713-11-24 BC'::timestamp)",
      "select date_bin('1 day', '294276-12-31'::timestamp, '4713-01-01 BC'::timestamp)",
      "select date_bin(null, '2020-02-11'::timestamp, '2001-01-01'::timestamp), date_bin('1 day', null::timestamp, '2001-01-01'::timestamp)",
      "select date_bin('1 hour', d, '2000-01-01') from m order by a",
      "set timezone = 'America/New_York'",
      // Cast to text so that the session zone (not the harness's UTC formatting) renders the result.
      "select date_bin('1 day', '2020-03-08 12:00:00-04'::timestamptz, '2020-01-01 00:00:00'::timestamptz)::text",
      "select date_bin('1 day', '2020-03-08 12:00:00'::timestamp, '2020-01-01 00:00:00'::timestamptz)::text",
      "set timezone = 'UTC'",
    );
    expect(await sql.mismatches(sqls)).toEqual([]);
  });
});
