import type { BenchCase } from '../types.js';

/**
 * Top-N on a text key: 10,000 distinct strings over 1M rows, so every kept string has ~100 ties and
 * the id tie-break decides which of them make the first 100 rows. Stresses text comparisons in the
 * bounded heap.
 */
const N = 100;
const c: BenchCase = {
  name: 'topn_text_desc',
  description: 'top-N on text: ORDER BY s DESC, id LIMIT 100',
  sql: () => `SELECT id, s FROM t ORDER BY s DESC, id LIMIT ${N}`,
  check: 'ordered',
  floor(d) {
    // Compares the strings themselves (no dictionary ranks), rejecting against the current 100th row;
    // the strings are ASCII, so JS string order is the byte order engines use here.
    const best: number[] = [];
    const { sIdx, sDict, id } = d;
    let worst = '';
    let worstId = 0;
    for (let i = 0; i < d.rows; i++) {
      const s = sDict[sIdx[i]!]!;
      if (best.length === N && (s < worst || (s === worst && id[i]! > worstId))) continue;
      let p = best.length < N ? best.length : N - 1;
      if (best.length < N) best.push(i);
      while (p > 0) {
        const o = best[p - 1]!;
        const os = sDict[sIdx[o]!]!;
        if (os > s || (os === s && id[o]! < id[i]!)) break;
        best[p] = o;
        p--;
      }
      best[p] = i;
      if (best.length === N) {
        worst = sDict[sIdx[best[N - 1]!]!]!;
        worstId = id[best[N - 1]!]!;
      }
    }
    return best.map((i) => [id[i], sDict[sIdx[i]!]]);
  },
};
export default c;
