import type { BenchCase } from '../types.js';

/**
 * Ranking over 1,000 partitions of ~1,000 rows: one sort on (g, ts) shared by both functions, then
 * O(1) work per row. The outer sums keep the result to one row, so the case measures the window, not
 * the delivery of a million JS rows.
 */
const c: BenchCase = {
  name: 'window_row_number_rank',
  description: 'row_number() and rank() OVER (PARTITION BY g ORDER BY ts) over all rows, summed',
  sql: () =>
    'SELECT CAST(sum(rn) AS bigint) AS rn, CAST(sum(rk) AS bigint) AS rk FROM (SELECT row_number() OVER (PARTITION BY g ORDER BY ts) AS rn, rank() OVER (PARTITION BY g ORDER BY ts) AS rk FROM t) s',
  check: 'ordered',
};
export default c;
