/**
 * Sort: materialise the input, order a permutation of row indexes, emit in BATCH_SIZE batches.
 *
 * Deterministic. Up to PG_TIE_ORDER_MAX_ROWS rows, tied rows come out in PostgreSQL's order
 * (pg-tie-order.ts: its quicksort over the input order), which is what a user moving from it sees;
 * larger sorts are stable: rows with equal keys keep their input order (index is the last tie-breaker,
 * and the radix paths are stable radix sorts: LSD passes, or MSD passes with a stable scatter).
 *
 * Paths, fastest first: integer-valued numeric keys of small total range are packed into one code and
 * radix sorted once (packed-key-sort.ts; the window's PARTITION BY g ORDER BY ts), and their columns are
 * decoded in order rather than gathered; other typed numeric keys get a radix sort per key; everything
 * else uses the compiled comparator's merge sort (sort-key.ts).
 *
 * The materialised input is kept as a list of sorted runs (today always one). External merge sort will
 * cut the input into several runs, spill them, and merge; `emitRuns` already merges any number of runs.
 */
import { give, pooledAlloc, takeU32 } from '../../execution/scratch.js';
import { digitOffsets } from '../digit-offsets.js';
import { BATCH_SIZE, ColumnBuilder, concatBatches, deadColumn, makeColumn, takeBatch, takeColumn, type Batch, type Column, type ColumnData } from '../../common/column.js';
import { packedMap } from '../../common/packed-map.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { KeyRadixSort } from '../key-radix-sort.js';
import { PG_TIE_ORDER_MAX_ROWS, pgTieOrderSort } from '../pg-tie-order.js';
import { sortWordPairs } from '../word-pair-msd-sort.js';
import { sortHighWordFirst } from '../low-word-runs.js';
import { encodeKeys, exactImage, fitTextPrefix, keyWidth, longestText, MAX_TEXT_PREFIX, normalizable, prefixFor, type NormalizedKeys, type Utf8Image } from '../normalized-key.js';
import { Utf8TextColumn } from '../utf8-text-column.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { pgSortKeys } from '../explain-pg-expr.js';
import { packedSort, packedSortSteps, type KeyBounds } from '../packed-key-sort.js';
import { rankKeys, rankKeySteps } from '../rank-keys.js';
import { rankedText, rankedTextSlice, type RankedText } from '../ranked-text.js';
import { compileComparator, describeKeys, keyCategory, type Comparator, type SortKey } from '../sort-key.js';

/** One sorted run: the rows and the order to read them in. */
export interface SortedRun {
  readonly batch: Batch;
  readonly order: Uint32Array;
  /** Columns (by index) already in `order`, emitted by slicing instead of gathering. */
  readonly sorted?: ReadonlyMap<number, Column>;
  /** How EXPLAIN ANALYZE names the sort, when `sorted` alone does not tell. */
  readonly method?: string;
  /** Text columns (by index) rebuilt from their sorted dictionary ranks when emitted (ranked-text.ts). */
  readonly rankedText?: ReadonlyMap<number, RankedText>;
}

/**
 * The whole input of a Sort, sorted: up to PG_TIE_ORDER_MAX_ROWS rows with ties in PostgreSQL's order
 * (pg-tie-order.ts), larger inputs by sortRunAsync (stable). Runs of a spilled sort are not whole inputs
 * and stay stable.
 */
export async function sortWholeInput(
  b: Batch,
  keys: readonly SortKey[],
  cmp: Comparator,
  ctx: ExecContext,
  overwrite: boolean,
  bounds?: KeyBounds,
): Promise<SortedRun> {
  if (b.length <= PG_TIE_ORDER_MAX_ROWS) return { batch: b, order: pgTieOrderSort(identity(b.length), cmp.rows(cmp.view(b))), method: 'quicksort' };
  return sortRunAsync(b, keys, cmp, ctx, true, overwrite, bounds);
}

/** `b` sorted under `keys` as one run; key columns of a packed sort come back already ordered. */
export function sortRun(b: Batch, keys: readonly SortKey[], cmp: Comparator = compileComparator(keys), decode = true, overwrite = false): SortedRun {
  const ranked = rankKeys(b, keys);
  if (ranked !== null) return { ...sortRun(ranked.batch, ranked.keys, compileComparator(ranked.keys), decode), batch: b };
  if (packable(b, keys)) {
    const packed = packedSort(b, keys, decode, overwrite);
    if (packed !== null) return { batch: b, order: packed.order, sorted: packed.sorted };
  }
  return { batch: b, order: sortPermutation(b, keys, cmp) };
}

/**
 * Whether to try the packed sort: several typed numeric keys, or one key in f64 storage (timestamps,
 * int8), whose step and range usually need fewer passes than its 64-bit image. A single int4 key is
 * already two 16-bit passes without the packing scan.
 */
function packable(b: Batch, keys: readonly SortKey[]): boolean {
  if (keys.length === 0 || b.length <= 256 || !typedKeys(b, keys)) return false;
  return keys.length > 1 || b.columns[keys[0]!.col]!.data instanceof Float64Array;
}

function typedKeys(b: Batch, keys: readonly SortKey[]): boolean {
  return keys.every((k) => {
    const cat = keyCategory(k.type);
    return (cat === 'num' || cat === 'float') && !Array.isArray(b.columns[k.col]!.data);
  });
}

