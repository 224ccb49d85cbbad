import type { BenchCase } from '../types.js';

/**
 * count/sum(DISTINCT …) without GROUP BY over ints whose values span more than the 2^26 that
 * count_distinct's id is held in as bits (id * 100 reaches 10^8), and over negative ints with NULLs:
 * the hash table of values, not the bits.
 */
const c: BenchCase = {
  name: 'count_distinct_wide',
  description: 'count(DISTINCT id * 100), sum(DISTINCT CASE WHEN k % 9 = 0 THEN NULL ELSE k - 5000 END), no GROUP BY',
  sql: () => 'SELECT count(DISTINCT id * 100), sum(DISTINCT CASE WHEN k % 9 = 0 THEN NULL ELSE k - 5000 END) FROM t',
  check: 'ordered',
};
export default c;
