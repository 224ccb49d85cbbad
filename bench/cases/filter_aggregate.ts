import { G_GROUPS } from '../data.js';
import type { BenchCase } from '../types.js';

/**
 * k is uniform over 0..9999, so k < 5000 keeps ~50% of rows: the worst case for branch prediction, and
 * enough surviving rows that the aggregation, not the filter, dominates.
 */
const c: BenchCase = {
  name: 'filter_aggregate',
  description: 'scan 6 columns, 50% selective filter, hash aggregate into 1,000 groups (count, sum, avg)',
  sql: () => 'SELECT g, count(*), sum(v), avg(v) FROM t WHERE k < 5000 GROUP BY g',
  check: 'unordered',
  floor(d) {
    const cnt = new Float64Array(G_GROUPS);
    const sum = new Float64Array(G_GROUPS);
    const { g, v, k } = d;
    for (let i = 0; i < d.rows; i++) {
      // branch-free: the 50% filter would mispredict half the time; adding 0 is cheaper
      const m = (k[i] - 5000) >>> 31; // 1 when k < 5000 (k is non-negative)
      const gi = g[i];
      cnt[gi] += m;
      sum[gi] += m * v[i];
    }
    const out: unknown[][] = [];
    for (let j = 0; j < G_GROUPS; j++) if (cnt[j] > 0) out.push([j, cnt[j], sum[j], sum[j] / cnt[j]]);
    return out;
  },
};
export default c;
