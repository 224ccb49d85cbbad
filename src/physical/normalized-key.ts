/**
 * Normalized sort keys: every row's ORDER BY key list written as one fixed-width byte string whose
 * unsigned byte order (memcmp order) is the keys' SQL order, directions and NULL placement included.
 * Sorting and Top-N then compare flat bytes (or radix sort on them) instead of calling a comparator on
 * boxed values per pair.
 *
 * Layout per key: one NULL byte (NULLS FIRST: NULL 0, value 1; NULLS LAST: value 0, NULL 1), then the
 * value's image, every image byte inverted for DESC (the NULL byte is not: placement does not follow the
 * direction). Images:
 *   bool                     1 byte
 *   int2, int4               4 bytes, big-endian with the sign bit flipped
 *   int8                     8 bytes, the same over the 64-bit two's complement (number or bigint)
 *   float4/8, date,          8 bytes of the IEEE image: sign bit flipped for positives, every bit for
 *   timestamp(tz)            negatives; one NaN above +Infinity, -0 written as 0 (PostgreSQL's order)
 *   text, varchar, bpchar    UTF-8 bytes (their order is code-point order, which is compareStrings' C
 *                            order), cut at a fixed prefix length and padded with 0 bytes; bpchar
 *                            without its trailing blanks
 *   numeric, interval        an 8-byte double image of the value that never reverses the order
 *
 * Images that do not decide the order alone set the row's `inexact` flag: text longer than the prefix (or
 * holding U+0000, which the padding would hide), numeric (the double rounds), interval beyond 2^52
 * microseconds. Two rows with equal bytes compare equal unless one of them is inexact; then only the full
 * values can tell (the caller's compiled comparator). Rows with different bytes are always ordered by the
 * bytes, because every image is monotone: a < b implies image(a) <= image(b).
 */
import { microsFromPgEpoch } from '../common/datetime-calendar.js';
import type { DataType, Value } from '../common/types.js';
import type { Interval } from '../common/interval.js';
import type { Numeric } from '../common/numeric.js';
import { makeColumn, type Batch, type Column } from '../common/column.js';
import type { SortKey } from './sort-key.js';

export interface NormalizedKeys {
  /** Row r's key occupies bytes [r * width, (r + 1) * width). */
  readonly bytes: Uint8Array;
  readonly width: number;
  readonly rows: number;
  /** 1 where equal bytes do not imply equal keys (see the header); null when no row is inexact. */
  readonly inexact: Uint8Array | null;
  /**
   * Byte offsets where a key that can be inexact ends. Bytes past such an offset may only decide between
   * two rows when neither is inexact: otherwise the full values of the keys so far must be compared first.
   */
  readonly inexactEnds: readonly number[];
}

type ImageKind = 'bool' | 'i32' | 'int8' | 'micros' | 'f64' | 'text' | 'bpchar' | 'numeric' | 'interval';

/** How a type's values are imaged, or null when the type has no normalized key (arrays, json, ...). */
function imageKind(t: DataType): ImageKind | null {
  switch (t.name) {
    case 'bool':
      return 'bool';
    case 'int2':
    case 'int4':
      return 'i32';
    case 'int8':
    case 'money':
      return 'int8';
    case 'timestamp':
    case 'timestamptz':
      // Microseconds: a number, or a bigint past 2^53 (about the year 2255), which a double would round.
      return 'micros';
    case 'float4':
    case 'float8':
    case 'date':
    case 'time':
      return 'f64';
    case 'text':
    case 'varchar':
    case 'name':
    case 'unknown':
      return 'text';
    case 'bpchar':
      return 'bpchar';
    case 'numeric':
      return 'numeric';
    case 'interval':
      return 'interval';
    default:
      return null;
  }
}

/**
 * Whether a key of this type always gets an image that decides its order alone (no `inexact` row):
 * bool, integers, floats and date/time types.
 */
export function exactImage(t: DataType): boolean {
  const kind = imageKind(t);
  return kind === 'bool' || kind === 'i32' || kind === 'int8' || kind === 'micros' || kind === 'f64';
}

/** Default text prefix: enough for most identifiers and short labels to be exact. */
const DEFAULT_TEXT_PREFIX = 16;
/** Longest text prefix a key width may use (width is paid by every row). */
export const MAX_TEXT_PREFIX = 32;

