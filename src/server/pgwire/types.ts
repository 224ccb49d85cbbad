/**
 * Type OIDs and value encodings on the wire: text format (PostgreSQL's output functions, shared
 * with the rest of Quire) and binary format (PostgreSQL's send/recv layouts) for every engine type.
 */
import { QuireError } from '../../common/errors.js';
import { formatDate, formatTimestamp, formatValue, type FormatContext } from '../../common/format-value.js';
import { Interval } from '../../common/interval.js';
import { TimeTz, formatTime, formatTimeTz } from '../../common/time-of-day.js';
import { normMicros, type Micros } from '../../common/datetime-calendar.js';
import { Numeric } from '../../common/numeric.js';
import { elementType, T, TYPE_OID, type ArrayValue, type DataType, type TypeName, type Value } from '../../common/types.js';
import { byteaFromBuffer, byteaToBuffer, formatBytea } from '../../common/bytea.js';
import { packBits, unpackBits } from '../../common/bit-string.js';
import { formatArray } from '../../common/array-value.js';
import type { FieldDescription } from './codec.js';
import type { RecordValue } from '../../common/record-value.js';
import type { Point } from '../../common/point.js';
import { formatMoney } from '../../common/money.js';
import { checkNameBytes } from '../../common/name.js';

/** pg_type.typlen of each engine type. */
export const TYPE_LEN: Record<TypeName, number> = {
  bool: 1,
  int2: 2,
  int4: 4,
  int8: 8,
  float4: 4,
  float8: 8,
  numeric: -1,
  text: -1,
  varchar: -1,
  bpchar: -1,
  date: 4,
  timestamp: 8,
  timestamptz: 8,
  interval: 16,
  time: 8,
  timetz: 12,
  json: -1,
  oid: 4,
  bytea: -1,
  bit: -1,
  varbit: -1,
  point: 16,
  _point: -1,
  money: 8,
  _money: -1,
  // name is a fixed NAMEDATALEN-byte field in PostgreSQL (typlen 64).
  name: 64,
  _name: -1,
  record: -1,
  _record: -1,
  unknown: -2,
  _bool: -1,
  _int2: -1,
  _int4: -1,
  _int8: -1,
  _float4: -1,
  _float8: -1,
  _numeric: -1,
  _text: -1,
  _varchar: -1,
  _bpchar: -1,
  _date: -1,
  _timestamp: -1,
  _timestamptz: -1,
  _interval: -1,
  _time: -1,
  _timetz: -1,
  _json: -1,
  _oid: -1,
  _bytea: -1,
  _bit: -1,
  _varbit: -1,
};

const BY_OID = new Map<number, DataType>(Object.entries(TYPE_OID).map(([n, o]) => [o, T[n as TypeName]]));
// Types clients name in Parse that the engine stores as one of its own: name and char as text,
// json as text.
for (const [oid, t] of [
  [19, T.text], // name
  [18, T.text], // "char"
  [114, T.text], // json
  [3802, T.text], // jsonb
  [1043, T.varchar],
  [2275, T.text], // cstring
  [1003, T._text], // name[]
  [3807, T._text], // jsonb[]
] as const) {
  BY_OID.set(oid, t);
}

/** Parameter type from a Parse OID; 0 = let the engine infer it. Unsupported OIDs are a clear error. */
export function typeForOid(oid: number): DataType {
  if (oid === 0) return T.unknown;
  const t = BY_OID.get(oid);
  if (t === undefined) throw new QuireError('42704', `type with OID ${oid} is not supported`);
  return t;
}

export function oidOf(t: DataType): number {
  // A named composite type and its array type have their own OIDs (pg_type lists them); a Parquet
  // group's type is an anonymous record with field names, sent as record / record[].
  if (t.composite !== undefined && t.composite.oid !== TYPE_OID.record) return t.name === 'record' ? t.composite.oid : t.composite.oid + 1;
  return t.name === 'unknown' ? TYPE_OID.text : TYPE_OID[t.name];
}

export function fieldDescription(name: string, t: DataType, format: number): FieldDescription {
  const shown = t.name === 'unknown' ? T.text : t;
  return { name, tableOid: 0, column: 0, typeOid: oidOf(shown), typeSize: TYPE_LEN[shown.name], typeModifier: shown.typmod, format };
}

/** Per-column formats from Bind's result-format list (none = all text, one = all columns). */
export function columnFormats(resultFormats: readonly number[], n: number): number[] {
  for (const f of resultFormats) if (f !== 0 && f !== 1) throw new QuireError('08P01', `unsupported format code: ${f}`);
  if (resultFormats.length === 0) return new Array<number>(n).fill(0);
  if (resultFormats.length === 1) return new Array<number>(n).fill(resultFormats[0]!);
  if (resultFormats.length !== n) throw new QuireError('08P01', `bind message has ${resultFormats.length} result formats but query has ${n} columns`);
  return [...resultFormats];
}

