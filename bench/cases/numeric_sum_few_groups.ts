import type { BenchCase } from '../types.js';

/**
 * numeric_sum over 100 groups (g % 100): few enough that the one-pass aggregate loop counts avg's rows
 * in its per-group tally (TALLY_GROUPS in hash-aggregate.ts), and no NULLs, so every row is counted
 * there. numeric_sum (1,000 groups) and numeric_sum_mixed (NULLs) are the shapes it does not serve.
 */
const c: BenchCase = {
  name: 'numeric_sum_few_groups',
  description: 'SELECT g % 100, sum(x), avg(x), count(*) over x = CAST(v AS numeric(12,2)), GROUP BY 1 ORDER BY 1',
  sql: () => 'SELECT b, sum(x), avg(x), count(*) FROM (SELECT g % 100 AS b, CAST(v AS numeric(12,2)) AS x FROM t) q GROUP BY b ORDER BY b',
  dialect: { sqlite: () => 'SELECT b, sum(x), avg(x), count(*) FROM (SELECT g % 100 AS b, round(v, 2) AS x FROM t) q GROUP BY b ORDER BY b' },
  notes: 'SQLite has no numeric(12,2): round(v, 2) as a double; its sums match within the check tolerance.',
  check: 'ordered',
};
export default c;
