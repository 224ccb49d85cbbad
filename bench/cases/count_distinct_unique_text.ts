import type { BenchCase } from '../types.js';

/**
 * count(DISTINCT …) over text that is new on nearly every row (the id as text beside s), per g % 10:
 * the dictionary of distinct strings grows to a million entries, where count_distinct_nulls_text's
 * 70,000 repeat many times over.
 */
const c: BenchCase = {
  name: 'count_distinct_unique_text',
  description: "count(DISTINCT CAST(id AS text) || '-' || s) per g % 10",
  sql: () => "SELECT g % 10 AS b, count(DISTINCT CAST(id AS text) || '-' || s) FROM t GROUP BY 1 ORDER BY 1",
  check: 'ordered',
};
export default c;
