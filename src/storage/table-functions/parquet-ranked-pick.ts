/**
 * Picking wanted rows of a page with NULLs by rank, without a branch per row.
 *
 * A page with NULLs stores its present rows' values densely, so a wanted row's value is at its rank:
 * the number of present rows before it. Counting the NULL flags from one wanted row to the next costs a
 * loop whose length is the gap, and where half the rows are wanted in no pattern that length is
 * unpredictable: a mispredicted loop exit per wanted row was most of a pick's time. Here the page's
 * flags are first folded into a present bit per row, a byte per 8 rows, and each byte's rank (present
 * rows before it): a wanted row's rank is its byte's rank plus the present rows below it in the byte
 * (a table of 256 x 8), and its NULL flag is its bit. Every wanted row costs the same few loads.
 *
 * The bits come from the page's definition levels directly where the reader knows before opening a
 * page that it will pick many rows of it (fromLevels): a NULL flag per row, written and then folded,
 * was two passes over the rows for bits a bit-packed run of levels already holds. The indexes are read
 * in the page's packed bits where it has only bit-packed runs (the pickPacked* functions over a
 * PackedStream), a run at a time where most are RLE runs (parquet-page-runs.ts, which finds where each
 * run ends from these bits and ranks), else from an array they are unpacked into. Together, on `parquet_nulls_scattered` at
 * 10M rows, in one process alternating with the flags and the unpacked array: 186 against 206 ms
 * (median of 28 runs each; 28 of 28 pairs faster).
 */

import { headerEnd, runHeader } from './parquet-run-header.js';

/** Present rows among the low k bits of byte b, at LOW_RANK[b << 3 | k]. */
const LOW_RANK = new Uint8Array(2048);
/** Present rows in a byte. */
const POP8 = new Uint8Array(256);
for (let b = 1; b < 256; b++) POP8[b] = (b & 1) + POP8[b >> 1]!;
for (let b = 0; b < 256; b++) for (let k = 0; k < 8; k++) LOW_RANK[(b << 3) | k] = POP8[b & ((1 << k) - 1)]!;

/** A page's present bits and ranks, reused from page to page (decoding is synchronous). */
export class PageRanks {
  bits = new Uint8Array(0);
  ranks = new Int32Array(0);

  /**
   * From a flat column's definition levels (the RLE / bit-packed hybrid at width 1, bytes[p, end)) for
   * rows [0, count), without NULL flags in between: a bit-packed run's bytes are present bits already
   * (level 1 is present), a run of one level is that many equal bits. Runs need not start on a whole
   * byte of rows (DuckDB writes runs of 4 or 8 equal levels between its bit-packed ones), so the bits
   * pass through a 32-bit accumulator and leave it a byte at a time, each byte's rank with it. Returns
   * the present rows. Rows past count in the last byte are NULL, as in build.
   */
  fromLevels(bytes: Uint8Array, p: number, end: number, count: number): number {
    if (end > bytes.length) throw new Error('definition levels extend past their page');
    const blocks = (count + 7) >> 3;
    this.reserve(blocks);
    const bits = this.bits;
    const ranks = this.ranks;
    // Bits not yet written (below 8 between runs) and how many; the next byte to write; rows so far.
    let acc = 0;
    let held = 0;
    let o = 0;
    let present = 0;
    let row = 0;
    while (row < count) {
      const header = runHeader(bytes, p, end);
      if (header < 0) throw new Error('definition levels end early');
      p = headerEnd;
      if ((header & 1) === 0) {
        const n = Math.min(header / 2, count - row);
        if (p >= end) throw new Error('definition levels end early');
        const level = bytes[p++]!;
        row += n;
        let k = n;
        if (level === 0) {
          // Zeros: the held bits, then whole zero bytes.
          held += k;
          while (held >= 8) {
            const b = acc & 0xff;
            bits[o] = b;
            ranks[o++] = present;
            present += POP8[b]!;
            acc >>>= 8;
            held -= 8;
          }
          continue;
        }
        while (k > 0) {
          const t = k < 24 ? k : 24;
          acc |= ((1 << t) - 1) << held;
          held += t;
          k -= t;
          while (held >= 8) {
            const b = acc & 0xff;
            bits[o] = b;
            ranks[o++] = present;
            present += POP8[b]!;
            acc >>>= 8;
            held -= 8;
          }
        }
        continue;
      }
      const groups = Math.floor(header / 2);
      if (p + groups > end) throw new Error('definition levels extend past their page');
      const n = Math.min(groups * 8, count - row);
      const last = p + (n >> 3);
      // Each byte in: one byte out (held stays below 8).
      for (let q = p; q < last; q++) {
        acc |= bytes[q]! << held;
        const b = acc & 0xff;
        bits[o] = b;
        ranks[o++] = present;
        present += POP8[b]!;
        acc >>>= 8;
      }
      if ((n & 7) !== 0) {
        acc |= (bytes[last]! & ((1 << (n & 7)) - 1)) << held;
        held += n & 7;
        if (held >= 8) {
          const b = acc & 0xff;
          bits[o] = b;
          ranks[o++] = present;
          present += POP8[b]!;
          acc >>>= 8;
          held -= 8;
        }
      }
      p += groups;
      row += n;
    }
    if (held > 0) {
      const b = acc & 0xff;
      bits[o] = b;
      ranks[o++] = present;
      present += POP8[b]!;
    }
    // One block more, empty: rankAt(count) reads it.
    bits[blocks] = 0;
    ranks[blocks] = present;
    return present;
  }