// 2000-01-01, PostgreSQL's binary epoch, relative to 1970-01-01.
const PG_EPOCH_DAYS = 10957;
const PG_EPOCH_MICROS = 946684800000000n;
const INT64_MAX = 0x7fffffffffffffffn;
const INT64_MIN = -0x8000000000000000n;

export type Encoder = (v: Value) => Buffer;

/** Builds a per-column encoder once, so the per-value work is a switch-free call. */
export function encoderFor(t: DataType, format: number, ctx: FormatContext): Encoder {
  if (format === 0) return (v) => Buffer.from(formatValue(v, t, ctx) ?? '', 'utf8');
  switch (t.name) {
    case 'bool':
      return (v) => Buffer.from([v ? 1 : 0]);
    case 'int2':
      return (v) => {
        const b = Buffer.allocUnsafe(2);
        b.writeInt16BE(v as number);
        return b;
      };
    case 'int4':
      return (v) => {
        const b = Buffer.allocUnsafe(4);
        b.writeInt32BE(v as number);
        return b;
      };
    case 'int8':
    case 'money':
      return (v) => {
        const b = Buffer.allocUnsafe(8);
        b.writeBigInt64BE(BigInt(v as number | bigint));
        return b;
      };
    case 'float4':
      return (v) => {
        const b = Buffer.allocUnsafe(4);
        b.writeFloatBE(v as number);
        return b;
      };
    case 'float8':
      return (v) => {
        const b = Buffer.allocUnsafe(8);
        b.writeDoubleBE(v as number);
        return b;
      };
    case 'date':
      return (v) => {
        const d = v as number;
        const b = Buffer.allocUnsafe(4);
        b.writeInt32BE(d === Infinity ? 0x7fffffff : d === -Infinity ? -0x80000000 : d - PG_EPOCH_DAYS);
        return b;
      };
    case 'timestamp':
    case 'timestamptz':
      return (v) => {
        const m = v as Micros;
        const b = Buffer.allocUnsafe(8);
        b.writeBigInt64BE(m === Infinity ? INT64_MAX : m === -Infinity ? INT64_MIN : BigInt(m) - PG_EPOCH_MICROS);
        return b;
      };
    case 'time':
      return (v) => {
        const b = Buffer.allocUnsafe(8);
        b.writeBigInt64BE(BigInt(v as number));
        return b;
      };
    case 'timetz':
      return (v) => {
        // time_send / timetz_send: int64 microseconds, then the zone as int32 seconds west of UTC.
        const tz = v as TimeTz;
        const b = Buffer.allocUnsafe(12);
        b.writeBigInt64BE(BigInt(tz.micros), 0);
        b.writeInt32BE(-tz.offset, 8);
        return b;
      };
    case 'interval':
      return (v) => {
        const iv = v as Interval;
        const b = Buffer.allocUnsafe(16);
        if (!Number.isFinite(iv.months)) {
          // PostgreSQL 17 infinite intervals: every field at its extreme.
          const pos = iv.months > 0;
          b.writeBigInt64BE(pos ? INT64_MAX : INT64_MIN, 0);
          b.writeInt32BE(pos ? 0x7fffffff : -0x80000000, 8);
          b.writeInt32BE(pos ? 0x7fffffff : -0x80000000, 12);
          return b;
        }
        b.writeBigInt64BE(typeof iv.micros === 'bigint' ? iv.micros : BigInt(Math.round(iv.micros)), 0);
        b.writeInt32BE(iv.days, 8);
        b.writeInt32BE(iv.months, 12);
        return b;
      };
    case 'oid':
      return (v) => {
        const b = Buffer.allocUnsafe(4);
        b.writeUInt32BE(v as number, 0);
        return b;
      };
    case 'bytea':
      return (v) => byteaToBuffer(v as string);
    case 'bit':
    case 'varbit':
      return (v) => packBits(v as string);
    case 'numeric':
      return (v) => encodeNumeric(v instanceof Numeric ? v : typeof v === 'number' ? Numeric.fromFloat(v) : Numeric.parse(String(v)));
    case 'text':
    case 'varchar':
    case 'bpchar':
    // namesend writes the bytes without the field's padding; json's binary form is its text.
    case 'name':
    case 'json':
    case 'unknown':
      return (v) => Buffer.from(String(v), 'utf8');
    case 'point':
      return (v) => {
        const b = Buffer.allocUnsafe(16);
        b.writeDoubleBE((v as Point).x, 0);
        b.writeDoubleBE((v as Point).y, 8);
        return b;
      };
    case 'record':
      return (v) => encodeRecord(v as RecordValue, ctx);
    default: {
      const et = elementType(t);
      const enc = encoderFor(et, 1, ctx);
      return (v) => encodeArray(v as ArrayValue, oidOf(et), enc);
    }
  }
}

