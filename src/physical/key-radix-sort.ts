/**
 * MSD radix sort of row indexes on normalized keys (normalized-key.ts), in resumable steps.
 *
 * A range of rows is split by its byte at depth d into up to 256 buckets (a counting pass and a stable
 * scatter); each bucket is then sorted on byte d + 1. A range whose rows all share the byte skips the
 * scatter. Ranges of at most SMALL rows are insertion sorted on their remaining bytes, which beats
 * another 256-bucket pass. Rows whose bytes are all equal are equal keys, unless a row's image was
 * inexact (a long text's prefix, a numeric's double). The bytes after such a key are only meaningful once
 * its full values tie, so a range that reaches the end of a key that can be inexact (`inexactEnds`) with an
 * inexact row in it is ordered by the full comparator instead.
 *
 * Stable: the scatter keeps input order within a bucket, insertion sort moves a row only past strictly
 * greater ones, and the comparator ties fall back to the row index.
 *
 * The work is a stack of ranges, so a caller can run it a slice at a time (`step`) and let the event
 * loop run between slices; one slice does about `budget` row visits. A range too large for one slice is
 * counted and scattered a chunk of rows at a time.
 */
import { anchorShape } from '../common/shape-anchor.js';
import { give, takeU32 } from '../execution/scratch.js';
import type { NormalizedKeys } from './normalized-key.js';
import type { RowCompare } from './sort-key.js';

/** Ranges this small are insertion sorted on their remaining bytes. */
const SMALL = 32;
/** Ranges at least this large are split on 16-bit digits. */
const WIDE_MIN = 1 << 16;
/**
 * Ranges at least this large (and at most HUGE) are split on 4 bytes at once: each row's next 4 bytes are
 * read once into a word beside its index (one random read a row, where the byte passes read every byte
 * twice and again per level), the (word, index) pairs are LSD radix sorted in sequential passes, and the
 * runs of equal words go on at depth + 4.
 */
const WORD_MIN = 256;
/** Word columns (KeyRadixSort.wordColumn): for inputs of at least COLUMN_MIN_ROWS rows, ranges of at least 1/COLUMN_SHARE of them. */
const COLUMN_MIN_ROWS = 1 << 16;
const COLUMN_SHARE = 1024;
const MAX_WORD_COLUMNS = 2;
/** Ranges larger than this are partitioned across slices, at least CHUNK rows per slice. */
const HUGE = 1 << 19;
const CHUNK = 1 << 17;

export class KeyRadixSort {
  readonly order: Uint32Array;
  private readonly tmp: Uint32Array;
  /** Pending ranges as (lo, hi, depth) triples. */
  private stack: number[] = [];
  private readonly counts = new Uint32Array(257);
  private counts16: Uint32Array | null = null;
  /** 1 at byte offsets where a key that can be inexact ends (see the header). */
  private readonly stop: Uint8Array;

  /**
   * `tie` orders rows whose bytes are equal when one of them is inexact (it must be exact on full values);
   * null when the keys have no inexact rows.
   */
  constructor(
    private readonly keys: NormalizedKeys,
    private readonly tie: RowCompare | null,
    order?: Uint32Array,
  ) {
    const n = keys.rows;
    if (order === undefined) {
      // From the scratch pool: the caller gives it back once it has read the rows in order.
      order = takeU32(n);
      for (let i = 0; i < n; i++) order[i] = i;
    }
    this.order = order;
    this.tmp = takeU32(order.length);
    this.stop = new Uint8Array(keys.width + 1);
    if (tie !== null && keys.inexact !== null) for (const e of keys.inexactEnds) this.stop[e] = 1;
    if (order.length > 1) this.stack.push(0, order.length, 0);
  }

  get done(): boolean {
    return this.stack.length === 0 && this.job === null;
  }

  /** Sorts everything now. */
  run(): Uint32Array {
    while (!this.done) this.step(Infinity);
    return this.order;
  }

