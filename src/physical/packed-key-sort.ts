/**
 * Packed-key radix sort: several integer-valued sort keys folded into one unsigned code per row, sorted by
 * one LSD radix sort.
 *
 * A window sorts on (PARTITION BY keys, ORDER BY keys), typically a small-range integer partition key and
 * an integer or timestamp order key. Sorting key by key costs a full radix sort per key plus a gather of
 * every later key through the permutation; here each key instead becomes a dense code
 *
 *   code = (v - min) / step        ascending       (step: gcd of the distances between values, so
 *   code = (max - v) / step        descending       timestamps in whole seconds take 1/10^6 the range)
 *
 * with NULL taking the code below (NULLS FIRST) or above (NULLS LAST) every value. Codes are
 * concatenated most significant key first; when the total fits in 53 bits (a double holds it exactly)
 * the rows are radix sorted on it in ceil(bits / 16) passes of equal width (so 24 bits are two passes of
 * 12-bit digits, whose counters stay in L1). The code order is exactly the keys' lexicographic order
 * with PostgreSQL's NULL placement, and LSD passes are stable, so equal rows keep their input order.
 *
 * The codes come out of the sort in order, so the key columns are decoded from them sequentially instead
 * of being gathered through the permutation. Keys that do not pack (non-integer or non-finite floats,
 * NaN, text, plain-array storage, wide ranges) make `packedSort` return null and the caller uses the
 * general paths (sort.ts).
 */
import { makeColumn, type Batch, type Column } from '../common/column.js';
import { give, takeF64, takeU32 } from '../execution/scratch.js';
import { keyCategory, type SortKey } from './sort-key.js';

/** Codes stay below 2^53, where doubles hold every integer exactly. */
const MAX_BITS = 53;

interface KeyPlan {
  readonly data: Int32Array | Float64Array | Uint8Array;
  readonly nulls: Uint8Array | null;
  readonly min: number;
  readonly max: number;
  readonly step: number;
  readonly bits: number;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
  /** Column index and type, for decoding the sorted codes back into the column. */
  readonly col: number;
  readonly type: SortKey['type'];
  /** False when a -0 would decode as 0 (float keys): the column is gathered instead. */
  readonly decodable: boolean;
}

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** Bits needed for codes 0..maxCode. */
function bitsFor(maxCode: number): number {
  let b = 0;
  while (b < 60 && 2 ** b <= maxCode) b++;
  return b;
}

interface Scan {
  min: number;
  max: number;
  step: number;
  /** The first non-null value: steps are distances from it. */
  first: number;
  seen: boolean;
  anyNull: boolean;
  negZero: boolean;
  /** False once a value was found that cannot pack (a fraction, NaN, an infinity). */
  packs: boolean;
}

/** Rows per piece of the steps below: a few milliseconds of one loop. */
const PIECE = 1 << 18;

/**
 * Range, step and width of one key, or null when its values are not all finite integers of a small range.
 * The scans are separate per storage class so each loop's element access stays monomorphic; the scan
 * runs in pieces so a caller can yield between them.
 */
function* planKey(b: Batch, k: SortKey, bounds?: KeyBounds): Generator<void, KeyPlan | null> {
  const cat = keyCategory(k.type);
  if (cat !== 'num' && cat !== 'float') return null;
  const c = b.columns[k.col]!;
  const data = c.data;
  if (!(data instanceof Float64Array || data instanceof Int32Array || data instanceof Uint8Array)) return null;
  const known = bounds?.get(k.col);
  if (known !== undefined && data instanceof Int32Array) {
    // Bounds the caller knows hold (stored batches' zone maps): no scan. The step is taken as 1, and a
    // column with a NULL mask is planned as holding NULLs; either only costs a bit at most.
    const base = { data, nulls: c.nulls, desc: k.desc, nullsFirst: k.nullsFirst, col: k.col, type: k.type, decodable: true };
    if (known.min > known.max) return { ...base, min: 0, max: 0, step: 1, bits: 0 };
    return { ...base, min: known.min, max: known.max, step: 1, bits: bitsFor(known.max - known.min + (c.nulls !== null ? 1 : 0)) };
  }
  const sc: Scan = { min: Infinity, max: -Infinity, step: 0, first: 0, seen: false, anyNull: false, negZero: false, packs: true };
  const n = b.length;
  for (let s = 0; s < n; s += PIECE) {
    if (s > 0) yield;
    const to = Math.min(n, s + PIECE);
    if (data instanceof Float64Array) scanF64(data, c.nulls, s, to, sc);
    else if (data instanceof Int32Array) scanI32(data, c.nulls, s, to, sc);
    else scanU8(data, c.nulls, s, to, sc);
    if (!sc.packs) return null;
  }
  const nulls = sc.anyNull ? c.nulls : null;
  const common = { data, nulls, desc: k.desc, nullsFirst: k.nullsFirst, col: k.col, type: k.type, decodable: !sc.negZero };
  if (!sc.seen) return { ...common, min: 0, max: 0, step: 1, bits: 0 };
  const { min, max } = sc;
  // Distances beyond 2^52 are no longer exact in a double (and would not pack anyway).
  if (max - min > 2 ** 52) return null;
  const step = sc.step === 0 ? 1 : sc.step;
  const maxCode = (max - min) / step + (sc.anyNull ? 1 : 0);
  return { ...common, min, max, step, bits: bitsFor(maxCode) };
}

/** The step update: gcd of the distances from the first value seen (stops at 1, the usual answer). */
function nextStep(step: number, d: number): number {
  if (step === 0) return d;
  // A division and a multiply instead of fmod (a runtime call): exact while d <= 2^52, and larger ranges
  // are rejected after the scan anyway.
  const q = d / step;
  if (q === Math.floor(q) && q * step === d) return step;
  return gcd(step, d % step);
}