/** Row order of `b` under `keys`, stable. Uses radix sort when every key is a typed numeric column. */
export function sortPermutation(b: Batch, keys: readonly SortKey[], cmp: Comparator = compileComparator(keys)): Uint32Array {
  const n = b.length;
  if (keys.length >= 1 && n > 256) {
    const typed = typedKeys(b, keys);
    // Integer-valued keys of small total range (the usual PARTITION BY g ORDER BY ts): one radix sort on a
    // packed code (packed-key-sort.ts) instead of one per key.
    if (packable(b, keys)) {
      const packed = packedSort(b, keys, false);
      if (packed !== null) return packed.order;
    }
    if (typed && keys.length === 1) {
      const k = keys[0]!;
      const c = b.columns[k.col]!;
      return radixPermutation(c.data as Int32Array | Float64Array | Uint8Array, c.nulls, n, k.desc, k.nullsFirst);
    }
    // Several numeric keys (window PARTITION BY g ORDER BY ts, ORDER BY a, b): LSD over the keys, last key
    // first; each pass is a stable radix sort of the previous order, so the result is the stable
    // lexicographic order, in a few linear passes instead of n log n comparator calls.
    if (typed && keys.length <= 4) return multiKeyRadix(b, keys);
    const sorter = normalizedSorter(b, keys, cmp);
    if (sorter !== null) return sorter.run();
  }
  return cmp.sort(identity(n), cmp.view(b));
}

/**
 * Whether `b` under `keys` takes the typed numeric radix paths above (single-pass, fast), rather than the
 * normalized-key sort.
 */
function numericPath(b: Batch, keys: readonly SortKey[]): boolean {
  return b.length > 256 && keys.length <= 4 && typedKeys(b, keys);
}

/** A radix sort over the normalized keys of `b` (normalized-key.ts), or null when a key has none. */
function normalizedSorter(b: Batch, keys: readonly SortKey[], cmp: Comparator, nk?: NormalizedKeys | null): KeyRadixSort | null {
  if (nk === undefined) nk = normalizable(keys) ? encodeKeys(b, keys, fitTextPrefix(b, keys)) : null;
  if (nk === null) return null;
  return new KeyRadixSort(nk, nk.inexact === null ? null : cmp.rows(cmp.view(b)));
}

/** Rows encoded, and row visits of radix work, between two chances to yield. */
const SLICE_ROWS = 1 << 16;
const SLICE_VISITS = 1 << 18;

/** Bytes per row the normalized-key sort needs besides the rows themselves (keys, order, scratch). */
export function normalizedSortRowBytes(keys: readonly SortKey[]): number {
  // order, its scatter copy and the inexact flags (9), the word partitions' two word arrays and up to two
  // word columns (16)
  return normalizable(keys) ? keyWidth(keys, MAX_TEXT_PREFIX) + 25 : 0;
}

/**
 * sortRun for a statement: over more than SLICE_ROWS rows every path (packed, one or several numeric
 * keys, normalized keys) runs in slices with a chance to yield between them, so other statements get the
 * event loop and cancel and statement_timeout take effect within one slice.
 */
export async function sortRunAsync(
  b: Batch,
  keys: readonly SortKey[],
  cmp: Comparator,
  ctx: ExecContext,
  decode = true,
  /** The caller owns b's arrays: sorted key columns may be decoded over them. */
  overwrite = false,
  /** Known bounds of int4 key columns (packed-key-sort.ts), sparing their scan. */
  bounds?: KeyBounds,
): Promise<SortedRun> {
  // Callers have just gathered the input into one batch: a chance to yield before sorting it.
  await yieldIfDue(ctx);
  // Text keys with dictionary codes (stored, or built here for repetitive computed text) sort as their
  // integer ranks; the run still reads rows from `b`.
  // The rank columns live only until the sort is done: pooled memory, given back right after it.
  const rankArrays: (Uint32Array | Float64Array)[] = [];
  const rankSteps = rankKeySteps(b, keys, pooledAlloc(rankArrays));
  let rs = rankSteps.next();
  while (rs.done !== true) {
    await yieldIfDue(ctx);
    rs = rankSteps.next();
  }
  const ranked = rs.value;
  if (ranked === null) give(...rankArrays);
  else {
    // The rank columns are ours, so their decoded order may overwrite them; key columns of b only when the
    // caller owns b's arrays. No output reads a rank column (they sit past b's columns).
    const run = await sortRunAsync(ranked.batch, ranked.keys, compileComparator(ranked.keys), ctx, decode, overwrite);
    const width = b.columns.length;
    const sorted = run.sorted === undefined ? undefined : new Map([...run.sorted].filter(([col]) => col < width));
    // A text column whose ranks came back in order is rebuilt from them (copied before the rank arrays go back).
    let text: Map<number, RankedText> | undefined;
    for (const r of ranked.ranked) {
      const ranks = run.sorted?.get(r.rankCol);
      if (ranks === undefined || sorted?.has(r.col) === true || text?.has(r.col) === true) continue;
      const t = rankedText(b.columns[r.col]!.type, ranks, r.dictionary, r.rank);
      if (t !== null) (text ??= new Map()).set(r.col, t);
    }
    give(...rankArrays);
    return { ...run, sorted, rankedText: text, batch: b };
  }
  if (numericPath(b, keys) && b.length > SLICE_ROWS) {
    const steps = numericSortSteps(b, keys, decode, overwrite, bounds);
    for (;;) {
      const r = steps.next();
      if (r.done === true) return r.value;
      await yieldIfDue(ctx);
    }
  }
  if (numericPath(b, keys) || b.length <= SLICE_ROWS || !normalizable(keys)) return sortRun(b, keys, cmp, decode, overwrite);
  const nk = await encodeKeysSliced(b, keys, ctx);
  const sorter = normalizedSorter(b, keys, cmp, nk);
  if (sorter === null) return sortRun(b, keys, cmp, decode);
  while (!sorter.step(SLICE_VISITS)) await yieldIfDue(ctx);
  giveBytes(nk!.bytes);
  return { batch: b, order: sorter.order };
}

