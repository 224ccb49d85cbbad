import type { BenchCase } from '../types.js';

/**
 * A full sort of every row under a 256MB memory limit: the OFFSET keeps the result small, so the time is
 * the sort (external merge once the input exceeds the limit), not result materialisation.
 */
const c: BenchCase = {
  name: 'sort_spill_256mb',
  description: "full sort (ORDER BY v OFFSET rows-10) with SET memory_limit = '256MB': external merge sort past the limit",
  sql: (p) => `SET memory_limit = '256MB'; SELECT * FROM t ORDER BY v OFFSET ${Math.max(0, p.rows - 10)}`,
  dialect: {
    // No memory_limit setting in these engines; they run the same full sort with their own memory rules.
    pglite: (p) => `SELECT * FROM t ORDER BY v OFFSET ${Math.max(0, p.rows - 10)}`,
    sqlite: (p) => `SELECT * FROM t ORDER BY v LIMIT -1 OFFSET ${Math.max(0, p.rows - 10)}`,
    alasql: (p) => `SELECT * FROM t ORDER BY v LIMIT 10 OFFSET ${Math.max(0, p.rows - 10)}`,
  },
  notes:
    'Quire and DuckDB (threads=1) run SET memory_limit first and RESET memory_limit after the case, so the ' +
    'limit does not bind the cases that run after it in the same child. For 10M rows with peak RSS per ' +
    'engine, without the harness loading 10M row objects, run `npx tsx bench/spill-sort.ts`.',
  after: { quire: 'RESET memory_limit', duckdb: 'RESET memory_limit' },
  check: 'ordered',
};
export default c;
