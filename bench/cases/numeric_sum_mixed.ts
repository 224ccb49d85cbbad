import type { BenchCase } from '../types.js';

/**
 * numeric sums that leave the fast path: scales 0, 1 and 3 mixed within a group, NULLs on a seventh of
 * the rows, and every 1,000th value beyond 2^53 as a coefficient.
 */
const c: BenchCase = {
  name: 'numeric_sum_mixed',
  description: 'sum/avg over numeric of mixed scales, NULLs and values beyond 2^53, GROUP BY g % 10',
  sql: () =>
    'SELECT b, sum(x), avg(x), count(x) FROM (SELECT g % 10 AS b, CASE WHEN k % 7 = 0 THEN NULL WHEN k % 1000 = 1 THEN CAST(k AS numeric) * 100000000000000 ' +
    'WHEN k % 3 = 0 THEN CAST(k AS numeric) WHEN k % 3 = 1 THEN CAST(k AS numeric) / 10 ELSE CAST(k AS numeric) / 1000 END AS x FROM t) q GROUP BY b ORDER BY b',
  dialect: {
    sqlite: () =>
      'SELECT b, sum(x), avg(x), count(x) FROM (SELECT g % 10 AS b, CASE WHEN k % 7 = 0 THEN NULL WHEN k % 1000 = 1 THEN k * 100000000000000.0 ' +
      'WHEN k % 3 = 0 THEN k * 1.0 WHEN k % 3 = 1 THEN k / 10.0 ELSE k / 1000.0 END AS x FROM t) q GROUP BY b ORDER BY b',
  },
  notes: 'SQLite has no exact numeric: doubles, within the check tolerance.',
  check: 'ordered',
};
export default c;
