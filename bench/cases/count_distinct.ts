import type { BenchCase } from '../types.js';

/**
 * count(DISTINCT …) without GROUP BY over columns of every kind of cardinality: k (10,000 ints), g (1,000),
 * s (10,000 dictionary-coded strings), ts (~1M distinct timestamps) and id (every row distinct).
 */
const c: BenchCase = {
  name: 'count_distinct',
  description: 'count(DISTINCT x) of low and high cardinality int, text and timestamp columns, no GROUP BY',
  sql: () => 'SELECT count(DISTINCT k), count(DISTINCT g), count(DISTINCT s), count(DISTINCT ts), count(DISTINCT id) FROM t',
  check: 'ordered',
};
export default c;