/** The typed numeric paths of sortRun (packed, one key, several keys), in pieces a caller can yield between. */
function* numericSortSteps(b: Batch, keys: readonly SortKey[], decode: boolean, overwrite: boolean, bounds?: KeyBounds): Generator<void, SortedRun> {
  if (packable(b, keys)) {
    const packed = yield* packedSortSteps(b, keys, decode, overwrite, bounds);
    if (packed !== null) return { batch: b, order: packed.order, sorted: packed.sorted };
  }
  if (keys.length === 1) {
    const k = keys[0]!;
    const c = b.columns[k.col]!;
    // A column the caller owns is read only to build the images: the decoded column may go over it.
    const into = overwrite && c.data instanceof Float64Array ? { data: c.data, nulls: c.nulls } : undefined;
    const decoded: DecodedKey = { column: null, into };
    const order = yield* radixSteps(c.data as Int32Array | Float64Array | Uint8Array, c.nulls, b.length, k.desc, k.nullsFirst, decode ? decoded : undefined);
    // The key column in sorted order comes from the sorted words, read in sequence, instead of a
    // gather through the permutation (a cache miss a row on large inputs).
    if (decoded.column !== null) return { batch: b, order, sorted: new Map([[k.col, makeColumn(c.type, decoded.column.data, decoded.column.nulls)]]), method: 'radix' };
    return { batch: b, order };
  }
  return { batch: b, order: yield* multiKeyRadixSteps(b, keys) };
}

/** encodeKeys over the whole batch, a slice of rows at a time; null when a value has no image. */
async function encodeKeysSliced(
  b: Batch,
  keys: readonly SortKey[],
  ctx: ExecContext,
  /** Text keys held as UTF-8 (encodeKeys), and the longest of their values in bytes. */
  utf8?: { readonly images: ReadonlyMap<number, Utf8Image>; readonly longest: number },
): Promise<NormalizedKeys | null> {
  const n = b.length;
  let longest = 0;
  if (utf8 !== undefined) longest = utf8.longest;
  else {
    for (let from = 0; from < n; from += SLICE_ROWS) {
      longest = longestText(b, keys, from, Math.min(n, from + SLICE_ROWS), longest);
      await yieldIfDue(ctx);
    }
  }
  const prefix = prefixFor(longest);
  const width = keyWidth(keys, prefix);
  // A pooled buffer (the caller gives it back after the sort): a fresh one of tens of megabytes costs a
  // page fault per 4 kB on first touch.
  const bytes = new Uint8Array(takeU32(Math.ceil((n * width) / 4)).buffer, 0, n * width);
  let inexact: Uint8Array | null = null;
  let inexactEnds: readonly number[] = [];
  for (let from = 0; from < n; from += SLICE_ROWS) {
    const to = Math.min(n, from + SLICE_ROWS);
    const part = encodeKeys(b, keys, prefix, from, to, bytes.subarray(from * width), utf8?.images);
    if (part === null) return null;
    inexactEnds = part.inexactEnds;
    if (part.inexact !== null) {
      inexact ??= new Uint8Array(n);
      inexact.set(part.inexact, from);
    }
    await yieldIfDue(ctx);
  }
  return { bytes, width, rows: n, inexact, inexactEnds };
}

/** Gives a key buffer from encodeKeysSliced back to the scratch pool. */
function giveBytes(bytes: Uint8Array): void {
  if (bytes.byteOffset === 0) give(new Uint32Array(bytes.buffer as ArrayBuffer));
}

function multiKeyRadix(b: Batch, keys: readonly SortKey[]): Uint32Array {
  const steps = multiKeyRadixSteps(b, keys);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

function* multiKeyRadixSteps(b: Batch, keys: readonly SortKey[]): Generator<void, Uint32Array> {
  const n = b.length;
  let perm: Uint32Array | null = null;
  for (let q = keys.length - 1; q >= 0; q--) {
    const k = keys[q]!;
    const c = b.columns[k.col]!;
    const d = c.data as Int32Array | Float64Array | Uint8Array;
    let data = d;
    let nulls = c.nulls;
    if (perm !== null) {
      const g = new (d.constructor as { new (n: number): Int32Array | Float64Array | Uint8Array })(n);
      const gn = nulls === null ? null : new Uint8Array(n);
      for (let s = 0; s < n; s += RADIX_PIECE) {
        yield;
        gatherKey(d, nulls, perm, g, gn, s, Math.min(n, s + RADIX_PIECE));
      }
      data = g;
      nulls = gn;
    }
    const p2: Uint32Array = yield* radixSteps(data, nulls, n, k.desc, k.nullsFirst);
    if (perm === null) perm = p2;
    else {
      const next = new Uint32Array(n);
      for (let s = 0; s < n; s += RADIX_PIECE) {
        yield;
        composePerm(perm, p2, next, s, Math.min(n, s + RADIX_PIECE));
      }
      give(perm, p2);
      perm = next;
    }
  }
  return perm!;
}

function gatherKey(
  d: Int32Array | Float64Array | Uint8Array,
  nulls: Uint8Array | null,
  perm: Uint32Array,
  g: Int32Array | Float64Array | Uint8Array,
  gn: Uint8Array | null,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) g[i] = d[perm[i]!]!;
  if (nulls !== null) for (let i = from; i < to; i++) gn![i] = nulls[perm[i]!]!;
}

function composePerm(perm: Uint32Array, p2: Uint32Array, next: Uint32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) next[i] = perm[p2[i]!]!;
}

export function identity(n: number): Uint32Array {
  const p = new Uint32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  return p;
}

// The f64 -> words view assumes little-endian words (every platform Node runs on).
const HI = 1;
const LO = 0;

/**
 * LSD radix sort (8- or 16-bit digits, by input size) of the non-null rows on order-preserving unsigned images of the keys;
 * null rows go first or last in input order. Passes whose digit is constant are skipped, so small
 * integers and clustered timestamps cost about two passes.
 */
