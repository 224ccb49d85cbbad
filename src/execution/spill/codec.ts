/**
 * Binary encoding of one Batch for spill files: columnar, so writing and reading cost a memcpy per typed
 * column instead of per-value work.
 *
 * Frame:   u32 payload bytes | u8 flags (bit 0: payload is raw-deflated) | payload
 * Payload: u32 rows | u16 columns | per column: u8 kind | u8 has-nulls | [rows null bytes] | data
 *   kind 0 u8 / 1 i32 / 2 f64: the typed array's bytes as they are in memory (little-endian, every
 *          platform Node runs on)
 *   kind 5 ascii text: u32[rows] string lengths, then the strings' bytes, written and read as one
 *          Latin-1 string per column (one native call per column instead of one per value; per-value
 *          calls dominated spill time). ASCII is also UTF-8, so the common case is plain UTF-8 on disk.
 *   kind 3 other text: u32[rows] lengths in UTF-16 code units, then the column as one UTF-16LE string:
 *          lossless for every JavaScript string, including lone surrogates that UTF-8 cannot carry
 *          (null rows have length 0)
 *   kind 4 values: per row a tag byte and the value (plain arrays that hold numbers, bigints, Numeric,
 *          Interval: int8 columns widened past 2^53, numeric, interval)
 *   kind 6 scaled numeric (scaledNumericColumn): u8 scale, then the unscaled doubles as kind 2 writes
 *          them; read back in the same form, so no Numeric is built to write or read it
 *
 * The column's DataType is not stored: a run is always read back by the operator that wrote it, with
 * the same schema.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Interval } from '../../common/interval.js';
import { TimeTz } from '../../common/time-of-day.js';
import { Numeric } from '../../common/numeric.js';
import { type, type DataType, type TypeName, type Value } from '../../common/types.js';
import { Point } from '../../common/point.js';
import { RecordValue } from '../../common/record-value.js';
import { makeColumn, scaledNumbers, scaledNumericColumn, type Batch, type Column, type ColumnData, type ScaledNumbers } from '../../common/column.js';

export const FRAME_HEADER = 5;

const K_U8 = 0;
const K_I32 = 1;
const K_F64 = 2;
const K_TEXT = 3;
const K_VALUES = 4;
const K_ASCII = 5;
const K_SCALED = 6;

const T_NULL = 0;
const T_TRUE = 1;
const T_FALSE = 2;
const T_NUMBER = 3;
const T_BIGINT = 4;
const T_STRING = 5;
const T_NUMERIC = 6;
const T_INTERVAL = 7;
/** An interval whose time field is beyond 2^53 µs: that field as an int64. */
const T_INTERVAL_BIG = 8;
/** timetz: its time of day and offset as two doubles. */
const T_TIMETZ = 9;
/** An array: u32 element count, then each element as a tagged value. */
const T_ARRAY = 10;
/** A record: u16 field count, then per field its type (name string, i32 typmod) and tagged value. */
const T_RECORD = 11;
/** A point: x and y as two doubles. */
const T_POINT = 12;

function isTextColumn(d: Value[], n: number): boolean {
  for (let i = 0; i < n; i++) {
    const v = d[i];
    if (v !== null && v !== undefined && typeof v !== 'string') return false;
  }
  return true;
}

/** A scaled numeric column's doubles when its scale fits kind 6's byte (any Parquet DECIMAL's does). */
function scaledForm(c: Column): ScaledNumbers | null {
  const sn = scaledNumbers(c);
  return sn !== null && sn.scale >= 0 && sn.scale <= 255 ? sn : null;
}