/** Whether every key has a normalized image (the caller keeps its comparator path otherwise). */
export function normalizable(keys: readonly SortKey[]): boolean {
  return keys.length > 0 && keys.every((k) => imageKind(k.type) !== null);
}

function imageBytes(kind: ImageKind, textPrefix: number): number {
  switch (kind) {
    case 'bool':
      return 1;
    case 'i32':
      return 4;
    case 'text':
    case 'bpchar':
      return textPrefix;
    default:
      return 8;
  }
}

/** Bytes per row of the keys with the given text prefix. */
export function keyWidth(keys: readonly SortKey[], textPrefix = DEFAULT_TEXT_PREFIX): number {
  let w = 0;
  for (const k of keys) w += 1 + imageBytes(imageKind(k.type)!, textPrefix);
  return w;
}

/**
 * A text prefix length fitted to the data: one byte more than the longest value's UTF-8 length (so
 * every value is exact, and a value can never fill its prefix) when that is at most MAX_TEXT_PREFIX,
 * else MAX_TEXT_PREFIX. UTF-8 length is bounded by 3 bytes per UTF-16 unit.
 */
export function fitTextPrefix(b: Batch, keys: readonly SortKey[]): number {
  return prefixFor(longestText(b, keys, 0, b.length, 0));
}

/** The prefix width for text keys whose longest value takes `longest` UTF-8 bytes. */
export function prefixFor(longest: number): number {
  return Math.max(1, Math.min(MAX_TEXT_PREFIX, longest + 1));
}

/**
 * The UTF-8 length of the longest text key value in rows [from, to), or `longest` if none is longer
 * (capped at MAX_TEXT_PREFIX): fitTextPrefix over a slice of rows, for callers that scan in slices.
 */