  /** Does about `budget` row visits of work (at least one range); returns true when the sort is done. */
  step(budget: number): boolean {
    const { bytes, width } = this.keys;
    const stack = this.stack;
    let spent = 0;
    while ((stack.length > 0 || this.job !== null) && spent < budget) {
      if (this.job !== null) {
        spent += this.advance(this.job, budget - spent);
        continue;
      }
      const depth = stack.pop()!;
      const hi = stack.pop()!;
      const lo = stack.pop()!;
      const n = hi - lo;
      if (n > HUGE) {
        this.startJob(lo, hi, depth);
        continue;
      }
      spent += n;
      if (n <= SMALL) {
        this.insertion(lo, hi, depth);
        continue;
      }
      if (n >= WORD_MIN && depth < width && this.wordUsable(lo, hi, depth)) {
        this.partitionWord(lo, hi, depth, bytes, width);
        continue;
      }
      // Skip the bytes every row of the range shares: for small ranges by comparing with the first row
      // (cheaper than a 256-bucket count per byte), for large ones by the counting pass itself.
      let d = n < WIDE_MIN ? this.sharedPrefix(lo, hi, depth) : depth;
      for (; d < width; d++) {
        if (this.stop[d] === 1 && this.anyInexact(lo, hi)) break;
        // Large ranges split on two bytes at once: half the passes, each a random read per row.
        if (n >= WIDE_MIN && d + 1 < width && this.stop[d + 1] === 0) {
          if (!this.partition16(lo, hi, d, bytes, width)) continue;
        } else if (!this.partition(lo, hi, d, bytes, width)) continue;
        d = -1;
        break;
      }
      if (d >= 0) this.resolve(lo, hi);
    }
    if (stack.length > 0 || this.job !== null) return false;
    this.releaseScratch();
    return true;
  }

  /** Gives the scratch arrays back to the pool once the sort is done (the order stays the caller's). */
  private releaseScratch(): void {
    if (this.released) return;
    this.released = true;
    give(this.tmp, this.words, this.words2, ...this.columns.values());
    this.words = this.words2 = null;
    this.columns.clear();
  }

  private released = false;

  /** A partition of a range too large for one slice, done a chunk of rows at a time (see advance). */
  private job: Job | null = null;

  /** Starts the partition job of [lo, hi) at the first byte from d that can split it. */
  private startJob(lo: number, hi: number, d: number): void {
    const width = this.keys.width;
    if (d >= width || (this.stop[d] === 1 && this.anyInexact(lo, hi))) {
      this.resolve(lo, hi);
      return;
    }
    const wide = d + 1 < width && this.stop[d + 1] === 0;
    this.job = { lo, hi, d, wide, scatter: false, pos: lo, counts: new Uint32Array(wide ? 65537 : 257) };
  }

  /** Counts or scatters up to max(budget, CHUNK) rows of the job; returns the rows visited. */
  private advance(job: Job, budget: number): number {
    const { bytes, width } = this.keys;
    const order = this.order;
    const { lo, hi, d, counts } = job;
    const end = Math.min(hi, job.pos + Math.max(budget, CHUNK));
    const visited = end - job.pos;
    if (!job.scatter) {
      if (job.wide) countWide(bytes, width, order, d, job.pos, end, counts);
      else countByte(bytes, width, order, d, job.pos, end, counts);
      job.pos = end;
      if (end < hi) return visited;
      const n = hi - lo;
      const size = counts.length - 1;
      let single = false;
      for (let b = 1; b <= size; b++) {
        const c = counts[b]!;
        if (c === 0) continue;
        single = c === n;
        break;
      }
      if (single) {
        // Every row shares the digit: move on past it.
        this.job = null;
        this.startJob(lo, hi, d + (job.wide ? 2 : 1));
        return visited;
      }
      for (let b = 1; b <= size; b++) counts[b] += counts[b - 1]!;
      job.scatter = true;
      job.pos = lo;
      return visited;
    }
    const tmp = this.tmp;
    if (job.wide) scatterWide(bytes, width, order, tmp, d, lo, job.pos, end, counts);
    else scatterByte(bytes, width, order, tmp, d, lo, job.pos, end, counts);
    job.pos = end;
    if (end < hi) return visited;
    order.set(tmp.subarray(lo, hi), lo);
    const next = d + (job.wide ? 2 : 1);
    let start = 0;
    for (let b = 0; b < counts.length - 1; b++) {
      const e = counts[b]!;
      if (e - start > 1) this.stack.push(lo + start, lo + e, next);
      start = e;
    }
    this.job = null;
    return visited;
  }