function scanF64(data: Float64Array, nulls: Uint8Array | null, from: number, to: number, sc: Scan): void {
  let { min, max, first, step, seen, anyNull, negZero } = sc;
  // Whether the step still divides a distance is tested with a multiply by its reciprocal and a
  // rounding (a division per row cost more than the rest of the scan). The test is exact where it
  // matters: a multiple of the step rounds back to itself while distances stay below 2^50 steps, a
  // non-multiple never does below 2^53, and larger ranges are rejected after the scan; a miss only
  // sends the row to nextStep, which decides exactly.
  let inv = step > 1 ? 1 / step : 0;
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] === 1) {
      anyNull = true;
      continue;
    }
    const v = data[i]!;
    // NaN and ±Infinity fail this test too (their difference from trunc is NaN).
    if (v - Math.trunc(v) !== 0) {
      sc.packs = false;
      return;
    }
    if (v === 0 && 1 / v < 0) negZero = true;
    if (!seen) {
      seen = true;
      first = v;
    } else if (step !== 1) {
      const d = v - first;
      if (Math.round(d * inv) * step !== d) {
        step = nextStep(step, d < 0 ? -d : d);
        inv = step > 1 ? 1 / step : 0;
      }
    }
    if (v < min) min = v;
    if (v > max) max = v;
  }
  Object.assign(sc, { min, max, first, step, seen, anyNull, negZero });
}

function scanI32(data: Int32Array, nulls: Uint8Array | null, from: number, to: number, sc: Scan): void {
  if (nulls === null && sc.step === 1 && from < to) {
    // The usual case after the first rows: the step is settled at 1 and only the bounds move. Int locals
    // (not the scan's doubles, which start at ±Infinity) keep the comparisons integer.
    let lo = data[from]! | 0;
    let hi = lo;
    for (let i = from + 1; i < to; i++) {
      const v = data[i]!;
      if (v < lo) lo = v;
      else if (v > hi) hi = v;
    }
    if (lo < sc.min) sc.min = lo;
    if (hi > sc.max) sc.max = hi;
    return;
  }
  let { min, max, first, step, seen, anyNull } = sc;
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] === 1) {
      anyNull = true;
      continue;
    }
    const v = data[i]!;
    if (!seen) {
      seen = true;
      first = v;
    } else if (step !== 1) {
      step = nextStep(step, v > first ? v - first : first - v);
      if (step === 1 && nulls === null) {
        // Settled: the rest of the range needs only its bounds.
        Object.assign(sc, { min: v < min ? v : min, max: v > max ? v : max, first, step, seen, anyNull });
        scanI32(data, null, i + 1, to, sc);
        return;
      }
    }
    if (v < min) min = v;
    if (v > max) max = v;
  }
  Object.assign(sc, { min, max, first, step, seen, anyNull });
}

function scanU8(data: Uint8Array, nulls: Uint8Array | null, from: number, to: number, sc: Scan): void {
  let { min, max, seen, anyNull } = sc;
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] === 1) {
      anyNull = true;
      continue;
    }
    const v = data[i]!;
    seen = true;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  Object.assign(sc, { min, max, step: 1, seen, anyNull });
}

/**
 * Value bounds of int4 key columns (by column index) that the caller knows hold for every non-NULL row,
 * e.g. from the zone maps of stored batches: such a key is planned without scanning it.
 */
export type KeyBounds = ReadonlyMap<number, { readonly min: number; readonly max: number }>;

/** A packed sort's result: the row order, and key columns already rebuilt in that order. */
export interface PackedSort {
  readonly order: Uint32Array;
  /** Column index -> the column's values in sorted order (decoded from the sorted codes, no gather). */
  readonly sorted: ReadonlyMap<number, Column>;
}

/**
 * Row order of `b` under `keys` (stable), when every key packs into one code of at most 53 bits; else null.
 * The codes come out of the radix sort in order, so the key columns are decoded from them sequentially
 * instead of being gathered through the permutation (a random read per row and column).
 */