/** Upper bound of the encoded size of a generic value (strings: 3 UTF-8 bytes per UTF-16 unit). */
function valueBound(v: Value | undefined): number {
  if (v === null || v === undefined || typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 9;
  if (typeof v === 'string') return 5 + v.length * 2;
  if (typeof v === 'bigint') return 5 + 2 * (v.toString().length + 1);
  if (v instanceof Numeric) return 1 + 1 + 4 + 4 + 2 * (v.coef.toString().length + 1);
  if (Array.isArray(v)) {
    let n = 5;
    for (const e of v as readonly Value[]) n += valueBound(e);
    return n;
  }
  if (v instanceof RecordValue) {
    let n = 3;
    v.fields.forEach((f, i) => (n += 4 + 2 * v.types[i]!.name.length + 4 + valueBound(f)));
    return n;
  }
  return 25;
}

/** Encodes `b` as one frame (header included). */
export function encodeBatch(b: Batch, compress: boolean): Buffer {
  const n = b.length;
  let bound = 6;
  const textCol: boolean[] = [];
  /** Text columns that are pure ASCII: their values joined (null rows contribute ''). */
  const ascii: (string | null)[] = [];
  for (const c of b.columns) {
    bound += 2 + (c.nulls !== null ? n : 0);
    if (scaledForm(c) !== null) {
      bound += 1 + 8 * n;
      textCol.push(false);
      ascii.push(null);
      continue;
    }
    const d = c.data;
    if (!Array.isArray(d)) {
      bound += n * d.BYTES_PER_ELEMENT;
      textCol.push(false);
      ascii.push(null);
      continue;
    }
    const text = isTextColumn(d, n);
    textCol.push(text);
    let joined: string | null = null;
    if (text) {
      joined = (d.length === n ? d : d.slice(0, n)).join('');
      if (Buffer.byteLength(joined, 'utf8') !== joined.length) joined = null;
    }
    ascii.push(joined);
    if (joined !== null) {
      bound += 4 * n + joined.length;
    } else if (text) {
      bound += 4 * n;
      for (let i = 0; i < n; i++) {
        const s = d[i] as string | null | undefined;
        if (typeof s === 'string') bound += s.length * 2;
      }
    } else {
      for (let i = 0; i < n; i++) bound += valueBound(d[i]);
    }
  }
  const buf = Buffer.allocUnsafe(FRAME_HEADER + bound);
  let o = FRAME_HEADER;
  buf.writeUInt32LE(n, o);
  buf.writeUInt16LE(b.columns.length, o + 4);
  o += 6;
  b.columns.forEach((c, ci) => {
    const sn = scaledForm(c);
    if (sn !== null) {
      buf[o++] = K_SCALED;
      buf[o++] = c.nulls !== null ? 1 : 0;
      if (c.nulls !== null) {
        buf.set(c.nulls.subarray(0, n), o);
        o += n;
      }
      buf[o++] = sn.scale;
      buf.set(new Uint8Array(sn.unscaled.buffer, sn.unscaled.byteOffset, 8 * n), o);
      o += 8 * n;
      return;
    }
    const d = c.data;
    const joined = ascii[ci] ?? null;
    const kind =
      d instanceof Uint8Array ? K_U8 : d instanceof Int32Array ? K_I32 : d instanceof Float64Array ? K_F64 : joined !== null ? K_ASCII : textCol[ci] ? K_TEXT : K_VALUES;
    buf[o++] = kind;
    buf[o++] = c.nulls !== null ? 1 : 0;
    if (c.nulls !== null) {
      buf.set(c.nulls.subarray(0, n), o);
      o += n;
    }
    if (!Array.isArray(d)) {
      const bytes = n * d.BYTES_PER_ELEMENT;
      buf.set(new Uint8Array(d.buffer, d.byteOffset, bytes), o);
      o += bytes;
    } else if (kind === K_ASCII) {
      // Lengths go through a Uint32Array and one copy: per-value writeUInt32LE calls cost more than the data.
      const lens = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const v = d[i];
        lens[i] = typeof v === 'string' ? v.length : 0;
      }
      buf.set(new Uint8Array(lens.buffer), o);
      o += 4 * n;
      o += buf.write(joined!, o, 'latin1');
    } else if (kind === K_TEXT) {
      const lens = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const v = d[i];
        lens[i] = typeof v === 'string' ? v.length : 0;
      }
      buf.set(new Uint8Array(lens.buffer), o);
      o += 4 * n;
      o += buf.write((d.length === n ? d : d.slice(0, n)).join(''), o, 'utf16le');
    } else {
      for (let i = 0; i < n; i++) o = writeValue(buf, o, d[i] ?? null);
    }
  });
  let frame = buf.subarray(0, o);
  let flags = 0;
  if (compress) {
    const z = deflateRawSync(frame.subarray(FRAME_HEADER), { level: 1 });
    const out = Buffer.allocUnsafe(FRAME_HEADER + z.length);
    z.copy(out, FRAME_HEADER);
    frame = out;
    flags = 1;
  }
  frame.writeUInt32LE(frame.length - FRAME_HEADER, 0);
  frame[4] = flags;
  return frame;
}

/** u32 byte length + bytes; UTF-16LE so that any JavaScript string survives (see kind 3). */
function writeStr(buf: Buffer, o: number, s: string): number {
  const w = buf.write(s, o + 4, 'utf16le');
  buf.writeUInt32LE(w, o);
  return o + 4 + w;
}