export function radixPermutation(
  data: Int32Array | Float64Array | Uint8Array,
  nulls: Uint8Array | null,
  n: number,
  desc: boolean,
  nullsFirst: boolean,
): Uint32Array {
  const steps = radixSteps(data, nulls, n, desc, nullsFirst);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/** Double keys of at least this many rows are sorted most significant digit first (word-pair-msd-sort.ts). */
const MSD_MIN = 1 << 22;

/**
 * Double keys of at least this many rows are sorted high word first (low-word-runs.ts): below it the two
 * 65,536-entry histograms cost more than the two low-word passes saved.
 */
const HI_FIRST_MIN = 1 << 16;

/** Rows per piece of radixSteps: a few milliseconds of one pass. */

const RADIX_PIECE = 1 << 18;

/**
 * radixPermutation in pieces: the generator yields after every RADIX_PIECE rows of a pass (inputs of at
 * most that many rows never yield) and returns the permutation, so a statement can let the event loop
 * run between the pieces of a sort of tens of millions of rows. The loops themselves live in plain
 * functions over a row range, which V8 optimizes as it does any loop.
 */
export function* radixSteps(
  data: Int32Array | Float64Array | Uint8Array,
  nulls: Uint8Array | null,
  n: number,
  desc: boolean,
  nullsFirst: boolean,
  /** When given, a double key sorted high word first is also decoded here in sorted order (no -0 in it). */
  decoded?: DecodedKey,
): Generator<void, Uint32Array> {
  let m = n;
  if (nulls !== null) {
    m = 0;
    for (let i = 0; i < n; i++) if (nulls[i] !== 1) m++;
  }
  // Pooled: every entry is written below, and callers give the permutation back once they are done.
  let idx: Uint32Array = takeU32(m);
  let lo: Uint32Array = takeU32(m);
  const wide = data instanceof Float64Array;
  let hi: Uint32Array | null = wide ? takeU32(m) : null;
  const flip = desc ? 0xffffffff : 0;
  let w = 0;
  // The flag is module state that another statement's sort resets between our pieces: read after each.
  let negativeZero = false;
  for (let s = 0; s < n; s += RADIX_PIECE) {
    if (s > 0) yield;
    const to = Math.min(n, s + RADIX_PIECE);
    sawNegativeZero = false;
    w = hi !== null ? f64Images(data as Float64Array, nulls, to, s, w, flip, idx, lo, hi) : radixImages(data, nulls, to, s, w, flip, idx, lo);
    if (sawNegativeZero) negativeZero = true;
  }
  if (hi !== null && m >= MSD_MIN) {
    const idx2 = takeU32(m);
    const lo2 = takeU32(m);
    const hi2 = takeU32(m);
    yield* sortWordPairs(idx, hi, lo, idx2, hi2, lo2, m);
    const order = placeNulls(idx, nulls, n, m, nullsFirst);
    // The words end sorted in place: the key column in sorted order is decoded from them, read in
    // sequence, instead of gathered through the permutation (a cache miss a row at these sizes).
    if (decoded !== undefined && !negativeZero) {
      yield;
      decoded.column = decodeF64Images(hi, lo, m, flip, n, nulls !== null && m < n, nullsFirst, decoded.into);
    }
    give(lo, lo2, hi, hi2, idx2);
    return order;
  }
  if (hi !== null && m >= HI_FIRST_MIN) {
    const idx2 = takeU32(m);
    const lo2 = takeU32(m);
    const hi2 = takeU32(m);
    const sorted = yield* sortHighWordFirst(idx, lo, hi, idx2, lo2, hi2, m);
    // Placing the NULL rows reads the input's NULL mask, which decoding may then write over.
    const order = placeNulls(sorted.idx, nulls, n, m, nullsFirst);
    // -0 and 0 share an image: a column holding -0 cannot be decoded from the words.
    if (decoded !== undefined && !negativeZero) decoded.column = decodeF64Images(sorted.hi, sorted.lo, m, flip, n, nulls !== null && m < n, nullsFirst, decoded.into);
    give(sorted.lo, sorted.hi, ...sorted.spare);
    return order;
  }
  // 16-bit digits halve the scatter passes, but each pass also walks a 65,536-entry histogram twice: below
  // 64k rows that walk costs more than the passes saved, so small inputs use 8-bit digits.
  const bits = m < 65536 ? 8 : 16;
  const radix = 1 << bits;
  const mask = radix - 1;
  const perWord = 32 / bits;
  const passes = (hi !== null ? 2 : 1) * perWord;
  const counts = new Uint32Array(passes * radix);
  for (let s = 0; s < m; s += RADIX_PIECE) {
    if (s > 0) yield;
    radixHistogram(lo, hi, counts, bits, s, Math.min(m, s + RADIX_PIECE));
  }
  let idx2: Uint32Array = takeU32(m);
  let lo2: Uint32Array = takeU32(m);
  let hi2: Uint32Array | null = hi !== null ? takeU32(m) : null;
  for (let p = 0; p < passes; p++) {
    const base = p * radix;
    if (!digitOffsets(counts, base, radix, m)) continue;
    const src = p < perWord ? lo : hi!;
    const shift = (p % perWord) * bits;
    // A word's digits are read until its last pass; later passes need it no more.
    const moveLo = p < perWord - 1;
    const moveHi = hi !== null && p < passes - 1;
    for (let s = 0; s < m; s += RADIX_PIECE) {
      if (s > 0 || m > RADIX_PIECE) yield;
      radixScatter(src, shift, mask, counts, base, idx, idx2, moveLo ? lo : null, moveLo ? lo2 : null, moveHi ? hi : null, moveHi ? hi2 : null, s, Math.min(m, s + RADIX_PIECE));
    }
    let t = idx;
    idx = idx2;
    idx2 = t;
    if (moveLo) {
      t = lo;
      lo = lo2;
      lo2 = t;
    }
    if (moveHi) {
      t = hi!;
      hi = hi2;
      hi2 = t;
    }
  }
  // The key images and the spare permutation are scratch (src/execution/scratch.ts); idx is returned.
  give(lo, lo2, hi, hi2, idx2);
  return placeNulls(idx, nulls, n, m, nullsFirst);
}

/** The permutation of all n rows: the sorted non-null rows `idx` (m of them) with the null rows first or last in input order. */
function placeNulls(idx: Uint32Array, nulls: Uint8Array | null, n: number, m: number, nullsFirst: boolean): Uint32Array {
  if (m === n) return idx;
  const out = takeU32(n);
  const nullsAt = nullsFirst ? 0 : m;
  out.set(idx, nullsFirst ? n - m : 0);
  give(idx);
  let z = nullsAt;
  for (let i = 0; i < n; i++) if (nulls![i] === 1) out[z++] = i;
  return out;
}

/** Order-preserving unsigned images of the non-null integer rows [from, to), written from position w on; returns the next w. */
function radixImages(
  data: Int32Array | Float64Array | Uint8Array,
  nulls: Uint8Array | null,
  to: number,
  from: number,
  w: number,
  flip: number,
  idx: Uint32Array,
  lo: Uint32Array,
): number {
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] === 1) continue;
    idx[w] = i;
    lo[w] = ((data[i]! ^ 0x80000000) ^ flip) >>> 0;
    w++;
  }
  return w;
}

