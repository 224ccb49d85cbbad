/**
 * EXPLAIN's default text is PostgreSQL's: node names (Seq Scan, Sort, Limit, HashAggregate, Aggregate,
 * Function Scan, WindowAgg), detail lines (Filter, Sort Key, Group Key, Output, Rows Removed by Filter),
 * indentation and ANALYZE's (actual rows=… loops=…). For plans where Quire and PostgreSQL choose the
 * same operators, the text is compared line for line with PGlite's (COSTS OFF: Quire has no cost
 * estimates). FORMAT QUIRE keeps Quire's one-line-per-operator text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database } from '../../src/index.js';
import { startPg } from '../common/pg-helper.js';

let pg: PGlite;
let db: Database;

const SETUP = [
  'create table t (a int, b text, c int, d float8)',
  "insert into t select g, 'x' || (g % 37), g % 10, g * 0.5 from generate_series(1, 1000) g",
];

beforeAll(async () => {
  pg = await startPg();
  db = await Database.create();
  for (const s of SETUP) {
    await pg.query(s);
    await db.query(s);
  }
  await pg.query('analyze t');
}, 60_000);
afterAll(async () => {
  await pg?.close();
  await db?.close();
});

const ours = async (sql: string): Promise<string[]> => (await db.query(sql)).rows.map((r) => String(r[0]));
const theirs = async (sql: string): Promise<string[]> => (await pg.query<[string]>(sql, [], { rowMode: 'array' })).rows.map((r) => r[0]);

describe('EXPLAIN in PostgreSQL vocabulary', () => {
  for (const q of [
    "select * from t where a = 1 and b < 'x'",
    'select a, b from t order by b desc, a',
    'select a + 1 as x from t order by a + 1 limit 3',
    'select a from t order by c nulls first, a limit 5 offset 2',
    'select count(*) from t',
    'select sum(d), max(b) from t where a between 10 and 20',
    'select distinct c from t where c = 3',
    'select distinct c, 1, 2 from t where c = 3 and a <> 0',
    'select distinct on (c) c, a from t where c = 4 order by c, a desc',
    'select distinct g % 10 from generate_series(1, 100) g',
    'select * from generate_series(1, 10) g where g > 5',
    "select a from t where b like 'x1%' and a is not null",
    'select a from t where a in (1, 2, 3)',
    'select * from t where c = 3 or d > 10.5',
    'select c, count(*) from t group by c',
    'select * from t x where x.a < 3',
    'select * from (values (1), (2)) v(x) where x > 1',
    'select a from t where c = 1 for update',
  ]) {
    it(q, async () => {
      const sql = `explain (costs off) ${q}`;
      expect(await ours(sql)).toEqual(await theirs(sql));
    });
  }

  // PostgreSQL 17's text, as the regression files in test/conformance print it (PGlite's version adds
  // BUFFERS to ANALYZE and prints fractional row counts).
  it('VERBOSE qualifies relations and columns and prints each node’s output', async () => {
    expect(await ours('explain (verbose, costs off) select count(*) from (select distinct c, b, c from t) s')).toEqual([
      'Aggregate',
      '  Output: count(*)',
      '  ->  HashAggregate',
      '        Output: t.c, t.b, t.c',
      '        Group Key: t.c, t.b',
      '        ->  Seq Scan on public.t',
      '              Output: t.c, t.b, t.c',
    ]);
  });

  it('ANALYZE reports actual rows and the rows a filter removed', async () => {
    expect(await ours('explain (analyze, costs off, timing off, summary off) select * from t where c = 3')).toEqual([
      'Seq Scan on t (actual rows=100 loops=1)',
      '  Filter: (c = 3)',
      '  Rows Removed by Filter: 900',
    ]);
    const timed = await ours('explain analyze select * from t where c = 3');
    expect(timed[0]).toMatch(/^Seq Scan on t \(actual time=\d+\.\d{3}\.\.\d+\.\d{3} rows=100 loops=1\)$/);
    expect(timed.slice(-2)[0]).toMatch(/^Planning Time: \d+\.\d{3} ms$/);
    expect(timed.slice(-1)[0]).toMatch(/^Execution Time: \d+\.\d{3} ms$/);
  });

  it('a Top-N is PostgreSQL’s Limit over a Sort; a per-partition Top-N keeps Quire’s name', async () => {
    expect(await ours('explain select a from t order by d desc limit 4')).toEqual(['Limit', '  ->  Sort', '        Sort Key: d DESC', '        ->  Seq Scan on t']);
    const ranked = await ours('explain select * from (select a, c, row_number() over (partition by c order by a) rn from t) x where rn <= 2');
    expect(ranked.join('\n')).toMatch(/TopNRanking/);
  });

  it('FORMAT QUIRE prints one line per physical operator', async () => {
    expect((await ours('explain (format quire) select a from t where c = 1')).join('\n')).toMatch(/Filter \(\(c = 1\)\)\n\s+->  TableScan \(table: t, columns: \[a, c\]\)/);
  });

  it('refuses options PostgreSQL does not have and formats Quire does not print', async () => {
    await expect(db.query('explain (bogus) select 1')).rejects.toMatchObject({ code: '42601' });
    await expect(db.query('explain (format json) select 1')).rejects.toMatchObject({ code: '0A000' });
    await expect(db.query('explain (timing on) select 1')).rejects.toMatchObject({ code: '22023' });
  });
});
