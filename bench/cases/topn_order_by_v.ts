import { tRow } from '../data.js';
import type { BenchCase } from '../types.js';

/** v is a random 53-bit double, so ties are practically impossible and the top 10 is deterministic. */
const c: BenchCase = {
  name: 'topn_order_by_v',
  description: 'top-N: ORDER BY a double with LIMIT 10 over all rows (a heap, not a full sort, is the fast plan)',
  sql: () => 'SELECT * FROM t ORDER BY v LIMIT 10',
  check: 'ordered',
  floor(d) {
    // keep the 10 smallest in a sorted array: 10 is so small that insertion beats a heap
    const n = 10;
    const best: number[] = [];
    const { v } = d;
    let worst = Infinity;
    for (let i = 0; i < d.rows; i++) {
      const x = v[i];
      if (best.length < n || x < worst) {
        let p = best.length < n ? best.length : n - 1;
        if (best.length < n) best.push(i);
        while (p > 0 && v[best[p - 1]] > x) {
          best[p] = best[p - 1];
          p--;
        }
        best[p] = i;
        if (best.length === n) worst = v[best[n - 1]];
      }
    }
    return best.map((i) => tRow(d, i));
  },
};
export default c;
