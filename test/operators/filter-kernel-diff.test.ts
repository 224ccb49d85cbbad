/**
 * WHERE predicates, differentially against PGlite, over tables whose batches have NULL arrays in some
 * batches and not in others: the compiled predicate has a loop for batches without NULLs in the columns
 * it reads and one for the rest, and both must give PostgreSQL's three-valued answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';

// Rows 1..6000 have no NULLs; 6001..12000 have NULLs in every column (several batches of each).
const SETUP = `
create table w (id int, a int, b bigint, x float8, s text, f bool);
insert into w select i, i % 1000, i::bigint * 3000000000, (i % 77)::float8 / 7, 'v' || (i % 50), i % 3 = 0
  from generate_series(1, 6000) i;
insert into w select i, case when i % 7 = 0 then null else i % 1000 end,
  case when i % 5 = 0 then null else i::bigint * 3000000000 end,
  case when i % 3 = 0 then null else (i % 77)::float8 / 7 end,
  case when i % 4 = 0 then null else 'v' || (i % 50) end,
  case when i % 6 = 0 then null else i % 3 = 0 end
  from generate_series(6001, 12000) i;
create table nn (id int, a int, x float8);
insert into nn select i, i % 1000, (i % 13)::float8 from generate_series(1, 9000) i;
`;

let d: SqlDiff;
beforeAll(async () => {
  d = await SqlDiff.start(SETUP);
}, 60_000);
afterAll(async () => {
  await d.close();
});

const PREDICATES = [
  'a < 500',
  'a < 3',
  'a >= 0',
  'a < 0',
  'b > 9000000000000',
  'x <= 5.5',
  "s = 'v7'",
  "s > 'v3'",
  'f',
  'not f',
  'f is null',
  'a is null or x is null',
  'a is not null and a % 2 = 0',
  'a < 500 and x > 2',
  'a < 100 or x > 10',
  'not (a < 500)',
  'case when a is null then true else a > 900 end',
  'coalesce(a, -1) < 0',
  'a + b > 30000000000000',
  'f is not true',
  'a between 100 and 200',
  'a in (1, 2, 3, 999)',
  '(a < 500) is unknown',
];

describe('WHERE over batches with and without NULLs matches PostgreSQL', () => {
  it('selects the same rows', async () => {
    const sqls: string[] = [];
    for (const p of PREDICATES) {
      sqls.push(`select count(*), sum(id) from w where ${p}`);
      sqls.push(`select id from w where ${p} order by id limit 5 offset 40`);
    }
    sqls.push('select count(*), sum(x) from nn where a < 500', 'select a, count(*) from nn where x > 6 and a < 20 group by a order by a');
    expect(await d.mismatches(sqls)).toEqual([]);
  });

  it('filters batches that go through a join probe and an aggregate', async () => {
    const sqls = [
      'select count(*) from w join nn on w.a = nn.id where w.x < 4',
      'select w.a % 10, count(*), sum(w.x) from w where w.a < 500 group by 1 order by 1',
      'select count(*), sum(nn.x) from w join nn on w.id = nn.id where w.f is not false',
    ];
    expect(await d.mismatches(sqls)).toEqual([]);
  });
});