  /**
   * Splits [lo, hi) on byte d and pushes its buckets (at depth d + 1); false, doing nothing, when every
   * row has the same byte there.
   */
  private partition(lo: number, hi: number, d: number, bytes: Uint8Array, width: number): boolean {
    const order = this.order;
    const counts = this.counts;
    counts.fill(0);
    for (let i = lo; i < hi; i++) counts[bytes[order[i]! * width + d]! + 1]++;
    const n = hi - lo;
    for (let b = 1; b <= 256; b++) if (counts[b] === n) return false;
    // counts[b] becomes the start of bucket b (relative to lo).
    for (let b = 1; b <= 256; b++) counts[b] += counts[b - 1]!;
    const tmp = this.tmp;
    for (let i = lo; i < hi; i++) {
      const r = order[i]!;
      tmp[lo + counts[bytes[r * width + d]!]!++] = r;
    }
    order.set(tmp.subarray(lo, hi), lo);
    // After the scatter counts[b] is the end of bucket b: push the buckets with more than one row.
    const next = d + 1;
    let start = 0;
    for (let b = 0; b < 256; b++) {
      const end = counts[b]!;
      if (end - start > 1) this.stack.push(lo + start, lo + end, next);
      start = end;
    }
    return true;
  }

  /**
   * The first byte offset from `depth` (at most the next inexact-key end, or the width) where a row of
   * [lo, hi) differs from the range's first row.
   */
  private sharedPrefix(lo: number, hi: number, depth: number): number {
    const { bytes, width } = this.keys;
    const stop = this.stop;
    let end = depth;
    while (end < width && stop[end] === 0) end++;
    if (end === depth) return depth;
    const order = this.order;
    const first = order[lo]! * width;
    let shared = end;
    for (let i = lo + 1; i < hi && shared > depth; i++) {
      const p = order[i]! * width;
      let d = depth;
      while (d < shared && bytes[p + d] === bytes[first + d]) d++;
      shared = d;
    }
    return shared;
  }

  /** partition on the 16-bit digit of bytes d and d + 1; buckets are pushed at depth d + 2. */
  private partition16(lo: number, hi: number, d: number, bytes: Uint8Array, width: number): boolean {
    const order = this.order;
    const counts = (this.counts16 ??= new Uint32Array(65537));
    counts.fill(0);
    for (let i = lo; i < hi; i++) {
      const p = order[i]! * width + d;
      counts[((bytes[p]! << 8) | bytes[p + 1]!) + 1]++;
    }
    const n = hi - lo;
    for (let b = 1; b <= 65536; b++) {
      const c = counts[b]!;
      if (c === n) {
        // One digit: if its first byte is shared too the caller moves on a byte; the second byte is then
        // split by the next pass (cheaper than special-casing it here).
        return false;
      }
      if (c !== 0) break;
    }
    for (let b = 1; b <= 65536; b++) counts[b] += counts[b - 1]!;
    const tmp = this.tmp;
    for (let i = lo; i < hi; i++) {
      const r = order[i]!;
      const p = r * width + d;
      tmp[lo + counts[(bytes[p]! << 8) | bytes[p + 1]!]!++] = r;
    }
    order.set(tmp.subarray(lo, hi), lo);
    const next = d + 2;
    let start = 0;
    for (let b = 0; b < 65536; b++) {
      const end = counts[b]!;
      if (end - start > 1) this.stack.push(lo + start, lo + end, next);
      start = end;
    }
    return true;
  }

  /**
   * Whether bytes [depth, depth + 4) may be compared for every row of [lo, hi): none of them is past the
   * end of a key that can be inexact, or no row of the range is inexact.
   */
  private wordUsable(lo: number, hi: number, depth: number): boolean {
    const stop = this.stop;
    const end = Math.min(depth + 4, this.keys.width);
    for (let d = depth; d < end; d++) if (stop[d] === 1) return !this.anyInexact(lo, hi);
    return true;
  }

  /** Word scratch: the range's words and their scattered copies, sized for the whole order once. */
  private words: Uint32Array | null = null;
  private words2: Uint32Array | null = null;
  private readonly wordCounts = new Uint32Array(4 * 256);

  /** Word columns (see wordColumn) by depth. */
  private readonly columns = new Map<number, Uint32Array>();

  /**
   * Every row's word at `depth`, in row order, for a range that is a sizable part of a large input: made
   * in one sequential pass, it turns the ranges' gathers at that depth into reads of a 4-byte-per-row
   * array instead of a row stride of the key bytes (fewer cache lines and pages touched per row). At most
   * MAX_WORD_COLUMNS depths get one; null otherwise.
   */
  private wordColumn(n: number, depth: number): Uint32Array | null {
    const rows = this.keys.rows;
    let c = this.columns.get(depth);
    if (c !== undefined) return c;
    if (rows < COLUMN_MIN_ROWS || n * COLUMN_SHARE < rows || this.columns.size >= MAX_WORD_COLUMNS) return null;
    c = takeU32(rows);
    gatherWords(this.keys.bytes, this.keys.width, null, depth, 0, rows, c);
    this.columns.set(depth, c);
    return c;
  }

