import type { BenchCase } from '../types.js';

/** Top-N on a numeric key (v rounded to cents, so ties occur and id breaks them). */
const c: BenchCase = {
  name: 'topn_numeric',
  description: 'SELECT id, x … ORDER BY x DESC, id LIMIT 10 over x = CAST(v AS numeric(12,2))',
  sql: () => 'SELECT id, x FROM (SELECT id, CAST(v AS numeric(12,2)) AS x FROM t) q ORDER BY x DESC, id LIMIT 10',
  dialect: { sqlite: () => 'SELECT id, x FROM (SELECT id, round(v, 2) AS x FROM t) q ORDER BY x DESC, id LIMIT 10' },
  notes: 'SQLite has no numeric(12,2): round(v, 2) as a double.',
  check: 'ordered',
};
export default c;