export function packedSort(b: Batch, keys: readonly SortKey[], decode = true, overwrite = false): PackedSort | null {
  const steps = packedSortSteps(b, keys, decode, overwrite);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/**
 * packedSort in pieces: the generator yields after every PIECE rows of a loop, so a statement can let the
 * event loop run between them; the loops live in plain functions over a row range, as V8 optimizes best.
 */
export function* packedSortSteps(b: Batch, keys: readonly SortKey[], decode = true, overwrite = false, bounds?: KeyBounds): Generator<void, PackedSort | null> {
  const plans: KeyPlan[] = [];
  let total = 0;
  for (const k of keys) {
    const p = yield* planKey(b, k, bounds);
    if (p === null) return null;
    total += p.bits;
    if (total > MAX_BITS) return null;
    if (p.bits > 0) plans.push(p);
  }
  const n = b.length;
  if (total === 0) return { order: identityPerm(n), sorted: new Map() };
  let order: Uint32Array;
  let lo: Uint32Array;
  let hi: Uint32Array | null = null;
  if (total <= 32) {
    // Codes fit one word: each key's code is added at its bit offset (sums stay below 2^32, exact).
    const key = takeU32(n).fill(0);
    let below = total;
    for (const p of plans) {
      below -= p.bits;
      for (let s = 0; s < n; s += PIECE) {
        yield;
        encodeKey(p, key, s, Math.min(n, s + PIECE), 2 ** below);
      }
    }
    const r = yield* radix32(key, n, total);
    order = r.idx;
    lo = r.key;
  } else {
    // Every key but the last is summed into a double code; the last key's pass adds its own code and
    // writes the two words directly, so the code array is not read back once more to split it (a
    // single key needs no code array at all).
    const code = plans.length > 1 ? takeF64(n).fill(0) : null;
    const l = takeU32(n);
    const h = takeU32(n);
    let below = total;
    for (let q = 0; q < plans.length; q++) {
      const p = plans[q]!;
      below -= p.bits;
      for (let s = 0; s < n; s += PIECE) {
        yield;
        if (q < plans.length - 1) encodeKey(p, code!, s, Math.min(n, s + PIECE), 2 ** below);
        else encodeKeyWords(p, code, l, h, s, Math.min(n, s + PIECE), 2 ** below);
      }
    }
    if (code !== null) give(code);
    const r = yield* radix64(l, h, n, total);
    order = r.idx;
    lo = r.lo;
    hi = r.hi;
  }
  const sorted = new Map<number, Column>();
  if (decode) {
    let below = total;
    for (const p of plans) {
      below -= p.bits;
      if (!p.decodable || sorted.has(p.col)) continue;
      yield;
      sorted.set(p.col, yield* decodeKeySteps(p, lo, hi, n, below, overwrite));
    }
  }
  give(lo, hi);
  return { order, sorted };
}

/** code += this key's code * 2^below, per row (exact: the total stays below 2^53). */
function encodeKey(p: KeyPlan, code: Uint32Array | Float64Array, from: number, to: number, scale: number): void {
  const { data, nulls, min, max, step, desc } = p;
  // NULLS FIRST shifts the values up by one to free code 0; NULLS LAST puts NULL above the largest value.
  const shift = nulls !== null && p.nullsFirst ? 1 : 0;
  const nullCode = p.nullsFirst ? 0 : (max - min) / step + 1;
  const base = desc ? max : min;
  const sign = desc ? -1 : 1;
  if (code instanceof Uint32Array) {
    if (data instanceof Int32Array) encodeI32(data, nulls, code, from, to, scale, base, sign, step, shift, nullCode);
    else if (data instanceof Float64Array) encodeF64(data, nulls, code, from, to, scale, base, sign, step, shift, nullCode);
    else encodeU8(data, nulls, code, from, to, scale, base, sign, step, shift, nullCode);
  } else if (data instanceof Int32Array) encodeI32W(data, nulls, code, from, to, scale, base, sign, step, shift, nullCode);
  else if (data instanceof Float64Array) encodeF64W(data, nulls, code, from, to, scale, base, sign, step, shift, nullCode);
  else encodeU8W(data, nulls, code, from, to, scale, base, sign, step, shift, nullCode);
}

/**
 * The last key's pass of a two-word code: (prev + this key's code * 2^below) split into its two 32-bit
 * words, rows [from, to); prev is the sum of the earlier keys' codes, or null when there are none.
 */
function encodeKeyWords(p: KeyPlan, prev: Float64Array | null, lo: Uint32Array, hi: Uint32Array, from: number, to: number, scale: number): void {
  const { data, nulls, min, max, step, desc } = p;
  const shift = nulls !== null && p.nullsFirst ? 1 : 0;
  const nullCode = p.nullsFirst ? 0 : (max - min) / step + 1;
  const base = desc ? max : min;
  const sign = desc ? -1 : 1;
  if (data instanceof Int32Array) wordsI32(data, nulls, prev, lo, hi, from, to, scale, base, sign, step, shift, nullCode);
  else if (data instanceof Float64Array) wordsF64(data, nulls, prev, lo, hi, from, to, scale, base, sign, step, shift, nullCode);
  else wordsU8(data, nulls, prev, lo, hi, from, to, scale, base, sign, step, shift, nullCode);
}

/**
 * Decoding one key in pieces. Each piece runs small loops over rows [from, to): a loop that runs once
 * per sort over a million rows would stay in V8's interpreter for the few calls a query makes, while
 * per-piece functions are hot after the first sort.
 */
function* decodeKeySteps(p: KeyPlan, lo: Uint32Array, hi: Uint32Array | null, n: number, below: number, overwrite: boolean): Generator<void, Column> {
  // Writing over the key's own arrays (when the caller owns them: they are read only by the encoding,
  // done by now) spares the first touch of fresh memory, which costs more than the decoding itself.
  const own = overwrite && p.data.length === n && (p.nulls === null || p.nulls.length === n);
  const out = own ? p.data : p.data instanceof Float64Array ? new Float64Array(n) : p.data instanceof Int32Array ? new Int32Array(n) : new Uint8Array(n);
  const nulls = p.nulls === null ? null : own ? p.nulls : new Uint8Array(n);
  const { min, max, step, desc } = p;
  // NULLS FIRST: code 0 is NULL and values start at 1; NULLS LAST: NULL is the code above the largest value.
  const nullCode = p.nulls === null ? -1 : p.nullsFirst ? 0 : (max - min) / step + 1;
  const shift = p.nulls !== null && p.nullsFirst ? 1 : 0;
  // Value of code c: min + c * step ascending, max - c * step descending (exact integers below 2^53).
  const base = desc ? max : min;
  const inc = desc ? -step : step;
  if (nulls === null && p.bits <= 31 && !(out instanceof Uint8Array)) {
    // No NULL code to look for: each value straight from its code bits, without the staging array.
    for (let s = 0; s < n; s += PIECE) {
      if (s > 0) yield;
      const to = Math.min(n, s + PIECE);
      if (out instanceof Int32Array) decodeI32(out, lo, hi, s, to, p.bits, below, base, inc);
      else decodeF64(out, lo, hi, s, to, p.bits, below, base, inc);
    }
    return makeColumn(p.type, out, null);
  }
  const ck = takeF64(Math.min(n, PIECE));
  for (let s = 0; s < n; s += PIECE) {
    if (s > 0) yield;
    const m = Math.min(n, s + PIECE) - s;
    extractCodes(ck, lo, hi, s, m, p.bits, below);
    if (nulls !== null) markNulls(ck, nulls, s, m, nullCode, shift);
    if (out instanceof Float64Array) fillF64(out, ck, s, m, base, inc, nulls);
    else if (out instanceof Int32Array) fillI32(out, ck, s, m, base, inc, nulls);
    else fillU8(out, ck, s, m, base, inc, nulls);
  }
  give(ck);
  return makeColumn(p.type, out, nulls);
}

// decodeI32 / decodeF64: out[i] = base + code * inc for rows [from, to), the code being `bits` (<= 31)
// bits sitting `below` bits up in (hi, lo). One function per output storage keeps each loop monomorphic.

function decodeI32(out: Int32Array, lo: Uint32Array, hi: Uint32Array | null, from: number, to: number, bits: number, below: number, base: number, inc: number): void {
  const mask = 2 ** bits - 1;
  if (hi === null || below + bits <= 32) for (let i = from; i < to; i++) out[i] = base + ((lo[i]! >>> below) & mask) * inc;
  else if (below >= 32) {
    const sh = below - 32;
    for (let i = from; i < to; i++) out[i] = base + ((hi[i]! >>> sh) & mask) * inc;
  } else {
    const up = 32 - below;
    for (let i = from; i < to; i++) out[i] = base + (((lo[i]! >>> below) | (hi[i]! << up)) & mask) * inc;
  }
}

function decodeF64(out: Float64Array, lo: Uint32Array, hi: Uint32Array | null, from: number, to: number, bits: number, below: number, base: number, inc: number): void {
  const mask = 2 ** bits - 1;
  if (hi === null || below + bits <= 32) for (let i = from; i < to; i++) out[i] = base + ((lo[i]! >>> below) & mask) * inc;
  else if (below >= 32) {
    const sh = below - 32;
    for (let i = from; i < to; i++) out[i] = base + ((hi[i]! >>> sh) & mask) * inc;
  } else {
    const up = 32 - below;
    for (let i = from; i < to; i++) out[i] = base + (((lo[i]! >>> below) | (hi[i]! << up)) & mask) * inc;
  }
}

/** ck[0..m) = the key's codes of rows s..s+m: `bits` bits sitting `below` bits up in (hi, lo). */
function extractCodes(ck: Float64Array, lo: Uint32Array, hi: Uint32Array | null, s: number, m: number, bits: number, below: number): void {
  if (bits <= 31) {
    const mask = 2 ** bits - 1;
    if (hi === null || below + bits <= 32) for (let i = 0; i < m; i++) ck[i] = (lo[s + i]! >>> below) & mask;
    else if (below >= 32) {
      const sh = below - 32;
      for (let i = 0; i < m; i++) ck[i] = (hi[s + i]! >>> sh) & mask;
    } else {
      const up = 32 - below;
      for (let i = 0; i < m; i++) ck[i] = ((lo[s + i]! >>> below) | (hi[s + i]! << up)) & mask;
    }
    return;
  }
  // A wide key (a timestamp whose values share no step): double arithmetic, exact below 2^53.
  const div = 2 ** below;
  const mod = 2 ** bits;
  for (let i = 0; i < m; i++) {
    const x = Math.floor(((hi === null ? 0 : hi[s + i]! * 4294967296) + lo[s + i]!) / div);
    ck[i] = x - Math.floor(x / mod) * mod;
  }
}

function markNulls(ck: Float64Array, nulls: Uint8Array, s: number, m: number, nullCode: number, shift: number): void {
  for (let i = 0; i < m; i++) {
    const c = ck[i]!;
    if (c === nullCode) {
      nulls[s + i] = 1;
      ck[i] = 0;
    } else {
      // Written either way: the mask may be the key's own, decoded over.
      nulls[s + i] = 0;
      ck[i] = c - shift;
    }
  }
}

function fillF64(out: Float64Array, ck: Float64Array, s: number, m: number, base: number, inc: number, nulls: Uint8Array | null): void {
  for (let i = 0; i < m; i++) out[s + i] = nulls !== null && nulls[s + i] === 1 ? 0 : base + ck[i]! * inc;
}
function fillI32(out: Int32Array, ck: Float64Array, s: number, m: number, base: number, inc: number, nulls: Uint8Array | null): void {
  for (let i = 0; i < m; i++) out[s + i] = nulls !== null && nulls[s + i] === 1 ? 0 : base + ck[i]! * inc;
}
function fillU8(out: Uint8Array, ck: Float64Array, s: number, m: number, base: number, inc: number, nulls: Uint8Array | null): void {
  for (let i = 0; i < m; i++) out[s + i] = nulls !== null && nulls[s + i] === 1 ? 0 : base + ck[i]! * inc;
}

// One encoder per (key storage, code storage) pair keeps every loop monomorphic. A key's code is
// (v - base) * sign / step (+1 under NULLS FIRST), exact because step divides every distance.

function encodeI32(
  data: Int32Array,
  nulls: Uint8Array | null,
  code: Uint32Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && step === 1) {
    for (let i = from; i < to; i++) code[i] = code[i]! + sign * (data[i]! - base) * scale;
    return;
  }
  for (let i = from; i < to; i++) {
    const c = nulls !== null && nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    code[i] = code[i]! + c * scale;
  }
}

