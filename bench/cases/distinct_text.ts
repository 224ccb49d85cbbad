import type { BenchCase } from '../types.js';

/**
 * DISTINCT over a text key and an int (10,000 × 1,000 possible pairs, ~630k distinct at 1M rows):
 * the hash set of rows, its memory reservations and the yields between batches, with a count on top
 * so result size does not dominate.
 */
const c: BenchCase = {
  name: 'distinct_text',
  description: 'SELECT DISTINCT s, g (text + int key, high cardinality), count(*) only',
  sql: () => 'SELECT count(*) FROM (SELECT DISTINCT s, g FROM t) d',
  check: 'ordered',
};
export default c;
