/**
 * Partitions large enough that the Window operator evaluates them in chunks (with yields between
 * chunks) even though they fit in memory: every kind of call, one partition and two, must agree
 * with PostgreSQL. Outputs are folded into exact sums so 150,000-row results compare cheaply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, outcomeText, type SqlConnection } from '../harness/connection.js';

const SETUP = [
  'create table lp (id int, g int, k int, v int)',
  // k has ties (peer groups of 30 rows), v is spread and sometimes NULL, g splits the rows in two.
  "insert into lp select i, i % 2, i / 30, case when i % 97 = 0 then null else (i * 37) % 1001 end from generate_series(1, 150000) i",
];

const CALLS = `
  row_number() over w as rn, rank() over w as rk, dense_rank() over w as dr, ntile(7) over w as nt,
  percent_rank() over w as pr, cume_dist() over w as cd,
  sum(v) over (w rows between 100 preceding and 50 following) as s_rows,
  sum(v) over w as s_running,
  count(v) over (w range between unbounded preceding and unbounded following) as c_whole,
  max(v) over (w rows between 20 preceding and current row) as mx,
  first_value(v) over (w rows between 10 preceding and 10 following) as fv,
  last_value(v) over (w rows between unbounded preceding and unbounded following) as lv,
  lag(v, 3) over w as lg, lead(v, 2) over w as ld`;

const FOLD = `count(*), sum(rn), sum(rk), sum(dr), sum(nt), round(sum(pr)::numeric, 6), round(sum(cd)::numeric, 6),
  sum(s_rows), sum(s_running), sum(c_whole), sum(mx), sum(fv), sum(lv), sum(lg), sum(ld), sum(rn * coalesce(s_rows, 0) % 1009)`;

const QUERIES = [
  `select ${FOLD} from (select ${CALLS} from lp window w as (order by k, id)) x`,
  `select ${FOLD} from (select ${CALLS} from lp window w as (order by k)) x`,
  `select g, ${FOLD} from (select g, ${CALLS} from lp window w as (partition by g order by k, id)) x group by g order by g`,
];

describe('window functions over partitions evaluated in chunks', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(SETUP));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
    await q.close?.();
  });

  for (const sql of QUERIES) {
    it(sql.slice(0, 90), async () => {
      expect(await outcomeText(q, sql)).toBe(await outcomeText(pg, sql));
    }, 120_000);
  }
});
