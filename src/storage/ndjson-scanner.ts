/**
 * Byte-level reading of one newline-delimited JSON record into typed output columns, for records
 * whose values fit the inferred schema: numbers parse straight from the bytes, strings are sliced
 * (decoded through JSON.parse only when they hold a backslash), values of columns the query does
 * not read are checked for syntax and skipped, nested objects and arrays too (read into a text column as
 * their JSON text). Anything else (an integer where the schema wants text, a key with an escape, a
 * syntax error, nesting deeper than 256) makes scanRecord return false, and the caller reads the line
 * the general way, which also gives the precise error.
 */
import { makeColumn, type Column, type ColumnData } from '../common/column.js';
import { storageKind, type DataType, type Field, type Value } from '../common/types.js';
import { mantissaOverPow10 } from './decimal-digits-to-double.js';

/** 10^0 … 10^22: each exact in a double, so mantissa / 10^k is the correctly rounded value. */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
/**
 * Digits accumulate exactly while below 2^53; past it the running value only grows, so a mantissa
 * that stays below 2^53 was exact all along.
 */
const TWO53 = 2 ** 53;

const enum Out {
  Skip = 0,
  Num = 1,
  Int = 2,
  Bool = 3,
  Text = 4,
}

function outKind(t: DataType): Out {
  switch (t.name) {
    case 'int8':
      return Out.Int;
    case 'float8':
      return Out.Num;
    case 'bool':
      return Out.Bool;
    default:
      return Out.Text;
  }
}

/** The output columns of one batch; rows start as NULL and each value written clears its null. */
export class NdjsonColumns {
  readonly data: ColumnData[];
  readonly nulls: Uint8Array[];

  constructor(
    private readonly types: readonly DataType[],
    private readonly capacity: number,
  ) {
    this.data = types.map((t) => this.alloc(t));
    this.nulls = types.map(() => new Uint8Array(capacity).fill(1));
  }

  private alloc(t: DataType): ColumnData {
    switch (storageKind(t)) {
      case 'u8':
        return new Uint8Array(this.capacity);
      case 'f64':
        return new Float64Array(this.capacity);
      default:
        return new Array<Value>(this.capacity).fill(null);
    }
  }

  /** Any engine value (the general path); an int8 beyond 2^53 turns its column into a plain array. */
  set(c: number, r: number, v: Value): void {
    if (v === null) {
      this.nulls[c]![r] = 1;
      return;
    }
    let d = this.data[c]!;
    if (typeof v === 'bigint' && d instanceof Float64Array) {
      d = Array.from(d) as Value[];
      this.data[c] = d;
    }
    if (d instanceof Uint8Array) d[r] = v === true ? 1 : 0;
    else (d as Value[])[r] = v;
    this.nulls[c]![r] = 0;
  }

  finish(n: number): Column[] {
    return this.types.map((t, c) => {
      const nulls = this.nulls[c]!.subarray(0, n);
      const d = this.data[c]!;
      const data = Array.isArray(d) ? (d.length > n ? d.slice(0, n) : d) : d.subarray(0, n);
      if (Array.isArray(data)) for (let r = 0; r < n; r++) if (nulls[r] === 1) data[r] = null;
      return makeColumn(t, data, nulls.indexOf(1) === -1 ? null : nulls);
    });
  }
}

/** ASCII strings up to this length are looked up in NdjsonSchema's cache before a new one is made. */
const SHORT = 24;
const CACHE_SLOTS = 4096;

/** Maps record keys (as raw UTF-8 bytes) to output columns. */
export class NdjsonSchema {
  private readonly keys: Buffer[];
  /** Names whose JSON spelling is their UTF-8 bytes (no quote, backslash or control character). */
  private readonly plainKey: boolean[];
  private readonly byKey = new Map<string, number>();
  /**
   * Fields by a hash of their name's bytes (-1: two names share it). Records whose keys come in
   * another order than the last miss the guessed field on most keys, and decoding each such key to
   * look it up by string cost a quarter of reading them.
   */
  private readonly byHash = new Map<number, number>();
  /** Per field: output column or -1 when the query does not read it. */
  readonly outOf: Int32Array;
  readonly kinds: Out[];