function encodeF64(
  data: Float64Array,
  nulls: Uint8Array | null,
  code: Uint32Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && step === 1) {
    for (let i = from; i < to; i++) code[i] = code[i]! + sign * (data[i]! - base) * scale;
    return;
  }
  for (let i = from; i < to; i++) {
    const c = nulls !== null && nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    code[i] = code[i]! + c * scale;
  }
}

function encodeU8(
  data: Uint8Array,
  nulls: Uint8Array | null,
  code: Uint32Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && step === 1) {
    for (let i = from; i < to; i++) code[i] = code[i]! + sign * (data[i]! - base) * scale;
    return;
  }
  for (let i = from; i < to; i++) {
    const c = nulls !== null && nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    code[i] = code[i]! + c * scale;
  }
}

function encodeI32W(
  data: Int32Array,
  nulls: Uint8Array | null,
  code: Float64Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && step === 1) {
    for (let i = from; i < to; i++) code[i] = code[i]! + sign * (data[i]! - base) * scale;
    return;
  }
  for (let i = from; i < to; i++) {
    const c = nulls !== null && nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    code[i] = code[i]! + c * scale;
  }
}

function encodeF64W(
  data: Float64Array,
  nulls: Uint8Array | null,
  code: Float64Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && step === 1) {
    for (let i = from; i < to; i++) code[i] = code[i]! + sign * (data[i]! - base) * scale;
    return;
  }
  for (let i = from; i < to; i++) {
    const c = nulls !== null && nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    code[i] = code[i]! + c * scale;
  }
}