/** record_send: the field count, then each field's type OID, length (-1 for NULL) and binary value. */
function encodeRecord(r: RecordValue, ctx: FormatContext): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.allocUnsafe(4);
  head.writeInt32BE(r.fields.length);
  parts.push(head);
  r.fields.forEach((f, i) => {
    const t = r.types[i]!;
    const meta = Buffer.allocUnsafe(8);
    meta.writeUInt32BE(oidOf(t), 0);
    if (f === null) {
      meta.writeInt32BE(-1, 4);
      parts.push(meta);
      return;
    }
    const data = encoderFor(t, 1, ctx)(f);
    meta.writeInt32BE(data.length, 4);
    parts.push(meta, data);
  });
  return Buffer.concat(parts);
}

/** array_send: ndim, has-nulls flag, element OID, then (length, lower bound) and each element. */
export function encodeArray(a: ArrayValue, elementOid: number, encodeElement: Encoder): Buffer {
  const elems = a.map((e) => (e === null ? null : encodeElement(e)));
  const head = Buffer.allocUnsafe(a.length === 0 ? 12 : 20);
  head.writeInt32BE(a.length === 0 ? 0 : 1, 0);
  head.writeInt32BE(a.includes(null) ? 1 : 0, 4);
  head.writeInt32BE(elementOid, 8);
  if (a.length > 0) {
    head.writeInt32BE(a.length, 12);
    head.writeInt32BE(1, 16);
  }
  const parts: Buffer[] = [head];
  for (const e of elems) {
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(e === null ? -1 : e.length);
    parts.push(len);
    if (e !== null) parts.push(e);
  }
  return Buffer.concat(parts);
}

/** array_recv's layout: each element's bytes (null for NULL); one dimension, lower bound 1, as the engine has. */
function splitArray(raw: Buffer): (Buffer | null)[] {
  const bad = (): QuireError => new QuireError('22P03', 'incorrect binary data format in bind parameter');
  if (raw.length < 12) throw bad();
  const ndim = raw.readInt32BE(0);
  if (ndim === 0) return [];
  if (ndim !== 1) throw new QuireError('0A000', 'multidimensional arrays are not supported');
  if (raw.length < 20) throw bad();
  const n = raw.readInt32BE(12);
  if (raw.readInt32BE(16) !== 1) throw new QuireError('0A000', 'array lower bounds other than 1 are not supported');
  const out: (Buffer | null)[] = [];
  let off = 20;
  for (let i = 0; i < n; i++) {
    if (off + 4 > raw.length) throw bad();
    const len = raw.readInt32BE(off);
    off += 4;
    if (len < 0) out.push(null);
    else {
      if (off + len > raw.length) throw bad();
      out.push(raw.subarray(off, off + len));
      off += len;
    }
  }
  if (off !== raw.length) throw bad();
  return out;
}

export function encodeNumeric(n: Numeric): Buffer {
  const head = (ndigits: number, weight: number, sign: number, dscale: number): Buffer => {
    const b = Buffer.alloc(8 + ndigits * 2);
    b.writeInt16BE(ndigits, 0);
    b.writeInt16BE(weight, 2);
    b.writeUInt16BE(sign, 4);
    b.writeInt16BE(dscale, 6);
    return b;
  };
  if (n.special === 1) return head(0, 0, 0xc000, 0);
  if (n.special === 2) return head(0, 0, 0xd000, 0);
  if (n.special === 3) return head(0, 0, 0xf000, 0);
  const neg = n.coef < 0n;
  const s = (neg ? -n.coef : n.coef).toString();
  const scale = n.scale;
  const intDigits = s.length > scale ? s.slice(0, s.length - scale) : '';
  const fracDigits = s.length > scale ? s.slice(s.length - scale) : '0'.repeat(scale - s.length) + s;
  const intPadded = '0'.repeat((4 - (intDigits.length % 4)) % 4) + intDigits;
  const fracPadded = fracDigits + '0'.repeat((4 - (fracDigits.length % 4)) % 4);
  const groups: number[] = [];
  for (let i = 0; i < intPadded.length; i += 4) groups.push(Number(intPadded.slice(i, i + 4)));
  for (let i = 0; i < fracPadded.length; i += 4) groups.push(Number(fracPadded.slice(i, i + 4)));
  let weight = intPadded.length / 4 - 1;
  let start = 0;
  while (start < groups.length && groups[start] === 0) {
    start++;
    weight--;
  }
  let end = groups.length;
  while (end > start && groups[end - 1] === 0) end--;
  const digits = groups.slice(start, end);
  if (digits.length === 0) return head(0, 0, 0, scale);
  const b = head(digits.length, weight, neg ? 0x4000 : 0, scale);
  digits.forEach((d, i) => b.writeInt16BE(d, 8 + i * 2));
  return b;
}

