/**
 * Converts the field byte ranges of a CsvScanner into column storage, one column at a time: integers,
 * floats, dates and timestamps straight from the bytes, strings only for text columns. Anything off
 * the fast paths (whitespace, exponents beyond exact range, time zones, other types) goes through
 * parseValue on the field's text, so results and error messages are those of the type's input
 * function.
 */
import { parseValue, type ParseContext } from '../common/parse-value.js';
import { ymdToDays } from '../common/datetime-calendar.js';
import { storageKind, type DataType, type Value } from '../common/types.js';
import { makeColumn, type Column } from '../common/column.js';
import { F_COMPLEX, type CsvScanner } from './csv-scanner.js';
import type { CsvNumberKernel } from './csv-number-kernel.js';
import { decimalDigitsToDouble, mantissaOverPow10 } from './decimal-digits-to-double.js';

const MICROS_PER_DAY = 86_400_000_000;

/** 10^0 … 10^22: every one is exact in a double, which the float fast path relies on. */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

type Fast = 'int4' | 'int2' | 'int8' | 'float8' | 'float4' | 'date' | 'timestamp' | 'bool' | 'text' | 'other';

function fastKind(t: DataType): Fast {
  switch (t.name) {
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float8':
    case 'float4':
    case 'date':
    case 'timestamp':
    case 'bool':
    case 'text':
      return t.name;
    case 'varchar':
    case 'bpchar':
      return t.typmod < 0 ? 'text' : 'other';
    default:
      return 'other';
  }
}

/** True for types read_csv keeps as strings (an empty field is '' there, NULL elsewhere). */
export function isTextType(t: DataType): boolean {
  return t.name === 'text' || ((t.name === 'varchar' || t.name === 'bpchar') && t.typmod < 0);
}

/** One output column of the batch being filled. */
export class ColumnOut {
  readonly kind: ReturnType<typeof storageKind>;
  readonly fast: Fast;
  data: Int32Array | Float64Array | Uint8Array | Value[];
  nulls: Uint8Array | null = null;
  /** Text columns (asciiText): rows whose field needs unquoting, where each one's bytes end, and the bytes. */
  readonly complexRows: Int32Array;
  readonly complexEnds: Int32Array;
  unquoted: Buffer = Buffer.alloc(0);

  constructor(
    readonly type: DataType,
    private readonly capacity: number,
  ) {
    this.kind = storageKind(type);
    this.fast = fastKind(type);
    this.data = this.alloc();
    const textRows = this.fast === 'text' ? capacity : 0;
    this.complexRows = new Int32Array(textRows);
    this.complexEnds = new Int32Array(textRows);
  }

  private alloc(): Int32Array | Float64Array | Uint8Array | Value[] {
    switch (this.kind) {
      case 'i32':
        return new Int32Array(this.capacity);
      case 'f64':
        return new Float64Array(this.capacity);
      case 'u8':
        return new Uint8Array(this.capacity);
      default:
        return new Array<Value>(this.capacity).fill(null);
    }
  }

  setNull(i: number): void {
    this.nulls ??= new Uint8Array(this.capacity);
    this.nulls[i] = 1;
    if (Array.isArray(this.data)) this.data[i] = null;
  }

  /** Stores a value from the general path (may switch an f64 column to plain values for a bigint). */
  set(i: number, v: Value): void {
    if (v === null) {
      this.setNull(i);
      return;
    }
    const d = this.data;
    if (Array.isArray(d)) d[i] = v;
    else if (this.kind === 'u8') d[i] = v === true ? 1 : 0;
    else if (typeof v === 'bigint') {
      const arr: Value[] = Array.from(d as Float64Array);
      arr[i] = v;
      this.data = arr;
    } else d[i] = v as number;
  }

  /** Moves row `from` to row `to` (dropping rejected rows). */
  move(from: number, to: number): void {
    this.data[to] = this.data[from]!;
    if (this.nulls !== null) this.nulls[to] = this.nulls[from]!;
  }