  /**
   * Sorts [lo, hi) on the big-endian word of bytes [depth, depth + 4) (zero past the key's width, which
   * every row shares) and pushes the runs of equal words at depth + 4. Stable: LSD passes keep order.
   */
  private partitionWord(lo: number, hi: number, depth: number, bytes: Uint8Array, width: number): void {
    const n = hi - lo;
    let w = (this.words ??= takeU32(this.order.length));
    let w2 = (this.words2 ??= takeU32(this.order.length));
    let src = this.order;
    let dst = this.tmp;
    const column = this.wordColumn(n, depth);
    if (column !== null) gatherColumn(column, src, lo, hi, w);
    else gatherWords(bytes, width, src, depth, lo, hi, w);
    const counts = this.wordCounts;
    counts.fill(0);
    wordHistogram(w, lo, hi, counts);
    for (let pass = 0; pass < 4; pass++) {
      const base = pass * 256;
      // A digit every row shares moves nothing.
      let constant = false;
      for (let b = 0; b < 256; b++) {
        const c = counts[base + b]!;
        if (c === 0) continue;
        constant = c === n;
        break;
      }
      if (constant) continue;
      let at = lo;
      for (let b = 0; b < 256; b++) {
        const c = counts[base + b]!;
        counts[base + b] = at;
        at += c;
      }
      scatterWords(src, w, dst, w2, lo, hi, pass * 8, counts, base);
      const t = src;
      src = dst;
      dst = t;
      const tw = w;
      w = w2;
      w2 = tw;
    }
    if (src !== this.order) this.order.set(src.subarray(lo, hi), lo);
    const next = depth + 4;
    let start = lo;
    for (let i = lo + 1; i <= hi; i++) {
      if (i < hi && w[i] === w[start]) continue;
      if (i - start > 1) this.stack.push(start, i, next);
      start = i;
    }
  }