function encodeU8W(
  data: Uint8Array,
  nulls: Uint8Array | null,
  code: Float64Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && step === 1) {
    for (let i = from; i < to; i++) code[i] = code[i]! + sign * (data[i]! - base) * scale;
    return;
  }
  for (let i = from; i < to; i++) {
    const c = nulls !== null && nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    code[i] = code[i]! + c * scale;
  }
}

// wordsI32 / wordsF64 / wordsU8: encodeKeyWords per key storage (one loop shape each, as above).
function wordsI32(
  data: Int32Array,
  nulls: Uint8Array | null,
  prev: Float64Array | null,
  lo: Uint32Array,
  hi: Uint32Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && prev !== null) {
    for (let i = from; i < to; i++) {
      const c = prev[i]! + ((sign * (data[i]! - base)) / step) * scale;
      lo[i] = c >>> 0;
      hi[i] = (c / 4294967296) >>> 0;
    }
    return;
  }
  if (nulls === null) {
    for (let i = from; i < to; i++) {
      const c = ((sign * (data[i]! - base)) / step) * scale;
      lo[i] = c >>> 0;
      hi[i] = (c / 4294967296) >>> 0;
    }
    return;
  }
  for (let i = from; i < to; i++) {
    const k = nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    const c = (prev === null ? 0 : prev[i]!) + k * scale;
    lo[i] = c >>> 0;
    hi[i] = (c / 4294967296) >>> 0;
  }
}

function wordsF64(
  data: Float64Array,
  nulls: Uint8Array | null,
  prev: Float64Array | null,
  lo: Uint32Array,
  hi: Uint32Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && prev !== null) {
    for (let i = from; i < to; i++) {
      const c = prev[i]! + ((sign * (data[i]! - base)) / step) * scale;
      lo[i] = c >>> 0;
      hi[i] = (c / 4294967296) >>> 0;
    }
    return;
  }
  if (nulls === null) {
    for (let i = from; i < to; i++) {
      const c = ((sign * (data[i]! - base)) / step) * scale;
      lo[i] = c >>> 0;
      hi[i] = (c / 4294967296) >>> 0;
    }
    return;
  }
  for (let i = from; i < to; i++) {
    const k = nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    const c = (prev === null ? 0 : prev[i]!) + k * scale;
    lo[i] = c >>> 0;
    hi[i] = (c / 4294967296) >>> 0;
  }
}

function wordsU8(
  data: Uint8Array,
  nulls: Uint8Array | null,
  prev: Float64Array | null,
  lo: Uint32Array,
  hi: Uint32Array,
  from: number,
  to: number,
  scale: number,
  base: number,
  sign: number,
  step: number,
  shift: number,
  nullCode: number,
): void {
  if (nulls === null && prev !== null) {
    for (let i = from; i < to; i++) {
      const c = prev[i]! + ((sign * (data[i]! - base)) / step) * scale;
      lo[i] = c >>> 0;
      hi[i] = (c / 4294967296) >>> 0;
    }
    return;
  }
  if (nulls === null) {
    for (let i = from; i < to; i++) {
      const c = ((sign * (data[i]! - base)) / step) * scale;
      lo[i] = c >>> 0;
      hi[i] = (c / 4294967296) >>> 0;
    }
    return;
  }
  for (let i = from; i < to; i++) {
    const k = nulls[i] === 1 ? nullCode : (sign * (data[i]! - base)) / step + shift;
    const c = (prev === null ? 0 : prev[i]!) + k * scale;
    lo[i] = c >>> 0;
    hi[i] = (c / 4294967296) >>> 0;
  }
}

function identityPerm(n: number): Uint32Array {
  const p = takeU32(n);
  for (let i = 0; i < n; i++) p[i] = i;
  return p;
}

/**
 * Rows from which a pass of the 64-bit sort scatters into at most 2^8 places. Beyond the caches a scatter pays a TLB and
 * cache miss per destination stream, and with 2^13 digits (37-bit codes in three passes) three arrays
 * make 24,576 streams: at 10M rows five passes of 8-bit digits sorted a (g, ts) window key 17-30%
 * faster in CPU time than three of 13 bits; at 1M rows the wider digits are as fast or faster.
 */
const NARROW_DIGIT_ROWS = 1 << 22;

/** Digit layout: `passes` digits of `width` bits covering `bits` bits (width <= 16, or <= 8 when narrow). */
function layout(bits: number, narrow: boolean): { passes: number; width: number } {
  const passes = Math.ceil(bits / (narrow ? 8 : 16));
  return { passes, width: Math.ceil(bits / passes) };
}