export function longestText(b: Batch, keys: readonly SortKey[], from: number, to: number, longest: number): number {
  if (longest >= MAX_TEXT_PREFIX) return MAX_TEXT_PREFIX;
  for (const k of keys) {
    const kind = imageKind(k.type);
    if (kind !== 'text' && kind !== 'bpchar') continue;
    const c = b.columns[k.col]!;
    const d = c.data as Value[];
    for (let i = from; i < to; i++) {
      const s = d[i];
      // UTF-8 takes at most 3 bytes per UTF-16 unit: only a value that might be longer is measured.
      if (typeof s !== 'string' || s.length * 3 <= longest) continue;
      const n = utf8Length(s);
      if (n > longest) {
        longest = n;
        if (longest >= MAX_TEXT_PREFIX) return MAX_TEXT_PREFIX;
      }
    }
  }
  return longest;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0x80) n += 1;
    else if (u < 0x800) n += 2;
    else if (u >= 0xd800 && u < 0xdc00 && i + 1 < s.length) {
      const v = s.charCodeAt(i + 1);
      if (v >= 0xdc00 && v < 0xe000) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** The high 32 bits (signed) of an int8 held as a number or a bigint. */
export function int8High(v: number | bigint): number {
  // For a number: the floor quotient, exact for every safe integer.
  return typeof v === 'bigint' ? Number(BigInt.asIntN(32, v >> 32n)) : Math.floor(v / 4294967296);
}

/** The low 32 bits (unsigned) of an int8, given its high word. */
export function int8Low(v: number | bigint, hi: number): number {
  return typeof v === 'bigint' ? Number(BigInt.asUintN(32, v)) : v - hi * 4294967296;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
// Little-endian word order (every platform Node runs on).
const HI = 1;
const LO = 0;

/**
 * The normalized keys of rows [from, to) of `b` (row r of the result is row from + r of the batch).
 * `textPrefix` fixes the text image length, so keys built from different batches compare correctly when
 * they share it. Null when a value has no image (text holding a lone surrogate): use the comparator.
 */
export function encodeKeys(
  b: Batch,
  keys: readonly SortKey[],
  textPrefix = DEFAULT_TEXT_PREFIX,
  from = 0,
  to = b.length,
  /** Where to write the keys (at its start, possibly stale: every byte is written); a new array if omitted. */
  into?: Uint8Array,
  /** Text key columns held as UTF-8 bytes (utf8-text-column.ts), by column index: read instead of the batch's. */
  utf8?: ReadonlyMap<number, Utf8Image>,
): NormalizedKeys | null {
  const rows = to - from;
  const width = keyWidth(keys, textPrefix);
  const bytes = into === undefined ? new Uint8Array(rows * width) : into.subarray(0, rows * width);
  // Text images are written up to their value's length, the rest of the prefix must be the 0 padding.
  if (into !== undefined) bytes.fill(0);
  let inexact: Uint8Array | null = null;
  const inexactEnds: number[] = [];
  let off = 0;
  for (const k of keys) {
    const kind = imageKind(k.type);
    if (kind === null) throw new Error(`no normalized key for type ${k.type.name}`);
    const image = utf8?.get(k.col);
    const c = image === undefined ? b.columns[k.col]! : makeColumn(k.type, [], image.nulls);
    const len = imageBytes(kind, textPrefix);
    writeNulls(c, bytes, width, off, from, rows, k.nullsFirst);
    const at = off + 1;
    switch (kind) {
      case 'bool':
        writeBool(c, bytes, width, at, from, rows);
        break;
      case 'i32':
        writeI32(c, bytes, width, at, from, rows);
        break;
      case 'int8':
        writeInt8(c, bytes, width, at, from, rows);
        break;
      case 'micros':
        writeMicros(c, bytes, width, at, from, rows);
        break;
      case 'f64':
        writeF64(c, bytes, width, at, from, rows);
        break;
      case 'text':
      case 'bpchar': {
        if (image !== undefined) {
          inexact = writeUtf8(image, bytes, width, at, len, from, rows, inexact);
          break;
        }
        const x = writeText(c, bytes, width, at, len, from, rows, kind === 'bpchar', inexact);
        if (x === LONE_SURROGATE) return null;
        inexact = x;
        break;
      }
      case 'numeric':
        inexact = writeNumeric(c, bytes, width, at, from, rows, inexact);
        break;
      case 'interval':
        inexact = writeInterval(c, bytes, width, at, from, rows, inexact);
        break;
    }
    if (k.desc) invert(bytes, width, at, len, rows);
    off = at + len;
    if (kind === 'text' || kind === 'bpchar' || kind === 'numeric' || kind === 'interval') inexactEnds.push(off);
  }
  return { bytes, width, rows, inexact, inexactEnds };
}

function isNull(c: Column, i: number): boolean {
  return c.nulls !== null && c.nulls[i] === 1;
}

function writeNulls(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number, nullsFirst: boolean): void {
  const value = nullsFirst ? 1 : 0;
  const nul = nullsFirst ? 0 : 1;
  const nulls = c.nulls;
  for (let r = 0, p = at; r < rows; r++, p += width) bytes[p] = nulls !== null && nulls[from + r] === 1 ? nul : value;
}

function invert(bytes: Uint8Array, width: number, at: number, len: number, rows: number): void {
  for (let r = 0, p = at; r < rows; r++, p += width) for (let j = 0; j < len; j++) bytes[p + j] = 255 - bytes[p + j]!;
}

function writeBool(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number): void {
  const d = c.data;
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    const v = d[from + r];
    bytes[p] = v === 1 || v === true ? 1 : 0;
  }
}

function writeI32(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number): void {
  const d = c.data as Int32Array | Value[];
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    const v = ((d[from + r] as number) ^ 0x80000000) >>> 0;
    bytes[p] = v >>> 24;
    bytes[p + 1] = (v >>> 16) & 255;
    bytes[p + 2] = (v >>> 8) & 255;
    bytes[p + 3] = v & 255;
  }
}

function put64(bytes: Uint8Array, p: number, hi: number, lo: number): void {
  bytes[p] = hi >>> 24;
  bytes[p + 1] = (hi >>> 16) & 255;
  bytes[p + 2] = (hi >>> 8) & 255;
  bytes[p + 3] = hi & 255;
  bytes[p + 4] = lo >>> 24;
  bytes[p + 5] = (lo >>> 16) & 255;
  bytes[p + 6] = (lo >>> 8) & 255;
  bytes[p + 7] = lo & 255;
}