  constructor(fields: readonly Field[], cols: readonly number[]) {
    this.keys = fields.map((f) => Buffer.from(f.name, 'utf8'));
    this.plainKey = this.keys.map((k) => k.every((c) => c >= 32 && c !== 34 && c !== 92));
    // JSON.parse keeps the last of duplicate names; the schema holds each name once.
    fields.forEach((f, i) => this.byKey.set(Buffer.from(f.name, 'utf8').toString('latin1'), i));
    for (const [k, i] of this.byKey) {
      const h = keyHash(Buffer.from(k, 'latin1'), 0, k.length);
      this.byHash.set(h, this.byHash.has(h) ? -1 : i);
    }
    this.outOf = new Int32Array(fields.length).fill(-1);
    cols.forEach((f, o) => (this.outOf[f] = o));
    this.kinds = fields.map((f, i) => (this.outOf[i]! < 0 ? Out.Skip : outKind(f.type)));
    this.colonWords = this.keys.map((k, f) => {
      if (!this.plainKey[f]) return null;
      const pat = Buffer.concat([k, Buffer.from('":')]);
      const words = new Int32Array(Math.ceil(pat.length / 4));
      const padded = Buffer.alloc(words.length * 4);
      pat.copy(padded);
      for (let j = 0; j < words.length; j++) words[j] = padded.readInt32LE(4 * j);
      return words;
    });
    this.colonMask = this.keys.map((k) => {
      const tail = (k.length + 2) % 4;
      return tail === 0 ? -1 : (1 << (8 * tail)) - 1;
    });
  }

  /** Per field, its name followed by '":' as little-endian 32-bit words (the last one zero-padded); null for names that need escaping. */
  private readonly colonWords: (Int32Array | null)[];
  /** The bytes of the last word that belong to the pattern. */
  private readonly colonMask: number[];

  /**
   * The index after the colon when the bytes at s are field `guess`'s name, its closing quote and
   * the colon (compact JSON), compared four bytes at a time; -1 otherwise (then keyAt and field() decide).
   */
  keyColon(dv: DataView, s: number, e: number, guess: number): number {
    const words = this.colonWords[guess];
    if (words === undefined || words === null) return -1;
    const n = words.length;
    const end = s + this.keys[guess]!.length + 2;
    if (end > e || s + 4 * n > dv.byteLength) return -1;
    for (let j = 0; j < n - 1; j++) if (dv.getInt32(s + 4 * j, true) !== words[j]) return -1;
    if ((dv.getInt32(s + 4 * (n - 1), true) & this.colonMask[guess]!) !== words[n - 1]) return -1;
    return end;
  }

  /**
   * Short repeated strings (categories, codes) come back as one string object: no allocation per
   * row, and V8 keeps a string's hash in the object, so grouping and joining on it hash it once.
   */
  private readonly cache: string[] = new Array<string>(CACHE_SLOTS).fill('');

  shortString(b: Buffer, s: number, e: number, hash: number): string {
    const slot = (hash ^ (hash >>> 13)) & (CACHE_SLOTS - 1);
    const c = this.cache[slot]!;
    const n = e - s;
    if (c.length === n) {
      let i = 0;
      while (i < n && c.charCodeAt(i) === b[s + i]) i++;
      if (i === n) return c;
    }
    const str = b.toString('latin1', s, e);
    this.cache[slot] = str;
    return str;
  }

  /** Set by scanRecord: the index of the '\n' ending the record it read (or the input's end). */
  lineEnd = 0;

  /**
   * `guess` when its name is spelled by the bytes at s followed by the closing quote (all before e);
   * -1 otherwise, also for names that need escaping in JSON (then field() decides).
   */
  keyAt(b: Buffer, s: number, e: number, guess: number): number {
    const k = this.keys[guess];
    if (k === undefined || !this.plainKey[guess]) return -1;
    const n = k.length;
    if (s + n >= e || b[s + n] !== 34) return -1;
    for (let j = 0; j < n; j++) if (k[j] !== b[s + j]) return -1;
    return guess;
  }

  /** The fields' names as UTF-8 bytes, in field order. */
  get names(): readonly Buffer[] {
    return this.keys;
  }

  /** Whether field f's name is spelled in JSON by its UTF-8 bytes (no quote, backslash or control character). */
  isPlainKey(f: number): boolean {
    return this.plainKey[f]!;
  }

