import type { BenchCase } from '../types.js';

/** GROUP BY a text key with 10,000 groups: one string lookup per row, 10,000 result rows. */
const c: BenchCase = {
  name: 'groupby_text',
  description: 'hash aggregation on a text key (10,000 distinct strings), count and avg per group',
  sql: () => 'SELECT s, count(*), avg(v) FROM t GROUP BY s',
  check: 'unordered',
};
export default c;