function writeInt8(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number): void {
  const d = c.data as Float64Array | Value[];
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    const v = d[from + r] as number | bigint;
    const hi = int8High(v);
    put64(bytes, p, (hi ^ 0x80000000) >>> 0, int8Low(v, hi) >>> 0);
  }
}

/**
 * Timestamps as the int8 of their microseconds from 2000, as PostgreSQL stores them: counted from 1970
 * the last valid timestamps (294276 AD) pass the int8 range. -infinity and infinity take the int8
 * extremes, as in PostgreSQL (no finite timestamp reaches them).
 */
function writeMicros(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number): void {
  const d = c.data as Float64Array | Value[];
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    const t = d[from + r] as number | bigint;
    if (t === Infinity) put64(bytes, p, 0xffffffff, 0xffffffff);
    else if (t === -Infinity) put64(bytes, p, 0, 0);
    else {
      const v = microsFromPgEpoch(t);
      const hi = int8High(v);
      put64(bytes, p, (hi ^ 0x80000000) >>> 0, int8Low(v, hi) >>> 0);
    }
  }
}

/** The IEEE image of `v` in PostgreSQL's float order (NaN above +Infinity, -0 = 0), written at p. */
function putDouble(bytes: Uint8Array, p: number, v: number): void {
  if (v !== v) v = NaN;
  else if (v === 0) v = 0;
  f64[0] = v;
  let h = u32[HI]!;
  let l = u32[LO]!;
  if (h & 0x80000000) {
    h = ~h;
    l = ~l;
  } else h |= 0x80000000;
  put64(bytes, p, h >>> 0, l >>> 0);
}

function writeF64(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number): void {
  const d = c.data as Float64Array | Value[];
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    putDouble(bytes, p, d[from + r] as number);
  }
}

function writeText(
  c: Column,
  bytes: Uint8Array,
  width: number,
  at: number,
  len: number,
  from: number,
  rows: number,
  bpchar: boolean,
  inexact: Uint8Array | null,
): Uint8Array | null | typeof LONE_SURROGATE {
  const d = c.data as Value[];
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    const s = d[from + r] as string;
    let n = s.length;
    if (bpchar) while (n > 0 && s.charCodeAt(n - 1) === 32) n--;
    // Bytes written so far; `cut` is set when the value does not fit (or holds U+0000).
    let w = 0;
    let cut = false;
    for (let i = 0; i < n; i++) {
      let u = s.charCodeAt(i);
      if (u < 0x80) {
        if (u === 0) cut = true;
        if (w >= len) {
          cut = true;
          break;
        }
        bytes[p + w++] = u;
        continue;
      }
      if (u >= 0xd800 && u < 0xe000) {
        const v = u < 0xdc00 && i + 1 < n ? s.charCodeAt(i + 1) : 0;
        // A lone surrogate has no UTF-8 form whose bytes order it as compareStrings does: no image.
        if (v < 0xdc00 || v >= 0xe000) return LONE_SURROGATE;
        u = 0x10000 + ((u - 0xd800) << 10) + (v - 0xdc00);
        i++;
      }
      let seq: number;
      if (u < 0x800) seq = 2;
      else if (u < 0x10000) seq = 3;
      else seq = 4;
      if (w + seq > len) {
        // The partial sequence's leading bytes still order correctly: write what fits.
        const full = utf8Bytes(u, seq);
        for (let j = 0; j < seq && w < len; j++) bytes[p + w++] = full[j]!;
        cut = true;
        break;
      }
      if (seq === 2) {
        bytes[p + w++] = 0xc0 | (u >>> 6);
        bytes[p + w++] = 0x80 | (u & 63);
      } else if (seq === 3) {
        bytes[p + w++] = 0xe0 | (u >>> 12);
        bytes[p + w++] = 0x80 | ((u >>> 6) & 63);
        bytes[p + w++] = 0x80 | (u & 63);
      } else {
        bytes[p + w++] = 0xf0 | (u >>> 18);
        bytes[p + w++] = 0x80 | ((u >>> 12) & 63);
        bytes[p + w++] = 0x80 | ((u >>> 6) & 63);
        bytes[p + w++] = 0x80 | (u & 63);
      }
    }
    // A value that fills its prefix exactly might be followed by more text in another row with the same
    // prefix: only a value with room to spare (a 0 pad byte) is known to end there.
    if (cut || w === len) {
      inexact ??= new Uint8Array(rows);
      inexact[r] = 1;
    }
  }
  return inexact;
}

