/**
 * Plan-shape tests for the limit / Top-N rules (fires, does not fire), each with a same-rows check with
 * the rule switched off and, where PostgreSQL's answer is determined, against PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, formatValue, ruleNames } from '../../src/index.js';
import { newPglite, type SqlConnection } from '../harness/connection.js';

let db: Database;
let pg: SqlConnection;

const plan = async (sql: string): Promise<string> => (await db.query(`explain (format quire) ${sql}`)).rows.map((r) => r[0]).join('\n');
const rows = async (sql: string): Promise<string[]> => {
  const r = await db.query(sql);
  return r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type) ?? 'NULL').join('|'));
};
const pgRows = async (sql: string): Promise<string[]> => (await pg.query(sql)).rows.map((r) => r.map((v) => v ?? 'NULL').join('|'));

async function withRule<T>(name: string, f: () => Promise<T>): Promise<T> {
  await db.query(`set quire.disabled_rules = '${name}'`);
  try {
    return await f();
  } finally {
    await db.query('reset quire.disabled_rules');
  }
}

/**
 * Same rows with the rule on and off; `pgCheck`: 'ordered' compares with PostgreSQL row by row, 'count'
 * only the number of rows (LIMIT without ORDER BY may pick any rows), 'sorted' as multisets.
 */
async function same(rule: string, sql: string, pgCheck: 'ordered' | 'sorted' | 'count' | 'none' = 'ordered'): Promise<void> {
  const on = await rows(sql);
  const off = await withRule(rule, () => rows(sql));
  if (pgCheck === 'count') {
    // Any rows are a correct answer: same number, and every row is a row of the unlimited query.
    expect(on.length, `${rule} on vs off: ${sql}`).toBe(off.length);
    const all = new Set(await rows(sql.replace(/ limit \d+( offset \d+)?$/, '')));
    for (const r of on) expect(all.has(r), `${r} is a row of ${sql}`).toBe(true);
  } else if (pgCheck === 'sorted') {
    // Tied rows may come in another order: a small Sort puts them in PostgreSQL's order, a Top-N keeps
    // the order they arrived in.
    expect([...on].sort(), `${rule} on vs off: ${sql}`).toEqual([...off].sort());
  } else expect(on, `${rule} on vs off: ${sql}`).toEqual(off);
  if (pgCheck === 'none') return;
  const want = await pgRows(sql);
  if (pgCheck === 'count') expect(on.length, sql).toBe(want.length);
  else if (pgCheck === 'sorted') expect([...on].sort(), sql).toEqual([...want].sort());
  else expect(on, sql).toEqual(want);
}

const SETUP = `create table a (id int, g int, v float8, s text);
  create table b (id int, name text);
  create table c (id int, x int);
  insert into a select i, i % 7, (i * 37 % 101) / 10.0, 's' || (i % 13) from generate_series(1, 500) i;
  insert into a values (null, null, null, null), (501, 3, 'NaN', 's1'), (502, null, 2.5, null), (503, 2, 2.5, 's2');
  insert into b select i, 'n' || i from generate_series(0, 9) i;
  insert into c select i, i % 4 from generate_series(1, 40) i;`;

beforeAll(async () => {
  db = await Database.create();
  pg = await newPglite();
  await db.query(SETUP);
  for (const s of SETUP.split(';').map((x) => x.trim()).filter(Boolean)) await pg.query(s);
}, 120_000);
afterAll(async () => {
  await pg.close?.();
});

describe('rule registry', () => {
  it('lists every Top-N rule under its file name', () => {
    const names = ruleNames();
    for (const n of [
      'eliminate-limit',
      'push-limit-through-project',
      'push-limit-through-union',
      'push-limit-into-outer-join',
      'push-limit-into-scan',
      'limit-past-window',
      'derive-topn-from-window',
      'merge-limits',
      'sort-limit-to-topn',
    ]) {
      expect(names).toContain(n);
    }
  });
});

