import type { BenchCase } from '../types.js';

/** sum and max over bigint per g with a 50% filter; the products pass 2^53 in the sums. */
const c: BenchCase = {
  name: 'bigint_sum',
  description: 'SELECT g, sum(b), max(b) … WHERE id % 2 = 0 GROUP BY g over b = CAST(id AS bigint) * 1000000000',
  sql: () => 'SELECT g, sum(b), max(b) FROM (SELECT g, id, CAST(id AS bigint) * 1000000000 AS b FROM t) q WHERE id % 2 = 0 GROUP BY g ORDER BY g',
  check: 'ordered',
};
export default c;
