/**
 * A stable sort of row indexes by a comparator that lets the event loop turn while it works.
 *
 * Array.prototype.sort over a million rows with a comparator on boxed values runs for a second or
 * more in one piece, during which no other statement, cancel request or timer gets a turn. Here the
 * rows are sorted in runs of RUN rows, then the runs are merged pairwise, and the statement's yield
 * point is visited between runs and every RUN merged rows. Stable: equal rows keep index order.
 */
import { yieldIfDue, type ExecContext } from './context.js';

const RUN = 1 << 14;

export async function sortIndices(n: number, cmp: (a: number, b: number) => number, ctx: ExecContext): Promise<Uint32Array> {
  let src = new Uint32Array(n);
  for (let i = 0; i < n; i++) src[i] = i;
  // Comparator ties are broken by index, so each run's sort (and so the whole) is stable.
  const stable = (a: number, b: number): number => cmp(a, b) || a - b;
  for (let s = 0; s < n; s += RUN) {
    src.subarray(s, Math.min(n, s + RUN)).sort(stable);
    await yieldIfDue(ctx);
  }
  if (n <= RUN) return src;
  let dst = new Uint32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    let sinceYield = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // Left run first on ties: stability.
        dst[k++] = stable(src[j]!, src[i]!) < 0 ? src[j++]! : src[i++]!;
        if (++sinceYield === RUN) {
          sinceYield = 0;
          await yieldIfDue(ctx);
        }
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    [src, dst] = [dst, src];
    await yieldIfDue(ctx);
  }
  return src;
}
