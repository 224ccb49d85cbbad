/**
 * PostgreSQL's rules for the shape of a recursive CTE: the same error (SQLSTATE and message) for each
 * ill-formed one, and the same answer for the well-formed ones next to them. Two of these used to run
 * until killed (a reference inside a subquery expression, FOR UPDATE).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, outcomeText, type SqlConnection } from '../harness/connection.js';

const CASES = [
  // References in forbidden places.
  'with recursive x(n) as (select 1 union all select (select * from x) from x) select * from x',
  'with recursive x(n) as (select 1 union all select n + 1 from x where n < (select max(n) from x)) select * from x',
  'with recursive x(n) as (select 1 union all select x.n + 1 from y left join x on x.n = y.a where x.n < 5) select * from x',
  'with recursive x(n) as (select 1 union all select x.n + 1 from x right join y on x.n = y.a where x.n < 5) select * from x',
  'with recursive x(n) as (select 1 union all select x.n + 1 from x full join y on x.n = y.a where x.n < 5) select * from x',
  'with recursive x(n) as (select 1 union all select a.n + 1 from x a, x b where a.n < 5) select * from x',
  'with recursive x(n) as (select 1 union all (select n + 1 from x where n < 5 intersect all select a from y)) select * from x',
  'with recursive x(n) as (select 1 union all (select a from y except select n + 1 from x where n < 5)) select * from x',
  'with recursive x(n) as (select 1 union all select n + 1 from x where n < 5 and exists (select 1 from x where n = 2)) select * from x',
  // Clauses a recursive query cannot have.
  'with recursive x(n) as (select 1 union all select n + 1 from x where n < 5 order by 1) select * from x',
  'with recursive x(n) as (select 1 union all select n + 1 from x where n < 5 limit 10) select * from x',
  'with recursive x(n) as (select 1 union all select n + 1 from x where n < 5 offset 1) select * from x',
  'with recursive x(n) as (select 1 union all select n + 1 from x where n < 5 for update) select * from x',
  // Well formed: the self-reference on the preserved side of an outer join, in a derived table, shadowed by an inner WITH.
  'with recursive x(n) as (select 1 union all select x.n + 1 from x left join y on x.n = y.a where x.n < 5) select * from x',
  'with recursive x(n) as (select 1 union all select n + 1 from (select * from x) s where n < 5) select * from x',
  'with recursive x(n) as (select 1 union all select n + 1 from x where n < 5 and n in (select a from y)) select * from x',
  'with recursive x(n) as (select 1 union all (with x(n) as (select 7) select n + 1 from x) ) select * from x',
  'with recursive x(n) as (select 1 union all (select n + 1 from x where n < 5 intersect select a + 1 from y)) select * from x',
];

describe('recursive CTE shape rules, as PostgreSQL checks them', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(['create table y (a int)', 'insert into y values (1), (2), (3)']));
  }, 60_000);
  afterAll(async () => {
    await pg.close?.();
    await q.close?.();
  });
  for (const sql of CASES) {
    it(sql.slice(36, 130), async () => {
      expect(await outcomeText(q, sql)).toBe(await outcomeText(pg, sql));
    }, 20_000);
  }
});
