import type { BenchCase } from '../types.js';

/**
 * A sliding ROWS frame: sum(v) over the current and 10 preceding rows per partition. float8 sum has no
 * inverse in PostgreSQL, so an exact engine re-adds the 11 rows of each frame (same order, same rounding);
 * id is unique, so every engine sees the same frames. Doubles are compared within 1e-9 relative.
 */
const c: BenchCase = {
  name: 'window_rows_sliding_sum',
  description: 'sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW), summed',
  sql: () => 'SELECT sum(s) AS tot FROM (SELECT sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS s FROM t) x',
  check: 'ordered',
};
export default c;
