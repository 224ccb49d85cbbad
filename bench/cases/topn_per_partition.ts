import { G_GROUPS } from '../data.js';
import type { BenchCase } from '../types.js';

/**
 * Per-partition Top-N from a ranking filter: the 3 smallest v in each of the 1,000 groups. v has no ties,
 * so the answer is deterministic. Engines that derive a per-partition Top-N keep 3 rows per group; the
 * others sort all rows by (g, v) and number them. Quire: derive-topn-from-window (quire.derive_topn=auto).
 */
const K = 3;
const c: BenchCase = {
  name: 'topn_per_partition',
  description: 'WHERE rn <= 3 over row_number() OVER (PARTITION BY g ORDER BY v): top 3 per group of 1,000 groups',
  sql: () => `SELECT g, id, v, rn FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v) AS rn FROM t) x WHERE rn <= ${K}`,
  check: 'unordered',
  floor(d) {
    // One pass, a sorted array of K row indexes per group in a flat Int32Array (insertion: K is tiny),
    // and each group's current K-th value as the reject threshold.
    const best = new Int32Array(G_GROUPS * K).fill(-1);
    const count = new Int32Array(G_GROUPS);
    const worst = new Float64Array(G_GROUPS).fill(Infinity);
    const { g, v } = d;
    for (let i = 0; i < d.rows; i++) {
      const grp = g[i];
      const x = v[i];
      const n = count[grp];
      if (n === K && x >= worst[grp]) continue;
      const base = grp * K;
      let p = n < K ? n : K - 1;
      if (n < K) count[grp] = n + 1;
      while (p > 0 && v[best[base + p - 1]] > x) {
        best[base + p] = best[base + p - 1];
        p--;
      }
      best[base + p] = i;
      if (count[grp] === K) worst[grp] = v[best[base + K - 1]];
    }
    const out: unknown[][] = [];
    for (let grp = 0; grp < G_GROUPS; grp++) {
      for (let j = 0; j < count[grp]; j++) {
        const i = best[grp * K + j];
        out.push([grp, d.id[i], d.v[i], j + 1]);
      }
    }
    return out;
  },
};
export default c;