  /** Present rows among rows [0, t) (t up to the page's rows; fromLevels' pages only). */
  rankAt(t: number): number {
    const w = t >> 3;
    return this.ranks[w]! + LOW_RANK[(this.bits[w]! << 3) | (t & 7)]!;
  }

  /** NULL flags (1 = NULL) of rows [0, count) into out[0 …count). */
  flagsInto(out: Uint8Array, count: number): void {
    const bits = this.bits;
    for (let t = 0; t < count; t++) out[t] = ((bits[t >> 3]! >> (t & 7)) & 1) ^ 1;
  }

  private reserve(blocks: number): void {
    if (this.bits.length < blocks + 1) {
      this.bits = new Uint8Array(Math.max(blocks + 1, 1 << 13));
      this.ranks = new Int32Array(this.bits.length);
    }
  }

  /**
   * From NULL flags (one byte per row, 1 = NULL) held in `words` (the same bytes four to a
   * little-endian word), rows [0, count). Rows past count in the last byte are taken as NULL: no wanted
   * row is there.
   */
  build(words: Uint32Array, flags: Uint8Array, count: number): void {
    const blocks = (count + 7) >> 3;
    this.reserve(blocks);
    const bits = this.bits;
    const ranks = this.ranks;
    let present = 0;
    const full = count >> 3;
    for (let w = 0; w < full; w++) {
      // Four 0/1 bytes of a word gathered into four bits by one multiplication: byte i's bit lands at
      // 21 + i and no two partial products share a bit, so nothing carries.
      const lo = words[2 * w]!;
      const hi = words[2 * w + 1]!;
      const b = (((Math.imul(lo, 0x00204081) >>> 21) & 0xf) | ((Math.imul(hi, 0x00204081) >>> 17) & 0xf0)) ^ 0xff;
      bits[w] = b;
      ranks[w] = present;
      present += POP8[b]!;
    }
    if (full < blocks) {
      let b = 0;
      for (let k = 0; k < count - full * 8; k++) b |= (flags[full * 8 + k]! ^ 1) << k;
      bits[full] = b;
      ranks[full] = present;
      present += POP8[b]!;
    }
    // One block more, empty, as fromLevels leaves it.
    bits[blocks] = 0;
    ranks[blocks] = present;
  }
}

/**
 * Rows only[from …to) (page rows from `row`) of dictionary-coded numbers: out[j] gets the entry of the
 * row's index, outNulls[j] its NULL flag (set or cleared). `idx` holds the page's present rows' indexes
 * and one more slot, which must hold a valid index: a NULL row past the last present one reads it, and
 * its value is written and then ignored.
 */
export function pickRankedF64(dict: Float64Array, idx: Int32Array, pr: PageRanks, row: number, only: Int32Array, from: number, to: number, out: Float64Array, outNulls: Uint8Array): void {
  const bits = pr.bits;
  const ranks = pr.ranks;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    const w = t >> 3;
    const k = t & 7;
    const b = bits[w]!;
    outNulls[j] = ((b >> k) & 1) ^ 1;
    out[j] = dict[idx[ranks[w]! + LOW_RANK[(b << 3) | k]!]!]!;
  }
}

