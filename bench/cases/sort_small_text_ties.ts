import type { BenchCase } from '../types.js';

/**
 * A sort of about a thousand rows (1 in 1,024 of the table) on a text key with ties, then ints: at 1M
 * rows it is under PG_TIE_ORDER_MAX_ROWS, so Quire sorts it by comparison with PostgreSQL's quicksort
 * instead of radix (the shape its small-sort path must not make slow); at 10M it is the radix path.
 * id makes the order total, so every engine returns the same rows in the same order.
 */
const c: BenchCase = {
  name: 'sort_small_text_ties',
  description: 'ORDER BY s DESC, k, id over ~rows/1024 filtered rows (comparison quicksort below 1,025 rows)',
  sql: () => 'SELECT s, k, id FROM t WHERE id % 1024 = 5 ORDER BY s DESC, k, id',
  check: 'ordered',
};
export default c;
