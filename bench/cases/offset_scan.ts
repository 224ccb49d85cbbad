import { tRow } from '../data.js';
import type { BenchCase } from '../types.js';

/**
 * Same page without ORDER BY: no sort, so the cost is skipping rows/2 rows. Which rows come back is not
 * defined by SQL, so only the row count is checked.
 */
const c: BenchCase = {
  name: 'offset_scan',
  description: 'LIMIT 10 OFFSET rows/2 without ORDER BY: cost of skipping rows (checks row count only)',
  sql: (p) => `SELECT * FROM t LIMIT 10 OFFSET ${Math.floor(p.rows / 2)}`,
  check: 'count',
  floor(d, p) {
    const off = Math.floor(p.rows / 2);
    const out: unknown[][] = [];
    for (let i = off; i < Math.min(d.rows, off + 10); i++) out.push(tRow(d, i));
    return out;
  },
};
export default c;
