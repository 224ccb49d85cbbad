/**
 * Rows that compare equal under ORDER BY may come out in any order (SQL leaves it open), and
 * PostgreSQL's order for them is that of its in-memory quicksort over the rows as its input produced
 * them. Users who move from PostgreSQL, and its own regression tests, see that order, so small sorts
 * follow the same algorithm: the Bentley–McIlroy three-way quicksort as PostgreSQL configures it
 * (insertion sort below 7 rows, a pass that returns at once on presorted input, the median of three
 * or, above 40 rows, of three medians as the pivot, recursion into the smaller side). Only the outcome
 * of each comparison matters, so any comparator giving PostgreSQL's total order gives its tie order.
 *
 * Large sorts keep the stable radix paths: PostgreSQL's own order there depends on work_mem (an
 * external merge, or a bounded heap under LIMIT), so there is no single order to follow.
 */
import type { RowCompare } from './sort-key.js';

/** Sorts at most this many rows in PostgreSQL's tie order (a comparison sort, cheap at this size). */
export const PG_TIE_ORDER_MAX_ROWS = 1024;

/** Sorts `perm[from, from + n)` (row indexes) in place under `cmp`, as PostgreSQL's qsort orders them. */
export function pgTieOrderSort(perm: Uint32Array, cmp: RowCompare, from = 0, count = perm.length - from): Uint32Array {
  sortRange(perm, cmp, from, count);
  return perm;
}

function swap(p: Uint32Array, i: number, j: number): void {
  const t = p[i]!;
  p[i] = p[j]!;
  p[j] = t;
}

function swapRun(p: Uint32Array, i: number, j: number, n: number): void {
  for (let k = 0; k < n; k++) swap(p, i + k, j + k);
}

/** Position of the median of the rows at positions a, b and c. */
function median3(p: Uint32Array, cmp: RowCompare, a: number, b: number, c: number): number {
  const pa = p[a]!;
  const pb = p[b]!;
  const pc = p[c]!;
  if (cmp(pa, pb) < 0) return cmp(pb, pc) < 0 ? b : cmp(pa, pc) < 0 ? c : a;
  return cmp(pb, pc) > 0 ? b : cmp(pa, pc) < 0 ? a : c;
}

function sortRange(p: Uint32Array, cmp: RowCompare, a: number, n: number): void {
  for (;;) {
    if (n < 7) {
      for (let m = a + 1; m < a + n; m++) for (let l = m; l > a && cmp(p[l - 1]!, p[l]!) > 0; l--) swap(p, l, l - 1);
      return;
    }
    let presorted = true;
    for (let m = a + 1; m < a + n; m++) {
      if (cmp(p[m - 1]!, p[m]!) > 0) {
        presorted = false;
        break;
      }
    }
    if (presorted) return;
    let pm = a + (n >> 1);
    if (n > 7) {
      let pl = a;
      let pn = a + n - 1;
      if (n > 40) {
        const d = n >> 3;
        pl = median3(p, cmp, pl, pl + d, pl + 2 * d);
        pm = median3(p, cmp, pm - d, pm, pm + d);
        pn = median3(p, cmp, pn - 2 * d, pn - d, pn);
      }
      pm = median3(p, cmp, pl, pm, pn);
    }
    swap(p, a, pm);
    const pivot = p[a]!;
    // [a, pa): equal to the pivot; [pa, pb): less; (pc, pd]: greater; (pd, end): equal.
    let pa = a + 1;
    let pb = pa;
    let pc = a + n - 1;
    let pd = pc;
    for (;;) {
      let r: number;
      while (pb <= pc && (r = cmp(p[pb]!, pivot)) <= 0) {
        if (r === 0) swap(p, pa++, pb);
        pb++;
      }
      while (pb <= pc && (r = cmp(p[pc]!, pivot)) >= 0) {
        if (r === 0) swap(p, pc, pd--);
        pc--;
      }
      if (pb > pc) break;
      swap(p, pb++, pc--);
    }
    const end = a + n;
    let s = Math.min(pa - a, pb - pa);
    swapRun(p, a, pb - s, s);
    s = Math.min(pd - pc, end - pd - 1);
    swapRun(p, pb, end - s, s);
    const left = pb - pa;
    const right = pd - pc;
    if (left <= right) {
      if (left > 1) sortRange(p, cmp, a, left);
      if (right <= 1) return;
      a = end - right;
      n = right;
    } else {
      if (right > 1) sortRange(p, cmp, end - right, right);
      if (left <= 1) return;
      n = left;
    }
  }
}