/** A pass is skipped when every row has the same digit: it would not move anything. */
function trivialPass(counts: Uint32Array, base: number, size: number, n: number): boolean {
  for (let d = 0; d < size; d++) {
    const c = counts[base + d]!;
    if (c !== 0) return c === n;
  }
  return true;
}

function prefixSums(counts: Uint32Array, base: number, size: number): void {
  let sum = 0;
  for (let d = 0; d < size; d++) {
    const c = counts[base + d]!;
    counts[base + d] = sum;
    sum += c;
  }
}

function* radix32(key: Uint32Array, n: number, bits: number): Generator<void, { idx: Uint32Array; key: Uint32Array }> {
  const { passes, width } = layout(bits, false);
  const size = 1 << width;
  const mask = size - 1;
  const counts = new Uint32Array(passes * size);
  for (let s = 0; s < n; s += PIECE) {
    yield;
    histogram32(key, counts, passes, size, width, mask, s, Math.min(n, s + PIECE));
  }
  let idx: Uint32Array = identityPerm(n);
  let idx2: Uint32Array = takeU32(n);
  let key2: Uint32Array = takeU32(n);
  for (let p = 0; p < passes; p++) {
    const base = p * size;
    if (trivialPass(counts, base, size, n)) continue;
    prefixSums(counts, base, size);
    for (let s = 0; s < n; s += PIECE) {
      yield;
      scatter32(key, idx, key2, idx2, counts, base, p * width, mask, s, Math.min(n, s + PIECE));
    }
    let t = idx;
    idx = idx2;
    idx2 = t;
    t = key;
    key = key2;
    key2 = t;
  }
  // The caller keeps idx and key; the other two (one of them maybe the caller's input) are spare.
  give(idx2, key2);
  return { idx, key };
}

function histogram32(key: Uint32Array, counts: Uint32Array, passes: number, size: number, width: number, mask: number, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const k = key[i]!;
    for (let p = 0; p < passes; p++) counts[p * size + ((k >>> (p * width)) & mask)]++;
  }
}

function scatter32(
  key: Uint32Array,
  idx: Uint32Array,
  key2: Uint32Array,
  idx2: Uint32Array,
  counts: Uint32Array,
  base: number,
  shift: number,
  mask: number,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const k = key[i]!;
    const at = counts[base + ((k >>> shift) & mask)]++;
    idx2[at] = idx[i]!;
    key2[at] = k;
  }
}

function* radix64(lo: Uint32Array, hi: Uint32Array, n: number, bits: number): Generator<void, { idx: Uint32Array; lo: Uint32Array; hi: Uint32Array }> {
  if (n >= TOP_FIRST_MIN_ROWS) {
    const r = yield* topDigitFirst(lo, hi, n, bits);
    if (r !== null) return r;
  }
  const { passes, width } = layout(bits, n >= NARROW_DIGIT_ROWS);
  const size = 1 << width;
  const mask = size - 1;
  // Where each pass's digit sits: wholly in lo (0), wholly in hi (1), or across both (2). One loop per
  // case keeps the per-row work branch-free.
  const where = (p: number): number => (p * width >= 32 ? 1 : p * width + width <= 32 ? 0 : 2);
  const counts = new Uint32Array(passes * size);
  for (let p = 0; p < passes; p++) {
    for (let s = 0; s < n; s += PIECE) {
      yield;
      histogram(lo, hi, s, Math.min(n, s + PIECE), counts, p * size, p * width, mask, where(p));
    }
  }
  let idx: Uint32Array = identityPerm(n);
  let idx2: Uint32Array = takeU32(n);
  let lo2: Uint32Array = takeU32(n);
  let hi2: Uint32Array = takeU32(n);
  for (let p = 0; p < passes; p++) {
    const base = p * size;
    if (trivialPass(counts, base, size, n)) continue;
    prefixSums(counts, base, size);
    // Every pass moves the keys along: the sorted codes are decoded into the key columns afterwards.
    for (let s = 0; s < n; s += PIECE) {
      yield;
      scatter64(lo, hi, idx, lo2, hi2, idx2, s, Math.min(n, s + PIECE), counts, base, p * width, mask, where(p));
    }
    let t = idx;
    idx = idx2;
    idx2 = t;
    t = lo;
    lo = lo2;
    lo2 = t;
    t = hi;
    hi = hi2;
    hi2 = t;
  }
  give(idx2, lo2, hi2);
  return { idx, lo, hi };
}

function histogram(lo: Uint32Array, hi: Uint32Array, from: number, to: number, counts: Uint32Array, base: number, shift: number, mask: number, where: number): void {
  if (where === 0) for (let i = from; i < to; i++) counts[base + ((lo[i]! >>> shift) & mask)]++;
  else if (where === 1) {
    const s = shift - 32;
    for (let i = from; i < to; i++) counts[base + ((hi[i]! >>> s) & mask)]++;
  } else {
    const up = 32 - shift;
    for (let i = from; i < to; i++) counts[base + (((lo[i]! >>> shift) | (hi[i]! << up)) & mask)]++;
  }
}

function scatter64(
  lo: Uint32Array,
  hi: Uint32Array,
  idx: Uint32Array,
  lo2: Uint32Array,
  hi2: Uint32Array,
  idx2: Uint32Array,
  from: number,
  to: number,
  counts: Uint32Array,
  base: number,
  shift: number,
  mask: number,
  where: number,
): void {
  if (where === 0) scatterLo(lo, hi, idx, lo2, hi2, idx2, from, to, counts, base, shift, mask);
  else if (where === 1) scatterLo(hi, lo, idx, hi2, lo2, idx2, from, to, counts, base, shift - 32, mask);
  else scatterAcross(lo, hi, idx, lo2, hi2, idx2, from, to, counts, base, shift, mask);
}

