/**
 * Aggregates over hash joins, differentially against PGlite: count(*) and count(col) without GROUP BY
 * (the whole-batch count path), joins whose output only feeds a count (no pairs gathered), and grouped
 * aggregates over the join's build-side columns. Key shapes: NULL keys (never match), duplicate keys on
 * both sides, text keys with multibyte characters, an empty build side, and every join type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';

// Several batches on the probe side (5,000 rows), duplicates on both sides, NULLs in keys and values.
const SETUP = `
create table p (id int, g int, s text, v float8, x int, vn float8);
insert into p select i, case when i % 13 = 0 then null else i % 700 end,
  case when i % 17 = 0 then null else 'ключ-' || (i % 300) || '-😀' end,
  (i * 7 % 1009)::float8, case when i % 5 = 0 then null else i end,
  case when i % 4 = 0 then null else (i % 301) * 0.25 end
  from generate_series(1, 5000) i;
create table b (g int, s text, name text, w float8);
insert into b select case when i % 11 = 0 then null else i % 500 end,
  case when i % 19 = 0 then null else 'ключ-' || (i % 400) || '-😀' end,
  'n' || (i % 37), (i % 10)::float8 / 10
  from generate_series(1, 1200) i;
create table e (g int, s text, name text);
create table dim (g int, s text, name text, region text, w float8);
insert into dim select i, 'ключ-' || i || '-😀', case when i % 23 = 0 then null else 'имя ' || (i % 41) end,
  'r' || (i % 3), (i % 10)::float8 / 10
  from generate_series(0, 649) i;
insert into dim values (null, null, 'null key', 'r0', 0);
create table q8 (k bigint, v float8, f4 real, big float8);
insert into q8 select case when i % 9 = 0 then null else 9007199254740990 + (i % 40) end, (i % 64) * 0.5,
  ((i % 10) * 0.25)::real, case when i % 97 = 0 then 1e308 else i end
  from generate_series(1, 3000) i;
create table b8 (k bigint, name text);
insert into b8 select 9007199254740990 + 2 * i + 1, 'k' || i from generate_series(0, 15) i;
insert into b8 values (null, 'null key'), (-9223372036854775808, 'min');
create table sp (g int, v float8);
insert into sp select i % 50, case when i = 7 then 'Infinity'::float8 when i = 11 then '-Infinity'::float8 when i = 13 then 'NaN'::float8 else i::float8 end
  from generate_series(1, 400) i;
`;

let d: SqlDiff;
beforeAll(async () => {
  d = await SqlDiff.start(SETUP);
}, 60_000);
afterAll(async () => {
  await d.close();
});

describe('aggregates over hash joins match PostgreSQL', () => {
  it('count(*) and count(col) without GROUP BY, every join type', async () => {
    const sqls = [
      'select count(*) from p join b on p.g = b.g',
      'select count(*), count(p.x), count(b.w), sum(p.v) from p join b on p.g = b.g',
      'select count(*) from p join b on p.g = b.g where p.id < 2500',
      'select count(*), count(b.g), count(p.g) from p left join b on p.g = b.g',
      'select count(*), count(p.id), count(b.name) from p right join b on p.g = b.g',
      'select count(*), count(p.id), count(b.name) from p full join b on p.g = b.g',
      'select count(*), count(x) from p where exists (select 1 from b where b.g = p.g)',
      'select count(*), count(x) from p where not exists (select 1 from b where b.g = p.g)',
      'select count(*) filter (where p.v > 500), count(p.x) filter (where b.w < 0.5) from p join b on p.g = b.g',
      'select count(*) from p join b on p.s = b.s',
      'select count(*), count(p.x), sum(p.v) from p join b on p.s = b.s and p.g = b.g',
      'select count(*) from p join b on p.s = b.s where b.w < 0.3',
      'select count(*), count(p.x) from p left join b on p.s = b.s',
      'select count(*) from p join e on p.g = e.g',
      'select count(*), count(e.name) from p left join e on p.s = e.s',
      'select count(*) from e join p on p.g = e.g',
      'select count(*) from p join b on p.g = b.g and p.v > b.w * 1000',
    ];
    expect(await d.mismatches(sqls)).toEqual([]);
  });

  it('grouped aggregates over build-side columns', async () => {
    const sqls = [
      'select b.name, count(*), sum(p.v), count(p.x) from p join b on p.g = b.g where b.w < 0.5 group by b.name order by 1',
      'select b.name, count(*), count(b.s) from p join b on p.s = b.s group by b.name order by 1',
      'select b.name, count(*), count(p.id) from p right join b on p.g = b.g group by b.name order by 1',
      'select p.g % 7, count(*), count(b.name) from p left join b on p.g = b.g group by 1 order by 1',
      'select e.name, count(*) from p join e on p.g = e.g group by e.name',
    ];
    expect(await d.mismatches(sqls)).toEqual([]);
  });

  // GROUP BY build-side columns with probe-side arguments: aggregated during the probe (HashJoinAggregate).
  const FUSED = [
    // unique build keys (dim.g), matched rows compacted
    'select dim.name, count(*), sum(p.v), avg(p.v), min(p.x), max(p.s), count(p.x) from p join dim on p.g = dim.g group by dim.name order by 1',
    // probe side filtered (selection vector), build side filtered
    'select dim.name, count(*), sum(p.v) from p join dim on p.g = dim.g where p.id % 3 = 0 and dim.w < 0.5 group by dim.name order by 1',
    // two group keys, one with NULLs
    'select dim.region, dim.name, count(*), sum(p.x) from p join dim on p.g = dim.g group by dim.region, dim.name order by 1, 2',
    // text join key with multibyte characters, NULL keys on both sides
    'select dim.region, count(*), sum(p.v), count(p.s) from p join dim on p.s = dim.s group by dim.region order by 1',
    // duplicate keys on both sides (chains), the float sum fed in join order
    'select b.name, count(*), sum(p.v), sum(p.x), count(p.x) from p join b on p.g = b.g group by b.name order by 1',
    'select b.name, b.w, count(*), sum(p.id) from p join b on p.s = b.s where p.id < 4000 group by b.name, b.w order by 1, 2',
    // float arguments with NULLs read through the matched rows (count, sum and avg without a gather)
    'select dim.name, count(p.vn), sum(p.vn), avg(p.vn) from p join dim on p.g = dim.g where p.id % 2 = 0 group by dim.name order by 1',
    'select b.name, count(p.vn), sum(p.vn), avg(p.vn) from p join b on p.g = b.g group by b.name order by 1',
    // no GROUP BY: one row, also when nothing joins or the build side is empty
    'select count(*), sum(p.v), avg(p.vn), count(p.x) from p join dim on p.g = dim.g',
    'select sum(p.v), count(p.s) from p join b on p.s = b.s where p.id < 3000',
    'select count(*), sum(p.v), min(p.x) from p join dim on p.g = dim.g where p.g > 5000',
    'select count(*), sum(p.v) from p join e on p.g = e.g',
    'select count(*), sum(p.vn) from p join (select distinct s from p where id < 50) x on p.s = x.s',
    // the join key itself as the group key
    'select dim.g, count(*), sum(p.v) from p join dim on p.g = dim.g group by dim.g order by 1',
    // no match at all, and an empty build side
    'select dim.name, count(*) from p join dim on p.g = dim.g where p.g > 5000 group by dim.name',
    'select e.name, count(*), sum(p.v) from p join e on p.g = e.g group by e.name',
    'select dim.name, count(*) from p join dim on p.g = dim.g where dim.w > 5 group by dim.name',
  ];

  it('aggregates during the probe for build-side group keys', async () => {
    for (const sql of FUSED) {
      const plan = await d.db.query('explain ' + sql);
      expect(plan.rows.map((r) => r.join(' ')).join('\n')).toContain('HashJoinAggregate');
    }
    expect(await d.mismatches(FUSED)).toEqual([]);
  });

  // count and float sums alone without GROUP BY over a unique build side: the matched probe rows are
  // folded into the one group, without group ids.
  const KEYLESS = [
    // int keys in a direct table (NULL keys on both sides), with and without a probe-side filter
    'select count(*), sum(p.v), count(p.x), sum(p.vn), count(p.vn) from p join dim on p.g = dim.g',
    'select count(*), sum(p.v), count(p.vn) from p join dim on p.g = dim.g where p.id % 3 = 0',
    'select sum(p.vn), count(*) from p join dim on p.g = dim.g where dim.w < 0.5 and p.x > 100',
    // probe keys without NULLs (read straight from the int4 column), up to the largest build key and past it
    'select count(*), sum(p.v), count(p.vn) from p join dim on p.id = dim.g',
    'select count(*), sum(p.vn) from p join dim on p.id = dim.g where p.id % 2 = 1',
    // text keys with multibyte characters, and a DISTINCT build side
    'select count(*), sum(p.v), count(p.s) from p join dim on p.s = dim.s',
    'select count(*), sum(p.v) from p join (select distinct s from p where id % 10 = 1) x on p.s = x.s',
    'select count(*), sum(p.vn) from p join (select distinct s from p where x < 200) x on p.s = x.s where p.id > 1000',
    // int8 keys past 2^53: neighbours that are one apart must not match, NULLs never do
    'select count(*), sum(q8.v), sum(q8.f4), count(q8.k) from q8 join b8 on q8.k = b8.k',
    'select count(*), sum(q8.v) from q8 join b8 on q8.k = b8.k where q8.v > 10',
    // float sums: infinities, NaN, and a finite overflow (an error)
    'select count(*), sum(sp.v) from sp join dim on sp.g = dim.g',
    'select count(*), sum(sp.v) from sp join dim on sp.g = dim.g where sp.v <> 7',
    'select count(*), sum(q8.big) from q8 join b8 on q8.k = b8.k',
    // nothing matches, an empty build side, an empty probe side
    'select count(*), sum(p.v) from p join dim on p.g = dim.g where p.g > 5000',
    'select count(*), sum(p.v) from p join dim on p.g = dim.g where dim.w > 5',
    'select count(*), sum(p.v) from p join e on p.s = e.s',
    'select count(*), sum(e.g) from e join dim on e.g = dim.g',
    // a computed text probe key (no dictionary codes)
    'select count(*), sum(p.v) from p join dim on lower(p.s) = dim.s',
  ];

  it('count and sum without GROUP BY over a unique build side', async () => {
    for (const sql of KEYLESS.slice(0, 13)) {
      const plan = await d.db.query('explain ' + sql);
      expect(plan.rows.map((r) => r.join(' ')).join('\n'), sql).toContain('HashJoinAggregate');
    }
    expect(await d.mismatches(KEYLESS)).toEqual([]);
    // the overflow really is an error, and the int8 join really matches rows
    expect(await d.ours(KEYLESS[12]!)).toMatchObject({ error: '22003' });
    const m = await d.ours(KEYLESS[8]!);
    expect('rows' in m && Number(m.rows[0]![0]) > 500).toBe(true);
  });

  it('emits groups in the order the unfused join + aggregate plan does', async () => {
    // An argument expression (p.id + 0) keeps the second query on HashJoin + HashAggregate.
    for (const [build, where] of [['dim', ''], ['b', ''], ['dim', 'where p.id % 4 = 1']]) {
      const fused = await d.db.query(`select ${build}.name, count(*), sum(p.id) from p join ${build} on p.g = ${build}.g ${where} group by ${build}.name`);
      const plain = await d.db.query(`select ${build}.name, count(*), sum(p.id + 0) from p join ${build} on p.g = ${build}.g ${where} group by ${build}.name`);
      expect(fused.rows.length).toBeGreaterThan(10);
      expect(fused.rows).toEqual(plain.rows);
    }
  });
});