  /** Insertion sort of [lo, hi) on bytes from `depth` on, inexact ties by the comparator. */
  private insertion(lo: number, hi: number, depth: number): void {
    const order = this.order;
    for (let i = lo + 1; i < hi; i++) {
      const r = order[i]!;
      let j = i - 1;
      while (j >= lo && this.compare(order[j]!, r, depth) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = r;
    }
  }

  private compare(a: number, b: number, depth: number): number {
    const { bytes, width, inexact } = this.keys;
    const stop = this.stop;
    const pa = a * width;
    const pb = b * width;
    for (let d = depth; d < width; d++) {
      if (stop[d] === 1 && (inexact![a] === 1 || inexact![b] === 1)) return this.full(a, b);
      const x = bytes[pa + d]!;
      const y = bytes[pb + d]!;
      if (x !== y) return x - y;
    }
    if (stop[width] === 1 && (inexact![a] === 1 || inexact![b] === 1)) return this.full(a, b);
    return a - b;
  }

  /** The full comparison, ties by row index. */
  private full(a: number, b: number): number {
    return this.tie!(a, b) || a - b;
  }

  private anyInexact(lo: number, hi: number): boolean {
    const inexact = this.keys.inexact!;
    const order = this.order;
    for (let i = lo; i < hi; i++) if (inexact[order[i]!] === 1) return true;
    return false;
  }

  /**
   * [lo, hi) shares every byte so far and either reached the end of the key (equal keys, unless the last
   * key can be inexact) or the end of an inexact key: the full comparator orders what bytes cannot.
   */
  private resolve(lo: number, hi: number): void {
    if (this.tie === null || this.keys.inexact === null || !this.anyInexact(lo, hi)) return;
    mergeSort(this.order, this.tmp, lo, hi, (a, b) => this.full(a, b));
  }
}

interface Job {
  readonly lo: number;
  readonly hi: number;
  readonly d: number;
  /** A 16-bit digit (bytes d and d + 1) rather than one byte. */
  readonly wide: boolean;
  /** Counting (false) or scattering (true). */
  scatter: boolean;
  /** The next row of the current phase. */
  pos: number;
  /** Digit counts at [digit + 1] while counting; bucket positions relative to lo while scattering. */
  readonly counts: Uint32Array;
}

function countByte(bytes: Uint8Array, width: number, order: Uint32Array, d: number, from: number, to: number, counts: Uint32Array): void {
  for (let i = from; i < to; i++) counts[bytes[order[i]! * width + d]! + 1]++;
}

function countWide(bytes: Uint8Array, width: number, order: Uint32Array, d: number, from: number, to: number, counts: Uint32Array): void {
  for (let i = from; i < to; i++) {
    const p = order[i]! * width + d;
    counts[((bytes[p]! << 8) | bytes[p + 1]!) + 1]++;
  }
}

function scatterByte(bytes: Uint8Array, width: number, order: Uint32Array, tmp: Uint32Array, d: number, lo: number, from: number, to: number, counts: Uint32Array): void {
  for (let i = from; i < to; i++) {
    const r = order[i]!;
    tmp[lo + counts[bytes[r * width + d]!]!++] = r;
  }
}

function scatterWide(bytes: Uint8Array, width: number, order: Uint32Array, tmp: Uint32Array, d: number, lo: number, from: number, to: number, counts: Uint32Array): void {
  for (let i = from; i < to; i++) {
    const r = order[i]!;
    const p = r * width + d;
    tmp[lo + counts[(bytes[p]! << 8) | bytes[p + 1]!]!++] = r;
  }
}

/**
 * Big-endian words of bytes [d, d + 4) of the rows order[lo, hi) (order null: rows lo..hi themselves),
 * into words[lo, hi); bytes past the width read as 0.
 */
function gatherWords(bytes: Uint8Array, width: number, order: Uint32Array | null, d: number, lo: number, hi: number, words: Uint32Array): void {
  if (d + 4 <= width) {
    for (let i = lo; i < hi; i++) {
      const p = (order === null ? i : order[i]!) * width + d;
      words[i] = ((bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!) >>> 0;
    }
    return;
  }
  const k = width - d;
  for (let i = lo; i < hi; i++) {
    const p = (order === null ? i : order[i]!) * width + d;
    let x = 0;
    for (let j = 0; j < 4; j++) x = (x << 8) | (j < k ? bytes[p + j]! : 0);
    words[i] = x >>> 0;
  }
}

function gatherColumn(column: Uint32Array, order: Uint32Array, lo: number, hi: number, words: Uint32Array): void {
  for (let i = lo; i < hi; i++) words[i] = column[order[i]!]!;
}

/** Counts of the four byte digits of words[lo, hi), least significant digit first. */
function wordHistogram(words: Uint32Array, lo: number, hi: number, counts: Uint32Array): void {
  for (let i = lo; i < hi; i++) {
    const x = words[i]!;
    counts[x & 0xff]++;
    counts[256 + ((x >>> 8) & 0xff)]++;
    counts[512 + ((x >>> 16) & 0xff)]++;
    counts[768 + (x >>> 24)]++;
  }
}

/** One stable LSD pass: (order, words)[lo, hi) scattered to (order2, words2) by the digit at `shift`. */
function scatterWords(order: Uint32Array, words: Uint32Array, order2: Uint32Array, words2: Uint32Array, lo: number, hi: number, shift: number, counts: Uint32Array, base: number): void {
  for (let i = lo; i < hi; i++) {
    const x = words[i]!;
    const at = counts[base + ((x >>> shift) & 0xff)]++;
    order2[at] = order[i]!;
    words2[at] = x;
  }
}

/** Stable merge sort of order[lo, hi) by `cmp` (bottom-up, insertion-sorted runs of 16). */
function mergeSort(order: Uint32Array, tmp: Uint32Array, lo: number, hi: number, cmp: RowCompare): void {
  const RUN = 16;
  for (let s = lo; s < hi; s += RUN) {
    const e = Math.min(hi, s + RUN);
    for (let i = s + 1; i < e; i++) {
      const r = order[i]!;
      let j = i - 1;
      while (j >= s && cmp(order[j]!, r) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = r;
    }
  }
  let src = order;
  let dst = tmp;
  for (let w = RUN; w < hi - lo; w *= 2) {
    for (let s = lo; s < hi; s += 2 * w) {
      const mid = Math.min(hi, s + w);
      const e = Math.min(hi, s + 2 * w);
      let i = s;
      let j = mid;
      let k = s;
      while (i < mid && j < e) dst[k++] = cmp(src[j]!, src[i]!) < 0 ? src[j++]! : src[i++]!;
      while (i < mid) dst[k++] = src[i++]!;
      while (j < e) dst[k++] = src[j++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== order) order.set(src.subarray(lo, hi), lo);
}

anchorShape(new KeyRadixSort({ bytes: new Uint8Array(0), width: 0, rows: 0, inexact: null, inexactEnds: [] }, null));
