import type { BenchCase } from '../types.js';

/**
 * A 100-row sliding frame with avg, min and max over ~1,000-row partitions. float8 avg has no inverse in
 * PostgreSQL and min/max never have one, so each needs its own moving-frame strategy. id is unique, so
 * every engine sees the same frames; doubles are compared within 1e-9 relative.
 */
const c: BenchCase = {
  name: 'window_rows_100_avg_min_max',
  description: 'avg(v), min(v), max(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW), summed',
  sql: () =>
    'SELECT sum(a) AS a, sum(mn) AS mn, sum(mx) AS mx FROM (SELECT avg(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW) AS a, min(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW) AS mn, max(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW) AS mx FROM t) x',
  check: 'ordered',
};
export default c;
