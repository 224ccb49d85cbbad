import type { BenchCase } from '../types.js';

/**
 * A full sort on text that is almost all distinct and made by the query, so no stored dictionary can
 * serve it and a dictionary built for the sort gives up: the shape the text-rank fast path cannot take.
 * The OFFSET keeps the result small, so the time is the sort, not the output.
 */
const c: BenchCase = {
  name: 'sort_distinct_text',
  description: "full sort on mostly distinct computed text: ORDER BY 'k' || (id::bigint * 7919 % rows), id OFFSET rows - 10",
  sql: (p) =>
    `SELECT x, id FROM (SELECT 'k' || CAST(CAST(id AS bigint) * 7919 % ${p.rows} AS text) AS x, id FROM t) s ORDER BY x, id OFFSET ${Math.max(0, p.rows - 10)}`,
  check: 'ordered',
};
export default c;