/** pickRankedF64 for Int32Array entries (one function per storage type, as the other pickers). */
export function pickRankedI32(dict: Int32Array, idx: Int32Array, pr: PageRanks, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array): void {
  const bits = pr.bits;
  const ranks = pr.ranks;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    const w = t >> 3;
    const k = t & 7;
    const b = bits[w]!;
    outNulls[j] = ((b >> k) & 1) ^ 1;
    out[j] = dict[idx[ranks[w]! + LOW_RANK[(b << 3) | k]!]!]!;
  }
}

/** Dictionary codes (indexes) themselves: -1 on a NULL row, as the other pickers of codes write. */
export function pickRankedCodes(idx: Int32Array, pr: PageRanks, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array): void {
  const bits = pr.bits;
  const ranks = pr.ranks;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    const w = t >> 3;
    const k = t & 7;
    const b = bits[w]!;
    const present = (b >> k) & 1;
    outNulls[j] = present ^ 1;
    // present - 1 is 0 or -1: the index, or -1.
    out[j] = (idx[ranks[w]! + LOW_RANK[(b << 3) | k]!]! & -present) | (present - 1);
  }
}

/**
 * The pickers above for indexes still packed (PackedStream, parquet-packed-stream.ts): the index of rank
 * r is the `width` bits (1..25) at bit r·width of `packed`, read with one unaligned load. Return the
 * largest index read (for the caller's check against the dictionary's size); a NULL row's read, at the
 * next present row's rank or at the stream's zeros past the last one, adds no index that is not there.
 */
export function pickPackedF64(dict: Float64Array, packed: DataView, width: number, pr: PageRanks, row: number, only: Int32Array, from: number, to: number, out: Float64Array, outNulls: Uint8Array): number {
  const bits = pr.bits;
  const ranks = pr.ranks;
  const mask = (1 << width) - 1;
  let max = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    const w = t >> 3;
    const k = t & 7;
    const b = bits[w]!;
    const at = (ranks[w]! + LOW_RANK[(b << 3) | k]!) * width;
    const v = (packed.getUint32(at >>> 3, true) >>> (at & 7)) & mask;
    max = v > max ? v : max;
    outNulls[j] = ((b >> k) & 1) ^ 1;
    out[j] = dict[v]!;
  }
  return max;
}

/** pickPackedF64 for Int32Array entries. */
export function pickPackedI32(dict: Int32Array, packed: DataView, width: number, pr: PageRanks, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array): number {
  const bits = pr.bits;
  const ranks = pr.ranks;
  const mask = (1 << width) - 1;
  let max = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    const w = t >> 3;
    const k = t & 7;
    const b = bits[w]!;
    const at = (ranks[w]! + LOW_RANK[(b << 3) | k]!) * width;
    const v = (packed.getUint32(at >>> 3, true) >>> (at & 7)) & mask;
    max = v > max ? v : max;
    outNulls[j] = ((b >> k) & 1) ^ 1;
    out[j] = dict[v]!;
  }
  return max;
}

/** pickRankedCodes from packed indexes: -1 on a NULL row. */
export function pickPackedCodes(packed: DataView, width: number, pr: PageRanks, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array): number {
  const bits = pr.bits;
  const ranks = pr.ranks;
  const mask = (1 << width) - 1;
  let max = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    const w = t >> 3;
    const k = t & 7;
    const b = bits[w]!;
    const present = (b >> k) & 1;
    const at = (ranks[w]! + LOW_RANK[(b << 3) | k]!) * width;
    const v = (packed.getUint32(at >>> 3, true) >>> (at & 7)) & mask;
    max = v > max ? v : max;
    outNulls[j] = present ^ 1;
    out[j] = (v & -present) | (present - 1);
  }
  return max;
}

/** NULL flags of rows only[from …to) (page rows from `row`), from the page's present bits: out[j] is 1 on a NULL row. */
export function pickNullBits(pr: PageRanks, row: number, only: Int32Array, from: number, to: number, out: Uint8Array): void {
  const bits = pr.bits;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    out[j] = ((bits[t >> 3]! >> (t & 7)) & 1) ^ 1;
  }
}
