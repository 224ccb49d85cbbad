import type { BenchCase } from '../types.js';

/** count(DISTINCT k) per g: 1,000 groups, ~1,000 rows and ~900 distinct values each. */
const c: BenchCase = {
  name: 'count_distinct_grouped',
  description: 'SELECT g, count(DISTINCT k), sum(DISTINCT k) … GROUP BY g ORDER BY g',
  sql: () => 'SELECT g, count(DISTINCT k), sum(DISTINCT k) FROM t GROUP BY g ORDER BY g',
  check: 'ordered',
};
export default c;
