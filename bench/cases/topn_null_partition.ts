import { G_GROUPS } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/**
 * A partition key with NULLs: a tenth of the rows (k % 10 = 0) have a NULL key and form one partition of
 * their own (~100,000 rows at 1M), beside 1,000 ordinary ones. The key is computed by the query, so no
 * stored column statistics say it is a small non-negative integer.
 */
const K = 3;
const c: BenchCase = {
  name: 'topn_null_partition',
  description: 'WHERE rn <= 3 over row_number() OVER (PARTITION BY CASE WHEN k % 10 = 0 THEN NULL ELSE g END ORDER BY v): NULL keys',
  sql: () =>
    `SELECT g2, id FROM (SELECT g2, id, row_number() OVER (PARTITION BY g2 ORDER BY v) AS rn FROM ` +
    `(SELECT CASE WHEN k % 10 = 0 THEN NULL ELSE g END AS g2, id, v FROM t) s) x WHERE rn <= ${K}`,
  check: 'unordered',
  floor(d) {
    // NULL is partition G_GROUPS, one past the largest g.
    const part = new Int32Array(d.rows);
    for (let i = 0; i < d.rows; i++) part[i] = d.k[i]! % 10 === 0 ? G_GROUPS : d.g[i]!;
    const r = topKPerPartition(part, G_GROUPS + 1, d.v, false, d.id, K);
    return keptRows(r, K, (i) => [part[i] === G_GROUPS ? null : d.g[i], d.id[i]]);
  },
};
export default c;