/** A pass whose digit lies in one word `a` (lo, or hi with the roles swapped); `b` just moves along. */
function scatterLo(
  a: Uint32Array,
  b: Uint32Array,
  idx: Uint32Array,
  a2: Uint32Array,
  b2: Uint32Array,
  idx2: Uint32Array,
  from: number,
  to: number,
  counts: Uint32Array,
  base: number,
  shift: number,
  mask: number,
): void {
  for (let i = from; i < to; i++) {
    const x = a[i]!;
    const at = counts[base + ((x >>> shift) & mask)]++;
    idx2[at] = idx[i]!;
    a2[at] = x;
    b2[at] = b[i]!;
  }
}

function scatterAcross(
  lo: Uint32Array,
  hi: Uint32Array,
  idx: Uint32Array,
  lo2: Uint32Array,
  hi2: Uint32Array,
  idx2: Uint32Array,
  from: number,
  to: number,
  counts: Uint32Array,
  base: number,
  shift: number,
  mask: number,
): void {
  const up = 32 - shift;
  for (let i = from; i < to; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    const at = counts[base + (((l >>> shift) | (h << up)) & mask)]++;
    idx2[at] = idx[i]!;
    lo2[at] = l;
    hi2[at] = h;
  }
}

/** Rows from which a two-word sort orders the top digit first (topDigitFirst). */
const TOP_FIRST_MIN_ROWS = 1 << 16;
/** Rows per top-digit bucket aimed at: a bucket's three words then stay in the L2 cache. */
const TOP_BUCKET_ROWS = 1024;
/** Buckets beyond this many rows would be sorted out of cache: the plain LSD sort is used instead. */
const TOP_BUCKET_MAX = 1 << 16;
/**
 * From NARROW_DIGIT_ROWS rows, buckets of ~1,024 rows would need a first scatter into thousands of
 * streams per word, each a TLB miss: the first scatter makes at most 2^8 buckets instead (~40,000 rows,
 * a few hundred KB, at 10M), each sorted with digits of up to 11 bits while it stays in cache. At 10M
 * rows this sorted a (g, ts) window key in 15-25% less CPU time than five 8-bit LSD passes over the whole
 * array.
 */
const WIDE_TOP_BITS = 8;
const WIDE_BUCKET_MAX = 1 << 18;

/**
 * The two-word sort, top digit first: one stable scatter on the code's top bits (for a window key,
 * about the partition key) into buckets of ~TOP_BUCKET_ROWS rows, then a stable LSD sort of each bucket
 * on the remaining bits with digits of at most 9 bits, whose passes run inside the cache. A whole-array pass costs
 * a cache and TLB miss per row and destination stream; this makes one such pass instead of
 * ceil(bits / 16). Both steps are stable, so the order is that of the LSD sort over all bits. Null
 * (nothing done) when the top digit is the same for every row or a bucket would be too large to stay
 * in cache; the caller then sorts all bits LSD.
 */
function* topDigitFirst(lo: Uint32Array, hi: Uint32Array, n: number, bits: number): Generator<void, { idx: Uint32Array; lo: Uint32Array; hi: Uint32Array } | null> {
  const wide = n >= NARROW_DIGIT_ROWS;
  const top = Math.min(bits - 1, wide ? WIDE_TOP_BITS : 16, Math.max(1, Math.round(Math.log2(n / TOP_BUCKET_ROWS))));
  const rest = bits - top;
  const size = 1 << top;
  const mask = size - 1;
  const where = rest >= 32 ? 1 : rest + top <= 32 ? 0 : 2;
  const counts = new Uint32Array(size + 1);
  for (let s = 0; s < n; s += PIECE) {
    yield;
    histogram(lo, hi, s, Math.min(n, s + PIECE), counts, 0, rest, mask, where);
  }
  let widest = 0;
  for (let d = 0; d < size; d++) if (counts[d]! > widest) widest = counts[d]!;
  if (widest === n || widest > (wide ? WIDE_BUCKET_MAX : TOP_BUCKET_MAX)) return null;
  prefixSums(counts, 0, size);
  // Bucket d spans [start[d], start[d + 1]) once scattered; the scatter advances counts, so keep starts.
  const start = new Uint32Array(size + 1);
  start.set(counts.subarray(0, size));
  start[size] = n;
  let idx: Uint32Array = identityPerm(n);
  // Every bucket makes the same number of passes (none skipped), so all end in the same arrays.
  const passes = Math.ceil(rest / (wide ? 11 : 9));
  const width = Math.ceil(rest / passes);
  if (rest <= 32) {
    // The bits below the top digit lie in lo, and hi is the same for every row of a bucket: only the
    // row numbers and lo are moved (a third less memory traffic per pass), and hi is written per bucket.
    const idx2 = takeU32(n);
    const lo2 = takeU32(n);
    for (let s = 0; s < n; s += PIECE) {
      yield;
      scatterTop(lo, hi, idx, lo2, idx2, s, Math.min(n, s + PIECE), counts, rest, mask, where);
    }
    const bc = new Uint32Array(passes << width);
    // hi of bucket d: the code d * 2^rest + (bits below 2^rest) over 2^32.
    const hiStep = 2 ** (32 - rest);
    let done = 0;
    for (let d = 0; d < size; d++) {
      const from = start[d]!;
      const to = start[d + 1]!;
      if (to > from) {
        sortBucketLo(idx2, lo2, idx, lo, from, to, passes, width, bc);
        hi.fill(Math.floor(d / hiStep), from, to);
      }
      done += to - from;
      if (done >= PIECE) {
        done = 0;
        yield;
      }
    }
    if (passes % 2 === 0) {
      give(idx, lo);
      return { idx: idx2, lo: lo2, hi };
    }
    give(idx2, lo2);
    return { idx, lo, hi };
  }
  const idx2 = takeU32(n);
  const lo2 = takeU32(n);
  const hi2 = takeU32(n);
  for (let s = 0; s < n; s += PIECE) {
    yield;
    scatter64(lo, hi, idx, lo2, hi2, idx2, s, Math.min(n, s + PIECE), counts, 0, rest, mask, where);
  }
  const bc = new Uint32Array(1 << width);
  let done = 0;
  for (let d = 0; d < size; d++) {
    const from = start[d]!;
    const to = start[d + 1]!;
    sortBucket(idx2, lo2, hi2, idx, lo, hi, from, to, passes, width, bc);
    done += to - from;
    if (done >= PIECE) {
      done = 0;
      yield;
    }
  }
  if (passes % 2 === 0) {
    give(idx, lo, hi);
    return { idx: idx2, lo: lo2, hi: hi2 };
  }
  give(idx2, lo2, hi2);
  return { idx, lo, hi };
}

