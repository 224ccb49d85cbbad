/**
 * Table inheritance against PostgreSQL (PGlite): INHERITS builds the child's columns from its parents',
 * a scan of a parent reads every descendant's rows (columns matched by name), ONLY reads the parent
 * alone, DROP TABLE needs CASCADE while children exist, TRUNCATE reaches the children. UPDATE/DELETE
 * through a parent with children is refused (0A000) rather than changing the parent's rows alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSqlError, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

const SETUP = [
  'create table p (a int, b text)',
  'create table c1 (x int) inherits (p)',
  'create table c2 (b text, y numeric) inherits (p)',
  'create table g (z text) inherits (c1)',
  'create table m1 (k int, a int)',
  'create table mm (w int) inherits (p, m1)',
  "insert into p values (1, 'p1'), (2, null)",
  "insert into c1 values (3, 'c1', 30), (4, 'c1b', null)",
  "insert into c2 values (5, 'c2', 5.5)",
  "insert into g values (6, 'g', 60, 'zz')",
  "insert into mm values (7, 'mm', 70, 700)",
];

async function outcome(c: SqlConnection, sql: string): Promise<string> {
  try {
    const r = await c.query(sql);
    return [r.columns.join('|'), ...r.rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|'))].join('\n');
  } catch (e) {
    const err = asSqlError(e);
    return `ERROR ${err.code} ${err.message}`;
  }
}

let pg: SqlConnection;
let q: SqlConnection;

beforeAll(async () => {
  ({ pg, q } = await pgliteAndQuire(SETUP));
}, 60_000);
afterAll(async () => {
  await pg.close?.();
  await q.close?.();
});

async function same(sqls: string[]): Promise<void> {
  for (const sql of sqls) {
    const want = await outcome(pg, sql);
    expect(await outcome(q, sql), sql).toBe(want);
  }
}

describe('table inheritance', () => {
  it('gives children their parents\' columns first, merged by name', async () => {
    await same(['select * from c1 order by a', 'select * from c2 order by a', 'select * from g order by a', 'select * from mm order by a']);
  });

  it('reads the descendants through the parent, and only the parent with ONLY', async () => {
    await same([
      'select * from p order by a',
      'select * from only p order by a',
      'select a, b, x from c1 order by a',
      'select * from only c1 order by a',
      'select count(*), sum(a), min(b), max(b) from p',
      'select b, count(*) from p group by b order by b nulls first',
      'select p.a, m1.k from p join m1 on p.a = m1.a order by 1',
      'select x.a from p x where x.a > (select min(a) from only c1) order by 1',
      'select a from p where a in (select a from c2) union all select a from only p order by 1',
      'select count(*) from p* as q',
    ]);
  });

  it('refuses column type conflicts', async () => {
    await same([
      'create table bad1 (a text) inherits (p)',
      'create table cx (b int)',
      'create table bad2 () inherits (p, cx)',
      'create table bad3 () inherits (nosuch)',
    ]);
  });

  it('keeps NOT NULL and defaults of the parent', async () => {
    await same([
      "create table dp (a int not null, b text default 'dflt')",
      'create table dc (c int) inherits (dp)',
      'insert into dc (a, c) values (1, 2)',
      'select * from dc',
      'insert into dc (c) values (3)',
      'select * from dp',
    ]);
  });

  it('needs CASCADE to drop a parent, and TRUNCATE empties the children', async () => {
    await same([
      'create table tp (a int)',
      'create table tc () inherits (tp)',
      'create table tg () inherits (tc)',
      'insert into tp values (1)',
      'insert into tc values (2)',
      'insert into tg values (3)',
      'drop table tp',
      'drop table tc',
      'truncate only tp',
      'select * from tp order by 1',
      'truncate tc',
      'select * from tp order by 1',
      'insert into tp values (4)',
      'insert into tg values (5)',
      'drop table tg',
      'select * from tp order by 1',
      'drop table tp cascade',
      'select * from tc',
    ]);
  });

  it('refuses UPDATE and DELETE through a parent with children, not ONLY', async () => {
    for (const sql of ['update p set a = a + 1', 'delete from p where a = 1']) {
      await expect(q.query(sql)).rejects.toMatchObject({ code: '0A000' });
    }
    await same(['update only p set b = upper(b) where a = 1', 'delete from only p where a = 2', 'select * from p order by a', 'update c2 set y = 1', 'select * from p order by a']);
  });
});
