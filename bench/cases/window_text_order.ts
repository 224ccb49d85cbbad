import type { BenchCase } from '../types.js';

/**
 * A text ORDER BY inside the window: peer groups come from comparing strings. rank, dense_rank and the
 * default RANGE frame's count(*) all depend only on peer groups, so tie order does not matter.
 */
const c: BenchCase = {
  name: 'window_text_order',
  description: 'rank(), dense_rank(), count(*) OVER (PARTITION BY g ORDER BY s), summed',
  sql: () =>
    'SELECT CAST(sum(r) AS bigint) AS r, CAST(sum(d) AS bigint) AS d, CAST(sum(c) AS bigint) AS c FROM (SELECT rank() OVER (PARTITION BY g ORDER BY s) AS r, dense_rank() OVER (PARTITION BY g ORDER BY s) AS d, count(*) OVER (PARTITION BY g ORDER BY s) AS c FROM t) x',
  check: 'ordered',
};
export default c;