  finish(n: number): Column {
    const d = this.data;
    const data = Array.isArray(d) ? (d.length === n ? d : d.slice(0, n)) : d.length === n ? d : d.slice(0, n);
    const nulls = this.nulls === null ? null : this.nulls.length === n ? this.nulls : this.nulls.slice(0, n);
    const c = makeColumn(this.type, data, nulls);
    this.data = this.alloc();
    this.nulls = null;
    return c;
  }
}

export interface ConvertEnv {
  readonly scanner: CsvScanner;
  /** The NULL string's bytes; unquoted fields equal to it are NULL. */
  readonly nullBytes: Buffer;
  readonly parseCtx: ParseContext;
  /** Whether the bytes scanned last are all ASCII (text decodes as latin1, the fastest path). */
  ascii: boolean;
  /**
   * An empty field of a non-text column is NULL, quoted or not (read_csv). False: only an unquoted
   * field equal to the NULL string is NULL, anything else goes to the type's input (PostgreSQL COPY).
   */
  readonly emptyIsNull: boolean;
  /**
   * The number kernel with the scanned batch loaded (see csv-number-kernel.ts), or null: int and
   * float8 columns then convert only its exception rows here.
   */
  numbers: CsvNumberKernel | null;
  /** A value that does not convert: throws, or returns to have the row dropped. */
  fail(row: number, column: number, e: unknown, text: string): void;
}

interface Latin1Slicer {
  latin1Slice?(start: number, end: number): string;
}

function isNull(env: ConvertEnv, s: number, e: number, fl: number): boolean {
  if (fl !== 0) return false;
  const nb = env.nullBytes;
  const n = nb.length;
  if (e - s !== n) return false;
  const buf = env.scanner.buf;
  for (let k = 0; k < n; k++) if (buf[s + k] !== nb[k]) return false;
  return true;
}

/**
 * Fills `out[at … at+rows)` from token column `col` of the scanner's rows 0 … rows-1.
 */
