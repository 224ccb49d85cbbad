import type { BenchCase } from '../types.js';

/**
 * Top-N on a text key: 10,000 distinct strings over 1M rows, so every kept string has ~100 ties and
 * the id tie-break decides which of them make the first 100 rows. Stresses text comparisons in the
 * bounded heap.
 */
const c: BenchCase = {
  name: 'topn_text_desc',
  description: 'top-N on text: ORDER BY s DESC, id LIMIT 100',
  sql: () => 'SELECT id, s FROM t ORDER BY s DESC, id LIMIT 100',
  check: 'ordered',
};
export default c;