/**
 * radixImages for doubles, reading the two words of each value through a Uint32Array view (storing each
 * value into a scratch Float64Array to read its bits costs ten times as much).
 */
function f64Images(
  data: Float64Array,
  nulls: Uint8Array | null,
  to: number,
  from: number,
  w: number,
  flip: number,
  idx: Uint32Array,
  lo: Uint32Array,
  hi: Uint32Array,
): number {
  const words = new Uint32Array(data.buffer, data.byteOffset, data.length * 2);
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] === 1) continue;
    idx[w] = i;
    let h = words[2 * i + HI]!;
    let l = words[2 * i + LO]!;
    if ((h & 0x7ff00000) === 0x7ff00000 && ((h & 0xfffff) | l) !== 0) {
      // Every NaN gets one image, above +Infinity's.
      h = 0xfff80000;
      l = 0;
    } else if (h & 0x80000000) {
      // -0 sorts with 0; other negatives reverse.
      if (h === 0x80000000 && l === 0) sawNegativeZero = true;
      else {
        h = ~h;
        l = ~l;
      }
    } else {
      h |= 0x80000000;
    }
    hi[w] = (h ^ flip) >>> 0;
    lo[w] = (l ^ flip) >>> 0;
    w++;
  }
  return w;
}

/** Set by f64Images when a key was -0 (its image is 0's, so the sorted words do not tell them apart). */
let sawNegativeZero = false;

/** A sort key column decoded in sorted order, when radixSteps could. */
export interface DecodedKey {
  column: { data: Float64Array; nulls: Uint8Array | null } | null;
  /** Arrays of n rows the caller owns and no longer reads: the decoded column is written over them. */
  readonly into?: { readonly data: Float64Array; readonly nulls: Uint8Array | null };
}

/**
 * The doubles of the sorted images `hi`/`lo` (m non-null rows) as a column of n rows, the n - m NULLs
 * first or last as placeNulls puts them; the inverse of f64Images (every NaN comes back as one NaN,
 * which prints and compares as any other).
 */
function decodeF64Images(
  hi: Uint32Array,
  lo: Uint32Array,
  m: number,
  flip: number,
  n: number,
  hasNulls: boolean,
  nullsFirst: boolean,
  into?: DecodedKey['into'],
): { data: Float64Array; nulls: Uint8Array | null } {
  const data = into !== undefined && into.data.length === n ? into.data : new Float64Array(n);
  const words = new Uint32Array(data.buffer, data.byteOffset, 2 * n);
  const off = hasNulls && nullsFirst ? n - m : 0;
  for (let r = 0; r < m; r++) {
    let h = (hi[r]! ^ flip) >>> 0;
    let l = (lo[r]! ^ flip) >>> 0;
    if (h & 0x80000000) h &= 0x7fffffff;
    else {
      h = ~h >>> 0;
      l = ~l >>> 0;
    }
    words[2 * (off + r) + HI] = h;
    words[2 * (off + r) + LO] = l;
  }
  if (!hasNulls) return { data, nulls: null };
  const own = into?.nulls;
  const nulls = own != null && own.length === n ? own.fill(0) : new Uint8Array(n);
  if (nullsFirst) nulls.fill(1, 0, n - m);
  else nulls.fill(1, m, n);
  return { data, nulls };
}

/** Digit counts of every pass over rows [from, to). */
function radixHistogram(lo: Uint32Array, hi: Uint32Array | null, counts: Uint32Array, bits: number, from: number, to: number): void {
  if (bits === 16) {
    for (let i = from; i < to; i++) {
      const l = lo[i]!;
      counts[l & 0xffff]++;
      counts[65536 + (l >>> 16)]++;
      if (hi !== null) {
        const h = hi[i]!;
        counts[131072 + (h & 0xffff)]++;
        counts[196608 + (h >>> 16)]++;
      }
    }
  } else {
    for (let i = from; i < to; i++) {
      const l = lo[i]!;
      counts[l & 0xff]++;
      counts[256 + ((l >>> 8) & 0xff)]++;
      counts[512 + ((l >>> 16) & 0xff)]++;
      counts[768 + (l >>> 24)]++;
      if (hi !== null) {
        const h = hi[i]!;
        counts[1024 + (h & 0xff)]++;
        counts[1280 + ((h >>> 8) & 0xff)]++;
        counts[1536 + ((h >>> 16) & 0xff)]++;
        counts[1792 + (h >>> 24)]++;
      }
    }
  }
}