export function convertColumn(env: ConvertEnv, col: number, out: ColumnOut, at: number, rows: number): void {
  const sc = env.scanner;
  const buf = sc.buf;
  const width = sc.width;
  const starts = sc.starts;
  const ends = sc.ends;
  const flags = sc.flags;
  const nullLen = env.nullBytes.length;
  const lenient = env.emptyIsNull;
  const slow = (r: number, slot: number): void => {
    let text: string;
    try {
      text = sc.fieldText(slot);
    } catch (e) {
      env.fail(r, col, e, '');
      out.setNull(at + r);
      return;
    }
    if (text === '' && out.fast !== 'text' && env.emptyIsNull) {
      out.setNull(at + r);
      return;
    }
    try {
      out.set(at + r, parseValue(text, out.type, env.parseCtx));
    } catch (e) {
      env.fail(r, col, e, text);
      out.setNull(at + r);
    }
  };
  switch (out.fast) {
    case 'text': {
      const data = out.data as Value[];
      const slicer = buf as unknown as Latin1Slicer;
      const latin1 = env.ascii && typeof slicer.latin1Slice === 'function';
      if (latin1) {
        asciiText(sc, col, out, at, rows, env);
        return;
      }
      for (let r = 0; r < rows; r++) {
        const slot = r * width + col;
        const s = starts[slot]!;
        const e = ends[slot]!;
        const fl = flags[slot]!;
        if (fl === 0 && e - s === nullLen && (nullLen === 0 || isNull(env, s, e, fl))) out.setNull(at + r);
        else if ((fl & F_COMPLEX) !== 0) data[at + r] = sc.fieldText(slot, latin1);
        else data[at + r] = latin1 ? slicer.latin1Slice!(s, e) : buf.toString('utf8', s, e);
      }
      return;
    }
    case 'int4':
    case 'int2':
    case 'int8': {
      // Re-read after the general path: a bigint switches an int8 column to plain values.
      let data = out.data as Int32Array | Float64Array;
      const maxDigits = out.fast === 'int8' ? 15 : out.fast === 'int4' ? 9 : 4;
      const k = Array.isArray(out.data) ? null : env.numbers;
      const n = k === null ? rows : k.run(col, rows, maxDigits);
      if (k !== null) data.set(k.values.subarray(0, rows), at);
      for (let x = 0; x < n; x++) {
        const r = k === null ? x : k.exceptions[x]!;
        const slot = r * width + col;
        let s = starts[slot]!;
        const e = ends[slot]!;
        const fl = flags[slot]!;
        if (lenient ? e === s || (nullLen > 0 && isNull(env, s, e, fl)) : isNull(env, s, e, fl)) {
          out.setNull(at + r);
          continue;
        }
        if ((fl & F_COMPLEX) !== 0) {
          slow(r, slot);
          continue;
        }
        let neg = false;
        const c0 = buf[s]!;
        if (c0 === 45 || c0 === 43) {
          neg = c0 === 45;
          s++;
        }
        const nd = e - s;
        let v = 0;
        let ok = nd > 0 && nd <= maxDigits;
        for (let k = s; ok && k < e; k++) {
          const d = buf[k]! - 48;
          if (d < 0 || d > 9) ok = false;
          else v = v * 10 + d;
        }
        // 0 - v, not -v: an int8 column (doubles) must not hold a negative zero.
        if (ok) data[at + r] = neg ? 0 - v : v;
        else {
          slow(r, slot);
          data = out.data as Int32Array | Float64Array;
        }
      }
      return;
    }
    case 'float8':
    case 'float4': {
      const data = out.data as Float64Array;
      const f4 = out.fast === 'float4';
      const k = f4 || Array.isArray(out.data) ? null : env.numbers;
      const n = k === null ? rows : k.run(col, rows, 0);
      if (k !== null) data.set(k.values.subarray(0, rows), at);
      for (let x = 0; x < n; x++) {
        const r = k === null ? x : k.exceptions[x]!;
        const slot = r * width + col;
        const s = starts[slot]!;
        const e = ends[slot]!;
        const fl = flags[slot]!;
        if (lenient ? e === s || (nullLen > 0 && isNull(env, s, e, fl)) : isNull(env, s, e, fl)) {
          out.setNull(at + r);
          continue;
        }
        let v = NaN;
        if ((fl & F_COMPLEX) === 0) {
          v = shortDecimal(buf, s, e);
          if (v !== v) v = parseFloatBytes(buf, s, e, sc);
        }
        // NaN marks "not on the fast path" (a literal NaN goes the slow way too).
        if (v !== v) {
          slow(r, slot);
          continue;
        }
        if (f4) {
          const f = Math.fround(v);
          if (!Number.isFinite(f) || (f === 0 && v !== 0)) slow(r, slot);
          else data[at + r] = f;
        } else data[at + r] = v;
      }
      return;
    }
    case 'date':
    case 'timestamp': {
      let data = out.data as Float64Array;
      const isDate = out.fast === 'date';
      for (let r = 0; r < rows; r++) {
        const slot = r * width + col;
        const s = starts[slot]!;
        const e = ends[slot]!;
        const fl = flags[slot]!;
        if (lenient ? e === s || (nullLen > 0 && isNull(env, s, e, fl)) : isNull(env, s, e, fl)) {
          out.setNull(at + r);
          continue;
        }
        const v = (fl & F_COMPLEX) !== 0 ? NaN : isDate ? parseDateBytes(buf, s, e) : parseTimestampBytes(buf, s, e);
        if (v !== v) {
          slow(r, slot);
          data = out.data as Float64Array;
        } else data[at + r] = v;
      }
      return;
    }
    default: {
      // bool, numeric, timestamptz, interval, typmod'd strings, …: the type's input function.
      const isBool = out.fast === 'bool';
      for (let r = 0; r < rows; r++) {
        const slot = r * width + col;
        const s = starts[slot]!;
        const e = ends[slot]!;
        const fl = flags[slot]!;
        // Outside text types an empty field is NULL, quoted or not.
        if (lenient ? e === s || (nullLen > 0 && isNull(env, s, e, fl)) : isNull(env, s, e, fl)) {
          out.setNull(at + r);
          continue;
        }
        if (isBool && (fl & F_COMPLEX) === 0) {
          const b = parseBoolBytes(buf, s, e);
          if (b !== -1) {
            (out.data as Uint8Array)[at + r] = b;
            continue;
          }
        }
        slow(r, slot);
      }
    }
  }
}

