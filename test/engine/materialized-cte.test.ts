/**
 * WITH queries read more than once are evaluated once per statement, as in PostgreSQL: volatile
 * functions give every reference the same values, MATERIALIZED / NOT MATERIALIZED are honoured, and
 * results over shared CTEs match PostgreSQL's (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database } from '../../src/index.js';
import { formatValue } from '../../src/common/format-value.js';
import type { Value } from '../../src/common/types.js';
import { startPg } from '../common/pg-helper.js';

let pg: PGlite;
let db: Database;
let parsers: Record<number, (v: string) => string>;

const SETUP = [
  'create table t (id int primary key, g int, v float8, s text)',
  "insert into t select i, i % 5, (i * 37 % 101)::float8, 'k' || (i % 7) from generate_series(1, 200) i",
];

async function both(sql: string): Promise<[string[][], string[][]]> {
  const want = (await pg.query<string[]>(sql, [], { rowMode: 'array', parsers })).rows;
  const r = await db.query(sql);
  const got = r.rows.map((row) => row.map((v, i) => formatValue(v as Value, r.columns[i]!.type)!));
  return [got, want];
}

beforeAll(async () => {
  pg = await startPg();
  const oids = await pg.query<[number]>('select oid::int4 from pg_type', [], { rowMode: 'array' });
  parsers = {};
  for (const [oid] of oids.rows) parsers[oid] = (v: string) => v;
  db = await Database.create();
  for (const s of SETUP) {
    await pg.query(s);
    await db.query(s);
  }
}, 60_000);
afterAll(async () => {
  await pg?.close();
  await db?.close();
});

describe('WITH queries read more than once', () => {
  it('a volatile WITH query read twice gives both references the same rows', async () => {
    for (const sql of [
      'with w as (select random() as r) select count(distinct r) from (select r from w union all select r from w) s',
      'with w as materialized (select random() as r) select count(distinct r) from (select r from w union all select r from w) s',
      'with w as (select id, random() as r from t) select count(*) from w a join w b on a.id = b.id and a.r = b.r',
      // Read once from the main query and once from another WITH query.
      'with a as (select random() r), b as (select * from a) select count(distinct r) from (select r from b union all select r from a) q',
      // From scalar subqueries.
      'with w as (select random() as r) select (select r from w) = (select r from w)',
    ]) {
      const [got, want] = await both(sql);
      expect(got, sql).toEqual(want);
    }
  });

  it('NOT MATERIALIZED inlines each reference, except a query with volatile functions', async () => {
    const [got, want] = await both('with w as not materialized (select random() as r) select count(distinct r) from (select r from w union all select r from w) s');
    expect(got).toEqual([['1']]);
    expect(got).toEqual(want);
    const plan = (await db.query('explain (format quire) with w as not materialized (select g from t) select * from w a, w b where a.g = b.g')).rows.map((r) => String(r[0])).join('\n');
    expect(plan).not.toContain('CteScan');
    const [got2, want2] = await both('with w as not materialized (select g, count(*) c from t group by g) select sum(a.c * b.c) from w a, w b where a.g = b.g');
    expect(got2).toEqual(want2);
  });

  it('nextval in a shared WITH query advances once per row, not once per reference', async () => {
    await db.query('create sequence cte_seq');
    await pg.query('create sequence cte_seq');
    const [got, want] = await both('with w as (select nextval(\'cte_seq\') as n from generate_series(1, 3)) select sum(a.n), count(*) from w a, w b');
    expect(got).toEqual(want);
    const [after, afterPg] = await both("select nextval('cte_seq')");
    expect(after).toEqual(afterPg);
  });

  for (const sql of [
    'with w as (select g, sum(v) as sv, count(*) as c from t group by g) select a.g, a.sv, b.c from w a join w b on a.g = b.g order by a.g',
    'with w as (select id, s from t where id <= 20) select count(*), min(x.s), max(y.id) from w x, w y where x.id < y.id',
    "with w (k, n) as (select s, count(*) from t group by s) select k, n from w where n > (select avg(n) from w) order by k",
    'with w as (select id, g from t) select g, count(*) from (select g from w where id < 50 union all select g from w where id > 150) u group by g order by g',
    "with w as (select 'lit' as a, id from t where id < 3) select * from w w1 join w w2 using (a) order by w1.id, w2.id",
    'with w as (select id from t order by id limit 5) select (select count(*) from w), (select max(id) from w), array_agg(id order by id) from w',
    'with w as (select id, v from t) select id, rank() over (order by v desc, id) from w where id in (select id from w where v > 90) order by id',
    // Read by an outer and a correlated subquery.
    'with w as (select id, g from t where id <= 30) select a.id, (select count(*) from w b where b.g = a.g and b.id < a.id) from w a order by a.id',
    // Nested WITH of the same name shadows the outer one.
    'with w as (select 1 as x) select (with w as (select 2 as x) select x from w), (select x from w), (select x from w w2)',
    // Empty.
    'with w as (select * from t where false) select count(*) from w a, w b',
  ]) {
    it(sql, async () => {
      const [got, want] = await both(sql);
      expect(got).toEqual(want);
    });
  }

  it('EXPLAIN shows the query once under its first scan, and a LIMIT on one reference leaves the other complete', async () => {
    const plan = (await db.query('explain (format quire) with w as (select g, count(*) as c from t group by g) select * from w a join w b on a.g = b.g')).rows.map((r) => String(r[0]));
    expect(plan.filter((l) => l.includes('CteScan (CTE w)')).length).toBe(2);
    expect(plan.filter((l) => l.includes('HashAggregate')).length).toBe(1);
    const [got, want] = await both('with w as (select id from t) select (select count(*) from (select id from w limit 3) x), (select count(*) from w)');
    expect(got).toEqual(want);
  });

  it('a WITH query read once is still inlined: filters and limits reach the table', async () => {
    const plan = (await db.query('explain (format quire) with w as (select * from t) select id from w where id = 7')).rows.map((r) => String(r[0])).join('\n');
    expect(plan).not.toContain('CteScan');
  });
});
