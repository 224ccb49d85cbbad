import type { BenchCase } from '../types.js';

/**
 * GROUPS frame with EXCLUDE CURRENT ROW over 10,000 text partitions of ~100 rows: the frame is the
 * neighbouring peer groups minus the row itself. Which rows a frame holds does not depend on how ties in k
 * are ordered, so every engine sums the same values.
 */
const c: BenchCase = {
  name: 'window_groups_exclude_text',
  description: 'sum(v) OVER (PARTITION BY s ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW), summed',
  sql: () =>
    'SELECT sum(x) AS tot FROM (SELECT sum(v) OVER (PARTITION BY s ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS x FROM t) y',
  check: 'ordered',
};
export default c;