export function decodeNumeric(b: Buffer): string {
  if (b.length < 8) throw new QuireError('22P03', 'insufficient data left in message');
  const ndigits = b.readInt16BE(0);
  const weight = b.readInt16BE(2);
  const sign = b.readUInt16BE(4);
  const dscale = b.readInt16BE(6);
  if (sign === 0xc000) return 'NaN';
  if (sign === 0xd000) return 'Infinity';
  if (sign === 0xf000) return '-Infinity';
  if (ndigits < 0 || b.length !== 8 + ndigits * 2 || dscale < 0) throw new QuireError('22P03', 'invalid numeric binary value');
  let intPart = '';
  let frac = '';
  for (let i = 0; i < ndigits; i++) {
    const d = b.readInt16BE(8 + i * 2);
    if (d < 0 || d > 9999) throw new QuireError('22P03', 'invalid digit in external "numeric" value');
    const s = String(d).padStart(4, '0');
    if (i <= weight) intPart += s;
    else frac += s;
  }
  // Groups between the last stored digit and the decimal point are zeros.
  if (weight >= ndigits) intPart += '0000'.repeat(weight - ndigits + 1);
  if (weight < -1) frac = '0000'.repeat(-weight - 1) + frac;
  intPart = intPart.replace(/^0+/, '') || '0';
  frac = (frac + '0'.repeat(Math.max(0, dscale - frac.length))).slice(0, dscale);
  return `${sign === 0x4000 ? '-' : ''}${intPart}${dscale > 0 ? '.' + frac : ''}`;
}

/**
 * A parameter as Bind sent it, converted to what Database parameters accept: text values stay
 * strings (the engine parses them as the parameter's type); binary ones are decoded.
 */
export function decodeParam(raw: Buffer | null, format: number, t: DataType): unknown {
  if (raw === null) return null;
  if (format === 0) return raw.toString('utf8');
  if (format !== 1) throw new QuireError('08P01', `unsupported format code: ${format}`);
  const need = (n: number): void => {
    if (raw.length !== n) throw new QuireError('22P03', `incorrect binary data format in bind parameter`);
  };
  switch (t.name) {
    case 'bool':
      need(1);
      return raw[0] !== 0;
    case 'int2':
      need(2);
      return raw.readInt16BE(0);
    case 'int4':
      need(4);
      return raw.readInt32BE(0);
    case 'int8': {
      need(8);
      const v = raw.readBigInt64BE(0);
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    case 'float4':
      need(4);
      return raw.readFloatBE(0);
    case 'float8':
      need(8);
      return raw.readDoubleBE(0);
    case 'numeric':
      return decodeNumeric(raw);
    case 'oid':
      need(4);
      return String(raw.readUInt32BE(0));
    // Back to their text forms, which the engine parses as the parameter's type.
    case 'bytea':
      return formatBytea(byteaFromBuffer(raw));
    case 'bit':
    case 'varbit':
      return unpackBits(raw);
    case 'money':
      need(8);
      return formatMoney(raw.readBigInt64BE(0));
    case 'point':
      need(16);
      return `(${raw.readDoubleBE(0)},${raw.readDoubleBE(8)})`;
    case 'date': {
      need(4);
      const d = raw.readInt32BE(0);
      return d === 0x7fffffff ? 'infinity' : d === -0x80000000 ? '-infinity' : formatDate(d + PG_EPOCH_DAYS);
    }
    case 'timestamp':
    case 'timestamptz': {
      need(8);
      const v = raw.readBigInt64BE(0);
      if (v === INT64_MAX) return 'infinity';
      if (v === INT64_MIN) return '-infinity';
      const text = formatTimestamp(normMicros(v + PG_EPOCH_MICROS));
      return t.name === 'timestamptz' ? text + '+00' : text;
    }
    case 'time': {
      need(8);
      return formatTime(Number(raw.readBigInt64BE(0)));
    }
    case 'timetz': {
      need(12);
      return formatTimeTz(new TimeTz(Number(raw.readBigInt64BE(0)), -raw.readInt32BE(8)));
    }
    case 'interval': {
      need(16);
      return new Interval(raw.readInt32BE(12), raw.readInt32BE(8), normMicros(raw.readBigInt64BE(0)));
    }
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'json':
    case 'unknown':
      return raw.toString('utf8');
    case 'name':
      checkNameBytes(raw.length);
      return raw.toString('utf8');
    default: {
      // Back to array text, which the engine parses as the parameter's type like any text parameter.
      const et = elementType(t);
      const texts = splitArray(raw).map((e) => {
        if (e === null) return null;
        const v = decodeParam(e, 1, et);
        return typeof v === 'string' ? v : formatValue(v as Value, et);
      });
      return formatArray(texts, (x) => x as string);
    }
  }
}
