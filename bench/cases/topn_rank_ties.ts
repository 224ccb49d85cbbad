import { G_GROUPS } from '../data.js';
import type { BenchCase } from '../types.js';

/**
 * Many ties: rank() over k % 100 inside each of 1,000 groups, so every order value has ~10 peers per group
 * and rank <= 3 keeps the whole first peer group (~10 rows) of each. A Top-N that keeps exactly k rows
 * per partition is wrong here; one that keeps ties must grow past k.
 */
const K = 3;
const VALUES = 100;
const c: BenchCase = {
  name: 'topn_rank_ties',
  description: 'WHERE r <= 3 over rank() OVER (PARTITION BY g ORDER BY k % 100): ~10 peers per order value',
  sql: () => `SELECT g, id FROM (SELECT g, id, rank() OVER (PARTITION BY g ORDER BY k % 100) AS r FROM t) x WHERE r <= ${K}`,
  check: 'unordered',
  floor(d) {
    // A histogram of (group, order value), then per group the largest value whose rank (1 + rows with a
    // smaller value) is still <= K, then one pass keeping the rows at or below it.
    const hist = new Int32Array(G_GROUPS * VALUES);
    for (let i = 0; i < d.rows; i++) hist[d.g[i]! * VALUES + (d.k[i]! % VALUES)]!++;
    const cutoff = new Int32Array(G_GROUPS).fill(-1);
    for (let g = 0; g < G_GROUPS; g++) {
      let before = 0;
      for (let x = 0; x < VALUES; x++) {
        const c = hist[g * VALUES + x]!;
        if (c === 0) continue;
        if (before + 1 > K) break;
        cutoff[g] = x;
        before += c;
      }
    }
    const out: unknown[][] = [];
    for (let i = 0; i < d.rows; i++) if (d.k[i]! % VALUES <= cutoff[d.g[i]!]!) out.push([d.g[i], d.id[i]]);
    return out;
  },
};
export default c;