  keyLength(f: number): number {
    return this.keys[f]!.length;
  }

  /** The field whose name is b[s, e), or -1; `guess` (the field after the previous key) is tried first. */
  field(b: Buffer, s: number, e: number, guess: number): number {
    const k = this.keys[guess];
    if (k !== undefined && k.length === e - s) {
      let i = 0;
      while (i < k.length && k[i] === b[s + i]) i++;
      if (i === k.length) return guess;
    }
    const f = this.byHash.get(keyHash(b, s, e));
    // No name hashes alike: none is spelled by these bytes.
    if (f === undefined) return -1;
    if (f >= 0) {
      const kf = this.keys[f]!;
      if (kf.length === e - s) {
        let i = 0;
        while (i < kf.length && kf[i] === b[s + i]) i++;
        if (i === kf.length) return f;
      }
    }
    return this.byKey.get(b.toString('latin1', s, e)) ?? -1;
  }
}

function keyHash(b: Uint8Array, s: number, e: number): number {
  let h = 0;
  for (let i = s; i < e; i++) h = (Math.imul(h, 31) + b[i]!) | 0;
  return h;
}

// Per value: a string's leading U+FEFF is data, which a default decoder would drop.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whitespace within a line ('\n' ends the record). */
function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/**
 * Where the record that scanRecord read ends: after spaces, the line's '\n' (its index is set in
 * schema.lineEnd), or the end of the input when it is the last one (`final`).
 */
function lineEnd(b: Buffer, i: number, e: number, final: boolean, schema: NdjsonSchema): boolean {
  while (i < e && isWs(b[i]!)) i++;
  if (i < e ? b[i] !== 10 : !final) return false;
  schema.lineEnd = i;
  return true;
}

/** Masks for testing four bytes (a little-endian 32-bit word) for ASCII digits at once. */
const HIGH_NIBBLES = 0xf0f0f0f0 | 0;
const ZEROS = 0x30303030;
const SIXES = 0x06060606;

/**
 * The value of the four ASCII digits in w (little-endian: the first digit in the low byte): pairs
 * combine in one multiply-add, then the two pairs.
 */
function fourDigits(w: number): number {
  const t = w & 0x0f0f0f0f;
  const p = (Math.imul(t, 10) + (t >>> 8)) & 0x00ff00ff;
  return (p & 0xff) * 100 + (p >>> 16);
}

/** The index of the first byte at or after i (before e) that is not an ASCII digit. */
function skipDigits(b: Buffer, dv: DataView, i: number, e: number): number {
  while (i + 4 <= e) {
    const w = dv.getInt32(i, true);
    if ((w & HIGH_NIBBLES) !== ZEROS || ((w + SIXES) & HIGH_NIBBLES) !== ZEROS) break;
    i += 4;
  }
  while (i < e && (b[i]! - 48) >>> 0 <= 9) i++;
  return i;
}

/**
 * The end of the JSON number at s (before e), or -1 when it is malformed or runs into e (the caller
 * then takes the general path, which words the error).
 */
function skipNumber(b: Buffer, dv: DataView, s: number, e: number): number {
  let i = s;
  if (b[i] === 45) i++;
  if (i < e && b[i] === 48) i++;
  else {
    const is = i;
    i = skipDigits(b, dv, i, e);
    if (i === is) return -1;
  }
  if (i < e && b[i] === 46) {
    const fs = ++i;
    i = skipDigits(b, dv, i, e);
    if (i === fs) return -1;
  }
  if (i < e && (b[i] === 101 || b[i] === 69)) {
    i++;
    if (i < e && (b[i] === 43 || b[i] === 45)) i++;
    const es = i;
    while (i < e && (b[i]! - 48) >>> 0 <= 9) i++;
    if (i === es) return -1;
  }
  return i;
}

/** Open containers of the nested value being skipped: 1 an object, 2 an array. */
const nestedStack = new Uint8Array(256);
/** Set by nestedEnd: the value held a byte of 128 or more (its strings must be checked as UTF-8). */
let nestedHigh = false;

/**
 * The end of the JSON object or array at s (before e), checked for syntax as JSON.parse would, or -1
 * when it is malformed, deeper than 256 or runs into e (the caller then takes the general path).
 * Strings' UTF-8 is not checked here: nestedHigh says whether it needs to be.
 */