const LONE_SURROGATE = 'lone surrogate';

/** A text column's values as UTF-8: row r's bytes are bytes[offsets[r], offsets[r + 1]). */
export interface Utf8Image {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
  readonly nulls: Uint8Array | null;
}

/** writeText for a column already in UTF-8 (no lone surrogates in it, by construction). */
function writeUtf8(image: Utf8Image, bytes: Uint8Array, width: number, at: number, len: number, from: number, rows: number, inexact: Uint8Array | null): Uint8Array | null {
  const { bytes: src, offsets, nulls } = image;
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (nulls !== null && nulls[from + r] === 1) continue;
    const s = offsets[from + r]!;
    const e = offsets[from + r + 1]!;
    const n = e - s;
    let cut = n >= len;
    const m = cut ? len : n;
    for (let j = 0; j < m; j++) {
      const x = src[s + j]!;
      if (x === 0) cut = true;
      bytes[p + j] = x;
    }
    if (cut) {
      inexact ??= new Uint8Array(rows);
      inexact[r] = 1;
    }
  }
  return inexact;
}

const seqScratch = new Uint8Array(4);
function utf8Bytes(u: number, seq: number): Uint8Array {
  if (seq === 2) {
    seqScratch[0] = 0xc0 | (u >>> 6);
    seqScratch[1] = 0x80 | (u & 63);
  } else if (seq === 3) {
    seqScratch[0] = 0xe0 | (u >>> 12);
    seqScratch[1] = 0x80 | ((u >>> 6) & 63);
    seqScratch[2] = 0x80 | (u & 63);
  } else {
    seqScratch[0] = 0xf0 | (u >>> 18);
    seqScratch[1] = 0x80 | ((u >>> 12) & 63);
    seqScratch[2] = 0x80 | ((u >>> 6) & 63);
    seqScratch[3] = 0x80 | (u & 63);
  }
  return seqScratch;
}

function writeNumeric(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number, inexact: Uint8Array | null): Uint8Array | null {
  const d = c.data as Value[];
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    const v = d[from + r] as Numeric;
    // Numeric's own order puts NaN above +Infinity, as the double image does; a correctly rounded
    // conversion never reverses two values, but can merge them.
    putDouble(bytes, p, v.toNumber());
    if (v.isFinite()) {
      inexact ??= new Uint8Array(rows);
      inexact[r] = 1;
    }
  }
  return inexact;
}

const BIG_IMAGE = 2 ** 53;

function writeInterval(c: Column, bytes: Uint8Array, width: number, at: number, from: number, rows: number, inexact: Uint8Array | null): Uint8Array | null {
  const d = c.data as Value[];
  for (let r = 0, p = at; r < rows; r++, p += width) {
    if (isNull(c, from + r)) continue;
    const v = d[from + r] as Interval;
    const n = v.normalized();
    if (!v.isFinite()) {
      putDouble(bytes, p, n);
      continue;
    }
    if (Math.abs(n) < 2 ** 52 && typeof v.micros === 'number') {
      putDouble(bytes, p, n);
      continue;
    }
    // Beyond 2^52 microseconds the double sum may round: the exact value decides the image's side, and
    // the comparator decides among such values.
    const big = v.normalizedBig();
    putDouble(bytes, p, big > 4503599627370496n ? BIG_IMAGE : big < -4503599627370496n ? -BIG_IMAGE : Number(big));
    inexact ??= new Uint8Array(rows);
    inexact[r] = 1;
  }
  return inexact;
}

/** memcmp of two rows' keys from byte `from` on: negative, 0 or positive. */
export function compareKeyBytes(bytes: Uint8Array, width: number, a: number, b: number, from = 0): number {
  let p = a * width + from;
  let q = b * width + from;
  const end = a * width + width;
  for (; p < end; p++, q++) {
    const x = bytes[p]!;
    const y = bytes[q]!;
    if (x !== y) return x - y;
  }
  return 0;
}
