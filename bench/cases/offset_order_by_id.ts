import { tRow, type Dataset } from '../data.js';
import type { BenchCase } from '../types.js';

/**
 * Deep paging: id is a shuffled permutation, so the engine must order half the table to find page
 * rows/2. Tests whether it uses a bounded top-(offset+limit) instead of a full sort, and its sort speed.
 */
const c: BenchCase = {
  name: 'offset_order_by_id',
  description: 'deep page: ORDER BY id LIMIT 10 OFFSET rows/2 (id shuffled: needs a sort or selection)',
  sql: (p) => `SELECT * FROM t ORDER BY id LIMIT 10 OFFSET ${Math.floor(p.rows / 2)}`,
  check: 'ordered',
  floor(d, p) {
    const off = Math.floor(p.rows / 2);
    return selectRange(d, off, Math.min(d.rows, off + 10)).map((i) => tRow(d, i));
  },
};
export default c;

/**
 * Row indexes of ranks [lo, hi) by id, via quickselect on packed (id, row) keys in a Float64Array:
 * O(n) on average and no per-row objects, which is what a hand-tuned program would do. It does not
 * exploit that ids are exactly 1..n (that would be cheating against engines that cannot know it).
 */
function selectRange(d: Dataset, lo: number, hi: number): number[] {
  const n = d.rows;
  if (lo >= hi) return [];
  const mul = 2 ** Math.ceil(Math.log2(n + 1));
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = d.id[i] * mul + i; // exact while id * mul < 2^53
  const select = (kth: number, l: number, r: number): void => {
    while (r > l) {
      const pivot = keys[(l + r) >>> 1];
      let i = l,
        j = r;
      while (i <= j) {
        while (keys[i] < pivot) i++;
        while (keys[j] > pivot) j--;
        if (i <= j) {
          const t = keys[i];
          keys[i] = keys[j];
          keys[j] = t;
          i++;
          j--;
        }
      }
      if (kth <= j) r = j;
      else if (kth >= i) l = i;
      else return;
    }
  };
  select(lo, 0, n - 1);
  select(hi - 1, lo, n - 1); // everything in [lo, hi) is now between the two order statistics
  const page = Array.from(keys.subarray(lo, hi)).sort((a, b) => a - b);
  return page.map((k) => k % mul);
}