/**
 * Longest stretch of bytes decoded at once for the strings of an ASCII text column (see asciiText).
 * A string cut from a stretch keeps the stretch alive while it lives; at this size that costs little,
 * the same bound the string functions allow their pieces (support/text.ts, detach).
 */
const TEXT_STRETCH = 512;

/**
 * An ASCII text column: one decode per stretch of up to TEXT_STRETCH bytes, and each field's string
 * cut from it with substring, a JS builtin. A decode per field (a native call and a copy each) cost
 * three times as much for fields of a few dozen bytes. Fields that need unquoting are unquoted one
 * after another into a scratch buffer and cut from stretches of that the same way.
 */
function asciiText(sc: CsvScanner, col: number, out: ColumnOut, at: number, rows: number, env: ConvertEnv): void {
  const buf = sc.buf;
  const slicer = buf as unknown as Required<Latin1Slicer>;
  const limit = sc.scannedTo;
  const width = sc.width;
  const starts = sc.starts;
  const ends = sc.ends;
  const flags = sc.flags;
  const nullLen = env.nullBytes.length;
  const data = out.data as Value[];
  let from = 0;
  let to = -1;
  let stretch = '';
  let complex = 0;
  for (let r = 0; r < rows; r++) {
    const slot = r * width + col;
    const s = starts[slot]!;
    const e = ends[slot]!;
    const fl = flags[slot]!;
    if (fl === 0 && e - s === nullLen && (nullLen === 0 || isNull(env, s, e, fl))) out.setNull(at + r);
    else if ((fl & F_COMPLEX) !== 0) out.complexRows[complex++] = r;
    else {
      if (e > to || s < from) {
        from = s;
        to = e - s >= TEXT_STRETCH ? e : Math.min(limit, s + TEXT_STRETCH);
        stretch = slicer.latin1Slice(from, to);
      }
      data[at + r] = stretch.substring(s - from, e - from);
    }
  }
  if (complex === 0) return;
  // Unquoted bytes of the fields with doubled quotes or escapes, back to back.
  let need = 0;
  for (let k = 0; k < complex; k++) {
    const slot = out.complexRows[k]! * width + col;
    need += ends[slot]! - starts[slot]!;
  }
  if (out.unquoted.length < need) out.unquoted = Buffer.allocUnsafe(Math.max(need, out.unquoted.length * 2));
  const u = out.unquoted;
  const ends2 = out.complexEnds;
  let n = 0;
  for (let k = 0; k < complex; k++) {
    n = sc.unquoteTo(out.complexRows[k]! * width + col, u, n);
    ends2[k] = n;
  }
  const us = u as unknown as Required<Latin1Slicer>;
  from = 0;
  to = -1;
  let s = 0;
  for (let k = 0; k < complex; k++) {
    const e = ends2[k]!;
    if (e > to) {
      from = s;
      to = e - s >= TEXT_STRETCH ? e : Math.min(n, s + TEXT_STRETCH);
      stretch = us.latin1Slice(from, to);
    }
    data[at + out.complexRows[k]!] = stretch.substring(s - from, e - from);
    s = e;
  }
}