function nestedEnd(b: Buffer, dv: DataView, s: number, e: number): number {
  let depth = 0;
  let i = s;
  nestedHigh = false;
  // expectValue: a value comes next (else a ',' or a container's end); expectKey: an object key.
  let expectValue = true;
  let expectKey = false;
  for (;;) {
    while (i < e && isWs(b[i]!)) i++;
    if (i >= e) return -1;
    const c = b[i]!;
    if (expectKey) {
      if (c !== 34) return -1;
      i = stringEndChecked(b, i, e);
      if (i < 0) return -1;
      while (i < e && isWs(b[i]!)) i++;
      if (i >= e || b[i] !== 58) return -1;
      i++;
      expectKey = false;
      expectValue = true;
      continue;
    }
    if (expectValue) {
      if (c === 123 || c === 91) {
        if (depth === nestedStack.length) return -1;
        nestedStack[depth++] = c === 123 ? 1 : 2;
        i++;
        while (i < e && isWs(b[i]!)) i++;
        if (i >= e) return -1;
        if (b[i] === (c === 123 ? 125 : 93)) {
          // An empty container.
          depth--;
          i++;
          expectValue = false;
          if (depth === 0) return i;
          continue;
        }
        expectKey = c === 123;
        continue;
      }
      if (c === 34) i = stringEndChecked(b, i, e);
      else if (c === 45 || (c >= 48 && c <= 57)) i = skipNumber(b, dv, i, e);
      else if (c === 116) i = i + 4 <= e && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101 ? i + 4 : -1;
      else if (c === 102) i = i + 5 <= e && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101 ? i + 5 : -1;
      else if (c === 110) i = i + 4 <= e && b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108 ? i + 4 : -1;
      else return -1;
      if (i < 0) return -1;
      expectValue = false;
      continue;
    }
    const top = nestedStack[depth - 1]!;
    if (c === 44) {
      i++;
      expectKey = top === 1;
      expectValue = top === 2;
      continue;
    }
    if (c !== (top === 1 ? 125 : 93)) return -1;
    i++;
    depth--;
    if (depth === 0) return i;
  }
}

