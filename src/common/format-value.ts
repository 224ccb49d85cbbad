/**
 * PostgreSQL text output functions (the `::text` / wire text format of every type), with the
 * default settings: DateStyle 'ISO, MDY', IntervalStyle 'postgres', extra_float_digits 1.
 */
import { printfDigits } from './printf-digits.js';
import { formatBytea } from './bytea.js';
import { formatMoney, type Money } from './money.js';
import { elementType, type ArrayValue, type DataType, type Value } from './types.js';
import { formatRecord, type RecordValue } from './record-value.js';
import type { Point } from './point.js';
import { formatArray } from './array-value.js';
import { Numeric } from './numeric.js';
import { Interval, fraction, splitHours } from './interval.js';
import { addMicros, dayOfWeek, daysToYmd, joinMicros, microsApprox, microsToParts, splitMicros, type Micros } from './datetime-calendar.js';
import { formatUtcOffset, utcOffsetSeconds } from './timezone.js';
import { formatTime, formatTimeTz, type TimeTz } from './time-of-day.js';

export interface FormatContext {
  /** Session TimeZone (for timestamptz); default 'UTC'. */
  timezone?: string;
  /**
   * PostgreSQL's extra_float_digits: 1 (the default) prints the shortest exact digits; 0 or less
   * prints DBL_DIG/FLT_DIG + extra significant digits the way older releases did (%.*g).
   */
  extraFloatDigits?: number;
  /** PostgreSQL's DateStyle, e.g. 'ISO, MDY' (default), 'Postgres, MDY', 'SQL, DMY', 'German'. */
  dateStyle?: string;
  /** PostgreSQL's IntervalStyle: 'postgres' (default) or 'postgres_verbose'. */
  intervalStyle?: string;
}

/**
 * Shortest round-trip digits in PostgreSQL's layout: exponent form when the decimal exponent is
 * below -4 or at least `maxFixedExp` (15 for float8, 6 for float4), with a two-digit exponent.
 */
function layoutFloat(v: number, digitsAndExp: [string, number], maxFixedExp: number): string {
  const [digits, exp] = digitsAndExp;
  const neg = v < 0 || Object.is(v, -0);
  let out: string;
  if (exp < -4 || exp >= maxFixedExp) {
    const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    const ae = Math.abs(exp);
    out = `${mant}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' + ae : ae}`;
  } else if (exp < 0) {
    out = '0.' + '0'.repeat(-exp - 1) + digits;
  } else if (digits.length <= exp + 1) {
    out = digits + '0'.repeat(exp + 1 - digits.length);
  } else {
    out = digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
  }
  return neg ? '-' + out : out;
}

function splitExponential(s: string): [string, number] {
  const i = s.indexOf('e');
  const mant = s.slice(0, i).replace('-', '').replace('.', '');
  return [mant, Number(s.slice(i + 1))];
}

const F64 = new DataView(new ArrayBuffer(8));

/** |v| = m * 2^e exactly, plus whether m sits on a binade's lower edge (narrower lower gap). */
function decompose(v: number, float4: boolean): { m: bigint; e: number; edge: boolean } {
  F64.setFloat64(0, Math.abs(v));
  if (float4) {
    F64.setFloat32(0, Math.abs(v));
    const bits = F64.getUint32(0);
    const be = bits >>> 23;
    const frac = bits & 0x7fffff;
    if (be === 0) return { m: BigInt(frac), e: -149, edge: false };
    return { m: BigInt(frac | 0x800000), e: be - 150, edge: frac === 0 && be > 1 };
  }
  const hi = F64.getUint32(0);
  const lo = F64.getUint32(4);
  const be = hi >>> 20;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (be === 0) return { m: frac, e: -1074, edge: false };
  return { m: frac | (1n << 52n), e: be - 1075, edge: frac === 0n && be > 1 };
}

type Dec = [bigint, number]; // coefficient * 10^exponent

function pow2Dec(k: number): Dec {
  return k >= 0 ? [1n << BigInt(k), 0] : [5n ** BigInt(-k), k];
}