/** t/f/true/false in either case; -1 for anything else (the general parser decides). */
function parseBoolBytes(buf: Uint8Array, s: number, e: number): number {
  const c = buf[s]! | 0x20;
  if (e - s === 1) return c === 0x74 ? 1 : c === 0x66 ? 0 : -1;
  if (e - s === 4 && c === 0x74 && (buf[s + 1]! | 0x20) === 0x72 && (buf[s + 2]! | 0x20) === 0x75 && (buf[s + 3]! | 0x20) === 0x65) return 1;
  if (e - s === 5 && c === 0x66 && (buf[s + 1]! | 0x20) === 0x61 && (buf[s + 2]! | 0x20) === 0x6c && (buf[s + 3]! | 0x20) === 0x73 && (buf[s + 4]! | 0x20) === 0x65) return 0;
  return -1;
}

/**
 * [-]digits[.digits] in at most 24 characters, the common shape of a CSV's decimals; NaN for anything
 * else. Small enough to be inlined into the column loop (parseFloatBytes is not, and its call was a
 * tenth of reading a column of short prices). A mantissa below 2^53 and a power of ten (at most 10^22)
 * are exact, so the one division rounds correctly; digits accumulate exactly while below 2^53, and
 * past it the running value only grows, so a mantissa under the bound was exact all along. Longer
 * mantissas (17 significant digits: shortest round-trip output writes them for a third of all
 * doubles) keep their low 32 bits exactly beside the running value, and mantissaOverPow10 rounds from
 * those in the same pass; going back over the bytes for them cost a third of the column's time.
 */
function shortDecimal(buf: Uint8Array, s: number, e: number): number {
  let i = s;
  const neg = buf[i] === 45;
  if (neg) i++;
  const n = e - i;
  if (n === 0 || n > 24) return NaN;
  let m = 0;
  let low = 0;
  // Integer digits, then (after a point) fraction digits: two tight loops, no test for the point per digit.
  let d = 0;
  for (; i < e; i++) {
    d = buf[i]! - 48;
    if (d >>> 0 > 9) break;
    m = m * 10 + d;
    low = (Math.imul(low, 10) + d) | 0;
  }
  let scale = 0;
  if (i < e) {
    // A lone point is left to the full parser.
    if (d !== -2 || n === 1) return NaN;
    const point = i++;
    for (; i < e; i++) {
      d = buf[i]! - 48;
      if (d >>> 0 > 9) return NaN;
      m = m * 10 + d;
      low = (Math.imul(low, 10) + d) | 0;
    }
    scale = e - point - 1;
  }
  let v: number;
  if (m < 9007199254740992 && scale <= 22) v = scale === 0 ? m : m / POW10[scale]!;
  else {
    v = mantissaOverPow10(m, low, scale);
    if (v !== v) return NaN;
  }
  return neg ? -v : v;
}

/**
 * [+-]digits[.digits][e[+-]digits]. With a mantissa below 2^53 and a decimal exponent within ±22,
 * mantissa and power of ten are exact doubles and one multiply or divide rounds correctly (Clinger's
 * fast path), so the result equals Number(text); other valid numbers go through Number(text). NaN
 * for anything else (the general parser then decides: whitespace, NaN, Infinity, hex, errors).
 */
