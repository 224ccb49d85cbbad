import type { BenchCase } from '../types.js';

/**
 * A value-based RANGE frame with many peers: k has ~1 duplicate per value inside a partition of ~1,000 rows,
 * and each frame spans k ± 100. Frame bounds come from the key, not from row counts.
 */
const c: BenchCase = {
  name: 'window_range_count',
  description: 'count(*) OVER (PARTITION BY g ORDER BY k RANGE BETWEEN 100 PRECEDING AND 100 FOLLOWING), summed',
  sql: () => 'SELECT CAST(sum(c) AS bigint) AS tot FROM (SELECT count(*) OVER (PARTITION BY g ORDER BY k RANGE BETWEEN 100 PRECEDING AND 100 FOLLOWING) AS c FROM t) x',
  check: 'ordered',
};
export default c;
