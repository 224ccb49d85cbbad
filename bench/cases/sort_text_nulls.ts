import type { BenchCase } from '../types.js';

/**
 * A full sort of every row on a text key with NULLs (one row in ten) and ~100 ties per value, broken by
 * id. The OFFSET keeps the result small, so the time is the sort, not the output.
 */
const c: BenchCase = {
  name: 'sort_text_nulls',
  description: 'full sort on text with NULLs and ties: ORDER BY s2 NULLS FIRST, id OFFSET rows - 10',
  sql: (p) =>
    `SELECT s2, id FROM (SELECT CASE WHEN k % 10 = 0 THEN NULL ELSE s END AS s2, id FROM t) x ORDER BY s2 NULLS FIRST, id OFFSET ${Math.max(0, p.rows - 10)}`,
  check: 'ordered',
};
export default c;
