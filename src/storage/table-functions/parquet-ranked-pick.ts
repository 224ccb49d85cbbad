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
 */

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
   * From NULL flags (one byte per row, 1 = NULL) held in `words` (the same bytes four to a
   * little-endian word), rows [0, count). Rows past count in the last byte are taken as NULL: no wanted
   * row is there.
   */
  build(words: Uint32Array, flags: Uint8Array, count: number): void {
    const blocks = (count + 7) >> 3;
    if (this.bits.length < blocks) {
      this.bits = new Uint8Array(Math.max(blocks, 1 << 13));
      this.ranks = new Int32Array(this.bits.length);
    }
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
    }
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