export function parseFloatBytes(buf: Uint8Array, s: number, e: number, sc: CsvScanner): number {
  let i = s;
  const c0 = buf[i]!;
  const neg = c0 === 45;
  if (neg || c0 === 43) i++;
  let m = 0;
  const intStart = i;
  while (i < e) {
    const d = buf[i]! - 48;
    if (d >>> 0 > 9) break;
    m = m * 10 + d;
    i++;
  }
  let digits = i - intStart;
  let scale = 0;
  if (i < e && buf[i] === 46) {
    i++;
    const fracStart = i;
    while (i < e) {
      const d = buf[i]! - 48;
      if (d >>> 0 > 9) break;
      m = m * 10 + d;
      i++;
    }
    scale = fracStart - i;
    digits += i - fracStart;
  }
  if (digits === 0) return NaN;
  const mantEnd = i;
  if (i < e) {
    if ((buf[i]! | 0x20) !== 0x65) return NaN;
    i++;
    let eneg = false;
    if (i < e && (buf[i] === 45 || buf[i] === 43)) {
      eneg = buf[i] === 45;
      i++;
    }
    const xStart = i;
    let x = 0;
    while (i < e && i - xStart < 5) {
      const d = buf[i]! - 48;
      if (d >>> 0 > 9) break;
      x = x * 10 + d;
      i++;
    }
    if (i === xStart || i !== e) return NaN;
    scale += eneg ? -x : x;
  }
  // The mantissa is exact while below 2^53 (rounding is monotonic, so a computed m under the bound
  // means every step was exact); 16-digit mantissas mostly are.
  if (m >= 9007199254740992 || scale > 22 || scale < -22) {
    // 17 significant digits (shortest round-trip output of many doubles) still convert from the bytes.
    if (scale < 0) {
      const x = decimalDigitsToDouble(buf, intStart, mantEnd, digits, -scale, m);
      if (x === x) return neg ? -x : x;
    }
    // Valid syntax, but not exact by the fast paths: the string conversion rounds correctly.
    const v = Number(sc.latin1(s, e));
    return Number.isFinite(v) && (v !== 0 || m === 0) ? v : NaN;
  }
  const v = scale === 0 ? m : scale > 0 ? m * POW10[scale]! : m / POW10[-scale]!;
  return neg ? -v : v;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function monthDays(y: number, m: number): number {
  return m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : MONTH_DAYS[m - 1]!;
}

function digits2(buf: Uint8Array, i: number): number {
  const a = buf[i]! - 48;
  const b = buf[i + 1]! - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** Days since 1970-01-01 from YYYY-MM-DD (year 1 … 9999); NaN otherwise. */
export function parseDateBytes(buf: Uint8Array, s: number, e: number): number {
  if (e - s !== 10 || buf[s + 4] !== 45 || buf[s + 7] !== 45) return NaN;
  const y1 = digits2(buf, s);
  const y2 = digits2(buf, s + 2);
  const mo = digits2(buf, s + 5);
  const d = digits2(buf, s + 8);
  if (y1 < 0 || y2 < 0 || mo < 1 || mo > 12 || d < 1) return NaN;
  const y = y1 * 100 + y2;
  if (y === 0 || d > monthDays(y, mo)) return NaN;
  return ymdToDays(y, mo, d);
}

/** Microseconds since 1970 from YYYY-MM-DD[ T]HH:MM:SS[.ffffff]; NaN otherwise or when not exact. */
export function parseTimestampBytes(buf: Uint8Array, s: number, e: number): number {
  const n = e - s;
  if (n < 19 || n > 26 || n === 20) return NaN;
  const sep = buf[s + 10];
  if ((sep !== 32 && sep !== 84) || buf[s + 13] !== 58 || buf[s + 16] !== 58) return NaN;
  const days = parseDateBytes(buf, s, s + 10);
  if (days !== days) return NaN;
  const h = digits2(buf, s + 11);
  const mi = digits2(buf, s + 14);
  const sec = digits2(buf, s + 17);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return NaN;
  let us = 0;
  if (n > 19) {
    if (buf[s + 19] !== 46) return NaN;
    let scale = 100_000;
    for (let k = s + 20; k < e; k++) {
      const d = buf[k]! - 48;
      if (d < 0 || d > 9) return NaN;
      us += d * scale;
      scale /= 10;
    }
  }
  const v = days * MICROS_PER_DAY + ((h * 60 + mi) * 60 + sec) * 1_000_000 + us;
  return Number.isSafeInteger(v) ? v : NaN;
}

