/**
 * distinct-of-constants-to-limit and remove-constant-sort-keys: plan shape (fires / refuses) and the
 * same rows with the rule on, off, and as PostgreSQL (PGlite) returns them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database, formatValue } from '../../src/index.js';
import { startPg } from '../common/pg-helper.js';

let db: Database;
let pg: PGlite;
const logical = async (sql: string): Promise<string> => (await db.query(`explain (logical) ${sql}`)).rows.map((r) => r[0]).join('\n');
const rows = async (sql: string): Promise<string[]> => {
  const r = await db.query(sql);
  return r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type) ?? 'NULL').join('|'));
};
const pgRows = async (sql: string): Promise<string[]> => (await pg.query<unknown[]>(sql, [], { rowMode: 'array' })).rows.map((row) => row.map((v) => (v === null ? 'NULL' : String(v))).join('|'));

const SETUP = [
  'create table k (id int, four int, two int, s text, v float8)',
  "insert into k select i, i % 4, i % 2, 's' || (i % 5), (i * 37 % 101) / 10.0 from generate_series(1, 400) i",
  'insert into k values (401, null, null, null, null), (402, 0, null, null, 1.5)',
];

beforeAll(async () => {
  db = await Database.create();
  pg = await startPg();
  for (const s of SETUP) {
    await db.query(s);
    await pg.query(s);
  }
}, 60_000);
afterAll(async () => {
  await db?.close();
  await pg?.close();
});

async function offThen(rule: string, sql: string): Promise<string[]> {
  await db.query(`set quire.disabled_rules = '${rule}'`);
  try {
    return await rows(sql);
  } finally {
    await db.query('reset quire.disabled_rules');
  }
}

describe('distinct-of-constants-to-limit', () => {
  it('turns DISTINCT over pinned or constant columns into Limit 1', async () => {
    expect(await logical('select distinct four from k where four = 0')).toMatch(/^Limit \(limit: 1, offset: 0\)/);
    expect(await logical('select distinct four, 1, 2 from k where four = 0 and two <> 0')).toMatch(/^Limit \(limit: 1/);
    // DISTINCT ON computes its select list above the first row, as PostgreSQL does.
    expect(await logical('select distinct on (four) four, id from k where 2 = four order by four, id desc')).toMatch(/^Project \(four AS four, id AS id\)\n\s+->  TopN \(keys: \[id DESC\], limit: 1/);
    expect(await logical('select distinct on (four) four, id + 1 as x from k where 2 = four order by four, x')).toMatch(/^Project [^\n]*\n\s+->  TopN \(keys: \[\(id \+ 1\)\], limit: 1/);
    expect(await logical('select distinct on (four) four, random() from k where 2 = four order by four, 2')).toMatch(/^TopN \(keys: \[random\], limit: 1[^\n]*\n\s+->  Project/);
    expect(await logical('select distinct 7 from k')).toMatch(/^Limit \(limit: 1/);
  });

  it('refuses columns that still vary', async () => {
    expect(await logical('select distinct four, two from k where four = 0')).toMatch(/^Distinct/);
    expect(await logical('select distinct four + 0 from k where two = 1')).toMatch(/^Distinct/);
    expect(await logical('select distinct on (four) four, id from k where two = 0 order by four, id')).toMatch(/^DistinctOn/);
    expect(await logical('select distinct four from k where four > 0 and four < 2')).toMatch(/^Distinct/);
  });

  for (const q of [
    'select distinct four from k where four = 0',
    'select distinct four from k where four = 9',
    'select distinct four, 1, 2, 3 from k where four = 0 and two <> 0',
    'select distinct four, 1 from k where four = 3 and id > 1000',
    'select distinct on (four) four, id from k where four = 2 order by four, id desc',
    'select distinct on (four) four, id, v from k where four = 0 order by four, v desc nulls last, id',
    'select distinct on (four) id + 1 as x, four from k where four = 1 order by four, x desc',
    'select distinct on (four) v, id from k where four = 3',
    "select distinct s from k where s = 's3'",
    'select distinct two from k where two = 1 and four = 1',
  ]) {
    it(`same rows as without the rule and as PostgreSQL: ${q}`, async () => {
      const on = await rows(q);
      expect(await offThen('distinct-of-constants-to-limit', q)).toEqual(on);
      expect(on).toEqual(await pgRows(q));
    });
  }
});

describe('remove-constant-sort-keys', () => {
  it('drops pinned keys, and a Sort left without keys', async () => {
    expect(await logical('select id, two from k where four = 1 order by four, id')).toMatch(/Sort \(id\)/);
    expect(await logical('select id from k where four = 1 order by four')).not.toMatch(/Sort/);
    // An expression over a pinned column is not itself recognised as constant: the key stays.
    expect(await logical('select id from k where four = 1 order by four + 1, id')).toMatch(/Sort \(\?sort[^,]*, id\)/);
  });

  for (const q of [
    'select id, two from k where four = 1 order by four, two desc, id',
    'select id from k where four = 1 and two = 1 order by two, four, id',
    'select id, v from k where four = 0 order by four, v nulls first, id limit 5',
    'select id from k where four = 3 order by 1 offset 90',
  ]) {
    it(`same rows as without the rule and as PostgreSQL: ${q}`, async () => {
      const on = await rows(q);
      expect(await offThen('remove-constant-sort-keys', q)).toEqual(on);
      expect(on).toEqual(await pgRows(q));
    });
  }
});
