import type { BenchCase } from '../types.js';

/** Bucketing and distribution over the whole table as one partition: ntile(100), percent_rank(), cume_dist(). */
const c: BenchCase = {
  name: 'window_ntile_percent_cume',
  description: 'ntile(100), percent_rank(), cume_dist() OVER (ORDER BY v) over all rows, summed',
  sql: () =>
    'SELECT CAST(sum(n) AS bigint) AS n, sum(p) AS p, sum(c) AS c FROM (SELECT ntile(100) OVER (ORDER BY v) AS n, percent_rank() OVER (ORDER BY v) AS p, cume_dist() OVER (ORDER BY v) AS c FROM t) x',
  check: 'ordered',
};
export default c;
