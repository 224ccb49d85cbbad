/**
 * Timestamps past about the year 2255 hold more microseconds than a double represents exactly, so the
 * engine keeps them as bigints beside ordinary numbers in one column. Every keyed operator must treat the
 * two forms as one ordered, exact domain: GROUP BY, DISTINCT, count(DISTINCT), joins, ORDER BY, window
 * order, min/max — with neighbours one microsecond apart, the last valid timestamp (294276 AD), BC dates
 * and ±infinity. Checked against PostgreSQL (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

const T = `(select i, timestamp '2020-01-01' + (i % 50) * interval '100 years' + (i % 3) * interval '1 microsecond' as x from generate_series(1, 3000) i)`;
const EDGES = `(select i, (array[timestamp '2020-01-01', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999998', '4713-01-01 00:00:00 BC', 'infinity', '-infinity', '5000-01-01', '5000-01-01 00:00:00.000001'])[1 + i % 8] as x from generate_series(1, 800) i)`;

const QUERIES = [
  `select count(distinct x) from ${T} t`,
  `select count(*) from (select distinct x from ${T} t) s`,
  `select x, count(*) from ${T} t group by x order by x desc limit 4`,
  `select x, i from ${T} t order by x desc, i limit 5`,
  `select x, rank() over (order by x) from ${T} t order by x desc, i limit 3`,
  `select max(x), min(x) from ${T} t`,
  `select count(*) from ${T} a join ${T} b on a.x = b.x where a.i < 100`,
  `select x, count(*) from ${EDGES} t group by x order by x`,
  `select x, i from ${EDGES} t order by x desc, i limit 10`,
  `select count(distinct x), max(x), min(x) from ${EDGES} t`,
  `select a.x, count(*) from ${EDGES} a join ${EDGES} b on a.x = b.x group by a.x order by 1`,
  `select x, row_number() over (partition by x order by i desc) from ${EDGES} t order by x, i limit 12`,
  `select count(distinct (x::timestamptz)) from ${EDGES} t`,
];

describe('timestamps past 2^53 microseconds as keys, against PostgreSQL', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(["SET timezone = 'UTC'"]));
  }, 60_000);
  afterAll(async () => {
    await pg?.close?.();
    await q?.close?.();
  });
  it.each(QUERIES)('%s', async (sql) => {
    const want = await outcomeText(pg, sql);
    expect(want.startsWith('ERROR')).toBe(false);
    expect(await outcomeText(q, sql)).toBe(want);
  });
});
