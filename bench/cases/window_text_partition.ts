import type { BenchCase } from '../types.js';

/**
 * A window partitioned by a text key of 1,000 values (g rendered as text, so partitions are not in
 * numeric order) with a 100-row sliding average: the sort on (text, int, int) dominates. Summed so the
 * result size does not; doubles are compared within 1e-9 relative.
 */
const c: BenchCase = {
  name: 'window_text_partition',
  description: 'avg(v) OVER (PARTITION BY g::text ORDER BY k, id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW), summed',
  sql: () =>
    'SELECT sum(a) AS tot FROM (SELECT avg(v) OVER (PARTITION BY g::text ORDER BY k, id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW) AS a FROM t) x',
  check: 'ordered',
};
export default c;