/** One pass's scatter of rows [from, to); the image words move along when their arrays are given. */
function radixScatter(
  src: Uint32Array,
  shift: number,
  mask: number,
  counts: Uint32Array,
  base: number,
  idx: Uint32Array,
  idx2: Uint32Array,
  lo: Uint32Array | null,
  lo2: Uint32Array | null,
  hi: Uint32Array | null,
  hi2: Uint32Array | null,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const d = (src[i]! >>> shift) & mask;
    const at = counts[base + d]++;
    idx2[at] = idx[i]!;
    if (lo !== null) lo2![at] = lo[i]!;
    if (hi !== null) hi2![at] = hi[i]!;
  }
}

/**
 * Emits the rows of sorted runs in order, merging when there is more than one run; the first `skip`
 * rows (an OFFSET) are never gathered.
 */
export function* emitRuns(
  runs: readonly SortedRun[],
  cmp: Comparator,
  skip = 0,
  /** The run's arrays go back to a pool afterwards: already-sorted columns are copied out, not sliced. */
  copySorted = false,
  /** Columns of the groups batches should end between (see Sort's groupPrefix), or null. */
  align: readonly number[] | null = null,
): Generator<Batch> {
  if (runs.length === 0) return;
  if (runs.length === 1) {
    const { batch, order, sorted, rankedText: text } = runs[0]!;
    // A key column is read where its sorted values are: already in order, or through the permutation.
    const same =
      align === null
        ? null
        : packedMap(align, (c): GroupKey => {
            const done = sorted?.get(c);
            const col = done ?? batch.columns[c]!;
            return { data: col.data, nulls: col.nulls, byOrder: done === undefined };
          });
    let misses = 0;
    for (let s = Math.min(skip, order.length), e = s; s < order.length; s = e) {
      e = Math.min(order.length, s + BATCH_SIZE);
      if (same !== null && e < order.length && misses < ALIGN_MISSES) {
        let g = groupEnd(same, order, s + (BATCH_SIZE >> 2), e);
        // A group that started in this batch and runs past its end: the batch is stretched to the
        // group's end when that comes within ALIGN_STRETCH rows, so the Window above gets the group
        // whole instead of copying its pieces together.
        if (g < 0 && groupStarts(same, order, s, e)) g = groupEndAfter(same, order, e, Math.min(order.length, s + ALIGN_STRETCH));
        if (g < 0) misses++;
        else {
          misses = 0;
          e = g;
        }
      }
      if ((sorted === undefined || sorted.size === 0) && (text === undefined || text.size === 0)) {
        yield takeBatch(batch, order.subarray(s, e), e - s);
        continue;
      }
      const sel = order.subarray(s, e);
      const columns = packedMap(batch.columns, (c, i) => {
        const done = sorted?.get(i);
        if (done === undefined) {
          const t = text?.get(i);
          return t === undefined ? takeColumn(c, sel, e - s) : rankedTextSlice(t, s, e);
        }
        const d = done.data;
        if (copySorted) return makeColumn(c.type, d.slice(s, e), done.nulls === null ? null : done.nulls.slice(s, e));
        return makeColumn(c.type, Array.isArray(d) ? d.slice(s, e) : d.subarray(s, e), done.nulls === null ? null : done.nulls.subarray(s, e));
      });
      yield { columns, length: e - s };
    }
    return;
  }
  // k-way merge by repeated minimum (run counts are small); earlier runs win ties, preserving stability.
  const views = runs.map((r) => cmp.view(r.batch));
  const pos = runs.map(() => 0);
  const pair = views.map((a) => views.map((b) => cmp.cross(a, b)));
  const types = runs[0]!.batch.columns.map((c) => c.type);
  let skipped = 0;
  for (;;) {
    const out = types.map((t) => new ColumnBuilder(t, BATCH_SIZE));
    let k = 0;
    while (k < BATCH_SIZE) {
      let best = -1;
      for (let r = 0; r < runs.length; r++) {
        if (pos[r]! >= runs[r]!.order.length) continue;
        if (best === -1 || pair[r]![best]!(runs[r]!.order[pos[r]!]!, runs[best]!.order[pos[best]!]!) < 0) best = r;
      }
      if (best === -1) break;
      const row = runs[best]!.order[pos[best]!++]!;
      if (skipped < skip) {
        skipped++;
        continue;
      }
      const cols = runs[best]!.batch.columns;
      for (let c = 0; c < out.length; c++) out[c]!.pushFrom(cols[c]!, row);
      k++;
    }
    if (k === 0) return;
    yield { columns: packedMap(out, (b) => b.finish()), length: k };
  }
}

/** Batches in a row that found no group end before the search stops (the groups are larger than batches). */
const ALIGN_MISSES = 4;

/**
 * Rows an aligned batch may stretch to so that it ends with a group (the Window's blocks of up to this
 * many rows go out unsliced, so batches of this size already flow above it).
 */
const ALIGN_STRETCH = BATCH_SIZE * 4;

/** Whether some group starts at a sorted position in [s, e) (s itself counts when it is 0 or a change). */
function groupStarts(keys: readonly GroupKey[], order: Uint32Array, s: number, e: number): boolean {
  if (s === 0) return true;
  for (let r = s; r < e; r++) if (groupsDiffer(keys, order, r - 1, r)) return true;
  return false;
}

/**
 * The first r in (e, limit] where sorted rows r - 1 and r belong to different groups (`limit` itself
 * when that is the end of the rows), or -1.
 */
