/**
 * One partition large enough that the Window operator evaluates it in pieces, with only positional calls
 * (row_number, rank, dense_rank, percent_rank, cume_dist, ntile): these are computed over the buffered
 * batches in place, with peer groups that run across batch edges. Every row's values are folded into
 * position-weighted sums, so one wrong row changes the result; each query must agree with PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, outcomeText, type SqlConnection } from '../harness/connection.js';

const N = 70_000;

const SETUP = [
  'create table pp (id int, g int, k int, d double precision, t text)',
  // k: peer groups of 7 rows and a NULL every 50 rows; d: doubles with long runs of ties (up to ~5,000
  // rows, more than a batch) and NULLs; t: multibyte text with ties; g: one large partition and one of 500 rows.
  `insert into pp select i, case when i > ${N - 500} then 1 else 0 end,
     case when i % 50 = 0 then null else i / 7 end,
     case when i % 13 = 0 then null else ((i * 7919) % 15)::double precision / 4 end,
     case when i % 11 = 0 then null else (array['ä', 'a', 'é', 'z', '日本', 'ß'])[1 + i % 6] || (i % 300)::text end
   from generate_series(1, ${N}) i`,
];

function calls(w: string, buckets: number): string {
  return `id, row_number() over ${w} as rn, rank() over ${w} as rk, dense_rank() over ${w} as dr,
    ntile(${buckets}) over ${w} as nt, percent_rank() over ${w} as pr, cume_dist() over ${w} as cd,
    count(*) over (partition by 1) as cnt`;
}

// Which of several peers gets which row_number or ntile is not defined, so those are weighted by the
// peer group (dense_rank); percent_rank * (rows - 1) and cume_dist * rows are whole numbers, rounded so
// the sums stay exact.
const FOLD = `count(*), sum(rn), sum(rk), sum(dr), sum(nt),
  sum(rn * (dr % 1009)), sum(rk * (id % 1013)), sum(dr * (id % 1019)), sum(nt::bigint * (dr % 1021)),
  sum(round(pr * (cnt - 1))::bigint * (id % 1031)), sum(round(cd * cnt)::bigint * (id % 1033)),
  min(pr), max(pr), min(cd), max(cd)`;


const QUERIES = [
  `select ${FOLD} from (select ${calls('w', 100)} from pp window w as (order by k)) x`,
  `select ${FOLD} from (select ${calls('w', 100)} from pp window w as (order by k desc nulls last)) x`,
  `select ${FOLD} from (select ${calls('w', 100)} from pp window w as (order by d)) x`,
  `select ${FOLD} from (select ${calls('w', 7)} from pp window w as (order by d desc nulls first, k)) x`,
  // A unique key: every row its own peer group (cume_dist without peer ends).
  `select ${FOLD} from (select ${calls('w', 13)} from pp window w as (order by id desc)) x`,
  `select ${FOLD} from (select ${calls('w', 100000)} from pp window w as (order by t)) x`,
  `select ${FOLD} from (select ${calls('w', 3)} from pp window w as (order by t desc)) x`,
  `select ${FOLD} from (select ${calls('w', 9)} from pp window w as ()) x`,
  `select g, ${FOLD} from (select g, ${calls('w', 10)} from pp window w as (partition by g order by d, id)) x group by g order by g`,
  `select ${FOLD} from (select ${calls('w', 100)} from pp where id < 0 window w as (order by k)) x`,
  `select count(*), count(nt) from (select ntile(null::int) over (order by k) as nt from pp) x`,
];

describe('positional window calls over one large partition', () => {
  let pg: SqlConnection;
  let quire: SqlConnection;
  beforeAll(async () => {
    ({ pg, q: quire } = await pgliteAndQuire(SETUP));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
    await quire.close?.();
  });

  for (const sql of QUERIES) {
    it(sql.replace(/\s+/g, ' ').slice(0, 200), async () => {
      const want = await outcomeText(pg, sql);
      expect(want).not.toMatch(/^ERROR/);
      expect(await outcomeText(quire, sql)).toBe(want);
    }, 120_000);
  }

  it('ntile(0) over a large partition is an error', async () => {
    const sql = 'select sum(nt) from (select ntile(0) over (order by k) as nt from pp) x';
    expect(await outcomeText(quire, sql)).toBe(await outcomeText(pg, sql));
  }, 120_000);
});
