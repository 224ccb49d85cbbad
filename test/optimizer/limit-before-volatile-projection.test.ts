/**
 * limit-before-volatile-projection: volatile calls move above the Top-N / Limit, so nextval runs for the
 * rows the limit returns (plus OFFSET's skipped ones), and results are unchanged otherwise.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Database, formatValue } from '../../src/index.js';

let db: Database;
const logical = async (sql: string): Promise<string> => (await db.query(`explain (logical) ${sql}`)).rows.map((r) => r[0]).join('\n');
const rows = async (sql: string): Promise<string[]> => {
  const r = await db.query(sql);
  return r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type) ?? 'NULL').join('|'));
};

beforeAll(async () => {
  db = await Database.create();
  await db.query(`create table a (id int, g int);
    insert into a select i, i % 7 from generate_series(1, 3000) i;`);
});

describe('limit-before-volatile-projection', () => {
  it('evaluates nextval above the Top-N', async () => {
    await db.query('create sequence s');
    expect(await logical("select id, nextval('s') from a order by g, id limit 3")).toMatch(/Project \([^\n]*nextval\('s'\)[^\n]*\)\n\s+->\s+TopN/);
    expect(await rows("select id, nextval('s') from a order by g, id limit 3")).toEqual(['7|1', '14|2', '21|3']);
    expect(await rows("select currval('s')")).toEqual(['3']);
    // OFFSET's rows are evaluated too, as PostgreSQL's Limit pulls them through the projection.
    expect(await rows("select id, nextval('s') from a order by id limit 2 offset 5")).toEqual(['6|9', '7|10']);
    // A plain LIMIT without ORDER BY over a filter: only the returned rows draw.
    expect(await rows("select id, nextval('s') from a where g = 0 limit 2")).toEqual(['7|11', '14|12']);
    expect(await rows("select currval('s')")).toEqual(['12']);
  });

  it('stays away when the order reads the volatile value, and switches off by name', async () => {
    await db.query('create sequence t');
    expect(await logical("select nextval('t') n from a order by n desc limit 1")).not.toMatch(/Project \([^\n]*nextval\('t'\)[^\n]*\)\n\s+->\s+TopN/);
    expect(await rows("select nextval('t') n from a order by n desc limit 1")).toEqual(['3000']);
    await db.query("set quire.disabled_rules = 'limit-before-volatile-projection'");
    try {
      await db.query("select id, nextval('t') from a order by g, id limit 3");
      // Without the rule every row of the input is projected before the Top-N keeps three.
      expect(await rows("select currval('t')")).toEqual(['6000']);
    } finally {
      await db.query('reset quire.disabled_rules');
    }
    expect(await rows("select random() < 2 from a order by id limit 2")).toEqual(['t', 't']);
  });
});