function writeValue(buf: Buffer, o: number, v: Value): number {
  if (v === null) {
    buf[o] = T_NULL;
    return o + 1;
  }
  if (typeof v === 'boolean') {
    buf[o] = v ? T_TRUE : T_FALSE;
    return o + 1;
  }
  if (typeof v === 'number') {
    buf[o] = T_NUMBER;
    buf.writeDoubleLE(v, o + 1);
    return o + 9;
  }
  if (typeof v === 'string') {
    buf[o] = T_STRING;
    return writeStr(buf, o + 1, v);
  }
  if (typeof v === 'bigint') {
    buf[o] = T_BIGINT;
    return writeStr(buf, o + 1, v.toString());
  }
  if (v instanceof Numeric) {
    buf[o] = T_NUMERIC;
    buf[o + 1] = v.special;
    buf.writeInt32LE(v.scale, o + 2);
    return writeStr(buf, o + 6, v.coef.toString());
  }
  if (v instanceof Interval) {
    buf[o] = typeof v.micros === 'bigint' ? T_INTERVAL_BIG : T_INTERVAL;
    buf.writeDoubleLE(v.months, o + 1);
    buf.writeDoubleLE(v.days, o + 9);
    if (typeof v.micros === 'bigint') buf.writeBigInt64LE(v.micros, o + 17);
    else buf.writeDoubleLE(v.micros, o + 17);
    return o + 25;
  }
  if (v instanceof TimeTz) {
    buf[o] = T_TIMETZ;
    buf.writeDoubleLE(v.micros, o + 1);
    buf.writeDoubleLE(v.offset, o + 9);
    return o + 17;
  }
  if (v instanceof Point) {
    buf[o] = T_POINT;
    buf.writeDoubleLE(v.x, o + 1);
    buf.writeDoubleLE(v.y, o + 9);
    return o + 17;
  }
  if (Array.isArray(v)) {
    const a = v as readonly Value[];
    buf[o] = T_ARRAY;
    buf.writeUInt32LE(a.length, o + 1);
    let at = o + 5;
    for (const e of a) at = writeValue(buf, at, e);
    return at;
  }
  if (v instanceof RecordValue) {
    buf[o] = T_RECORD;
    buf.writeUInt16LE(v.fields.length, o + 1);
    let at = o + 3;
    v.fields.forEach((f, i) => {
      const t = v.types[i]!;
      at = writeStr(buf, at, t.name);
      buf.writeInt32LE(t.typmod, at);
      at = writeValue(buf, at + 4, f);
    });
    return at;
  }
  throw new Error(`spill: cannot encode value of type ${typeof v}`);
}

/** u32 lengths at `o`, copied out (the payload offset is not 4-byte aligned). */
function readLengths(p: Buffer, o: number, n: number): Uint32Array {
  const lens = new Uint32Array(n);
  new Uint8Array(lens.buffer).set(p.subarray(o, o + 4 * n));
  return lens;
}

const SPECIAL_NUMERIC = [null, Numeric.NaN, Numeric.POSITIVE_INFINITY, Numeric.NEGATIVE_INFINITY] as const;

/** Decodes a frame's payload (without its header) into a batch of the given column types. */
export function decodeBatch(payloadIn: Buffer, flags: number, types: readonly DataType[]): Batch {
  const p = (flags & 1) === 1 ? inflateRawSync(payloadIn) : payloadIn;
  const n = p.readUInt32LE(0);
  const nc = p.readUInt16LE(4);
  if (nc !== types.length) throw new Error(`spill: frame has ${nc} columns, expected ${types.length}`);
  let o = 6;
  const columns: Column[] = [];
  for (let ci = 0; ci < nc; ci++) {
    const kind = p[o++]!;
    const hasNulls = p[o++] === 1;
    let nulls: Uint8Array | null = null;
    if (hasNulls) {
      nulls = new Uint8Array(n);
      nulls.set(p.subarray(o, o + n));
      o += n;
    }
    if (kind === K_SCALED) {
      const scale = p[o++]!;
      const arr = new Float64Array(n);
      new Uint8Array(arr.buffer).set(p.subarray(o, o + 8 * n));
      o += 8 * n;
      columns.push(scaledNumericColumn(types[ci]!, arr, scale, nulls));
      continue;
    }
    let data: ColumnData;
    switch (kind) {
      case K_U8:
      case K_I32:
      case K_F64: {
        const arr = kind === K_U8 ? new Uint8Array(n) : kind === K_I32 ? new Int32Array(n) : new Float64Array(n);
        const bytes = n * arr.BYTES_PER_ELEMENT;
        // Copy rather than view: the payload offset is not aligned for Int32Array/Float64Array.
        new Uint8Array(arr.buffer).set(p.subarray(o, o + bytes));
        o += bytes;
        data = arr;
        break;
      }
      case K_TEXT:
      case K_ASCII: {
        const out = new Array<Value>(n);
        const lens = readLengths(p, o, n);
        let total = 0;
        for (let i = 0; i < n; i++) total += lens[i]!;
        const width = kind === K_TEXT ? 2 : 1;
        const all = p.toString(kind === K_TEXT ? 'utf16le' : 'latin1', o + 4 * n, o + 4 * n + total * width);
        let at = 0;
        for (let i = 0; i < n; i++) {
          const len = lens[i]!;
          if (nulls !== null && nulls[i] === 1) out[i] = null;
          else out[i] = all.substring(at, at + len);
          at += len;
        }
        o += 4 * n + total * width;
        data = out;
        break;
      }
      case K_VALUES: {
        const out = new Array<Value>(n);
        for (let i = 0; i < n; i++) {
          const [v, next] = readValue(p, o);
          out[i] = v;
          o = next;
        }
        data = out;
        break;
      }
      case K_VALUES: {
        const out = new Array<Value>(n);
        for (let i = 0; i < n; i++) {
          const tag = p[o++]!;
          switch (tag) {
            case T_NULL:
              out[i] = null;
              break;
            case T_TRUE:
              out[i] = true;
              break;
            case T_FALSE:
              out[i] = false;
              break;
            case T_NUMBER:
              out[i] = p.readDoubleLE(o);
              o += 8;
              break;
            case T_STRING:
            case T_BIGINT: {
              const len = p.readUInt32LE(o);
              const str = p.toString('utf16le', o + 4, o + 4 + len);
              o += 4 + len;
              out[i] = tag === T_STRING ? str : BigInt(str);
              break;
            }
            case T_NUMERIC: {
              const special = p[o]!;
              const scale = p.readInt32LE(o + 1);
              const len = p.readUInt32LE(o + 5);
              const coef = p.toString('utf16le', o + 9, o + 9 + len);
              o += 9 + len;
              out[i] = special === 0 ? Numeric.of(BigInt(coef), scale) : SPECIAL_NUMERIC[special]!;
              break;
            }
            case T_INTERVAL:
              out[i] = new Interval(p.readDoubleLE(o), p.readDoubleLE(o + 8), p.readDoubleLE(o + 16));
              o += 24;
              break;
            case T_INTERVAL_BIG:
              out[i] = new Interval(p.readDoubleLE(o), p.readDoubleLE(o + 8), p.readBigInt64LE(o + 16));
              o += 24;
              break;
            case T_TIMETZ:
              out[i] = new TimeTz(p.readDoubleLE(o), p.readDoubleLE(o + 8));
              o += 16;
              break;
            default:
              throw new Error(`spill: bad value tag ${tag}`);
          }
        }
        data = out;
        break;
      }
      default:
        throw new Error(`spill: bad column kind ${kind}`);
    }
    columns.push(makeColumn(types[ci]!, data, nulls));
  }
  return { columns, length: n };
}

