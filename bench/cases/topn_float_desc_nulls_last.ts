import { G_GROUPS } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/**
 * DESC NULLS LAST on a float with NULLs (a fifth of the rows): the largest 3 non-NULL v of each of 1,000
 * groups. NULL must sort after every number even though DESC puts it first by default.
 */
const K = 3;
const c: BenchCase = {
  name: 'topn_float_desc_nulls_last',
  description: 'WHERE rn <= 3 over row_number() OVER (PARTITION BY g ORDER BY v2 DESC NULLS LAST, id), v2 NULL for k % 5 = 0',
  sql: () =>
    `SELECT g, id, v2 FROM (SELECT g, id, v2, row_number() OVER (PARTITION BY g ORDER BY v2 DESC NULLS LAST, id) AS rn FROM ` +
    `(SELECT g, id, CASE WHEN k % 5 = 0 THEN NULL ELSE v END AS v2 FROM t) s) x WHERE rn <= ${K}`,
  check: 'unordered',
  floor(d) {
    // NULL as -Infinity: last when descending (v itself is in [0, 1000), never -Infinity).
    const key = new Float64Array(d.rows);
    for (let i = 0; i < d.rows; i++) key[i] = d.k[i]! % 5 === 0 ? -Infinity : d.v[i]!;
    const r = topKPerPartition(d.g, G_GROUPS, key, true, d.id, K);
    return keptRows(r, K, (i) => [d.g[i], d.id[i], key[i] === -Infinity ? null : d.v[i]]);
  },
};
export default c;
