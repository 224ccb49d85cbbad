import type { BenchCase } from '../types.js';

/**
 * DISTINCT over a text value made by the query (no stored dictionary) with NULLs on a tenth of the
 * rows, per group of g % 10: the path for values not held as numbers.
 */
const c: BenchCase = {
  name: 'count_distinct_nulls_text',
  description: "count(DISTINCT CASE WHEN k % 10 = 0 THEN NULL ELSE s || '.' || (k % 7) END) per g % 10",
  sql: () => "SELECT g % 10 AS b, count(DISTINCT CASE WHEN k % 10 = 0 THEN NULL ELSE s || '.' || CAST(k % 7 AS text) END) FROM t GROUP BY 1 ORDER BY 1",
  check: 'ordered',
};
export default c;