describe('eliminate-limit', () => {
  it('LIMIT 0 becomes an empty relation; the input is not run', async () => {
    expect(await plan('select * from a limit 0')).toBe('Empty');
    expect(await plan('select * from a order by v limit 0 offset 5')).toBe('Empty');
    expect(await plan('select * from (select * from a limit 0) x join b on x.g = b.id')).toBe('Empty');
    expect(await plan('select count(*) from (select * from a limit 0) x')).toMatch(/HashAggregate/);
    // PostgreSQL does not evaluate the input of LIMIT 0 either.
    expect(await rows('select 1 / (id - id) from a limit 0')).toEqual([]);
    await same('eliminate-limit', 'select * from a order by v fetch first 0 rows with ties');
    await same('eliminate-limit', 'select count(*) from (select * from a limit 0) x');
    await same('eliminate-limit', 'select * from a left join (select * from b limit 0) y on a.g = y.id order by a.id limit 5');
  });

  it('does not fire on non-constant or negative counts', async () => {
    expect(await plan('select * from a limit (select 0)')).not.toBe('Empty');
    await expect(db.query('select * from a limit 0 offset -1')).rejects.toThrow(/OFFSET must not be negative/);
    await withRule('eliminate-limit', async () => {
      expect(await plan('select * from a limit 0')).toMatch(/Limit \(limit: 0\)/);
    });
  });

  it('LIMIT ALL without offset disappears', async () => {
    expect(await plan('select id from a limit all')).not.toMatch(/Limit/);
    await same('eliminate-limit', 'select id from a order by id limit all');
  });
});

describe('push-limit-through-project', () => {
  it('moves the limit below a projection so it meets the sort / scan', async () => {
    const q = 'select id, v * 2 as w from a order by v desc, id limit 5';
    expect(await plan(q)).toMatch(/Project[^\n]*\n\s+->\s+TopN/);
    await same('push-limit-through-project', q);
    // Directly over a scan the limit stays above the projection (so the scan is still pruned) and the
    // scan gets its fetch through the projection.
    expect(await plan('select id + 1 from a limit 3')).toMatch(/Limit[^\n]*\n\s+->\s+Project[^\n]*\n\s+->\s+TableScan \(table: a, columns: \[id\], fetch: 3\)/);
    await same('push-limit-through-project', 'select id + 1 from a limit 3', 'count');
  });

  it('does not move past volatile expressions', async () => {
    expect(await plan('select random() from a limit 3')).toMatch(/Limit[^\n]*\n\s+->\s+Project/);
  });
});

