/**
 * Casts between the engine's types with PostgreSQL semantics, pg_cast's coercion contexts, and
 * select_common_type for UNION/CASE/COALESCE resolution.
 */
import { QuireError } from './errors.js';
import type { ArrayValue, DataType, TypeCategory, TypeName, Value } from './types.js';
import { T, arrayTypeOf, category, elementType, isArrayType, type, typeDisplayName } from './types.js';
import { Numeric, decodeNumericTypmod } from './numeric.js';
import { Interval } from './interval.js';
import { applyIntervalTypmod } from './interval-typmod.js';
import { addMicros, checkTimestamp, dateToMicros, roundTimestamp, splitMicros, type Micros } from './datetime-calendar.js';
import { formatValue, type FormatContext } from './format-value.js';
import { RecordValue } from './record-value.js';
import { applyStringTypmod, parseValue } from './parse-value.js';
import { applyBitTypmod } from './bit-string.js';
import { truncateName } from './name.js';
import { localToUtc, utcOffsetSeconds } from './timezone.js';
import { TimeTz, intervalToTime, roundTime, roundTimeTz, timeToInterval } from './time-of-day.js';

/** The session's TimeZone and text output settings (a cast to text prints as the output function would). */
export interface CastContext extends FormatContext {
  /** UTC microseconds for 'now'/'today' when casting text to date/time types. */
  now?: number;
}

const INT_RANGE = {
  int2: [-32768, 32767, 'smallint out of range'],
  int4: [-2147483648, 2147483647, 'integer out of range'],
  int8: [-9223372036854775808, 9223372036854775807, 'bigint out of range'],
} as const;

const INT8_MIN = -9223372036854775808n;
const INT8_MAX = 9223372036854775807n;

function intOut(name: 'int2' | 'int4' | 'int8'): QuireError {
  return new QuireError('22003', INT_RANGE[name][2]);
}