function decCmp(a: Dec, b: Dec): number {
  const e = Math.min(a[1], b[1]);
  const x = a[0] * 10n ** BigInt(a[1] - e);
  const y = b[0] * 10n ** BigInt(b[1] - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

function decSub(a: Dec, b: Dec): Dec {
  const e = Math.min(a[1], b[1]);
  return [a[0] * 10n ** BigInt(a[1] - e) - b[0] * 10n ** BigInt(b[1] - e), e];
}

/**
 * PostgreSQL's float output is Ryu's shortest round-trip digits. That agrees with JavaScript's
 * shortest digits except that Ryu never picks a decimal lying exactly on the rounding boundary
 * and breaks exact ties to the even digit; this exact search reproduces it where it can matter.
 */
function shortestExact(v: number, float4: boolean): [string, number] {
  const { m, e, edge } = decompose(v, float4);
  const x: Dec = e >= 0 ? [m << BigInt(e), 0] : [m * 5n ** BigInt(-e), e];
  const digits = x[0].toString();
  const topExp = digits.length - 1 + x[1];
  const halfUp = pow2Dec(e - 1);
  const halfDown = edge ? pow2Dec(e - 2) : halfUp;
  const abs = Math.abs(v);
  for (let p = 1; p <= 17; p++) {
    let d: bigint;
    let k = x[1] + digits.length - p;
    if (digits.length <= p) {
      d = x[0];
      k = x[1];
    } else {
      const drop = 10n ** BigInt(digits.length - p);
      d = x[0] / drop;
      const r = x[0] - d * drop;
      const twice = r * 2n;
      if (twice > drop || (twice === drop && d % 2n === 1n)) d += 1n;
    }
    const c: Dec = [d, k];
    const diff = decSub(c, x);
    const onBoundary = diff[0] > 0n ? decCmp(diff, halfUp) >= 0 : diff[0] < 0n && decCmp([-diff[0], diff[1]], halfDown) >= 0;
    if (onBoundary) continue;
    const ds = d.toString();
    const back = Number(`${ds}e${k}`);
    if ((float4 ? Math.fround(back) : back) === abs) {
      const trimmed = ds.replace(/0+$/, '') || '0';
      return [trimmed, k + ds.length - 1];
    }
  }
  return [digits.replace(/0+$/, ''), topExp];
}

/** Exact check of a candidate decimal D×10^k against v: on a rounding boundary, or a possible tie. */
function needsExactSearch(d: string, k: number, abs: number, float4: boolean): boolean {
  const { m, e, edge } = decompose(abs, float4);
  const c: Dec = [BigInt(d), k];
  const x: Dec = e >= 0 ? [m << BigInt(e), 0] : [m * 5n ** BigInt(-e), e];
  const diff = decSub(c, x);
  if (diff[0] > 0n && decCmp(diff, pow2Dec(e - 1)) >= 0) return true;
  if (diff[0] < 0n && decCmp([-diff[0], diff[1]], edge ? pow2Dec(e - 2) : pow2Dec(e - 1)) >= 0) return true;
  // A tie needs the exact value to have exactly one more digit, a final 5.
  const more = abs.toExponential(d.length);
  return more[d.length + 1] === '5';
}

function pgShortest(v: number, float4: boolean): [string, number] {
  const abs = Math.abs(v);
  let de: [string, number];
  if (!float4) de = splitExponential(abs.toExponential());
  else {
    de = splitExponential(abs.toExponential(8));
    for (let p = 1; p <= 9; p++) {
      const c = abs.toExponential(p - 1);
      if (Math.fround(Number(c)) === abs) {
        de = splitExponential(c);
        break;
      }
    }
  }
  de = [de[0].replace(/0+$/, '') || '0', de[1]];
  // Boundary and tie cases need a short binary fraction, i.e. a large magnitude relative to the
  // precision (>= 2^48 for doubles, 2^17 for floats); only those pay for the exact check.
  // Floats with short exact expansions (416.078125) can tie at any magnitude: cheap string test.
  if (abs < (float4 ? 2 ** 17 : 2 ** 48)) {
    if (!float4) return de;
    const more = abs.toExponential(de[0].length);
    return more[de[0].length + 1] === '5' ? shortestExact(abs, true) : de;
  }
  if (needsExactSearch(de[0], de[1] - de[0].length + 1, abs, float4)) return shortestExact(abs, float4);
  return de;
}

export function formatFloat8(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  return layoutFloat(v, pgShortest(v, false), 15);
}

export function formatFloat4(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const f = Math.fround(v);
  return layoutFloat(f, pgShortest(f, true), 6);
}

function pad(n: number, w: number): string {
  const s = String(n);
  return s.length >= w ? s : '0'.repeat(w - s.length) + s;
}

/** 'YYYY-MM-DD' with the year printed as PostgreSQL does (BC years as 1 - y). */
function ymdText(y: number, m: number, d: number): { text: string; bc: boolean } {
  const bc = y <= 0;
  return { text: `${pad(bc ? 1 - y : y, 4)}-${pad(m, 2)}-${pad(d, 2)}`, bc };
}

export function formatDate(days: number): string {
  if (days === Infinity) return 'infinity';
  if (days === -Infinity) return '-infinity';
  const { y, m, d } = daysToYmd(days);
  const { text, bc } = ymdText(y, m, d);
  return bc ? text + ' BC' : text;
}

function formatLocalTimestamp(local: Micros, tz: string | null): string {
  const p = microsToParts(local);
  const { text, bc } = ymdText(p.y, p.m, p.d);
  let out = `${text} ${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}${fraction(p.us)}`;
  if (tz !== null) out += tz;
  return bc ? out + ' BC' : out;
}

export function formatTimestamp(micros: Micros): string {
  if (micros === Infinity) return 'infinity';
  if (micros === -Infinity) return '-infinity';
  return formatLocalTimestamp(micros, null);
}

export function formatTimestamptz(micros: Micros, timezone = 'UTC'): string {
  if (micros === Infinity) return 'infinity';
  if (micros === -Infinity) return '-infinity';
  const off = utcOffsetSeconds(timezone, micros);
  return formatLocalTimestamp(addMicros(micros, off * 1_000_000), formatUtcOffset(off));
}

export type DateOrder = 'MDY' | 'DMY' | 'YMD';
interface DateStyle {
  style: 'ISO' | 'Postgres' | 'SQL' | 'German';
  order: DateOrder;
}

const styleCache = new Map<string, DateStyle>();
/** Parses a DateStyle setting ('Postgres, MDY', 'sql,dmy', 'German', 'European'…) as PostgreSQL does. */
/** The field order DateStyle sets for reading dates such as '01/02/2020' (MDY unless it names another). */
export function dateOrderOf(dateStyle: string | undefined): DateOrder {
  return dateStyle === undefined ? 'MDY' : parseDateStyle(dateStyle).order;
}

function parseDateStyle(v: string): DateStyle {
  let ds = styleCache.get(v);
  if (ds !== undefined) return ds;
  let style: DateStyle['style'] = 'ISO';
  let order: DateOrder = 'MDY';
  let orderSet = false;
  for (const raw of v.split(/[,\s]+/)) {
    const w = raw.toLowerCase();
    if (w === 'iso') style = 'ISO';
    else if (w === 'postgres') style = 'Postgres';
    else if (w === 'sql') style = 'SQL';
    else if (w === 'german') {
      style = 'German';
      if (!orderSet) order = 'DMY';
    } else if (w === 'mdy' || w === 'us' || w === 'noneuropean') {
      order = 'MDY';
      orderSet = true;
    } else if (w === 'dmy' || w === 'euro' || w === 'european') {
      order = 'DMY';
      orderSet = true;
    } else if (w === 'ymd') {
      order = 'YMD';
      orderSet = true;
    }
  }
  ds = { style, order };
  styleCache.set(v, ds);
  return ds;
}

const DOW = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const abbrevFormatters = new Map<string, Intl.DateTimeFormat | null>();
/** The zone abbreviation PostgreSQL prints in non-ISO styles (PST, CEST); a numeric offset when none is known. */
function zoneAbbrev(timezone: string, utcMicros: number, offsetSecs: number): string {
  const upper = timezone.toUpperCase();
  if (upper === 'UTC' || upper === 'GMT' || upper === 'Z' || upper === 'ZULU') return upper === 'GMT' ? 'GMT' : 'UTC';
  for (const locale of ['en-US', 'en-GB']) {
    const key = `${locale}|${timezone}`;
    let f = abbrevFormatters.get(key);
    if (f === undefined) {
      try {
        f = new Intl.DateTimeFormat(locale, { timeZone: timezone, timeZoneName: 'short' });
      } catch {
        f = null;
      }
      abbrevFormatters.set(key, f);
    }
    if (f === null) break;
    const ms = utcMicros / 1000;
    if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) break;
    const name = f.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value;
    if (name !== undefined && /^[A-Z]{2,5}$/.test(name)) return name;
  }
  return formatUtcOffset(offsetSecs).trim();
}

function styledDate(y: number, m: number, d: number, ds: DateStyle): string {
  const bc = y <= 0;
  const yy = pad(bc ? 1 - y : y, 4);
  let text: string;
  switch (ds.style) {
    case 'Postgres':
      text = ds.order === 'DMY' ? `${pad(d, 2)}-${pad(m, 2)}-${yy}` : `${pad(m, 2)}-${pad(d, 2)}-${yy}`;
      break;
    case 'SQL':
      text = ds.order === 'DMY' ? `${pad(d, 2)}/${pad(m, 2)}/${yy}` : `${pad(m, 2)}/${pad(d, 2)}/${yy}`;
      break;
    case 'German':
      text = `${pad(d, 2)}.${pad(m, 2)}.${yy}`;
      break;
    default:
      text = `${yy}-${pad(m, 2)}-${pad(d, 2)}`;
  }
  return bc ? text + ' BC' : text;
}

function styledTimestamp(local: Micros, ds: DateStyle, zone: string | null): string {
  const p = microsToParts(local);
  const bc = p.y <= 0;
  const yy = pad(bc ? 1 - p.y : p.y, 4);
  const time = `${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}${fraction(p.us)}`;
  const z = zone === null ? '' : ` ${zone}`;
  let out: string;
  switch (ds.style) {
    case 'Postgres': {
      const dow = DOW[dayOfWeek(splitMicros(local).days)]!;
      const mon = MON[p.m - 1]!;
      out = ds.order === 'DMY' ? `${dow} ${pad(p.d, 2)} ${mon} ${time} ${yy}${z}` : `${dow} ${mon} ${pad(p.d, 2)} ${time} ${yy}${z}`;
      break;
    }
    case 'SQL':
      out = (ds.order === 'DMY' ? `${pad(p.d, 2)}/${pad(p.m, 2)}/${yy}` : `${pad(p.m, 2)}/${pad(p.d, 2)}/${yy}`) + ` ${time}${z}`;
      break;
    default:
      out = `${pad(p.d, 2)}.${pad(p.m, 2)}.${yy} ${time}${z}`;
  }
  return bc ? out + ' BC' : out;
}

/** IntervalStyle postgres_verbose: '@ 1 year 2 mons 3 days 04:05:06' spelled out, ' ago' for negative. */
export function formatIntervalVerbose(iv: Interval): string {
  // Infinite intervals print the same in every style.
  if (!iv.isFinite()) return iv.months > 0 ? 'infinity' : '-infinity';
  let out = '@';
  let isZero = true;
  let isBefore = false;
  const part = (value: number, unit: string): void => {
    if (value === 0) return;
    if (isZero) {
      isBefore = value < 0;
      value = Math.abs(value);
    } else if (isBefore) value = -value;
    out += ` ${value} ${unit}${value === 1 ? '' : 's'}`;
    isZero = false;
  };
  const years = Math.trunc(iv.months / 12);
  part(years, 'year');
  part(iv.months - years * 12, 'mon');
  part(iv.days, 'day');
  const [hours, below] = splitHours(iv.micros);
  let t = below;
  const mins = Math.trunc(t / 60_000_000);
  t -= mins * 60_000_000;
  part(hours, 'hour');
  part(mins, 'min');
  if (t !== 0) {
    if (isZero) {
      isBefore = t < 0;
      t = Math.abs(t);
    } else if (isBefore) t = -t;
    const neg = t < 0;
    const a = Math.abs(t);
    const secs = Math.floor(a / 1_000_000);
    const frac = a - secs * 1_000_000;
    out += ` ${neg ? '-' : ''}${secs}${fraction(frac)} sec${secs === 1 && frac === 0 ? '' : 's'}`;
    isZero = false;
  }
  if (isZero) out += ' 0';
  if (isBefore) out += ' ago';
  return out;
}

export function formatValue(v: Value, t: DataType, ctx?: FormatContext): string | null {
  if (v === null) return null;
  if (ctx?.dateStyle !== undefined && (t.name === 'date' || t.name === 'timestamp' || t.name === 'timestamptz')) {
    const ds = parseDateStyle(ctx.dateStyle);
    if (ds.style !== 'ISO' && (typeof v === 'bigint' || Number.isFinite(v as number))) {
      if (t.name === 'date') {
        const { y, m, d } = daysToYmd(v as number);
        return styledDate(y, m, d, ds);
      }
      if (t.name === 'timestamp') return styledTimestamp(v as Micros, ds, null);
      const tz = ctx.timezone ?? 'UTC';
      const off = utcOffsetSeconds(tz, v as Micros);
      return styledTimestamp(addMicros(v as Micros, off * 1_000_000), ds, zoneAbbrev(tz, microsApprox(v as Micros), off));
    }
  }
  if (t.name === 'interval' && ctx?.intervalStyle !== undefined && ctx.intervalStyle.toLowerCase() === 'postgres_verbose') {
    return formatIntervalVerbose(v as Interval);
  }
  if (v === null) return null;
  switch (t.name) {
    case 'bool':
      return v ? 't' : 'f';
    case 'int2':
    case 'int4':
    case 'int8':
    case 'oid':
      return String(v);
    case 'bytea':
      return formatBytea(v as string);
    case 'money':
      return formatMoney(v as Money);
    case 'bit':
    case 'varbit':
      return v as string;
    case 'float4':
      return ctx?.extraFloatDigits !== undefined && ctx.extraFloatDigits < 1 ? formatFloatG(v as number, 6 + ctx.extraFloatDigits) : formatFloat4(v as number);
    case 'float8':
      return ctx?.extraFloatDigits !== undefined && ctx.extraFloatDigits < 1 ? formatFloatG(v as number, 15 + ctx.extraFloatDigits) : formatFloat8(v as number);
    case 'numeric':
      if (v instanceof Numeric) return v.toString();
      return typeof v === 'number' ? Numeric.fromFloat(v).toString() : String(v);
    case 'date':
      return formatDate(v as number);
    case 'timestamp':
      return formatTimestamp(v as Micros);
    case 'timestamptz':
      return formatTimestamptz(v as Micros, ctx?.timezone ?? 'UTC');
    case 'interval':
      return (v as Interval).toString();
    case 'time':
      return formatTime(v as number);
    case 'timetz':
      return formatTimeTz(v as TimeTz);
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'name':
    case 'json':
    case 'unknown':
      return String(v);
    case 'point': {
      // point_out: each coordinate as float8 output writes it.
      const f = (n: number): string => (ctx?.extraFloatDigits !== undefined && ctx.extraFloatDigits < 1 ? formatFloatG(n, 15 + ctx.extraFloatDigits) : formatFloat8(n));
      return `(${f((v as Point).x)},${f((v as Point).y)})`;
    }
    case 'record':
      return formatRecord(v as RecordValue, (f, ft) => formatValue(f, ft, ctx)!);
    default: {
      const et = elementType(t);
      return formatArray(v as ArrayValue, (e) => formatValue(e, et, ctx)!);
    }
  }
}

/** C's `%.{p}g` (what PostgreSQL prints with extra_float_digits <= 0). */
export function formatFloatG(v: number, precision: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  const p = Math.max(1, precision);
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const { digits, exp } = printfDigits(v, p);
  const sign = v < 0 ? '-' : '';
  if (exp < -4 || exp >= p) {
    const rest = digits.slice(1).replace(/0+$/, '');
    return `${sign}${digits[0]}${rest === '' ? '' : `.${rest}`}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const whole = exp >= 0 ? digits.slice(0, exp + 1) : '0';
  const frac = (exp >= 0 ? digits.slice(exp + 1) : '0'.repeat(-exp - 1) + digits).replace(/0+$/, '');
  return `${sign}${whole}${frac === '' ? '' : `.${frac}`}`;
}

/** Days since epoch → microseconds (used by casts). */
export const daysToMicros = (days: number): Micros => (Number.isFinite(days) ? joinMicros(days, 0) : days);
