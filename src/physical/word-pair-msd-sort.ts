/**
 * MSD radix sort of rows on 64-bit unsigned keys held as two words (`hi`, `lo`), the order-preserving
 * images of doubles that sort.ts builds, for inputs of millions of rows.
 *
 * An LSD sort of doubles with random low bits makes four 16-bit passes over the whole input, each
 * scattering into arrays far larger than the caches. Splitting on the most significant digit first leaves
 * ranges that fit in cache after one pass: later passes touch one range at a time, and ranges of a few rows
 * are finished by insertion sort. Digits every row of a range shares are skipped. Below a few million rows
 * the LSD passes already run mostly in cache and are faster, so sort.ts uses this only above that.
 *
 * Stable: the scatter keeps input order within a bucket and the insertion sort moves a row only past
 * strictly greater keys, so equal keys keep their input order.
 *
 * The work is a stack of (lo, hi, byte depth) ranges; a pass over a range larger than PIECE rows runs a
 * piece at a time, and the generator yields between pieces (and after about PIECE row visits of smaller
 * ranges) so a statement can be interrupted.
 */

/** Ranges of at most this many rows are insertion sorted. */
const SMALL = 24;
/** Ranges at least this large split on 16-bit digits (a 65,536-entry histogram pays off). */
const WIDE_MIN = 1 << 16;
/** Rows per piece of a pass between two yields. */
const PIECE = 1 << 18;

/**
 * Sorts idx[0, n) by (hi, lo) unsigned, moving hi / lo along; idx2 / hi2 / lo2 are scratch of at least n
 * elements.
 */
export function* sortWordPairs(
  idx: Uint32Array,
  hi: Uint32Array,
  lo: Uint32Array,
  idx2: Uint32Array,
  hi2: Uint32Array,
  lo2: Uint32Array,
  n: number,
): Generator<void, void> {
  const counts8 = new Uint32Array(257);
  let counts16: Uint32Array | null = null;
  const stack: number[] = n > 1 ? [0, n, 0] : [];
  let spent = 0;
  while (stack.length > 0) {
    const depth = stack.pop()!;
    const b = stack.pop()!;
    const a = stack.pop()!;
    const size = b - a;
    spent += size;
    if (size <= SMALL) insertion(idx, hi, lo, a, b);
    else {
      for (let d = depth; d < 8; ) {
        const wide = size >= WIDE_MIN && (d & 1) === 0;
        const counts = wide ? (counts16 ??= new Uint32Array(65537)) : counts8;
        const word = d < 4 ? hi : lo;
        const shift = wide ? 16 - (d & 3) * 8 : 24 - (d & 3) * 8;
        const mask = wide ? 0xffff : 0xff;
        counts.fill(0);
        for (let s = a; s < b; s += PIECE) {
          if (size > PIECE) yield;
          countDigits(word, shift, mask, counts, s, Math.min(b, s + PIECE));
        }
        const step = wide ? 2 : 1;
        const buckets = mask + 1;
        let single = false;
        for (let x = 1; x <= buckets; x++) {
          const c = counts[x]!;
          if (c === 0) continue;
          single = c === size;
          break;
        }
        if (single) {
          d += step;
          continue;
        }
        for (let x = 1; x <= buckets; x++) counts[x] += counts[x - 1]!;
        for (let s = a; s < b; s += PIECE) {
          if (size > PIECE) yield;
          scatter(word, shift, mask, counts, a, idx, hi, lo, idx2, hi2, lo2, s, Math.min(b, s + PIECE));
        }
        idx.set(idx2.subarray(a, b), a);
        hi.set(hi2.subarray(a, b), a);
        lo.set(lo2.subarray(a, b), a);
        // After the scatter counts[x] is the end of bucket x.
        const next = d + step;
        if (next < 8) {
          let start = 0;
          for (let x = 0; x < buckets; x++) {
            const end = counts[x]!;
            if (end - start > 1) stack.push(a + start, a + end, next);
            start = end;
          }
        }
        break;
      }
    }
    if (spent >= PIECE) {
      spent = 0;
      yield;
    }
  }
}

function countDigits(word: Uint32Array, shift: number, mask: number, counts: Uint32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) counts[((word[i]! >>> shift) & mask) + 1]++;
}

function scatter(
  word: Uint32Array,
  shift: number,
  mask: number,
  counts: Uint32Array,
  a: number,
  idx: Uint32Array,
  hi: Uint32Array,
  lo: Uint32Array,
  idx2: Uint32Array,
  hi2: Uint32Array,
  lo2: Uint32Array,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const at = a + counts[(word[i]! >>> shift) & mask]!++;
    idx2[at] = idx[i]!;
    hi2[at] = hi[i]!;
    lo2[at] = lo[i]!;
  }
}

/** Stable insertion sort of [a, b) on (hi, lo). */
function insertion(idx: Uint32Array, hi: Uint32Array, lo: Uint32Array, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    const h = hi[i]!;
    const l = lo[i]!;
    const r = idx[i]!;
    let j = i - 1;
    while (j >= a) {
      const hj = hi[j]!;
      if (hj < h || (hj === h && lo[j]! <= l)) break;
      idx[j + 1] = idx[j]!;
      hi[j + 1] = hj;
      lo[j + 1] = lo[j]!;
      j--;
    }
    idx[j + 1] = r;
    hi[j + 1] = h;
    lo[j + 1] = l;
  }
}
