import { G_GROUPS } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/**
 * "Latest rows per group": the latest row of each g by ts (whole seconds, so ties occur; id breaks them) over
 * 1,000 groups of ~1,000 rows. Engines that derive a per-partition Top-N keep 1 row(s) per partition.
 */
const K = 1;
const c: BenchCase = {
  name: 'topn_latest_per_g',
  description: 'WHERE rn = 1 over row_number() OVER (PARTITION BY g ORDER BY ts DESC, id): 1,000 groups of ~1,000 rows',
  sql: () => `SELECT g, id FROM (SELECT g, id, row_number() OVER (PARTITION BY g ORDER BY ts DESC, id) AS rn FROM t) x WHERE rn = 1`,
  check: 'unordered',
  floor(d) {
    const r = topKPerPartition(d.g, G_GROUPS, d.tsMs, true, d.id, K);
    return keptRows(r, K, (i) => [d.g[i], d.id[i]]);
  },
};
export default c;