function groupEndAfter(keys: readonly GroupKey[], order: Uint32Array, e: number, limit: number): number {
  const last = Math.min(limit, order.length - 1);
  for (let r = e + 1; r <= last; r++) if (groupsDiffer(keys, order, r - 1, r)) return r;
  return limit === order.length ? limit : -1;
}

/**
 * The last row r in (lo, e] where sorted rows r - 1 and r belong to different groups, so a batch ending
 * at r ends a group; -1 when there is none.
 */
function groupEnd(keys: readonly GroupKey[], order: Uint32Array, lo: number, e: number): number {
  for (let r = e; r > lo; r--) if (groupsDiffer(keys, order, r - 1, r)) return r;
  return -1;
}

/** A numeric key column of a sorted run, read at sorted positions directly or through the permutation. */
interface GroupKey {
  readonly data: ColumnData;
  readonly nulls: Uint8Array | null;
  readonly byOrder: boolean;
}

/** Whether the rows at sorted positions a and b differ on some key (NULLs equal, NaNs equal, -0 = 0). */
function groupsDiffer(keys: readonly GroupKey[], order: Uint32Array, a: number, b: number): boolean {
  for (const k of keys) {
    const ia = k.byOrder ? order[a]! : a;
    const ib = k.byOrder ? order[b]! : b;
    const na = k.nulls !== null && k.nulls[ia] === 1;
    const nb = k.nulls !== null && k.nulls[ib] === 1;
    if (na || nb) {
      if (na !== nb) return true;
      continue;
    }
    const x = k.data[ia];
    const y = k.data[ib];
    if (x !== y && !(x !== x && y !== y)) return true;
  }
  return false;
}

export class Sort extends PhysicalOperator {
  readonly name = 'Sort';
  private readonly cmp: Comparator;
  /** Columns of the leading keys output batches end between (groupPrefix), or null. */
  protected readonly align: readonly number[] | null;

