import type { BenchCase } from '../types.js';

/**
 * sum and avg over numeric(12,2) per g. The table has no numeric column, so the values are made by the
 * query (v rounded to cents): every engine pays its cast; the sum is what differs.
 */
const c: BenchCase = {
  name: 'numeric_sum',
  description: 'SELECT g, sum(x), avg(x) over x = CAST(v AS numeric(12,2)), GROUP BY g ORDER BY g',
  sql: () => 'SELECT g, sum(x), avg(x) FROM (SELECT g, CAST(v AS numeric(12,2)) AS x FROM t) q GROUP BY g ORDER BY g',
  dialect: { sqlite: () => 'SELECT g, sum(x), avg(x) FROM (SELECT g, round(v, 2) AS x FROM t) q GROUP BY g ORDER BY g' },
  notes: 'SQLite has no numeric(12,2): round(v, 2) as a double; its sums match within the check tolerance.',
  check: 'ordered',
};
export default c;
