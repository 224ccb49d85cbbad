import type { BenchCase } from '../types.js';
import { idRange } from './page_offset_deep.js';

/**
 * The same page as page_offset_deep, reached by seek: WHERE id > last ORDER BY id LIMIT 100. Without
 * an index every engine still scans, but only a heap of 100 rows survives the filter's output, so the
 * cost no longer depends on depth. This is the query shape Quire's cursors run for every page.
 */
const c: BenchCase = {
  name: 'page_keyset_deep',
  description: 'page at depth 0.9*rows by seek: WHERE id > 0.9*rows ORDER BY id LIMIT 100',
  sql: (p) => `SELECT * FROM t WHERE id > ${Math.floor(p.rows * 0.9)} ORDER BY id LIMIT 100`,
  check: 'ordered',
  floor(d, p) {
    return idRange(d, Math.floor(p.rows * 0.9), 100);
  },
};
export default c;