  constructor(
    readonly input: PhysicalOperator,
    readonly keys: readonly SortKey[],
    /**
     * Sorted rows dropped from the front of the output (ORDER BY … OFFSET m without LIMIT): they are
     * sorted like the rest but never gathered into output batches.
     */
    readonly offset = 0,
    /**
     * A Window above partitions by the first this many keys: output batches end between two partitions
     * where one ends in the last three quarters of a batch, so the Window finds most partitions whole in
     * one batch instead of copying the one that straddles two. Only numeric keys, whose comparisons need
     * no per-value preparation of the whole input (text views scan every string).
     */
    groupPrefix = 0,
  ) {
    super(input.schema);
    this.cmp = compileComparator(keys);
    const prefix = keys.slice(0, groupPrefix);
    this.align = prefix.length > 0 && prefix.every((k) => keyCategory(k.type) === 'num' || keyCategory(k.type) === 'float') ? prefix.map((k) => k.col) : null;
    if (!Number.isInteger(offset) || offset < 0) throw new Error('Sort: offset must be a non-negative integer');
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  override outputOrdering(): readonly SortKey[] {
    return this.keys;
  }

  describe(): string {
    const keys = describeKeys(
      this.keys,
      this.schema.map((f) => f.name),
    );
    return `keys: ${keys}${this.offset > 0 ? `, offset: ${this.offset}` : ''}`;
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    return { label: 'Sort', details: [`Sort Key: ${pgSortKeys(this.keys, inputs[0] ?? [])}`] };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    let batches: Batch[] = [];
    // Mostly distinct computed text keys are held as UTF-8 bytes as their batches arrive (undefined:
    // not decided yet, null: not held).
    let utf8: Map<number, Utf8TextColumn> | null | undefined;
    for await (const input of this.input.execute(ctx)) {
      if (input.length === 0) continue;
      let b = input;
      if (utf8 === undefined) utf8 = utf8KeyColumns(b, this.keys);
      if (utf8 !== null) {
        const held = holdUtf8(b, utf8);
        if (held !== null) b = held;
        else {
          batches = restoreStrings(batches, utf8);
          utf8 = null;
        }
      }
      batches.push(b);
    }
    await yieldIfDue(ctx);
    if (batches.length === 0) return;
    // A small sort orders ties as PostgreSQL does, by comparing the values: strings again.
    if (utf8 != null && batches.reduce((n, b) => n + b.length, 0) <= PG_TIE_ORDER_MAX_ROWS) {
      batches = restoreStrings(batches, utf8);
      utf8 = null;
    }
    // Several batches are concatenated into fresh arrays this operator owns; a single one is the input's.
    const owned = batches.length > 1;
    const all = concatBatches(
      this.schema.map((f) => f.type),
      batches,
    );
    batches.length = 0;
    if (utf8 != null) {
      yield* this.emitUtf8(all, utf8, ctx);
      return;
    }
    const t0 = ctx.analyze ? performance.now() : 0;
    const runs: SortedRun[] = [await sortWholeInput(all, this.keys, this.cmp, ctx, owned)];
    if (ctx.analyze) {
      this.metrics.extra['sort ms'] = Math.round((performance.now() - t0) * 100) / 100;
      this.metrics.extra['sort method'] = sortMethod(all, this.keys, runs[0]!);
    }
    await yieldIfDue(ctx);
    // Emitting is cheap per batch, but the consumer's work on each may not be: yield between them.
    for (const b of emitRuns(runs, this.cmp, this.offset, false, this.align)) {
      yield b;
      await yieldIfDue(ctx);
    }
    // Every row went out through copies: the permutation can serve the next sort's scratch.
    give(runs[0]!.order);
  }

  /**
   * Sorts `all`, whose text key columns are held in `utf8` (placeholders in `all`), on normalized keys
   * read from the UTF-8 bytes, and emits the rows with only the emitted ones decoded back to strings.
   * Every key is exact (utf8KeyColumns), so the byte order alone is the order.
   */
  protected async *emitUtf8(all: Batch, utf8: Map<number, Utf8TextColumn>, ctx: ExecContext): AsyncGenerator<Batch> {
    try {
      const t0 = ctx.analyze ? performance.now() : 0;
      let longest = 0;
      const images = new Map<number, Utf8Image>();
      for (const [col, text] of utf8) {
        longest = Math.max(longest, text.longest);
        images.set(col, text.image);
      }
      const nk = await encodeKeysSliced(all, this.keys, ctx, { images, longest });
      if (nk === null || nk.inexact !== null) throw new Error('Sort: a UTF-8 held key was not imaged exactly');
      const sorter = new KeyRadixSort(nk, null);
      while (!sorter.step(SLICE_VISITS)) await yieldIfDue(ctx);
      giveBytes(nk.bytes);
      const order = sorter.order;
      if (ctx.analyze) {
        this.metrics.extra['sort ms'] = Math.round((performance.now() - t0) * 100) / 100;
        this.metrics.extra['sort method'] = 'normalized-key radix on UTF-8 text';
      }
      await yieldIfDue(ctx);
      const n = all.length;
      for (let s = Math.min(this.offset, n); s < n; s += BATCH_SIZE) {
        const e = Math.min(n, s + BATCH_SIZE);
        const sel = order.subarray(s, e);
        const columns = packedMap(all.columns, (c, i) => {
          const text = utf8.get(i);
          return text === undefined ? takeColumn(c, sel, e - s) : text.take(sel, e - s);
        });
        yield { columns, length: e - s };
        await yieldIfDue(ctx);
      }
      give(order);
    } finally {
      for (const text of utf8.values()) text.release();
    }
  }
}

/** Rows in the first batch at most this share of which repeat make a text key worth holding as UTF-8. */
const UTF8_MIN_DISTINCT_SHARE = 0.75;

/**
 * The text key columns of a sort worth holding as UTF-8 (utf8-text-column.ts), judged on its first
 * batch `b`, or null. Held: a text or varchar key with no dictionary codes whose values in `b` are
 * mostly distinct (repeating values sort faster as ranks, rank-keys.ts). Only when every other key's
 * image is exact, so the sort needs no comparator over the values it no longer holds.
 */
export function utf8KeyColumns(b: Batch, keys: readonly SortKey[]): Map<number, Utf8TextColumn> | null {
  const held = new Map<number, Utf8TextColumn>();
  for (const k of keys) {
    if (exactImage(k.type) || held.has(k.col)) continue;
    const c = b.columns[k.col]!;
    const text = k.type.name === 'text' || k.type.name === 'varchar';
    if (!text || !Array.isArray(c.data) || (c.dict != null && c.dict.codes.length >= b.length) || !mostlyDistinct(c.data, b.length)) {
      for (const t of held.values()) t.release();
      return null;
    }
    held.set(k.col, new Utf8TextColumn(k.type, MAX_TEXT_PREFIX - 1));
  }
  return held.size === 0 ? null : held;
}

function mostlyDistinct(data: readonly unknown[], n: number): boolean {
  const seen = new Set<unknown>();
  let values = 0;
  for (let i = 0; i < n; i++) {
    const v = data[i];
    if (v === null) continue;
    values++;
    seen.add(v);
  }
  return seen.size >= values * UTF8_MIN_DISTINCT_SHARE;
}

/** `b` with its held text columns appended to `utf8` and replaced by placeholders; null when one refuses a value. */
export function holdUtf8(b: Batch, utf8: Map<number, Utf8TextColumn>): Batch | null {
  for (const [col, text] of utf8) {
    const c = b.columns[col]!;
    // A column that took this batch before another refused it is read no further than the batches before.
    if (!Array.isArray(c.data) || !text.append(c.data, c.nulls, b.length)) return null;
  }
  const columns = b.columns.slice();
  for (const col of utf8.keys()) columns[col] = deadColumn(columns[col]!.type);
  return { columns, length: b.length };
}

/** The batches held so far with their text columns decoded back to strings; releases `utf8`. */
export function restoreStrings(batches: Batch[], utf8: Map<number, Utf8TextColumn>): Batch[] {
  const out: Batch[] = [];
  let from = 0;
  for (const b of batches) {
    const sel = new Uint32Array(b.length);
    for (let i = 0; i < b.length; i++) sel[i] = from + i;
    const columns = b.columns.slice();
    for (const [col, text] of utf8) columns[col] = text.take(sel, b.length);
    out.push({ columns, length: b.length });
    from += b.length;
  }
  for (const text of utf8.values()) text.release();
  return out;
}

/** EXPLAIN ANALYZE's name for the path sortRun took. */
export function sortMethod(b: Batch, keys: readonly SortKey[], run: SortedRun): string {
  if (keys.some((k) => k.type.name === 'text' || k.type.name === 'varchar')) {
    const ranked = rankKeys(b, keys);
    if (ranked !== null) {
      // Stored codes cover a key, or the sort coded computed text itself (rank-keys.ts).
      const stored = keys.some((k) => b.columns[k.col]!.dict != null && b.columns[k.col]!.dict!.codes.length >= b.length);
      return `${sortMethod(ranked.batch, ranked.keys, run)} on text ranks${stored ? '' : ' built for the sort'}`;
    }
  }
  if (run.method !== undefined) return run.method;
  if (run.sorted !== undefined) return 'packed radix';
  if (b.length > 256 && keys.length <= 4 && keys.every((k) => radixEligible(b, k))) return 'radix';
  return b.length > 256 && normalizable(keys) ? 'normalized-key radix' : 'comparison';
}

function radixEligible(b: Batch, k: SortKey): boolean {
  const cat = keyCategory(k.type);
  return b.length > 256 && (cat === 'num' || cat === 'float') && !Array.isArray(b.columns[k.col]!.data);
}