/** One tagged value at `o`, and the offset after it. */
function readValue(p: Buffer, at: number): [Value, number] {
  let o = at;
  const tag = p[o++]!;
  switch (tag) {
    case T_NULL:
      return [null, o];
    case T_TRUE:
      return [true, o];
    case T_FALSE:
      return [false, o];
    case T_NUMBER:
      return [p.readDoubleLE(o), o + 8];
    case T_STRING:
    case T_BIGINT: {
      const len = p.readUInt32LE(o);
      const str = p.toString('utf16le', o + 4, o + 4 + len);
      return [tag === T_STRING ? str : BigInt(str), o + 4 + len];
    }
    case T_NUMERIC: {
      const special = p[o]!;
      const scale = p.readInt32LE(o + 1);
      const len = p.readUInt32LE(o + 5);
      const coef = p.toString('utf16le', o + 9, o + 9 + len);
      return [special === 0 ? Numeric.of(BigInt(coef), scale) : SPECIAL_NUMERIC[special]!, o + 9 + len];
    }
    case T_INTERVAL:
      return [new Interval(p.readDoubleLE(o), p.readDoubleLE(o + 8), p.readDoubleLE(o + 16)), o + 24];
    case T_INTERVAL_BIG:
      return [new Interval(p.readDoubleLE(o), p.readDoubleLE(o + 8), p.readBigInt64LE(o + 16)), o + 24];
    case T_TIMETZ:
      return [new TimeTz(p.readDoubleLE(o), p.readDoubleLE(o + 8)), o + 16];
    case T_POINT:
      return [new Point(p.readDoubleLE(o), p.readDoubleLE(o + 8)), o + 16];
    case T_ARRAY: {
      const len = p.readUInt32LE(o);
      o += 4;
      const a = new Array<Value>(len);
      for (let i = 0; i < len; i++) [a[i], o] = readValue(p, o);
      return [a, o];
    }
    case T_RECORD: {
      const len = p.readUInt16LE(o);
      o += 2;
      const fields = new Array<Value>(len);
      const types = new Array<DataType>(len);
      for (let i = 0; i < len; i++) {
        const nlen = p.readUInt32LE(o);
        const name = p.toString('utf16le', o + 4, o + 4 + nlen) as TypeName;
        o += 4 + nlen;
        types[i] = type(name, p.readInt32LE(o));
        [fields[i], o] = readValue(p, o + 4);
      }
      return [new RecordValue(fields, types), o];
    }
    default:
      throw new Error(`spill: bad value tag ${tag}`);
  }
}
