import { tRow, type Dataset } from '../data.js';
import type { BenchCase } from '../types.js';

/**
 * The DBeaver / OpenSearch-v1 way to reach page 9,001 of 100 rows: re-run with a deep OFFSET. The
 * engine must order (offset + 100) rows to return 100, so cost grows with depth. Compare with
 * page_keyset_deep (the same page by seek) and bench/cases/pagination/rest-depth.ts (Quire's cursors).
 */
const c: BenchCase = {
  name: 'page_offset_deep',
  description: 'page at depth 0.9*rows: ORDER BY id LIMIT 100 OFFSET 0.9*rows',
  sql: (p) => `SELECT * FROM t ORDER BY id LIMIT 100 OFFSET ${Math.floor(p.rows * 0.9)}`,
  check: 'ordered',
  floor(d, p) {
    return idRange(d, Math.floor(p.rows * 0.9), 100);
  },
};
export default c;

/** ids are a permutation of 1..rows, so rank r holds id r + 1 (the floor may use what it knows). */
export function idRange(d: Dataset, offset: number, n: number): unknown[][] {
  const pos = new Int32Array(d.rows + 1);
  for (let i = 0; i < d.rows; i++) pos[d.id[i]!] = i;
  const out: unknown[][] = [];
  for (let id = offset + 1; id <= Math.min(d.rows, offset + n); id++) out.push(tRow(d, pos[id]!));
  return out;
}
