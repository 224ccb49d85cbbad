import { U_NAMES } from '../data.js';
import type { BenchCase } from '../types.js';

/**
 * Star join: the filter on the dimension (w < 0.5, ~half of u) shrinks the build side; every t row
 * probes it; survivors aggregate into ~250 names (several g's share one name).
 */
const c: BenchCase = {
  name: 'join_groupby',
  description: 'hash join t (probe) with filtered u (build, 10k rows), then GROUP BY a text column',
  sql: () => 'SELECT u.name, count(*), sum(t.v) FROM t JOIN u ON t.g = u.g WHERE u.w < 0.5 GROUP BY u.name',
  check: 'unordered',
  floor(d) {
    // direct-address table over u.g (dense small ints): what a hand-written join on this data would use
    let maxG = 0;
    for (let i = 0; i < d.uG.length; i++) maxG = Math.max(maxG, d.uG[i]);
    // non-matching g's (and t.g values missing from u) go to one spare slot that is never output, so the
    // probe loop has no data-dependent branch
    const nameOf = new Int32Array(maxG + 1).fill(-1);
    const names = new Map<string, number>();
    for (let i = 0; i < d.uG.length; i++) {
      if (!(d.uW[i] < 0.5)) continue;
      let ni = names.get(d.uName[i]);
      if (ni === undefined) names.set(d.uName[i], (ni = names.size));
      nameOf[d.uG[i]] = ni;
    }
    const spare = names.size;
    for (let j = 0; j <= maxG; j++) if (nameOf[j] < 0) nameOf[j] = spare;
    const cnt = new Float64Array(Math.max(spare + 1, U_NAMES));
    const sum = new Float64Array(cnt.length);
    const { g, v } = d;
    for (let i = 0; i < d.rows; i++) {
      const gi = g[i];
      const ni = gi <= maxG ? nameOf[gi] : spare; // always true here: predicted perfectly
      cnt[ni]++;
      sum[ni] += v[i];
    }
    const out: unknown[][] = [];
    for (const [name, ni] of names) if (cnt[ni] > 0) out.push([name, cnt[ni], sum[ni]]);
    return out;
  },
};
export default c;
