import type { BenchCase } from '../types.js';

/**
 * A RANGE frame with an interval offset on a timestamp key: ~1,000 rows per partition spread over three
 * years, so each frame holds about two weeks of rows (~14), found by comparing keys, not counting rows.
 */
const c: BenchCase = {
  name: 'window_range_interval_avg',
  description: "avg(v) OVER (PARTITION BY g ORDER BY ts RANGE BETWEEN INTERVAL '7 days' PRECEDING AND INTERVAL '7 days' FOLLOWING), summed",
  sql: () =>
    "SELECT sum(a) AS tot FROM (SELECT avg(v) OVER (PARTITION BY g ORDER BY ts RANGE BETWEEN INTERVAL '7 days' PRECEDING AND INTERVAL '7 days' FOLLOWING) AS a FROM t) x",
  check: 'ordered',
};
export default c;
