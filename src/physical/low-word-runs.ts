/**
 * A two-word radix sort done high word first: two 16-bit LSD passes order the rows stably by their high
 * words (carrying the low words along); then only rows that share a high word still need ordering, by
 * their low words. For doubles
 * spread over a range (timestamps, measurements, random values) those runs are a row or two long, so a
 * scan that fixes them replaces the two radix passes over the low word that an LSD sort would make over
 * all rows. Long runs (values that differ only in their last bits) get a radix sort of their own, so the
 * worst case stays linear.
 *
 * Both fixes are stable, so the result equals that of a full stable LSD sort on (hi, lo).
 */
import { digitOffsets } from './digit-offsets.js';

export interface WordPairSort {
  readonly idx: Uint32Array;
  readonly lo: Uint32Array;
  readonly hi: Uint32Array;
  readonly spare: readonly Uint32Array[];
}

/** Rows per piece of a pass between two yields. */
const PIECE = 1 << 18;

/**
 * Sorts idx[0, m) by (hi, lo) unsigned, stably, moving the words along; idx2 / lo2 / hi2 are scratch of
 * at least m elements. Returns the arrays that hold the result and the three that are spare.
 */
export function* sortHighWordFirst(
  idx: Uint32Array,
  lo: Uint32Array,
  hi: Uint32Array,
  idx2: Uint32Array,
  lo2: Uint32Array,
  hi2: Uint32Array,
  m: number,
): Generator<void, WordPairSort> {
  const counts = new Uint32Array(2 * 65536);
  for (let s = 0; s < m; s += PIECE) {
    if (s > 0) yield;
    histogram(hi, counts, s, Math.min(m, s + PIECE));
  }
  for (let p = 0; p < 2; p++) {
    const base = p * 65536;
    if (!digitOffsets(counts, base, 65536, m)) continue;
    for (let s = 0; s < m; s += PIECE) {
      if (s > 0 || m > PIECE) yield;
      scatter(hi, p * 16, counts, base, idx, lo, idx2, lo2, hi2, s, Math.min(m, s + PIECE));
    }
    [idx, idx2] = [idx2, idx];
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
  }
  const scratch = runScratch();
  let s = 0;
  while (s < m) {
    if (s > 0) yield;
    s = sortLowWordRuns(hi, lo, idx, m, s, Math.min(m, s + PIECE), scratch);
  }
  return { idx, lo, hi, spare: [idx2, lo2, hi2] };
}

function histogram(hi: Uint32Array, counts: Uint32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const h = hi[i]!;
    counts[h & 0xffff]++;
    counts[65536 + (h >>> 16)]++;
  }
}

function scatter(
  hi: Uint32Array,
  shift: number,
  counts: Uint32Array,
  base: number,
  idx: Uint32Array,
  lo: Uint32Array,
  idx2: Uint32Array,
  lo2: Uint32Array,
  hi2: Uint32Array,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const h = hi[i]!;
    const at = counts[base + ((h >>> shift) & 0xffff)]++;
    idx2[at] = idx[i]!;
    lo2[at] = lo[i]!;
    hi2[at] = h;
  }
}

/** Runs up to this long are insertion sorted; longer ones are radix sorted on the low word. */
const INSERTION_MAX = 32;

/** Scratch for runs that are radix sorted: grown on demand, reused across runs of one sort. */
interface RunScratch {
  idx: Uint32Array;
  lo: Uint32Array;
  readonly counts: Uint32Array;
}

function runScratch(): RunScratch {
  return { idx: new Uint32Array(0), lo: new Uint32Array(0), counts: new Uint32Array(256) };
}

/**
 * Orders by `lo` every run of equal `hi` that starts in [from, to) (rows [0, n) already ordered by `hi`);
 * returns where the next run starts, which may lie past `to` when the last run crosses it.
 */
function sortLowWordRuns(hi: Uint32Array, lo: Uint32Array, idx: Uint32Array, n: number, from: number, to: number, scratch: RunScratch): number {
  let a = from;
  while (a < to) {
    const h = hi[a]!;
    let b = a + 1;
    while (b < n && hi[b] === h) b++;
    const len = b - a;
    if (len > INSERTION_MAX) radixRun(lo, idx, a, b, scratch);
    else if (len > 1) insertionRun(lo, idx, a, b);
    a = b;
  }
  return a;
}

function insertionRun(lo: Uint32Array, idx: Uint32Array, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    const l = lo[i]!;
    const x = idx[i]!;
    let j = i - 1;
    // Strictly greater moves, so equal keys keep their order.
    while (j >= a && lo[j]! > l) {
      lo[j + 1] = lo[j]!;
      idx[j + 1] = idx[j]!;
      j--;
    }
    lo[j + 1] = l;
    idx[j + 1] = x;
  }
}

/** Stable LSD radix sort of rows [a, b) on `lo`, 8-bit digits, through the scratch arrays. */
function radixRun(lo: Uint32Array, idx: Uint32Array, a: number, b: number, s: RunScratch): void {
  const len = b - a;
  if (s.idx.length < len) {
    s.idx = new Uint32Array(len);
    s.lo = new Uint32Array(len);
  }
  let srcLo = lo.subarray(a, b);
  let srcIdx = idx.subarray(a, b);
  let dstLo = s.lo.subarray(0, len);
  let dstIdx = s.idx.subarray(0, len);
  const counts = s.counts;
  let inScratch = false;
  for (let shift = 0; shift < 32; shift += 8) {
    counts.fill(0);
    for (let i = 0; i < len; i++) counts[(srcLo[i]! >>> shift) & 0xff]++;
    // A digit every row shares moves nothing.
    if (counts[(srcLo[0]! >>> shift) & 0xff] === len) continue;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < len; i++) {
      const l = srcLo[i]!;
      const at = counts[(l >>> shift) & 0xff]++;
      dstLo[at] = l;
      dstIdx[at] = srcIdx[i]!;
    }
    const tl = srcLo;
    srcLo = dstLo;
    dstLo = tl;
    const ti = srcIdx;
    srcIdx = dstIdx;
    dstIdx = ti;
    inScratch = !inScratch;
  }
  if (inScratch) {
    lo.set(srcLo, a);
    idx.set(srcIdx, a);
  }
}
