import type { BenchCase } from '../types.js';

/**
 * Several functions over one window (same partition, order and frame): the sort and the frame bounds can
 * be shared, so the cost per extra function should be the aggregate alone.
 */
const c: BenchCase = {
  name: 'window_shared_frame',
  description: 'sum(v), count(v), max(k), row_number() OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 20 PRECEDING AND 20 FOLLOWING), summed',
  sql: () =>
    'SELECT sum(a) AS a, CAST(sum(b) AS bigint) AS b, CAST(sum(c) AS bigint) AS c, CAST(sum(d) AS bigint) AS d FROM (SELECT sum(v) OVER w AS a, count(v) OVER w AS b, max(k) OVER w AS c, row_number() OVER w AS d FROM t WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 20 PRECEDING AND 20 FOLLOWING)) x',
  check: 'ordered',
};
export default c;
