import type { BenchCase } from '../types.js';

/**
 * A 2,000-row frame centred on the current row over the whole table (one partition of every row): frames
 * too long to re-aggregate per row, and a partition too large to evaluate without yielding.
 */
const c: BenchCase = {
  name: 'window_rows_2000_avg_min_max',
  description: 'avg(v), min(v), max(v) OVER (ORDER BY id ROWS BETWEEN 1000 PRECEDING AND 999 FOLLOWING), summed',
  sql: () =>
    'SELECT sum(a) AS a, sum(mn) AS mn, sum(mx) AS mx FROM (SELECT avg(v) OVER (ORDER BY id ROWS BETWEEN 1000 PRECEDING AND 999 FOLLOWING) AS a, min(v) OVER (ORDER BY id ROWS BETWEEN 1000 PRECEDING AND 999 FOLLOWING) AS mn, max(v) OVER (ORDER BY id ROWS BETWEEN 1000 PRECEDING AND 999 FOLLOWING) AS mx FROM t) x',
  check: 'ordered',
};
export default c;