/** The end of the JSON string at s (its opening quote), with its escapes checked; -1 when malformed. */
function stringEndChecked(b: Buffer, s: number, e: number): number {
  let i = s + 1;
  while (i < e) {
    const x = b[i]!;
    if (x === 34) return i + 1;
    if (x < 32) return -1;
    if (x >= 128) nestedHigh = true;
    if (x === 92) {
      if (i + 1 >= e) return -1;
      const y = b[i + 1]!;
      if (y === 117) {
        if (i + 6 > e) return -1;
        for (let k = i + 2; k < i + 6; k++) {
          // A digit, or a letter a-f in either case (x | 32 alone would take bytes 16-25 for digits).
          const x = b[k]!;
          const h = x | 32;
          if (!((x >= 48 && x <= 57) || (h >= 97 && h <= 102))) return -1;
        }
        i += 6;
        continue;
      }
      // " \ / b f n r t
      if (y !== 34 && y !== 92 && y !== 47 && y !== 98 && y !== 102 && y !== 110 && y !== 114 && y !== 116) return -1;
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

/**
 * Reads the line starting at s (b[s, e) holds it and possibly more lines; `final`: nothing follows
 * e) into row r, and sets schema.lineEnd to the index of its '\n' (or e). Returns 1 when done, 0 for
 * a blank line, -1 when the caller must take the general path or the line is not complete in b (the
 * row's columns may be partly written). A line is never read past its '\n' (words read four bytes at
 * a time may look past it, within e, but take none of it). dv views the same bytes as b.
 */
export function scanRecord(b: Buffer, dv: DataView, s: number, e: number, final: boolean, schema: NdjsonSchema, out: NdjsonColumns, r: number): number {
  let i = s;
  if (i >= e || b[i] !== 123) {
    while (i < e && isWs(b[i]!)) i++;
    if (i === e || b[i] === 10) return lineEnd(b, i, e, final, schema) ? 0 : -1;
    if (b[i] !== 123) return -1;
  }
  i++;
  if (i < e && b[i] !== 34) while (i < e && isWs(b[i]!)) i++;
  if (i < e && b[i] === 125) {
    i++;
  } else {
    let guess = 0;
    const outData = out.data;
    const outNulls = out.nulls;
    for (;;) {
      if (i >= e || b[i] !== 34) return -1;
      const ks = ++i;
      // Records mostly repeat the sampled key order: the expected key is compared in place, with
      // its colon when the JSON is compact.
      let f = guess;
      const after = schema.keyColon(dv, ks, e, guess);
      if (after >= 0) i = after;
      else {
        f = schema.keyAt(b, ks, e, guess);
        if (f >= 0) i = ks + schema.keyLength(f);
        else {
          while (i < e) {
            const c = b[i]!;
            if (c === 34) break;
            if (c === 92 || c < 32) return -1;
            i++;
          }
          if (i >= e) return -1;
          f = schema.field(b, ks, i, guess);
        }
        i++;
        // Compact JSON (no space around the colon) takes one compare per step.
        if (i < e && b[i] === 58) i++;
        else {
          while (i < e && isWs(b[i]!)) i++;
          if (i >= e || b[i] !== 58) return -1;
          i++;
        }
      }
      if (i < e && isWs(b[i]!)) while (i < e && isWs(b[i]!)) i++;
      if (i >= e) return -1;
      const kind = f < 0 ? Out.Skip : schema.kinds[f]!;
      const o = f < 0 ? -1 : schema.outOf[f]!;
      guess = f + 1;
      const c = b[i]!;
      if (c === 34) {
        const vs = ++i;
        let escaped = false;
        let high = false;
        let hash = 0;
        while (i < e) {
          const x = b[i]!;
          if (x === 34) break;
          if (x === 92) {
            escaped = true;
            i += 2;
            continue;
          }
          if (x < 32) return -1;
          if (x >= 128) high = true;
          hash = (Math.imul(hash, 31) + x) | 0;
          i++;
        }
        if (i >= e) return -1;
        const ve = i++;
        if (kind === Out.Text) {
          let str: string;
          try {
            if (escaped) str = JSON.parse(utf8.decode(b.subarray(vs - 1, ve + 1))) as string;
            else if (high) str = utf8.decode(b.subarray(vs, ve));
            else if (ve - vs <= SHORT) str = schema.shortString(b, vs, ve, hash);
            else str = b.toString('latin1', vs, ve);
          } catch {
            return -1;
          }
          // Text decoded from a NUL escape stays; a raw NUL byte never reaches here (< 32).
          (outData[o] as Value[])[r] = str;
          outNulls[o]![r] = 0;
        } else if (kind !== Out.Skip) {
          return -1;
        } else if (high || escaped) {
          try {
            if (escaped) JSON.parse(utf8.decode(b.subarray(vs - 1, ve + 1)));
            else utf8.decode(b.subarray(vs, ve));
          } catch {
            return -1;
          }
        }
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        if (kind === Out.Skip) {
          // A value the query does not read is only checked for syntax.
          i = skipNumber(b, dv, i, e);
          if (i < 0) return -1;
        } else {
          const ns = i;
          if (c === 45) i++;
          // Four digits at a time where four digits follow (a third of the steps of a byte loop on
          // the 17-digit doubles of shortest round-trip output).
          let mant = 0;
          // The mantissa's low 32 bits, exact where mant is not (see mantissaOverPow10).
          let low = 0;
          let digits = 0;
          if (i < e && b[i] === 48) {
            i++;
            digits = 1;
          } else {
            const is = i;
            while (i + 4 <= e) {
              const w = dv.getInt32(i, true);
              if ((w & HIGH_NIBBLES) !== ZEROS || ((w + SIXES) & HIGH_NIBBLES) !== ZEROS) break;
              const q = fourDigits(w);
              mant = mant * 1e4 + q;
              low = (Math.imul(low, 10000) + q) | 0;
              i += 4;
            }
            while (i < e) {
              const d = b[i]! - 48;
              if (d >>> 0 > 9) break;
              mant = mant * 10 + d;
              low = (Math.imul(low, 10) + d) | 0;
              i++;
            }
            digits = i - is;
            if (digits === 0) return -1;
          }
          let frac = 0;
          if (i < e && b[i] === 46) {
            const fs = ++i;
            while (i + 4 <= e) {
              const w = dv.getInt32(i, true);
              if ((w & HIGH_NIBBLES) !== ZEROS || ((w + SIXES) & HIGH_NIBBLES) !== ZEROS) break;
              const q = fourDigits(w);
              mant = mant * 1e4 + q;
              low = (Math.imul(low, 10000) + q) | 0;
              i += 4;
            }
            while (i < e) {
              const d = b[i]! - 48;
              if (d >>> 0 > 9) break;
              mant = mant * 10 + d;
              low = (Math.imul(low, 10) + d) | 0;
              i++;
            }
            frac = i - fs;
            if (frac === 0) return -1;
          }
          let exp = false;
          if (i < e && (b[i] === 101 || b[i] === 69)) {
            exp = true;
            i++;
            if (i < e && (b[i] === 43 || b[i] === 45)) i++;
            const es = i;
            while (i < e && b[i]! >= 48 && b[i]! <= 57) i++;
            if (i === es) return -1;
          }
          if (kind === Out.Num) {
            let x: number;
            if (!exp && mant < TWO53 && frac <= 22) {
              x = frac === 0 ? mant : mant / POW10[frac]!;
              if (c === 45) x = -x;
            } else {
              // 17 significant digits (shortest round-trip output of many doubles) convert without a second pass.
              x = exp ? NaN : mantissaOverPow10(mant, low, frac);
              if (x !== x) x = Number(b.toString('latin1', ns, i));
              else if (c === 45) x = -x;
            }
            (outData[o] as Float64Array)[r] = x;
            outNulls[o]![r] = 0;
          } else if (kind === Out.Int) {
            if (exp || frac > 0 || mant >= TWO53) return -1;
            // 0 - mant: -0 is no integer (bigint '-0' is 0).
            (outData[o] as Float64Array | Value[])[r] = c === 45 ? 0 - mant : mant;
            outNulls[o]![r] = 0;
          } else {
            return -1;
          }
        }
      } else if (c === 116 || c === 102) {
        const t = c === 116;
        const n = t ? 4 : 5;
        if (i + n > e) return -1;
        if (t ? b[i + 1] !== 114 || b[i + 2] !== 117 || b[i + 3] !== 101 : b[i + 1] !== 97 || b[i + 2] !== 108 || b[i + 3] !== 115 || b[i + 4] !== 101) return -1;
        i += n;
        if (kind === Out.Bool) {
          (outData[o] as Uint8Array)[r] = t ? 1 : 0;
          outNulls[o]![r] = 0;
        } else if (kind !== Out.Skip) {
          return -1;
        }
      } else if (c === 110) {
        if (i + 4 > e || b[i + 1] !== 117 || b[i + 2] !== 108 || b[i + 3] !== 108) return -1;
        i += 4;
        if (o >= 0) outNulls[o]![r] = 1;
      } else if (c === 123 || c === 91) {
        // An object or array: skipped when not read, its JSON text (as JSON.stringify writes it,
        // like the general path) for a text column. Any other column type takes the general path,
        // which words the error.
        if (kind !== Out.Skip && kind !== Out.Text) return -1;
        const vs = i;
        i = nestedEnd(b, dv, i, e);
        if (i < 0) return -1;
        if (kind === Out.Text) {
          try {
            (outData[o] as Value[])[r] = JSON.stringify(JSON.parse(nestedHigh ? utf8.decode(b.subarray(vs, i)) : b.toString('latin1', vs, i)));
          } catch {
            return -1;
          }
          outNulls[o]![r] = 0;
        } else if (nestedHigh) {
          try {
            utf8.decode(b.subarray(vs, i));
          } catch {
            return -1;
          }
        }
      } else {
        return -1;
      }
      if (i >= e) return -1;
      let sep = b[i]!;
      if (sep !== 44 && sep !== 125) {
        while (i < e && isWs(b[i]!)) i++;
        if (i >= e) return -1;
        sep = b[i]!;
      }
      if (sep === 44) {
        i++;
        if (i < e && b[i] !== 34) while (i < e && isWs(b[i]!)) i++;
        continue;
      }
      if (sep === 125) {
        i++;
        break;
      }
      return -1;
    }
  }
  if (i < e && b[i] === 10) {
    schema.lineEnd = i;
    return 1;
  }
  return lineEnd(b, i, e, final, schema) ? 1 : -1;
}
