/**
 * Picking wanted rows of a dictionary page whose indexes come in RLE runs, a run at a time.
 *
 * A writer stores a repeated index once with its count (an RLE run). Where values repeat over stretches
 * of rows (data sorted or clustered by the column, or by one it follows), most of a page's indexes are
 * such runs. Unpacking them wrote every present row's index to an array, and each pick then found its
 * row's rank to read it there: two steps per row for a value that changes once a run.
 *
 * Here the page's runs become entries of (index, end row): the row where the next entry's first value
 * is, found from its rank in the page's present bits (PageRanks) with a select table. A pick then only
 * moves to the next entry when its row has passed the entry's end, and takes the entry's value; its NULL
 * flag is its present bit. A NULL row between two runs takes either value, flagged NULL.
 *
 * A bit-packed run among the RLE ones gives an entry per value (equal neighbours merged). The page is
 * refused (read returns -1, nothing consumed) when its entries would be more than a quarter of its
 * present values: then runs are short, and the pickers by rank do better.
 *
 * On `parquet_nulls_runs` (10M rows; v, s and name equal over stretches of 20 rows, NULLs of their
 * own), in one process alternating with the runs unpacked and picked by rank: 176 against 201 ms
 * (median of 21 runs each; 20 of 21 pairs faster).
 */

import { headerEnd, readRunValue, runHeader } from './parquet-run-header.js';
import type { PageRanks } from './parquet-ranked-pick.js';

/** Row (0..7) of the (k+1)-th present row of byte b, at SELECT_BIT[b << 3 | k]; 8 when there is none. */
const SELECT_BIT = new Uint8Array(2048).fill(8);
for (let b = 1; b < 256; b++) {
  let k = 0;
  for (let i = 0; i < 8; i++) if ((b >> i) & 1) SELECT_BIT[(b << 3) | k++] = i;
}

/** A page's runs, reused from page to page (decoding is synchronous). */
export class PageRuns {
  /** Entry e's values end at page row ends[e] (the row of entry e+1's first value; the page's rows for the last). */
  ends = new Int32Array(0);
  /** Entry e's dictionary index. */
  values = new Int32Array(0);
  /** Entries read. */
  count = 0;

  /**
   * The first `present` indexes of `width` bits (1..32) at bytes[p, end) as entries, ended at rows
   * through `pr` (the page's present bits and ranks, for `rows` rows, with ranks[blocks] = present).
   * Returns the largest index, or -1 when the page has more entries than present / 4 (or none).
   * Throws as the unpackers do when the runs end early or pass `end`.
   */
  read(bytes: Uint8Array, p: number, end: number, width: number, present: number, pr: PageRanks, rows: number): number {
    if (present <= 0 || end > bytes.length) return -1;
    // First the headers alone: a page of short runs is refused before anything is unpacked.
    const limit = present >> 2;
    let entries = 0;
    const valueBytes = (width + 7) >> 3;
    for (let have = 0, q = p; have < present; ) {
      const header = runHeader(bytes, q, end);
      if (header < 0) throw new Error('encoded values end early');
      q = headerEnd;
      if ((header & 1) === 0) {
        if (q + valueBytes > end) throw new Error('encoded values extend past their page');
        q += valueBytes;
        have += Math.floor(header / 2);
        entries++;
      } else {
        const groups = Math.floor(header / 2);
        if (q + groups * width > end) throw new Error('encoded values extend past their page');
        q += groups * width;
        const n = Math.min(groups * 8, present - have);
        have += groups * 8;
        entries += n;
      }
      if (entries > limit) return -1;
    }
    if (this.ends.length < entries + 1) {
      this.ends = new Int32Array(Math.max(entries + 1, 1 << 12));
      this.values = new Int32Array(this.ends.length);
    }
    const ends = this.ends;
    const values = this.values;
    // Ends as ranks first (the rank of the next entry's first value), then as rows.
    let e = -1;
    let max = 0;
    let view: DataView | null = null;
    // The last entry's index as read (values[] holds 32-bit ones wrapped); -1 before the first.
    let last = -1;
    let have = 0;
    while (have < present) {
      const header = runHeader(bytes, p, end);
      p = headerEnd;
      if ((header & 1) === 0) {
        const v = readRunValue(bytes, p, valueBytes);
        p += valueBytes;
        const n = Math.min(Math.floor(header / 2), present - have);
        have += n;
        if (n === 0) continue;
        if (v === last) ends[e] = have;
        else {
          values[++e] = v;
          ends[e] = have;
          last = v;
        }
        max = v > max ? v : max;
      } else {
        const groups = Math.floor(header / 2);
        const n = Math.min(groups * 8, present - have);
        view ??= new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (let i = 0, bit = p * 8; i < n; i++, bit += width) {
          const v = packedAt(bytes, view, bit, width);
          have++;
          if (v === last) ends[e] = have;
          else {
            values[++e] = v;
            ends[e] = have;
            last = v;
          }
          max = v > max ? v : max;
        }
        p += groups * width;
      }
    }
    this.count = e + 1;
    // Rank to row: the row of the present value of that rank, walking the blocks forward (ranks rise).
    const bits = pr.bits;
    const ranks = pr.ranks;
    let w = 0;
    for (let k = 0; k < e; k++) {
      const r = ends[k]!;
      while (ranks[w + 1]! <= r) w++;
      ends[k] = w * 8 + SELECT_BIT[(bits[w]! << 3) | (r - ranks[w]!)]!;
    }
    ends[e] = rows;
    return max;
  }
}

