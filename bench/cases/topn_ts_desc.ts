import { tsText } from '../data.js';
import { keptRows, topKPerPartition } from '../floor-topk.js';
import type { BenchCase } from '../types.js';

/** Top-N on a timestamp, newest first: whole seconds over three years, so ties are rare and id decides them. */
const N = 100;
const c: BenchCase = {
  name: 'topn_ts_desc',
  description: 'top-N on a timestamp: ORDER BY ts DESC, id LIMIT 100',
  sql: () => `SELECT id, ts FROM t ORDER BY ts DESC, id LIMIT ${N}`,
  check: 'ordered',
  floor(d) {
    // One partition: the same bounded insertion as the per-partition floors.
    const r = topKPerPartition(new Int32Array(d.rows), 1, d.tsMs, true, d.id, N);
    return keptRows(r, N, (i) => [d.id[i], tsText(d.tsMs[i]!)]);
  },
};
export default c;