/**
 * Stable LSD passes over rows [from, to) of (idx, lo, hi) on the code's low passes * width bits, moving
 * between those arrays and (idx2, lo2, hi2) at the same positions; after an odd number of passes the
 * rows are in the second set. `counts` holds 2^width counters.
 */
function sortBucket(
  idx: Uint32Array,
  lo: Uint32Array,
  hi: Uint32Array,
  idx2: Uint32Array,
  lo2: Uint32Array,
  hi2: Uint32Array,
  from: number,
  to: number,
  passes: number,
  width: number,
  counts: Uint32Array,
): void {
  const size = 1 << width;
  const mask = size - 1;
  for (let p = 0; p < passes; p++) {
    const shift = p * width;
    const where = shift >= 32 ? 1 : shift + width <= 32 ? 0 : 2;
    counts.fill(0);
    histogram(lo, hi, from, to, counts, 0, shift, mask, where);
    let sum = from;
    for (let d = 0; d < size; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    scatter64(lo, hi, idx, lo2, hi2, idx2, from, to, counts, 0, shift, mask, where);
    let t = idx;
    idx = idx2;
    idx2 = t;
    t = lo;
    lo = lo2;
    lo2 = t;
    t = hi;
    hi = hi2;
    hi2 = t;
  }
}

/** The top-digit scatter when hi need not move (see topDigitFirst): row numbers and lo only. */
function scatterTop(
  lo: Uint32Array,
  hi: Uint32Array,
  idx: Uint32Array,
  lo2: Uint32Array,
  idx2: Uint32Array,
  from: number,
  to: number,
  counts: Uint32Array,
  shift: number,
  mask: number,
  where: number,
): void {
  if (where === 0) {
    for (let i = from; i < to; i++) {
      const x = lo[i]!;
      const at = counts[(x >>> shift) & mask]++;
      idx2[at] = idx[i]!;
      lo2[at] = x;
    }
  } else if (where === 1) {
    const sh = shift - 32;
    for (let i = from; i < to; i++) {
      const at = counts[(hi[i]! >>> sh) & mask]++;
      idx2[at] = idx[i]!;
      lo2[at] = lo[i]!;
    }
  } else {
    const up = 32 - shift;
    for (let i = from; i < to; i++) {
      const x = lo[i]!;
      const at = counts[((x >>> shift) | (hi[i]! << up)) & mask]++;
      idx2[at] = idx[i]!;
      lo2[at] = x;
    }
  }
}

/**
 * sortBucket for digits that all lie in lo: moves (idx, lo) only. One sweep over the bucket counts the
 * digits of every pass (`counts` holds passes * 2^width counters), so each pass just scatters.
 */
function sortBucketLo(idx: Uint32Array, lo: Uint32Array, idx2: Uint32Array, lo2: Uint32Array, from: number, to: number, passes: number, width: number, counts: Uint32Array): void {
  const size = 1 << width;
  const mask = size - 1;
  counts.fill(0);
  if (passes === 3) histogramLo3(lo, from, to, counts, width, mask);
  else for (let p = 0; p < passes; p++) histogramLo(lo, from, to, counts, p * size, p * width, mask);
  for (let p = 0; p < passes; p++) {
    const base = p * size;
    let sum = from;
    for (let d = 0; d < size; d++) {
      const c = counts[base + d]!;
      counts[base + d] = sum;
      sum += c;
    }
    scatterLoOnly(lo, idx, lo2, idx2, from, to, counts, base, p * width, mask);
    let t = idx;
    idx = idx2;
    idx2 = t;
    t = lo;
    lo = lo2;
    lo2 = t;
  }
}

function histogramLo(lo: Uint32Array, from: number, to: number, counts: Uint32Array, base: number, shift: number, mask: number): void {
  for (let i = from; i < to; i++) counts[base + ((lo[i]! >>> shift) & mask)]++;
}

/** The three digit histograms of a bucket in one sweep. */
function histogramLo3(lo: Uint32Array, from: number, to: number, counts: Uint32Array, width: number, mask: number): void {
  const b1 = 1 << width;
  const b2 = 2 << width;
  const w2 = 2 * width;
  for (let i = from; i < to; i++) {
    const x = lo[i]!;
    counts[x & mask]++;
    counts[b1 + ((x >>> width) & mask)]++;
    counts[b2 + ((x >>> w2) & mask)]++;
  }
}

function scatterLoOnly(lo: Uint32Array, idx: Uint32Array, lo2: Uint32Array, idx2: Uint32Array, from: number, to: number, counts: Uint32Array, base: number, shift: number, mask: number): void {
  for (let i = from; i < to; i++) {
    const x = lo[i]!;
    const at = counts[base + ((x >>> shift) & mask)]++;
    idx2[at] = idx[i]!;
    lo2[at] = x;
  }
}
