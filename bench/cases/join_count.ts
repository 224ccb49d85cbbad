import type { BenchCase } from '../types.js';

/** Join whose only output is a count: isolates build + probe cost from aggregation and result size. */
const c: BenchCase = {
  name: 'join_count',
  description: 'hash join t with u on g, 50% filter on the probe side, count(*) only',
  sql: () => 'SELECT count(*) FROM t JOIN u ON t.g = u.g WHERE t.k < 5000',
  check: 'ordered',
  floor(d) {
    let maxG = 0;
    for (let i = 0; i < d.uG.length; i++) maxG = Math.max(maxG, d.uG[i]);
    const present = new Uint8Array(maxG + 1);
    for (let i = 0; i < d.uG.length; i++) present[d.uG[i]] = 1;
    let n = 0;
    const { g, k } = d;
    for (let i = 0; i < d.rows; i++) {
      const gi = g[i];
      // branch-free on the 50% filter (a mispredicted branch per row costs more than the probe);
      // (k - 5000) >>> 31 is 1 exactly when k < 5000, for the non-negative k generated here
      if (gi <= maxG) n += present[gi] & ((k[i] - 5000) >>> 31);
    }
    return [[n]];
  },
};
export default c;
