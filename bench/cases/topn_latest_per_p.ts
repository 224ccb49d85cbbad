import { P_PARTITIONS } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/**
 * "Latest rows per group": the latest row of each p by ts (whole seconds, so ties occur; id breaks them) over
 * 100,000 partitions of ~10 rows. Engines that derive a per-partition Top-N keep 1 row(s) per partition.
 */
const K = 1;
const c: BenchCase = {
  name: 'topn_latest_per_p',
  description: 'WHERE rn = 1 over row_number() OVER (PARTITION BY p ORDER BY ts DESC, id): 100,000 partitions of ~10 rows',
  sql: () => `SELECT p, id FROM (SELECT p, id, row_number() OVER (PARTITION BY p ORDER BY ts DESC, id) AS rn FROM t) x WHERE rn = 1`,
  check: 'unordered',
  floor(d) {
    const r = topKPerPartition(d.p, P_PARTITIONS, d.tsMs, true, d.id, K);
    return keptRows(r, K, (i) => [d.p[i], d.id[i]]);
  },
};
export default c;