describe('push-limit-through-union', () => {
  it('limits each UNION ALL branch to offset+count and keeps the outer limit', async () => {
    const q = 'select id from a union all select id from c limit 4 offset 2';
    const p = await plan(q);
    expect(p).toMatch(/^Limit \(limit: 4, offset: 2\)/);
    expect(p.match(/Limit \(limit: 6\)/g)?.length).toBe(2);
    await same('push-limit-through-union', q, 'count');
    const ordered = 'select * from (select id from a where id < 20 union all select id from c) u order by id limit 5';
    await same('push-limit-through-union', ordered);
    // Branch limits meet the branch's ORDER BY as a Top-N.
    const branches = '(select id from a order by id desc limit 3) union all (select id from c order by id limit 50) limit 2';
    expect(await plan(branches)).toMatch(/Limit \(limit: 2\)\n\s+->\s+TopN \(keys: \[id ASC\], limit: 50/);
    await same('push-limit-through-union', branches);
  });

  it('does not fire on UNION (distinct), INTERSECT or WITH TIES', async () => {
    expect(await plan('select g from a union select x from c limit 3')).not.toMatch(/Limit \(limit: 3\)[^\n]*\n\s+->\s+(TableScan|Project)/);
    await same('push-limit-through-union', 'select g from a union select x from c order by 1 limit 3');
    await same('push-limit-through-union', 'select g from a intersect select x from c order by 1 limit 2');
  });
});

describe('push-limit-into-outer-join', () => {
  it('limits the preserved side of LEFT / RIGHT joins', async () => {
    const q = 'select a.id, b.name from a left join b on a.g = b.id limit 5';
    expect(await plan(q)).toMatch(/TableScan \(table: a[^\n]*fetch: 5/);
    await same('push-limit-into-outer-join', q, 'count');
    const r = 'select b.name, a.id from a right join b on a.g = b.id limit 3';
    expect(await plan(r)).toMatch(/TableScan \(table: b[^\n]*fetch: 3/);
    await same('push-limit-into-outer-join', r, 'count');
  });

  it('does not fire on inner or full joins', async () => {
    expect(await plan('select a.id from a join b on a.g = b.id limit 5')).not.toMatch(/fetch/);
    expect(await plan('select a.id from a full join b on a.g = b.id limit 5')).not.toMatch(/fetch/);
    await same('push-limit-into-outer-join', 'select a.id, b.id from a full join b on a.g = b.id order by a.id, b.id limit 5');
  });
});

describe('push-limit-into-scan', () => {
  it('gives the scan a fetch and keeps the limit', async () => {
    const q = 'select * from a limit 7 offset 3';
    expect(await plan(q)).toMatch(/Limit \(limit: 7, offset: 3\)\n\s+->\s+TableScan \(table: a, fetch: 10\)/);
    await same('push-limit-into-scan', q, 'count');
    // The rows are the scan's first rows (in-memory tables read in insertion order).
    expect(await rows('select id from a limit 3')).toEqual(['1', '2', '3']);
    await withRule('push-limit-into-scan', async () => {
      expect(await plan(q)).not.toMatch(/fetch/);
    });
  });

  it('the scan stops after fetch rows and passes the hint to its source', async () => {
    const a2 = (await db.query('explain (format quire, analyze) select * from a limit 7 offset 3')).rows.map((r) => r[0]).join('\n');
    expect(a2).toMatch(/TableScan \(table: a, fetch: 10\) \(actual rows=10 /);
    const seen: (number | undefined)[] = [];
    const src = {
      name: 'hinted',
      schema: [{ name: 'x', type: { name: 'int4', typmod: -1 } }],
      rowCount: () => 100,
      async *scan(opts?: { fetch?: number }) {
        seen.push(opts?.fetch);
        const { ColumnBuilder } = await import('../../src/common/column.js');
        const c = new ColumnBuilder({ name: 'int4', typmod: -1 });
        for (let i = 0; i < 100; i++) c.push(i);
        yield { columns: [c.finish()], length: 100 };
      },
    };
    (db as unknown as { catalog: { addTable(t: unknown): void } }).catalog.addTable(src);
    expect(await rows('select x from hinted limit 2 offset 1')).toEqual(['1', '2']);
    expect(seen).toEqual([3]);
  });

  it('does not fire on WITH TIES or on OFFSET alone', async () => {
    expect(await plan('select * from a offset 3')).not.toMatch(/fetch/);
  });
});

describe('sort-limit-to-topn / merge-limits keep working through the new rules', () => {
  it('Top-N through a CTE and a projection', async () => {
    const q = 'with x as (select id, v from a order by v desc nulls last, id) select id from x limit 4 offset 2';
    expect(await plan(q)).toMatch(/TopN \(keys: \[v DESC NULLS LAST, id ASC\], limit: 4, offset: 2/);
    await same('sort-limit-to-topn', q);
    await same('push-limit-through-project', q);
    await same('sort-limit-to-topn', 'select id, v from a order by v nulls first, id limit 600 offset 2');
    await same('sort-limit-to-topn', 'select id, v from a order by v fetch first 2 rows with ties', 'sorted');
  });
});

describe('rules inside subquery plans', () => {
  it('a correlated ORDER BY … LIMIT in a scalar subquery is a Top-N, also with a per-row count', async () => {
    const q = 'select id, (select sum(a.v) from (select v from a where a.g = c.x order by v desc nulls last, id limit 3) a) from c order by id';
    expect(await plan(q)).toMatch(/TopN \(keys: \[v DESC NULLS LAST, [^\]]+\], limit: 3, offset: 0/);
    expect(await withRule('sort-limit-to-topn', () => plan(q))).not.toMatch(/TopN/);
    await same('sort-limit-to-topn', q);
    const perRow = 'select id, (select string_agg(a.id::text, \',\') from (select id from a where a.g = c.x order by v, id limit c.x offset c.id % 3) a) from c order by id';
    expect(await plan(perRow)).toMatch(/TopN \(keys: \[[^\]]+ ASC, id ASC\], limit: CAST\(outer\.x AS bigint\), offset: .*evaluated per outer row/);
    await same('sort-limit-to-topn', perRow);
  });

  it('EXISTS and IN subqueries get their scans pruned and their limits pushed', async () => {
    // id decides between rows tied on v, so the limited subquery's rows do not depend on the plan.
    const q = 'select id from c where exists (select 1 from a where a.g = c.x and a.v > 9 limit 1) and x in (select g from a order by v desc, id limit 5) order by id';
    const p = await plan(q);
    expect(p).toMatch(/TableScan \(table: a, columns: \[id, g, v\]/);
    expect(p).toMatch(/TopN \(keys: \[\?sort\? DESC, \?sort\? ASC\], limit: 5/);
    await same('sort-limit-to-topn', q);
    await same('prune-scan-columns', q);
  });
});

describe('limit-past-window', () => {
  it('pushes a Top-N with the window order below the window', async () => {
    const q = 'select id, g, v, row_number() over (partition by g order by v, id) rn, lag(v) over (partition by g order by v, id) lv from a order by g, v, id limit 5 offset 2';
    const p = await plan(q);
    expect(p).toMatch(/Window[\s\S]*TopN \(keys: \[g ASC, v ASC, id ASC\], limit: 7/);
    await same('limit-past-window', q);
    const lead = 'select id, v, lead(v, 2) over (order by v desc, id) l, sum(v) over (order by v desc, id rows between 1 preceding and 1 following) s from a order by v desc, id limit 3';
    expect(await plan(lead)).toMatch(/TopN \(keys: \[v DESC, id ASC\], limit: 5/);
    await same('limit-past-window', lead);
    const bare = 'select id, row_number() over (order by v, id) from a limit 4';
    expect(await plan(bare)).toMatch(/Window[\s\S]*TopN/);
    await same('limit-past-window', bare, 'none');
  });

  it('does not fire when the window needs the whole partition or the keys differ', async () => {
    for (const q of [
      'select id, count(*) over (partition by g) from a order by g, id limit 3',
      'select id, ntile(3) over (order by v, id) from a order by v, id limit 3',
      'select id, sum(v) over (order by v, id) from a order by v, id limit 3',
      'select id, row_number() over (order by v, id) from a order by id limit 3',
      'select id, percent_rank() over (order by v, id) from a order by v, id limit 3',
    ]) {
      expect((await plan(q)).match(/TopN/g)?.length ?? 0, q).toBeLessThanOrEqual(1);
      expect(await plan(q), q).not.toMatch(/Window[\s\S]*TopN/);
      await same('limit-past-window', q);
    }
  });
});

describe('derive-topn-from-window', () => {
  it('fires on rn <= k, rn < k, rn = 1, k >= rn, BETWEEN 1 AND k, IN (1..k)', async () => {
    for (const cond of ['rn <= 3', 'rn < 4', 'rn = 1', '3 >= rn', 'rn between 1 and 3', 'rn in (1, 2, 3)', 'rn between 2 and 3', 'rn = 2']) {
      const q = `select * from (select id, g, v, row_number() over (partition by g order by v, id) rn from a) x where ${cond} order by g, rn`;
      expect(await plan(q), cond).toMatch(/TopNRanking \(partition: \[g\], order: \[v ASC, id ASC\], row_number <= [123]/);
      await same('derive-topn-from-window', q);
    }
  });

  it('keeps ties at the cutoff for rank and dense_rank, NULL partitions and keys included', async () => {
    for (const fn of ['rank', 'dense_rank']) {
      const q = `select * from (select id, g, v, ${fn}() over (partition by g order by v desc) rn from a) x where rn <= 2 order by g, rn, id`;
      expect(await plan(q)).toMatch(new RegExp(`TopNRanking .*${fn} <= 2`));
      await same('derive-topn-from-window', q);
    }
    const multi = 'select * from (select id, g, s, v, rank() over (partition by g, s order by v nulls first, id desc) rn from a) x where rn = 1 order by id';
    expect(await plan(multi)).toMatch(/TopNRanking \(partition: \[g, s\]/);
    await same('derive-topn-from-window', multi);
  });

  it('drops the ranking filter only when it is redundant and the Top-N is strict', async () => {
    const q = 'select * from (select id, g, row_number() over (partition by g order by id) rn from a) x where rn <= 2 and id > 3';
    await db.query(`set quire.derive_topn = 'on'`);
    try {
      expect(await plan(q)).toMatch(/Filter \(\(id > 3\)\)/);
      expect(await plan(q.replace('rn <= 2', 'rn between 2 and 3'))).toMatch(/Filter \(\(\(row_number >= 2\) AND \(row_number <= 3\) AND \(id > 3\)\)\)/);
      await same('derive-topn-from-window', q, 'sorted');
    } finally {
      await db.query('reset quire.derive_topn');
    }
    expect(await plan(q)).toMatch(/Filter \(\(\(row_number <= 2\) AND \(id > 3\)\)\)/);
    await same('derive-topn-from-window', q, 'sorted');
  });

  it('rn <= 0 is an empty relation', async () => {
    const q = 'select * from (select id, row_number() over (order by id) rn from a) x where rn <= 0';
    expect(await plan(q)).toBe('Empty');
    await same('derive-topn-from-window', q);
  });

  it('does not fire with whole-partition functions, other frames, no upper bound, or when off', async () => {
    for (const q of [
      'select * from (select id, row_number() over (partition by g order by id) rn, count(*) over (partition by g) c from a) x where rn <= 2',
      'select * from (select id, row_number() over (partition by g order by id) rn, ntile(2) over (partition by g order by id) t from a) x where rn <= 2',
      'select * from (select id, row_number() over (partition by g order by id) rn, percent_rank() over (partition by g order by id) t from a) x where rn <= 2',
      'select * from (select id, row_number() over (partition by g order by id) rn, cume_dist() over (partition by g order by id) t from a) x where rn <= 2',
      'select * from (select id, row_number() over (partition by g order by id) rn, sum(v) over (partition by g order by id) t from a) x where rn <= 2',
      'select * from (select id, row_number() over (partition by g order by id) rn, sum(v) over (partition by g order by id rows between current row and 1 following) t from a) x where rn <= 2',
      'select * from (select id, row_number() over (partition by g order by id) rn from a) x where rn > 2',
      'select * from (select id, row_number() over (partition by g order by id) rn from a) x where rn <= 2 or id = 3',
      'select * from (select id, rank() over (partition by g) rn from a) x where rn <= 2',
      'select * from (select id, row_number() over (partition by g order by random()) rn from a) x where rn <= 2',
    ]) {
      expect(await plan(q), q).not.toMatch(/TopNRanking/);
      if (!q.includes('random()')) await same('derive-topn-from-window', q, 'none');
    }
    // Functions that only look back survive the cut: the rule fires with them.
    const ok = 'select * from (select id, rank() over (partition by g order by v) rn, sum(v) over (partition by g order by v) t, lag(id) over (partition by g order by v) l from a) x where rn <= 2 order by id';
    expect(await plan(ok)).toMatch(/TopNRanking/);
    await same('derive-topn-from-window', ok, 'none');
    await db.query(`set quire.derive_topn = 'off'`);
    expect(await plan('select * from (select id, row_number() over (partition by g order by id) rn from a) x where rn <= 2')).not.toMatch(/TopNRanking/);
    await db.query('reset quire.derive_topn');
  });

  it('auto mode skips when the estimate says it cannot prune', async () => {
    await db.query('create table pk (id int primary key, v int); insert into pk select i, i % 3 from generate_series(1, 50) i');
    const q = 'select * from (select id, v, row_number() over (partition by id order by v) rn from pk) x where rn <= 1';
    expect(await plan(q)).not.toMatch(/TopNRanking/);
    expect(await plan('select * from (select id, row_number() over (order by v) rn from pk) x where rn <= 100')).not.toMatch(/TopNRanking/);
    await db.query(`set quire.derive_topn = 'on'`);
    try {
      expect(await plan(q)).toMatch(/TopNRanking/);
    } finally {
      await db.query('reset quire.derive_topn');
    }
  });

  it("TiDB's customer query: partitioned Top-N below the window", async () => {
    const setup = `create table customer (primary_key int, secondary_key int, c_timestamp int8, payload text);
      insert into customer select i % 4, i % 9, 1661883508511000000 + (i * 7919) % 1000, 'p' || i from generate_series(1, 3000) i;
      insert into customer values (2, null, 1661883508511000005, 'nullkey'), (2, 3, null, 'nullts')`;
    await db.query(setup);
    for (const s of setup.split(';')) await pg.query(s);
    const q = `select * from (select *, row_number() over (partition by primary_key, secondary_key order by c_timestamp, payload) as rownum
      from customer where primary_key = 2 and secondary_key >= 1 and c_timestamp >= 1661883508511000000) as nested
      where rownum <= 10 order by secondary_key desc, rownum`;
    const p = await plan(q);
    expect(p).toMatch(/TopNRanking \(partition: \[primary_key, secondary_key\], order: \[c_timestamp ASC, payload ASC\], row_number <= 10/);
    expect(p).toMatch(/TopNRanking[^\n]*\n\s+->\s+Filter \(\(\(primary_key = 2\)/);
    await same('derive-topn-from-window', q);
  });
});
