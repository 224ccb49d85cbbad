import { S_DISTINCT } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/** Per-partition Top-N on a text partition key: the 3 smallest v of each of 10,000 strings (~100 rows each). */
const K = 3;
const c: BenchCase = {
  name: 'topn_per_partition_text',
  description: 'WHERE rn <= 3 over row_number() OVER (PARTITION BY s ORDER BY v): 10,000 text partitions',
  sql: () => `SELECT s, id FROM (SELECT s, id, row_number() OVER (PARTITION BY s ORDER BY v) AS rn FROM t) x WHERE rn <= ${K}`,
  check: 'unordered',
  floor(d) {
    // The dictionary index is a dense partition id: the floor never hashes a string.
    const r = topKPerPartition(d.sIdx, S_DISTINCT, d.v, false, d.id, K);
    return keptRows(r, K, (i) => [d.sDict[d.sIdx[i]!], d.id[i]]);
  },
};
export default c;
