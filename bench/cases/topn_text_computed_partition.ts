import { S_DISTINCT } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/**
 * A text partition key made by the query (s || ':' || g % 10): ~100,000 partitions of ~10 rows at 1M, and
 * no stored dictionary to give dense codes, so each row's key is a fresh string to hash.
 */
const c: BenchCase = {
  name: 'topn_text_computed_partition',
  description: "WHERE rn = 1 over row_number() OVER (PARTITION BY s || ':' || CAST(g % 10 AS text) ORDER BY v): computed text key",
  sql: () =>
    `SELECT s, g, id FROM (SELECT s, g, id, row_number() OVER (PARTITION BY s || ':' || CAST(g % 10 AS text) ORDER BY v) AS rn FROM t) x WHERE rn = 1`,
  check: 'unordered',
  floor(d) {
    // Distinct strings of s never contain ':' and g % 10 is one digit, so (s, g % 10) is the key.
    const part = new Int32Array(d.rows);
    for (let i = 0; i < d.rows; i++) part[i] = d.sIdx[i]! * 10 + (d.g[i]! % 10);
    const r = topKPerPartition(part, S_DISTINCT * 10, d.v, false, d.id, 1);
    return keptRows(r, 1, (i) => [d.sDict[d.sIdx[i]!], d.g[i], d.id[i]]);
  },
};
export default c;
