import { P_PARTITIONS } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/**
 * k = 10 over 100,000 partitions of ~10 rows (at 1M rows): k × partitions is about the input, so pruning
 * keeps nearly every row. The shape where a per-partition Top-N gains nothing and a cost guard should let
 * the sort run instead; at 10M rows (~100 rows a partition) pruning pays again.
 */
const K = 10;
const c: BenchCase = {
  name: 'topn_k10_per_p',
  description: 'WHERE rn <= 10 over row_number() OVER (PARTITION BY p ORDER BY v): 100,000 partitions, k × partitions ≈ rows at 1M',
  sql: () => `SELECT p, id FROM (SELECT p, id, row_number() OVER (PARTITION BY p ORDER BY v) AS rn FROM t) x WHERE rn <= ${K}`,
  check: 'unordered',
  floor(d) {
    const r = topKPerPartition(d.p, P_PARTITIONS, d.v, false, d.id, K);
    return keptRows(r, K, (i) => [d.p[i], d.id[i]]);
  },
};
export default c;
