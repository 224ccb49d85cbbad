import { G_GROUPS } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/** Per-partition Top-N on a two-column partition key: (g, k % 100) makes 100,000 partitions of ~10 rows. */
const c: BenchCase = {
  name: 'topn_per_partition_multi',
  description: 'WHERE rn = 1 over row_number() OVER (PARTITION BY g, k % 100 ORDER BY v): 100,000 two-column partitions',
  sql: () => 'SELECT g, k, id FROM (SELECT g, k, id, row_number() OVER (PARTITION BY g, k % 100 ORDER BY v) AS rn FROM t) x WHERE rn = 1',
  check: 'unordered',
  floor(d) {
    const part = new Int32Array(d.rows);
    for (let i = 0; i < d.rows; i++) part[i] = d.g[i]! * 100 + (d.k[i]! % 100);
    const r = topKPerPartition(part, G_GROUPS * 100, d.v, false, d.id, 1);
    return keptRows(r, 1, (i) => [d.g[i], d.k[i], d.id[i]]);
  },
};
export default c;