/**
 * The `width`-bit value (1..32) at bit `bit` of bytes, unsigned: one unaligned load where 25 bits or
 * fewer lie inside four bytes of the buffer, else up to five bytes (those inside it) put together.
 */
function packedAt(bytes: Uint8Array, view: DataView, bit: number, width: number): number {
  const q = bit >>> 3;
  const shift = bit & 7;
  if (width <= 25 && q + 4 <= bytes.length) return (view.getUint32(q, true) >>> shift) & ((1 << width) - 1);
  let v = 0;
  for (let i = 0, m = 1; i < 5 && q + i < bytes.length; i++, m *= 256) v += bytes[q + i]! * m;
  return Math.floor(v / 2 ** shift) % 2 ** width;
}

/**
 * Rows only[from …to) (page rows from `row`) of dictionary-coded numbers from the page's runs: out[j]
 * gets the entry of the row's run, outNulls[j] its NULL flag from the present bits. A loop per entry
 * over its wanted rows: a test per row of whether it has passed the entry's end, inside the row loop,
 * made a pick cost nearly twice a pick by rank.
 */
export function pickRunsF64(dict: Float64Array, runs: PageRuns, bits: Uint8Array, row: number, only: Int32Array, from: number, to: number, out: Float64Array, outNulls: Uint8Array): void {
  const ends = runs.ends;
  const values = runs.values;
  for (let j = from, e = 0; j < to; e++) {
    const bound = ends[e]! + row;
    const x = dict[values[e]!]!;
    for (; j < to; j++) {
      const t = only[j]!;
      if (t >= bound) break;
      outNulls[j] = ((bits[(t - row) >> 3]! >> ((t - row) & 7)) & 1) ^ 1;
      out[j] = x;
    }
  }
}

/** pickRunsF64 for Int32Array entries (one function per storage type, as the other pickers). */
export function pickRunsI32(dict: Int32Array, runs: PageRuns, bits: Uint8Array, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array): void {
  const ends = runs.ends;
  const values = runs.values;
  for (let j = from, e = 0; j < to; e++) {
    const bound = ends[e]! + row;
    const x = dict[values[e]!]!;
    for (; j < to; j++) {
      const t = only[j]!;
      if (t >= bound) break;
      outNulls[j] = ((bits[(t - row) >> 3]! >> ((t - row) & 7)) & 1) ^ 1;
      out[j] = x;
    }
  }
}

/** The dictionary indexes themselves: -1 on a NULL row, as the other pickers of codes write. */
export function pickRunCodes(runs: PageRuns, bits: Uint8Array, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array): void {
  const ends = runs.ends;
  const values = runs.values;
  for (let j = from, e = 0; j < to; e++) {
    const bound = ends[e]! + row;
    const x = values[e]!;
    for (; j < to; j++) {
      const t = only[j]!;
      if (t >= bound) break;
      const present = (bits[(t - row) >> 3]! >> ((t - row) & 7)) & 1;
      outNulls[j] = present ^ 1;
      out[j] = (x & -present) | (present - 1);
    }
  }
}
