import type { BenchCase } from '../types.js';

/**
 * count(DISTINCT …) over text met in id order: the first 200,000 rows each bring a new string, the rest
 * repeat 70,000 strings. The shape that defeats the DISTINCT string dictionary's check (it sees nine in
 * ten strings new at its first check and stops numbering, so the repeats after go to the groups' sets).
 */
const c: BenchCase = {
  name: 'count_distinct_late_repeats',
  description: "count(DISTINCT CASE WHEN id <= 200000 THEN id::text ELSE s || '.' || (k % 7) END) per g % 10, rows in id order",
  sql: () =>
    "SELECT g % 10 AS b, count(DISTINCT CASE WHEN id <= 200000 THEN CAST(id AS text) ELSE s || '.' || CAST(k % 7 AS text) END) FROM (SELECT * FROM t ORDER BY id) x GROUP BY 1 ORDER BY 1",
  check: 'ordered',
};
export default c;
