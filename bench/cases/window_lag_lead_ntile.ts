import type { BenchCase } from '../types.js';

/** Navigation and bucketing sharing one window: lag, lead with a default, and ntile, summed. */
const c: BenchCase = {
  name: 'window_lag_lead_ntile',
  description: 'lag(k), lead(k, 2, 0), ntile(4) OVER (PARTITION BY g ORDER BY id), summed',
  sql: () =>
    'SELECT CAST(sum(a) AS bigint) AS a, CAST(sum(b) AS bigint) AS b, CAST(sum(c) AS bigint) AS c FROM (SELECT lag(k) OVER (PARTITION BY g ORDER BY id) AS a, lead(k, 2, 0) OVER (PARTITION BY g ORDER BY id) AS b, ntile(4) OVER (PARTITION BY g ORDER BY id) AS c FROM t) x',
  check: 'ordered',
};
export default c;