/** Canonical int8 representation: number when safe, bigint otherwise. */
function toInt8Value(v: bigint): number | bigint {
  if (v < INT8_MIN || v > INT8_MAX) throw intOut('int8');
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/** Round half to even, like C's rint(). */
export function rint(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  if (r - x === 0.5 && r % 2 !== 0) return r - 1;
  return r;
}

function floatToInt(v: number, to: 'int2' | 'int4' | 'int8'): number | bigint {
  if (Number.isNaN(v)) throw intOut(to);
  const r = rint(v);
  if (to === 'int8') {
    // float8 → int8 accepts exactly [-2^63, 2^63).
    if (!(r >= -9223372036854775808 && r < 9223372036854775808)) throw intOut(to);
    // An integer has no -0 (rint(-0.3) is one).
    return Number.isSafeInteger(r) ? (r === 0 ? 0 : r) : BigInt(r);
  }
  const [lo, hi] = INT_RANGE[to];
  if (!(r >= lo && r <= hi)) throw intOut(to);
  return r === 0 ? 0 : r;
}

function intToInt(v: number | bigint, to: 'int2' | 'int4' | 'int8'): number | bigint {
  if (typeof v === 'bigint') {
    if (to === 'int8') return toInt8Value(v);
    throw intOut(to);
  }
  if (to === 'int8') return v;
  const [lo, hi] = INT_RANGE[to];
  if (v < lo || v > hi) throw intOut(to);
  return v;
}

const intDisplay = { int2: 'smallint', int4: 'integer', int8: 'bigint' } as const;

function numericToInt(n: Numeric, to: 'int2' | 'int4' | 'int8'): number | bigint {
  const b = n.toBigInt(intDisplay[to]);
  if (to === 'int8') return toInt8Value(b);
  const [lo, hi] = INT_RANGE[to];
  if (b < BigInt(lo) || b > BigInt(hi)) throw intOut(to);
  return Number(b);
}

function numericToFloat(n: Numeric, to: 'float4' | 'float8'): number {
  const v = n.toNumber();
  if (to === 'float8') {
    if (n.isFinite() && !Number.isFinite(v)) throw new QuireError('22003', `"${n.toString()}" is out of range for type double precision`);
    return v;
  }
  const f = Math.fround(v);
  if (n.isFinite() && (!Number.isFinite(f) || (f === 0 && !n.isZero()))) {
    throw new QuireError('22003', `"${n.toString()}" is out of range for type real`);
  }
  return f;
}

function float8ToFloat4(v: number): number {
  const f = Math.fround(v);
  if (!Number.isFinite(f) && Number.isFinite(v)) throw new QuireError('22003', 'value out of range: overflow');
  if (f === 0 && v !== 0) throw new QuireError('22003', 'value out of range: underflow');
  return f;
}

function applyNumericTypmod(n: Numeric, t: DataType): Numeric {
  if (t.typmod < 0) return n;
  const { precision, scale } = decodeNumericTypmod(t.typmod);
  return n.applyTypmod(precision, scale);
}

function toNumericValue(v: Value, from: DataType): Numeric {
  switch (from.name) {
    case 'int2':
    case 'int4':
    case 'int8':
      return Numeric.fromInt(v as number | bigint);
    case 'float4':
      return Numeric.fromFloat4(v as number);
    case 'float8':
      return Numeric.fromFloat(v as number);
    case 'numeric':
      return v as Numeric;
    case 'money':
      // cash_numeric: the cents over 100, at the two fraction digits the C locale's money has.
      return Numeric.of(typeof v === 'bigint' ? v : BigInt(v as number), 2);
    default:
      throw cannotCast(from, T.numeric);
  }
}

function cannotCast(from: DataType, to: DataType): QuireError {
  return new QuireError('42846', `cannot cast type ${typeDisplayName(from)} to ${typeDisplayName(to)}`);
}


/**
 * Converts a non-null (or null) value. `explicit` only matters for varchar(n)/char(n) length
 * coercion: explicit casts truncate silently, implicit/assignment ones raise 22001.
 */
export function castValue(v: Value, from: DataType, to: DataType, ctx?: CastContext, explicit = true): Value {
  if (v === null) return null;
  const zone = ctx?.timezone ?? 'UTC';
  const f = from.name;
  if (isArrayType(to)) return castToArray(v, from, to, ctx, explicit);
  switch (to.name) {
    case 'text':
    case 'varchar':
    case 'bpchar': {
      let s: string;
      if (f === 'text' || f === 'varchar' || f === 'name' || f === 'unknown') s = v as string;
      // char(n) → other string types drops the padding (bpchar's trailing spaces are insignificant).
      else if (f === 'bpchar') s = to.name === 'bpchar' ? (v as string) : (v as string).replace(/ +$/, '');
      // bool's cast to text spells the words out, unlike its output function ('t'/'f').
      else if (f === 'bool') s = v ? 'true' : 'false';
      // The context as given (its timezone, UTC without one): not an object per value cast.
      else s = formatValue(v, from, ctx) as string;
      if (to.name === 'bpchar' && f === 'bpchar' && to.typmod < 0) return s;
      return applyStringTypmod(s, to, explicit);
    }
    case 'name':
      // text_name / bpchar_name (which drops char(n)'s padding first) and I/O casts: namein's cut.
      if (f === 'name') return v;
      if (f === 'text' || f === 'varchar' || f === 'unknown') return truncateName(v as string);
      if (f === 'bpchar') return truncateName((v as string).replace(/ +$/, ''));
      return truncateName(formatValue(v, from, ctx) as string);
    case 'unknown':
      return f === 'unknown' ? v : (formatValue(v, from, ctx) as string);
  }
  // An untyped literal is read without the modifier, which then applies as a cast's would
  // ('0101'::bit(3) truncates), where text's I/O conversion reads with it (and refuses).
  if (f === 'unknown' && (to.name === 'bit' || to.name === 'varbit') && to.typmod >= 0) {
    return applyBitTypmod(parseValue(v as string, type(to.name), ctx) as string, to, explicit);
  }
  if (to.typmod >= 0 && f !== 'unknown' && (to.name === 'timestamp' || to.name === 'timestamptz' || to.name === 'interval')) {
    // The cast to the unmodified type, then the modifier, as PostgreSQL's length coercion
    // (timestamp_scale, interval_scale) follows the conversion: text read as interval day is read
    // with every field, then truncated.
    const base = castValue(v, from, type(to.name), ctx, explicit);
    return to.name === 'interval' ? applyIntervalTypmod(base as Interval, to.typmod) : roundTimestamp(base as Micros, to.typmod);
  }
  if (f === 'text' || f === 'varchar' || f === 'bpchar' || f === 'name' || f === 'unknown') {
    return parseValue(v as string, to, ctx);
  }
  switch (to.name) {
    case 'record':
      if (f === 'record') return castRecord(v as RecordValue, from, to, ctx, explicit);
      break;
    case 'bool':
      if (f === 'bool') return v;
      if (f === 'int4') return (v as number) !== 0;
      break;
    case 'int2':
    case 'int4':
    case 'int8':
      switch (f) {
        case 'int2':
        case 'int4':
        case 'int8':
          return intToInt(v as number | bigint, to.name);
        case 'float4':
        case 'float8':
          return floatToInt(v as number, to.name);
        case 'numeric':
          return numericToInt(v as Numeric, to.name);
        case 'bool':
          if (to.name === 'int4') return v ? 1 : 0;
          break;
      }
      break;
    case 'float4':
    case 'float8':
      switch (f) {
        case 'int2':
        case 'int4':
          return to.name === 'float4' ? Math.fround(v as number) : v;
        case 'int8': {
          const n = typeof v === 'bigint' ? Number(v) : (v as number);
          return to.name === 'float4' ? Math.fround(n) : n;
        }
        case 'float4':
          return v;
        case 'float8':
          return to.name === 'float4' ? float8ToFloat4(v as number) : v;
        case 'numeric':
          return numericToFloat(v as Numeric, to.name);
      }
      break;
    case 'numeric':
      if (category(from) === 'N') return applyNumericTypmod(toNumericValue(v, from), to);
      break;
    case 'date':
      switch (f) {
        case 'date':
          return v;
        case 'timestamp': {
          const us = v as Micros;
          return typeof us === 'number' && !Number.isFinite(us) ? us : splitMicros(us).days;
        }
        case 'timestamptz': {
          const us = v as Micros;
          if (typeof us === 'number' && !Number.isFinite(us)) return us;
          return splitMicros(addMicros(us, utcOffsetSeconds(zone, us) * 1_000_000)).days;
        }
      }
      break;
    case 'timestamp':
      switch (f) {
        case 'date': {
          return dateToMicros(v as number);
        }
        case 'timestamp':
          return v;
        case 'timestamptz': {
          const us = v as Micros;
          return typeof us === 'number' && !Number.isFinite(us) ? us : checkTimestamp(addMicros(us, utcOffsetSeconds(zone, us) * 1_000_000));
        }
      }
      break;
    case 'timestamptz':
      switch (f) {
        case 'date': {
          const d = v as number;
          return Number.isFinite(d) ? checkTimestamp(localToUtc(zone, dateToMicros(d))) : d;
        }
        case 'timestamp': {
          const us = v as Micros;
          return typeof us === 'number' && !Number.isFinite(us) ? us : checkTimestamp(localToUtc(zone, us));
        }
        case 'timestamptz':
          return v;
      }
      break;
    case 'interval':
      if (f === 'interval') return v as Interval;
      if (f === 'time') return timeToInterval(v as number);
      break;
    case 'time': {
      let us: number | null;
      switch (f) {
        case 'time':
          us = v as number;
          break;
        case 'timetz':
          us = (v as TimeTz).micros;
          break;
        case 'interval':
          us = intervalToTime(v as Interval);
          break;
        case 'timestamp':
        case 'timestamptz': {
          // An infinite timestamp has no time of day: PostgreSQL returns NULL.
          const m = v as Micros;
          if (typeof m === 'number' && !Number.isFinite(m)) return null;
          us = splitMicros(f === 'timestamp' ? m : addMicros(m, utcOffsetSeconds(zone, m) * 1_000_000)).time;
          break;
        }
        default:
          us = null;
      }
      if (us === null) break;
      return to.typmod < 0 ? us : roundTime(us, to.typmod);
    }
    case 'timetz': {
      let tz: TimeTz | null;
      switch (f) {
        case 'timetz':
          tz = v as TimeTz;
          break;
        case 'time': {
          // The session zone's offset today, as PostgreSQL's time_timetz takes it.
          const now = ctx?.now ?? Date.now() * 1000;
          tz = new TimeTz(v as number, utcOffsetSeconds(zone, now));
          break;
        }
        case 'timestamptz': {
          const m = v as Micros;
          if (typeof m === 'number' && !Number.isFinite(m)) return null;
          const off = utcOffsetSeconds(zone, m);
          tz = new TimeTz(splitMicros(addMicros(m, off * 1_000_000)).time, off);
          break;
        }
        default:
          tz = null;
      }
      if (tz === null) break;
      return to.typmod < 0 ? tz : roundTimeTz(tz, to.typmod);
    }
    case 'oid':
      switch (f) {
        case 'oid':
          return v;
        // int4 → oid is binary: a negative int4 names the same 32 bits.
        case 'int2':
        case 'int4':
          return (v as number) >>> 0;
        case 'int8': {
          const n = Number(v);
          if (!(n >= 0 && n <= 4294967295)) throw new QuireError('22003', 'OID out of range');
          return n;
        }
      }
      break;
    case 'bytea':
      if (f === 'bytea') return v;
      break;
    case 'money':
      switch (f) {
        case 'money':
          return v;
        // int4_cash, int8_cash and numeric_cash scale by 100 with int8's arithmetic, so overflow reads
        // "bigint out of range"; numeric rounds half away from zero as numeric_int8 does.
        case 'int4':
        case 'int8':
          return toInt8Value(BigInt(v as number | bigint) * 100n);
        case 'numeric':
          return toInt8Value((v as Numeric).mul(Numeric.fromInt(100)).toBigInt());
      }
      break;
    case 'bit':
    case 'varbit':
      switch (f) {
        case 'bit':
        case 'varbit':
          return applyBitTypmod(v as string, to, explicit);
        case 'int4':
        case 'int8':
          return intToBits(v as number | bigint, f === 'int4' ? 32 : 64, to);
      }
      break;
  }
  if (f === 'oid') {
    // oid → int4 is binary (a large oid reads as a negative int4); oid → int8 keeps its value.
    if (to.name === 'int4') return (v as number) | 0;
    if (to.name === 'int8') return v;
  }
  if ((f === 'bit' || f === 'varbit') && (to.name === 'int4' || to.name === 'int8')) return bitsToInt(v as string, to.name);
  throw cannotCast(from, to);
}

/**
 * A row value as a named composite type (ROW(1, 'a')::t, a record stored into a column of type t):
 * the field counts must match and each field converts as an assignment would.
 */
function castRecord(r: RecordValue, from: DataType, to: DataType, ctx: CastContext | undefined, explicit: boolean): RecordValue {
  const target = to.composite;
  if (target === undefined) return r;
  const n = target.fields.length;
  if (r.fields.length !== n) {
    throw new QuireError('42846', `cannot cast type ${typeDisplayName(from)} to ${typeDisplayName(to)}`, {
      detail: `Input has too ${r.fields.length < n ? 'few' : 'many'} columns.`,
    });
  }
  const types = target.fields.map((f) => f.type);
  const fields = r.fields.map((x, i) => {
    const ft = types[i]!;
    const st = r.types[i]!;
    if (st.name === ft.name && st.typmod === ft.typmod && st.composite === ft.composite) return x;
    const c = castContext(st.name, ft.name);
    if (c === null || c === 'explicit') {
      throw new QuireError('42846', `cannot cast type ${typeDisplayName(from)} to ${typeDisplayName(to)}`, {
        detail: `Cannot cast type ${typeDisplayName(st)} to ${typeDisplayName(ft)} in column ${i + 1}.`,
      });
    }
    return castValue(x, st, ft, ctx, explicit);
  });
  return new RecordValue(fields, types);
}

/** int4/int8 → bit(n) (bitfromint4/8): the low n bits, sign-extended when n is wider than the integer. */
function intToBits(v: number | bigint, width: 32 | 64, to: DataType): string {
  const n = to.typmod < 0 ? 1 : to.typmod;
  const w = BigInt.asUintN(width, BigInt(v));
  let bits = w.toString(2).padStart(width, '0');
  if (n > width) bits = bits[0]!.repeat(n - width) + bits;
  else bits = bits.slice(width - n);
  return bits;
}

/** bit → int4/int8 (bittoint4/8): the bits as an unsigned number, read as a two's complement integer. */
function bitsToInt(bits: string, to: 'int4' | 'int8'): number | bigint {
  const width = to === 'int4' ? 32 : 64;
  if (bits.length > width) throw intOut(to);
  if (bits.length === 0) return 0;
  const u = BigInt('0b' + bits);
  const r = BigInt.asIntN(width, u);
  return to === 'int4' ? Number(r) : toInt8Value(r);
}

/**
 * To an array type: from array text through the element type's input, from another array element by
 * element (array_coerce); either way each element then takes the target's modifier, as a cast would.
 */
function castToArray(v: Value, from: DataType, to: DataType, ctx: CastContext | undefined, explicit: boolean): Value {
  const et = elementType(to);
  const bare = et.composite !== undefined ? et : type(et.name);
  let src: ArrayValue;
  let srcType: DataType;
  if (isArrayType(from)) {
    src = v as ArrayValue;
    srcType = elementType(from);
  } else if (from.name === 'text' || from.name === 'varchar' || from.name === 'bpchar' || from.name === 'name' || from.name === 'unknown') {
    src = parseValue(v as string, arrayTypeOf(bare)!, ctx) as ArrayValue;
    srcType = bare;
  } else {
    throw cannotCast(from, to);
  }
  if (srcType.name === et.name && srcType.typmod === et.typmod && srcType.composite === et.composite) return src;
  return src.map((e) => castValue(e, srcType, et, ctx, explicit));
}

// ---- pg_cast contexts --------------------------------------------------------------------------

type Ctx = 'implicit' | 'assignment' | 'explicit';

const PG_CAST: Partial<Record<TypeName, Partial<Record<TypeName, Ctx>>>> = {
  int2: { oid: 'implicit', int4: 'implicit', int8: 'implicit', float4: 'implicit', float8: 'implicit', numeric: 'implicit' },
  int4: { money: 'assignment', oid: 'implicit', bit: 'explicit', int2: 'assignment', int8: 'implicit', float4: 'implicit', float8: 'implicit', numeric: 'implicit', bool: 'explicit' },
  int8: { money: 'assignment', oid: 'implicit', bit: 'explicit', int2: 'assignment', int4: 'assignment', float4: 'implicit', float8: 'implicit', numeric: 'implicit' },
  float4: { int2: 'assignment', int4: 'assignment', int8: 'assignment', float8: 'implicit', numeric: 'assignment' },
  float8: { int2: 'assignment', int4: 'assignment', int8: 'assignment', float4: 'assignment', numeric: 'assignment' },
  numeric: { money: 'assignment', int2: 'assignment', int4: 'assignment', int8: 'assignment', float4: 'implicit', float8: 'implicit' },
  bool: { int4: 'explicit' },
  money: { numeric: 'assignment' },
  text: { varchar: 'implicit', bpchar: 'implicit', name: 'implicit' },
  varchar: { text: 'implicit', bpchar: 'implicit', name: 'implicit' },
  bpchar: { text: 'implicit', varchar: 'implicit', name: 'implicit' },
  name: { text: 'implicit', varchar: 'assignment', bpchar: 'assignment' },
  date: { timestamp: 'implicit', timestamptz: 'implicit' },
  timestamp: { date: 'assignment', timestamptz: 'implicit', time: 'assignment' },
  timestamptz: { date: 'assignment', timestamp: 'assignment', time: 'assignment', timetz: 'assignment' },
  time: { interval: 'implicit', timetz: 'implicit' },
  timetz: { time: 'assignment' },
  interval: { time: 'assignment' },
  oid: { int4: 'assignment', int8: 'assignment' },
  bit: { varbit: 'implicit', int4: 'explicit', int8: 'explicit' },
  varbit: { bit: 'implicit' },
};

/** The context in which PostgreSQL allows `from` → `to` (pg_cast plus automatic I/O casts), or null. */
export function castContext(from: TypeName, to: TypeName): Ctx | null {
  if (from === to) return 'implicit';
  if (from === 'unknown') return 'implicit';
  if (to === 'unknown') return null;
  const fa = from.startsWith('_');
  const ta = to.startsWith('_');
  // An array converts to another array in the context its elements convert in.
  if (fa && ta) return castContext(from.slice(1) as TypeName, to.slice(1) as TypeName);
  const direct = PG_CAST[from]?.[to];
  if (direct !== undefined) return direct;
  // Automatic I/O conversion casts: to a string type is assignment, from one is explicit.
  if (to === 'text' || to === 'varchar' || to === 'bpchar' || to === 'name') return 'assignment';
  if (from === 'text' || from === 'varchar' || from === 'bpchar' || from === 'name') return 'explicit';
  return null;
}

export function canCoerceImplicitly(from: DataType, to: DataType): boolean {
  return castContext(from.name, to.name) === 'implicit';
}

const PREFERRED: Partial<Record<TypeCategory, TypeName>> = {
  N: 'float8',
  S: 'text',
  D: 'timestamptz',
  T: 'interval',
  B: 'bool',
};

function isPreferred(t: DataType): boolean {
  return PREFERRED[category(t)] === t.name;
}

/**
 * PostgreSQL's select_common_type: all-unknown → text; otherwise the first known type, replaced
 * by a later one of the same category when that one is implicitly reachable but not vice versa
 * (and the current choice is not the category's preferred type). null on a category clash.
 * The typmod is kept only when every input has the same type and typmod.
 */
export function commonSupertype(types: DataType[]): DataType | null {
  if (types.length === 0) return null;
  const ptype = selectCommonType(types);
  if (ptype === null) return null;
  for (const t of types) {
    if (t.name !== 'unknown' && !canCoerceImplicitly(t, ptype)) return null;
  }
  const known = types.filter((t) => t.name !== 'unknown');
  const typmod = known.every((t) => t.name === ptype.name && t.typmod === known[0]!.typmod) && known.length === types.length ? known[0]!.typmod : -1;
  if (typmod === ptype.typmod) return ptype;
  return typmod === -1 ? (T as Record<string, DataType>)[ptype.name]! : ptype;
}

/**
 * The type select_common_type settles on before anything is converted to it (text when all are
 * unknown), or null when two categories clash; the inputs may still lack an implicit cast to it
 * (money and numeric share a category), which the caller reports as a failed conversion.
 */
export function selectCommonType(types: DataType[]): DataType | null {
  let ptype: DataType | null = null;
  for (const t of types) {
    if (t.name === 'unknown') continue;
    if (ptype === null) {
      ptype = t;
      continue;
    }
    if (t.name === ptype.name) continue;
    if (category(t) !== category(ptype)) return null;
    if (!isPreferred(ptype) && canCoerceImplicitly(ptype, t) && !canCoerceImplicitly(t, ptype)) ptype = t;
  }
  return ptype ?? T.text;
}
