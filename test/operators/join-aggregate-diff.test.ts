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
create table p (id int, g int, s text, v float8, x int);
insert into p select i, case when i % 13 = 0 then null else i % 700 end,
  case when i % 17 = 0 then null else 'ключ-' || (i % 300) || '-😀' end,
  (i * 7 % 1009)::float8, case when i % 5 = 0 then null else i end
  from generate_series(1, 5000) i;
create table b (g int, s text, name text, w float8);
insert into b select case when i % 11 = 0 then null else i % 500 end,
  case when i % 19 = 0 then null else 'ключ-' || (i % 400) || '-😀' end,
  'n' || (i % 37), (i % 10)::float8 / 10
  from generate_series(1, 1200) i;
create table e (g int, s text, name text);
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
});
