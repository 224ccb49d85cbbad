/**
 * Joins on a small non-negative int4 build key (a direct-address build table) whose probe reads the table
 * without writing chain heads: count(*) with the probe side's filter evaluated inside the probe loop, and
 * GROUP BY build-side columns with each key slot holding its group. Differentially against PGlite, with
 * probe keys that are negative, past the largest build key or NULL, predicates that are NULL, duplicate
 * and NULL build keys, empty sides, int8 keys past 2^53, text keys with multibyte characters, and LEFT
 * joins. The fact table spans several batches, and its columns with and without NULLs take both loops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';

const SETUP = `
create table f (id int, g int, gn int, k int, kn int, v float8, g8 int8, s text);
insert into f select i, (i * 37) % 1300 - 3,
  case when i % 9 = 0 then null else (i * 11) % 1100 end,
  (i * 7919) % 10000, case when i % 7 = 0 then null else i % 100 end,
  ((i * 31) % 1013)::float8 / 4,
  case when i % 5 = 0 then 9007199254740993 + (i % 3) else i % 800 end,
  'ключ-' || (i % 450) || '-😀'
  from generate_series(1, 12000) i;
create table u1 (g int, name text, w float8, s text);
insert into u1 select i * 2, 'имя ' || (i % 37), (i % 10)::float8 / 10, 'ключ-' || i || '-😀'
  from generate_series(0, 499) i;
create table u2 (g int, name text);
insert into u2 select case when i % 17 = 0 then null else i % 300 end, 'n' || (i % 13) from generate_series(1, 900) i;
create table u0 (g int, name text);
create table u8 (g8 int8, name text);
insert into u8 values (9007199254740993, 'past 2^53 a'), (9007199254740994, 'past 2^53 b'), (9007199254740992, 'at 2^53'),
  (5, 'five'), (6, 'six'), (null, 'null key');
`;

let d: SqlDiff;
beforeAll(async () => {
  d = await SqlDiff.start(SETUP);
}, 60_000);
afterAll(async () => {
  await d.close();
});

async function plan(sql: string): Promise<string> {
  return (await d.db.query('explain (format quire) ' + sql)).rows.map((r) => r.join(' ')).join('\n');
}

describe('joins probing a direct-address build table match PostgreSQL', () => {
  const COUNTS = [
    // probe-side filter inside the probe: unique keys, keys out of range on both ends
    'select count(*) from f join u1 on f.g = u1.g where f.k < 5000',
    'select count(*) from f join u1 on f.g = u1.g where f.k % 3 = 1 and f.v > 100',
    // a predicate that is NULL on some rows, probe keys with NULLs
    'select count(*) from f join u1 on f.g = u1.g where f.kn < 50',
    'select count(*) from f join u1 on f.gn = u1.g where f.k < 5000',
    'select count(*) from f join u1 on f.gn = u1.g where f.kn > 10 or f.k < 100',
    // duplicate and NULL build keys: every match counts each build row
    'select count(*) from f join u2 on f.g = u2.g where f.k >= 2500',
    'select count(*) from f join u2 on f.gn = u2.g where f.kn is not null',
    // filter keeps nothing, build side empty, filter on both sides
    'select count(*) from f join u1 on f.g = u1.g where f.k < 0',
    'select count(*) from f join u0 on f.g = u0.g where f.k < 5000',
    'select count(*) from f join u1 on f.g = u1.g where f.k < 5000 and u1.w < 0.5',
    // no probe filter
    'select count(*) from f join u2 on f.g = u2.g',
    // int8 keys past 2^53 (not a direct table), text keys with multibyte characters
    'select count(*) from f join u8 on f.g8 = u8.g8 where f.k < 7000',
    'select count(*) from f join u1 on f.s = u1.s where f.k < 5000',
    // LEFT joins keep unmatched probe rows
    'select count(*), count(u1.name) from f left join u1 on f.g = u1.g where f.k < 5000',
    'select count(*), count(u2.name) from f left join u2 on f.gn = u2.g where f.kn < 30',
  ];

  it('count(*) with a probe-side filter', async () => {
    expect(await plan(COUNTS[0]!)).toMatch(/HashJoinAggregate[^\n]*\n\s*->\s+Filter/);
    expect(await d.mismatches(COUNTS)).toEqual([]);
  });

  it('EXPLAIN ANALYZE still reports the filter rows, and the count is the same', async () => {
    const sql = COUNTS[0]!;
    const kept = await d.theirs('select count(*) filter (where k < 5000), count(*) filter (where not k < 5000) from f');
    if (!('rows' in kept)) throw new Error('PGlite failed');
    const [rows, removed] = kept.rows[0]!;
    const text = (await d.db.query('explain analyze ' + sql)).rows.map((r) => r.join(' ')).join('\n');
    expect(text).toContain(`rows=${rows} loops=1`);
    expect(text).toContain(`Rows Removed by Filter: ${removed}`);
    expect(await d.ours(sql)).toEqual(await d.theirs(sql));
  });

  const GROUPED = [
    // unique build keys: every probe batch whole (no filter) or a selection (probe-side filter)
    'select u1.name, count(*), sum(f.v), min(f.id), max(f.s) from f join u1 on f.g = u1.g group by u1.name order by 1',
    'select u1.name, count(*), sum(f.v) from f join u1 on f.g = u1.g where u1.w < 0.5 group by u1.name order by 1',
    'select u1.name, count(*), avg(f.v), count(f.kn) from f join u1 on f.g = u1.g where f.k < 5000 group by u1.name order by 1',
    // probe keys with NULLs
    'select u1.name, count(*), sum(f.v) from f join u1 on f.gn = u1.g group by u1.name order by 1',
    'select u1.name, count(*), sum(f.id) from f join u1 on f.gn = u1.g where f.kn < 40 group by u1.name order by 1',
    // duplicate and NULL build keys (chains), empty build side, nothing matching
    'select u2.name, count(*), sum(f.v) from f join u2 on f.g = u2.g group by u2.name order by 1',
    'select u0.name, count(*) from f join u0 on f.g = u0.g group by u0.name',
    'select u1.name, count(*) from f join u1 on f.g = u1.g where f.g > 2000 group by u1.name',
    // without GROUP BY: one row even when nothing joins
    'select count(*), sum(f.v), max(f.id) from f join u1 on f.g = u1.g where f.k < 3000',
    'select count(*), sum(f.v) from f join u1 on f.g = u1.g where f.g < -10',
    // int8 keys past 2^53, text keys with multibyte characters
    'select u8.name, count(*), sum(f.v) from f join u8 on f.g8 = u8.g8 group by u8.name order by 1',
    'select u1.name, count(*), sum(f.v) from f join u1 on f.s = u1.s where f.k < 6000 group by u1.name order by 1',
    // LEFT join: unmatched probe rows form the NULL group
    'select u1.name, count(*), sum(f.v) from f left join u1 on f.g = u1.g group by u1.name order by 1',
  ];

  it('GROUP BY build-side columns', async () => {
    expect(await plan(GROUPED[0]!)).toContain('HashJoinAggregate');
    expect(await d.mismatches(GROUPED)).toEqual([]);
  });

  it('emits groups in the order the unfused join + aggregate plan does', async () => {
    // An argument expression (f.id + 0) keeps the second query on HashJoin + HashAggregate.
    for (const where of ['', 'where f.k < 5000']) {
      const fused = await d.db.query(`select u1.name, count(*), sum(f.id) from f join u1 on f.g = u1.g ${where} group by u1.name`);
      const plain = await d.db.query(`select u1.name, count(*), sum(f.id + 0) from f join u1 on f.g = u1.g ${where} group by u1.name`);
      expect(fused.rows.length).toBe(37);
      expect(fused.rows).toEqual(plain.rows);
    }
  });
});
