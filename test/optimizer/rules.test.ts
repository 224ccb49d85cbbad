import { beforeAll, describe, expect, it } from 'vitest';
import { Database, formatValue, ruleNames } from '../../src/index.js';

let db: Database;
const plan = async (sql: string): Promise<string> => (await db.query(`explain (format quire) ${sql}`)).rows.map((r) => r[0]).join('\n');
/** The optimized logical plan: what the rules produced, before the physical planner's choices. */
const logical = async (sql: string): Promise<string> => (await db.query(`explain (logical) ${sql}`)).rows.map((r) => r[0]).join('\n');
const rows = async (sql: string): Promise<string[]> => {
  const r = await db.query(sql);
  return r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type) ?? 'NULL').join('|'));
};
async function withRule(name: string, f: () => Promise<void>): Promise<void> {
  await db.query(`set quire.disabled_rules = '${name}'`);
  try {
    await f();
  } finally {
    await db.query('reset quire.disabled_rules');
  }
}
/** The query returns the same rows with the rule on and off. */
/** `unordered`: rows tied on every ORDER BY key may come in another order (a small Sort puts them in PostgreSQL's order, a Top-N in arrival order). */
async function sameWithout(rule: string, sql: string, unordered = false): Promise<void> {
  const on = await rows(sql);
  let off: string[] = [];
  await withRule(rule, async () => {
    off = await rows(sql);
  });
  if (unordered) expect([...off].sort()).toEqual([...on].sort());
  else expect(off).toEqual(on);
}

beforeAll(async () => {
  db = await Database.create();
  await db.query(`create table a (id int, g int, v float8, s text);
    create table b (id int, name text);
    insert into a select i, i % 7, (i * 37 % 101) / 10.0, 's' || (i % 13) from generate_series(1, 500) i;
    insert into a values (null, null, null, null), (501, 3, 'NaN', 's1');
    insert into b select i, 'n' || i from generate_series(0, 9) i;`);
});

describe('optimizer rules', () => {
  it('every rule has a distinct name', () => {
    const names = ruleNames();
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('sort-limit-to-topn');
  });

  it('sort-limit-to-topn fires on ORDER BY + LIMIT and not on OFFSET alone', async () => {
    expect(await logical('select * from a order by v desc limit 5 offset 3')).toMatch(/^TopN \(keys: \[v DESC\], limit: 5, offset: 3\)\n\s+->\s+Scan \(a\)$/);
    expect(await logical('select * from a order by v offset 3')).toMatch(/^Limit \(limit: ALL, offset: 3\)\n\s+->\s+Sort/);
    expect(await logical('select * from a order by v fetch first 3 rows with ties')).toMatch(/^TopN .*with ties/);
    await withRule('sort-limit-to-topn', async () => {
      expect(await logical('select * from a order by v desc limit 5 offset 3')).toMatch(/^Limit \(limit: 5, offset: 3\)\n\s+->\s+Sort \(v DESC\)/);
    });
    for (const q of [
      'select id, v from a order by v desc nulls last, id limit 7 offset 2',
      'select id, v from a order by v nulls first, id limit 3',
      'select id, v from a order by v fetch first 4 rows with ties',
      'select id from a order by s, id limit 0',
    ]) {
      await sameWithout('sort-limit-to-topn', q, q.includes('with ties'));
    }
  });

  it('merge-limits collapses nested limits', async () => {
    const q = 'select * from (select id from a order by id limit 20 offset 5) x limit 4 offset 3';
    expect(await plan(q)).toMatch(/TopN \(keys: \[id ASC\], limit: 4, offset: 8/);
    expect(await logical(q)).toMatch(/^TopN \(keys: \[id\], limit: 4, offset: 8\)\n/);
    await withRule('merge-limits', async () => {
      expect(await logical(q)).toMatch(/^Limit \(limit: 4, offset: 3\)\n(.*\n)*\s+->\s+TopN \(keys: \[id\], limit: 20, offset: 5\)/);
    });
    await sameWithout('merge-limits', q);
    await sameWithout('merge-limits', 'select * from (select id from a order by id limit 3 offset 1) x limit 10 offset 2');
  });

  it('push-filter-into-join turns WHERE equalities into a hash join', async () => {
    const q = 'select a.id, b.name from a, b where a.g = b.id and a.v > 5 order by a.id';
    expect(await plan(q)).toMatch(/HashJoin/);
    // The equality becomes the join's condition and the one-sided conjunct filters its side below it.
    expect(await logical(q)).toMatch(/Join \(inner, on: \(g = id\)\)\n\s+->\s+Filter \(\(v > 5\)\)\n\s+->\s+Scan \(a/);
    await withRule('push-filter-into-join', async () => {
      expect(await plan(q)).not.toMatch(/HashJoin/);
      expect(await logical(q)).toMatch(/Filter \(.*\)\n\s+->\s+Join \(cross\)/);
    });
    await sameWithout('push-filter-into-join', q);
    await sameWithout('push-filter-into-join', 'select a.id, b.name from a left join b on a.g = b.id where b.name is null order by a.id');
  });

  it('push-filter-below-project filters subqueries before projecting', async () => {
    const q = 'select * from (select id, v * 2 as w from a) x where w > 10 order by id';
    expect(await logical(q)).toMatch(/Project \(.*\)\n\s+->\s+Filter \(\(\(v \* 2\) > 10\)\)/);
    await sameWithout('push-filter-below-project', q);
  });

  it('prune-scan-columns reads only the needed columns', async () => {
    expect(await plan('select id from a where v > 1')).toMatch(/TableScan \(table: a, columns: \[id, v\]\)/);
    await withRule('prune-scan-columns', async () => {
      expect(await plan('select id from a where v > 1')).toMatch(/TableScan \(table: a\)/);
    });
    await sameWithout('prune-scan-columns', 'select g, count(*), sum(v) from a where id > 3 group by g order by g');
  });

  it('prunes under a window with a ranking filter above it and a per-partition Top-N below it', async () => {
    const q = `select g, id, rn from (select g, id, v, row_number() over (partition by g order by v desc) rn from a) x where rn <= 2 and id > 10 order by g, rn`;
    const p = await plan(q);
    expect(p).toMatch(/TopNRanking[^\n]*\n\s+->\s+TableScan \(table: a, columns: \[id, g, v\]\)/);
    await sameWithout('prune-scan-columns', q);
    await sameWithout('prune-scan-columns', `select s, r from (select s, rank() over (partition by g order by id) r from a where v > 2) x where r = 1 and s <> 's3' order by s, r`);
    // Every column used: nothing to prune.
    expect(await plan(`select * from (select *, row_number() over (partition by g order by v) rn from a) x where rn <= 2`)).toMatch(/TableScan \(table: a\)/);
  });
});

describe('remove-identity-projection', () => {
  it('drops pass-through projections so adjacent rules can see each other', async () => {
    const q = 'select * from (select * from (select id, v from a) x) y order by id limit 3';
    expect(await plan(q)).not.toMatch(/Project/);
    await sameWithout('remove-identity-projection', q);
  });
});
