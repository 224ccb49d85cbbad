/**
 * PostgreSQL input functions: text → Value for every type, with PostgreSQL's error codes and
 * messages. Date/time input reads day, month and year in the order the session's DateStyle sets (MDY
 * by default).
 */
import { parseBytea } from './bytea.js';
import { parseBitString } from './bit-string.js';
import { QuireError } from './errors.js';
import type { DataType, Value } from './types.js';
import { elementType, typeDisplayName } from './types.js';
import { Numeric, decodeNumericTypmod } from './numeric.js';
import { Interval } from './interval.js';
import { applyIntervalTypmod, intervalRange } from './interval-typmod.js';
import { parseArrayText } from './array-value.js';
import { Point } from './point.js';
import { parseMoney } from './money.js';
import { truncateName } from './name.js';
import { RecordValue, parseRecordText } from './record-value.js';
import { TimeTz, roundTime, roundTimeTz } from './time-of-day.js';
import { MICROS_PER_DAY, addMicros, daysInMonth, isValidTimestamp, joinMicros, roundTimestamp, ymdToDays, type Micros } from './datetime-calendar.js';
import { dateOrderOf, type DateOrder } from './format-value.js';
import { abbreviationOffset, atTimeZoneLocalToUtc, isValidTimeZone, localToUtc, utcOffsetSeconds } from './timezone.js';

export interface ParseContext {
  /** Session TimeZone (timestamptz without an explicit zone; 'today'); default 'UTC'. */
  timezone?: string;
  /** Current time in UTC microseconds, for 'now', 'today', 'tomorrow', 'yesterday'. */
  now?: number;
  /** Session DateStyle: its MDY / DMY / YMD order reads '01/02/2020'. */
  dateStyle?: string;
}

const WS = /^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g;
const trimC = (s: string): string => s.replace(WS, '');

// ---- bool --------------------------------------------------------------------------------------

export function parseBool(s: string): boolean {
  const t = trimC(s).toLowerCase();
  const n = t.length;
  if (n > 0) {
    if ('true'.startsWith(t)) return true;
    if ('false'.startsWith(t)) return false;
    if ('yes'.startsWith(t)) return true;
    if ('no'.startsWith(t)) return false;
    if (n >= 2 && 'on'.startsWith(t)) return true;
    if (n >= 2 && 'off'.startsWith(t)) return false;
    if (t === '1') return true;
    if (t === '0') return false;
  }
  throw new QuireError('22P02', `invalid input syntax for type boolean: "${s}"`);
}

// ---- integers ----------------------------------------------------------------------------------

const INT_LIMITS = {
  int2: [-32768n, 32767n, 'smallint'],
  int4: [-2147483648n, 2147483647n, 'integer'],
  int8: [-9223372036854775808n, 9223372036854775807n, 'bigint'],
} as const;

const INT_DEC = /^[+-]?\d+(?:_\d+)*$/;
const INT_NONDEC = /^([+-]?)0([xob])((?:_?[0-9a-f])+)$/i;

/** The limits of INT_LIMITS as doubles, for the plain-digits path. */
const INT_RANGE = { int2: [-32768, 32767], int4: [-2147483648, 2147483647], int8: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

/**
 * Whether `s` (at most 16 characters) is an optional minus sign and decimal digits, with a fraction
 * of digits after them when `fraction` says so: text that Number reads as strtol and strtod do (both
 * round correctly, and so few digits can neither overflow nor underflow). The input most values come
 * as, taken without regular expressions.
 */
function plainDecimal(s: string, fraction: boolean): boolean {
  const n = s.length;
  if (n === 0 || n > 16) return false;
  let i = s.charCodeAt(0) === 45 ? 1 : 0;
  const first = i;
  let dot = -1;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) continue;
    if (c === 46 && fraction && dot < 0) {
      dot = i;
      continue;
    }
    return false;
  }
  // Digits on both sides of a point: '.5' and '5.' are left to the general reading.
  return dot < 0 ? n > first : dot > first && dot < n - 1;
}

export function parseInteger(s: string, name: 'int2' | 'int4' | 'int8'): number | bigint {
  if (plainDecimal(s, false)) {
    const v = Number(s);
    const [min, max] = INT_RANGE[name];
    // '-0' is 0; out of range is left to the general path, which words the error.
    if (v >= min && v <= max) return v === 0 ? 0 : v;
  }
  const [lo, hi, display] = INT_LIMITS[name];
  const t = trimC(s);
  let v: bigint;
  if (INT_DEC.test(t)) v = BigInt(t.replace(/_/g, '').replace(/^\+/, ''));
  else {
    const m = INT_NONDEC.exec(t);
    const radix = m?.[2]?.toLowerCase();
    const digits = m?.[3]?.replace(/_/g, '') ?? '';
    const valid = radix === 'x' ? /^[0-9a-f]+$/i : radix === 'o' ? /^[0-7]+$/ : /^[01]+$/;
    if (m === null || !valid.test(digits)) {
      // PostgreSQL accumulates the leading digits first, so an overflowing prefix ('99999.5')
      // is reported as out of range rather than as bad syntax.
      const lead = /^[+-]?\d+(?:_\d+)*/.exec(t);
      if (lead !== null) {
        const lv = BigInt(lead[0].replace(/_/g, '').replace(/^\+/, ''));
        if (lv < lo || lv > hi) throw new QuireError('22003', `value "${s}" is out of range for type ${display}`);
      }
      throw new QuireError('22P02', `invalid input syntax for type ${display}: "${s}"`);
    }
    v = BigInt('0' + radix + digits);
    if (m[1] === '-') v = -v;
  }
  if (v < lo || v > hi) throw new QuireError('22003', `value "${s}" is out of range for type ${display}`);
  if (name !== 'int8') return Number(v);
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/**
 * oidin: a decimal integer from -2147483648 to 4294967295 (strtoul's range as PostgreSQL checks it);
 * a negative one wraps to its unsigned 32-bit value.
 */
export function parseOid(s: string): number {
  const t = trimC(s);
  if (!/^[+-]?\d+$/.test(t)) {
    if (/^[+-]?\d+/.test(t) && !/^[+-]?\d+$/.test(t)) {
      const lead = /^[+-]?\d+/.exec(t)![0];
      const lv = BigInt(lead);
      if (lv < -2147483648n || lv > 4294967295n) throw new QuireError('22003', `value "${s}" is out of range for type oid`);
    }
    throw new QuireError('22P02', `invalid input syntax for type oid: "${s}"`);
  }
  const v = BigInt(t);
  if (v < -2147483648n || v > 4294967295n) throw new QuireError('22003', `value "${s}" is out of range for type oid`);
  return Number(v < 0n ? v + 4294967296n : v);
}

// ---- point -------------------------------------------------------------------------------------

/** point_in (pair_decode): `(x,y)` or `x,y`, whitespace around the parts, coordinates as float8 reads them. */
function parsePoint(s: string): Point {
  const bad = (): QuireError => new QuireError('22P02', `invalid input syntax for type point: "${s}"`);
  let body = s.trim();
  if (body.startsWith('(')) {
    if (!body.endsWith(')')) throw bad();
    body = body.slice(1, -1);
  }
  const parts = body.split(',');
  if (parts.length !== 2 || parts.some((p) => p.trim() === '')) throw bad();
  const coord = (p: string): number => {
    try {
      return parseFloat8(p);
    } catch (e) {
      // A coordinate out of float8's range keeps float8's message (22003); bad syntax names the point.
      if (e instanceof QuireError && e.code === '22P02') throw bad();
      throw e;
    }
  };
  return new Point(coord(parts[0]!), coord(parts[1]!));
}

// ---- floats ------------------------------------------------------------------------------------

const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const HEX_FLOAT_RE = /^([+-]?)0x([0-9a-f]*)(?:\.([0-9a-f]*))?(?:p([+-]?\d+))?$/i;

export function parseFloat8(s: string, name: 'float4' | 'float8' = 'float8'): number {
  // Plain decimals of a few digits are finite and never round to zero: strtod's reading is Number's.
  if (name === 'float8' && plainDecimal(s, true)) return Number(s);
  const display = name === 'float4' ? 'real' : 'double precision';
  const t = trimC(s);
  const l = t.toLowerCase();
  switch (l) {
    case 'nan':
      return NaN;
    case 'infinity':
    case '+infinity':
    case 'inf':
    case '+inf':
      return Infinity;
    case '-infinity':
    case '-inf':
      return -Infinity;
  }
  let v: number;
  const hexMatch = HEX_FLOAT_RE.exec(t);
  const hex = hexMatch !== null && hexMatch[2]! + (hexMatch[3] ?? '') !== '' ? hexMatch : null;
  if (hex !== null) {
    // strtod also reads C99 hexadecimal floats ('0x1A', '0x1.8p3').
    const mant = hex[2]! + (hex[3] ?? '');
    v = Number(BigInt('0x' + (mant || '0'))) * 2 ** (Number(hex[4] ?? '0') - 4 * (hex[3]?.length ?? 0));
    if (hex[1] === '-') v = -v;
  } else {
    if (!FLOAT_RE.test(t)) throw new QuireError('22P02', `invalid input syntax for type ${display}: "${s}"`);
    v = Number(t);
  }
  const mantissaNonZero = hex !== null ? /[1-9a-f]/i.test(hex[2]! + (hex[3] ?? '')) : /[1-9]/.test(t.replace(/e.*$/i, ''));
  const outOfRange = (): QuireError => new QuireError('22003', `"${t}" is out of range for type ${display}`);
  if (name === 'float8') {
    if (!Number.isFinite(v) || (v === 0 && mantissaNonZero)) throw outOfRange();
    return v;
  }
  // float4: strtof rounds the decimal directly; rounding via double differs only in rare ties.
  const f = Math.fround(v);
  if (!Number.isFinite(f) || (f === 0 && mantissaNonZero)) throw outOfRange();
  return f;
}

// ---- strings -----------------------------------------------------------------------------------

/** Code point length (PostgreSQL counts characters, not UTF-16 units). */
export function charLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The first `n` characters (code points) of s. */
export function charPrefix(s: string, n: number): string {
  if (s.length <= n) return s;
  let i = 0;
  let count = 0;
  while (i < s.length && count < n) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
    count++;
  }
  return s.slice(0, i);
}

/**
 * varchar(n)/char(n) length rule of the input function and of implicit/assignment casts:
 * too long is an error unless the excess is all spaces (which is dropped); char(n) pads.
 * `explicit` (an explicit cast) truncates silently instead.
 */
export function applyStringTypmod(s: string, t: DataType, explicit = false): string {
  if (t.typmod < 0 || (t.name !== 'varchar' && t.name !== 'bpchar')) return s;
  const max = t.typmod - 4;
  const len = charLength(s);
  if (len > max) {
    const head = charPrefix(s, max);
    if (!explicit && !/^ *$/.test(s.slice(head.length))) {
      throw new QuireError('22001', `value too long for type ${typeDisplayName(t)}`);
    }
    s = head;
  } else if (t.name === 'bpchar' && len < max) {
    s += ' '.repeat(max - len);
  }
  return s;
}

// ---- date / time -------------------------------------------------------------------------------

type DtType = 'date' | 'timestamp' | 'timestamptz';

const DT_DISPLAY: Record<DtType, string> = {
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamp with time zone',
};

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11,
  dec: 12, december: 12,
};
const WEEKDAYS = new Set([
  'sun', 'sunday', 'mon', 'monday', 'tue', 'tues', 'tuesday', 'wed', 'wednesday', 'thu', 'thur', 'thurs', 'thursday',
  'fri', 'friday', 'sat', 'saturday',
]);

/** Largest representable values (PostgreSQL: 5874897 AD for dates, 294276 AD for timestamps). */
const MIN_DATE_DAYS = ymdToDays(-4713, 11, 24);
const MAX_DATE_DAYS = ymdToDays(5874898, 1, 1) - 1;

interface DtFields {
  y?: number;
  m?: number;
  d?: number;
  bc: boolean;
  h?: number;
  mi?: number;
  s?: number;
  us?: number;
  ampm?: 'am' | 'pm';
  /** explicit offset in seconds east */
  tzOffset?: number;
  /** explicit zone name */
  tzName?: string;
  special?: 'epoch' | 'now' | 'today' | 'tomorrow' | 'yesterday' | 'infinity' | '-infinity';
  julian?: number;
  /** The month came from its name, not a number. */
  textMonth?: boolean;
  /** How many digits the year was written with (two or fewer: a year of 1970–2069, unless BC). */
  yDigits?: number;
  /** The year as written, before a two-digit year is moved to 1970–2069. */
  yWritten?: number;
}

/**
 * A number standing alone in a date: which field it is follows from the fields already read, as
 * PostgreSQL's DecodeNumber decides in month-day-year order (its range is checked later, before
 * a missing field is).
 */
function placeNumber(f: DtFields, t: string): void {
  const val = Number(t);
  const y = f.y !== undefined;
  const m = f.m !== undefined;
  const d = f.d !== undefined;
  if (f.julian !== undefined) throw new DtError('syntax');
  if (!y && !m && !d) {
    if (t.length >= 3) setYear(f, t);
    else f.m = val;
  } else if (y && !m && !d) {
    if (t.length === 3 && val >= 1 && val <= 366) {
      // year, then day of the year
      f.julian = ymdToDays(f.y!, 1, 1) + val - 1 + 2440588;
      f.y = undefined;
    } else f.m = val;
  } else if (!y && m && !d) {
    if (f.textMonth && t.length >= 3) setYear(f, t);
    else f.d = val;
  } else if (y && m && !d) {
    if (f.textMonth && t.length >= 3 && (f.yDigits ?? 4) <= 2) {
      // The two-digit number taken for the year was the day (DD-MON-YYYY).
      f.d = f.y! % 100;
      f.y = undefined;
      setYear(f, t);
    } else f.d = val;
  } else if (!y && !m && d) f.m = val;
  else if (!y && m && d) setYear(f, t);
  else throw new DtError('syntax');
}

class DtError extends Error {
  constructor(readonly kind: 'syntax' | 'range' | 'tzrange') {
    super(kind);
  }
}

function parseSecondsFraction(frac: string | undefined): number {
  if (frac === undefined || frac === '') return 0;
  // Round to microseconds half to even? PostgreSQL rounds with rint on the fractional seconds.
  const v = Number('0.' + frac) * 1e6;
  return Math.round(v);
}

function setTime(f: DtFields, tok: string): void {
  const m = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?$/.exec(tok);
  if (m === null) {
    const ms = /^(\d{1,2}):(\d{1,2})\.(\d*)$/.exec(tok);
    if (ms === null || f.h !== undefined) throw new DtError('syntax');
    f.h = 0;
    f.mi = Number(ms[1]);
    f.s = Number(ms[2]);
    f.us = parseSecondsFraction(ms[3]);
    return;
  }
  if (f.h !== undefined) throw new DtError('syntax');
  f.h = Number(m[1]);
  f.mi = Number(m[2]);
  f.s = m[3] !== undefined ? Number(m[3]) : 0;
  f.us = parseSecondsFraction(m[4]);
}

/**
 * A numeric zone offset (+h, -hh:mm[:ss], +hhmm) in seconds east, read as PostgreSQL's DecodeTimezone:
 * hours past 15 or minutes/seconds past 59 are a displacement error (22009) even where the token turns
 * out to be no offset at all ('-2020' before a date), anything left over a syntax error.
 */
function parseTzOffset(tok: string): number {
  const sign = tok[0] === '-' ? -1 : 1;
  let i = 1;
  const digits = (): number => {
    const from = i;
    while (i < tok.length && tok.charCodeAt(i) >= 48 && tok.charCodeAt(i) <= 57) i++;
    return i === from ? 0 : Number(tok.slice(from, i));
  };
  let h = digits();
  if (h > 2147483647) throw new DtError('tzrange');
  let mi = 0;
  let sec = 0;
  if (tok[i] === ':') {
    i++;
    mi = digits();
    if (tok[i] === ':') {
      i++;
      sec = digits();
    }
  } else if (i === tok.length && tok.length > 3) {
    mi = h % 100;
    h = Math.trunc(h / 100);
  }
  if (h > 15 || mi >= 60 || sec >= 60) throw new DtError('tzrange');
  if (i !== tok.length) throw new DtError('syntax');
  return sign * (h * 3600 + mi * 60 + sec);
}

/** Date from a separated numeric/alpha group such as '2004-07-09', '1/8/1999', '08-Jan-1999'. */
function setDateGroup(f: DtFields, parts: string[], order: DateOrder): void {
  if (f.m !== undefined || f.y !== undefined) throw new DtError('syntax');
  const alphaIdx = parts.findIndex((p) => /^[a-z]+$/.test(p));
  if (alphaIdx >= 0) {
    const mon = MONTHS[parts[alphaIdx]!];
    if (mon === undefined) throw new DtError('syntax');
    const nums = parts.filter((_, i) => i !== alphaIdx);
    if (nums.length !== 2) throw new DtError('syntax');
    f.m = mon;
    // 'YYYY-Mon-DD' if the first number is long, else day then year.
    const [a, b] = nums as [string, string];
    if (alphaIdx === 0) {
      // Mon-DD-YYYY
      f.d = Number(a);
      setYear(f, b);
    } else if (a.length >= 3) {
      setYear(f, a);
      f.d = Number(b);
    } else {
      f.d = Number(a);
      setYear(f, b);
    }
    return;
  }
  if (parts.length !== 3) throw new DtError('syntax');
  const [a, b, c] = parts as [string, string, string];
  // A first field of three or more digits is a year whatever the order; '99/01/31' is one only in YMD.
  if (a.length >= 3 || order === 'YMD') {
    setYear(f, a);
    f.m = Number(b);
    f.d = Number(c);
  } else if (order === 'DMY') {
    f.d = Number(a);
    f.m = Number(b);
    setYear(f, c);
  } else {
    f.m = Number(a);
    f.d = Number(b);
    setYear(f, c);
  }
}

function setYear(f: DtFields, tok: string): void {
  if (f.y !== undefined) throw new DtError('syntax');
  f.yDigits = tok.length;
  f.yWritten = Number(tok);
  let y = Number(tok);
  // Two-digit years: 70..99 → 19xx, 00..69 → 20xx (PostgreSQL's rule for 2-digit fields).
  if (tok.length <= 2) y = y < 70 ? 2000 + y : 1900 + y;
  f.y = y;
}

function parseDateTimeFields(input: string, order: DateOrder = 'MDY'): DtFields {
  let s = trimC(input).toLowerCase();
  const f: DtFields = { bc: false };
  if (s === '') throw new DtError('syntax');
  // 'T' separating date and time (ISO 8601), also before a bare time like 'T10:00'.
  s = s.replace(/(\d)t(\d)/g, '$1 $2');
  // Tokenise: signed offsets (a sign, a digit, then digits, ':', '.' and '-', as PostgreSQL cuts them),
  // numbers with separators, words (zone names may contain
  // '/', '_' and signed offsets such as 'etc/gmt+2').
  const tokRe = /\s+|,|([+-]\d[\d:.-]*)|(\d+(?:[-/.]\d+|[-/][a-z]+)*(?:[-/][a-z]+(?:[-/]\d+)?)?(?::\d+)*(?:\.\d*)?)|([a-z][a-z_]*(?:\/[a-z_]+(?:[+-]\d+)?)*(?:[-/]\d+(?:[-/]\d+)?)?)|(\.\d+)/y;
  let pos = 0;
  const toks: { kind: 'sign' | 'num' | 'word'; text: string }[] = [];
  while (pos < s.length) {
    tokRe.lastIndex = pos;
    const m = tokRe.exec(s);
    if (m === null || m[0].length === 0) throw new DtError('syntax');
    pos = tokRe.lastIndex;
    if (m[1] !== undefined) toks.push({ kind: 'sign', text: m[1] });
    else if (m[2] !== undefined) toks.push({ kind: 'num', text: m[2] });
    else if (m[3] !== undefined) toks.push({ kind: 'word', text: m[3] });
    else if (m[4] !== undefined) throw new DtError('syntax');
  }
  // A leading '-'/'+' word is a special ('-infinity'); signs elsewhere are offsets.
  for (let i = 0; i < toks.length; i++) {
    const tk = toks[i]!;
    if (tk.kind === 'word') {
      const w = tk.text;
      if (/^[a-z]+[-/]\d/.test(w)) {
        // 'jan-08-1999', 'j2451187' forms
        setDateGroup(f, w.split(/[-/]/), order);
        continue;
      }
      if (/^j\d+$/.test(w)) {
        f.julian = Number(w.slice(1));
        continue;
      }
      if (w === 'j' && toks[i + 1]?.kind === 'num') {
        f.julian = Number(toks[++i]!.text);
        continue;
      }
      const mon = MONTHS[w];
      if (mon !== undefined) {
        if (f.m !== undefined) {
          // A number read as the month ('5 jan 2020') was the day, as PostgreSQL substitutes it.
          if (f.textMonth || f.d !== undefined || f.m < 1 || f.m > 31) throw new DtError('syntax');
          f.d = f.m;
        }
        f.m = mon;
        f.textMonth = true;
        continue;
      }
      if (WEEKDAYS.has(w)) continue;
      if (w === 'am' || w === 'a.m.' || w === 'pm' || w === 'p.m.') {
        f.ampm = w.startsWith('a') ? 'am' : 'pm';
        continue;
      }
      if (w === 'bc') {
        f.bc = true;
        continue;
      }
      if (w === 'ad') continue;
      if (w === 'at' || w === 'on') continue;
      if (w === 'allballs') {
        // Midnight UTC, spelled as PostgreSQL's datetime token table has it.
        if (f.h !== undefined || f.tzName !== undefined || f.tzOffset !== undefined) throw new DtError('syntax');
        f.h = 0;
        f.mi = 0;
        f.s = 0;
        f.us = 0;
        f.tzOffset = 0;
        continue;
      }
      if (
        w === 'epoch' || w === 'now' || w === 'today' || w === 'tomorrow' || w === 'yesterday' || w === 'infinity'
      ) {
        if (f.special !== undefined) throw new DtError('syntax');
        f.special = w;
        continue;
      }
      // zone: abbreviation, 'z', or a full zone name, possibly followed by an offset ('utc+3' is POSIX).
      if (f.tzName !== undefined || f.tzOffset !== undefined) throw new DtError('syntax');
      const ab = abbreviationOffset(w);
      if (ab !== undefined) {
        f.tzOffset = ab;
        continue;
      }
      const orig = findOriginalCase(input, w);
      if (isValidTimeZone(orig)) {
        f.tzName = orig;
        continue;
      }
      throw new DtError('syntax');
    }
    if (tk.kind === 'sign') {
      if (f.tzOffset !== undefined || f.tzName !== undefined) throw new DtError('syntax');
      f.tzOffset = parseTzOffset(tk.text);
      continue;
    }
    // number
    const t = tk.text;
    if (/^\d+(?::\d+)+(?:\.\d*)?$/.test(t)) {
      setTime(f, t);
      continue;
    }
    if (/[-/]/.test(t)) {
      if (t.includes(':')) throw new DtError('syntax');
      setDateGroup(f, t.split(/[-/]/), order);
      continue;
    }
    // '1999.01.31', '31.12.1999' (German): three dotted fields are a date, in DateStyle's order.
    if (/^\d+\.\d+\.\d+$/.test(t)) {
      setDateGroup(f, t.split('.'), order);
      continue;
    }
    if (/^\d+\.\d+$/.test(t) && f.y === undefined && f.m === undefined) {
      const [a, b] = t.split('.') as [string, string];
      if (a.length === 4 && b.length === 3) {
        // year.day-of-year
        f.y = Number(a);
        const doy = Number(b);
        if (doy < 1 || doy > 366) throw new DtError('range');
        f.julian = ymdToDays(f.y, 1, 1) + doy - 1 + 2440588;
        f.y = undefined;
        continue;
      }
      throw new DtError('syntax');
    }
    if (/^\d+\.\d+$/.test(t)) {
      // concatenated time with fraction (e.g. '101735.5') after a date
      const [a, b] = t.split('.') as [string, string];
      if (a.length === 6 && f.h === undefined) {
        f.h = Number(a.slice(0, 2));
        f.mi = Number(a.slice(2, 4));
        f.s = Number(a.slice(4, 6));
        f.us = parseSecondsFraction(b);
        continue;
      }
      throw new DtError('syntax');
    }
    if (/^\d+$/.test(t)) {
      const hasDate = f.y !== undefined && f.m !== undefined && f.d !== undefined;
      if (!hasDate && f.m === undefined && f.y === undefined && (t.length === 8 || t.length === 6) && f.julian === undefined) {
        // YYYYMMDD / YYMMDD
        if (t.length === 8) f.y = Number(t.slice(0, 4));
        else setYear(f, t.slice(0, 2));
        f.m = Number(t.slice(-4, -2));
        f.d = Number(t.slice(-2));
        continue;
      }
      if (hasDate && f.h === undefined && (t.length === 6 || t.length === 4)) {
        f.h = Number(t.slice(0, 2));
        f.mi = Number(t.slice(2, 4));
        f.s = t.length === 6 ? Number(t.slice(4, 6)) : 0;
        f.us = 0;
        continue;
      }
      placeNumber(f, t);
      continue;
    }
    throw new DtError('syntax');
  }
  return f;
}

function findOriginalCase(input: string, lowerWord: string): string {
  const i = input.toLowerCase().indexOf(lowerWord);
  return i >= 0 ? input.slice(i, i + lowerWord.length) : lowerWord;
}

function dtError(kind: DtError['kind'], s: string, type: DtType): QuireError {
  if (kind === 'range') return new QuireError('22008', `date/time field value out of range: "${s}"`);
  if (kind === 'tzrange') return new QuireError('22009', `time zone displacement out of range: "${s}"`);
  return new QuireError('22007', `invalid input syntax for type ${DT_DISPLAY[type]}: "${s}"`);
}

function nowRequired(): QuireError {
  return new QuireError('0A000', "'now', 'today', 'tomorrow' and 'yesterday' need the statement clock here");
}

/** Parses date/timestamp/timestamptz input into the engine representation. */
const ISO_FAST = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?$/;

export function parseDateTime(s: string, type: DtType, ctx?: ParseContext): Micros {
  const zone = ctx?.timezone ?? 'UTC';
  // Fast path for the canonical ISO layout (bulk loads): same result as the general parser.
  const fast = ISO_FAST.exec(s);
  if (fast !== null) {
    const y = Number(fast[1]);
    const mo = Number(fast[2]);
    const d = Number(fast[3]);
    const h = fast[4] === undefined ? 0 : Number(fast[4]);
    const mi = fast[5] === undefined ? 0 : Number(fast[5]);
    const sec = fast[6] === undefined ? 0 : Number(fast[6]);
    if (y > 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) && h < 24 && mi < 60 && sec < 60) {
      const days = ymdToDays(y, mo, d);
      if (type === 'date') return days;
      const us = fast[7] === undefined ? 0 : Number(fast[7].padEnd(6, '0'));
      const local = joinMicros(days, ((h * 60 + mi) * 60 + sec) * 1_000_000 + us);
      const result = type === 'timestamp' ? local : localToUtc(zone, local);
      if (!isValidTimestamp(result)) throw new QuireError('22008', `timestamp out of range: "${s}"`);
      return result;
    }
  }
  const t = trimC(s).toLowerCase();
  if (t === 'infinity' || t === '+infinity') return Infinity;
  if (t === '-infinity') return -Infinity;
  let f: DtFields;
  try {
    f = parseDateTimeFields(s, dateOrderOf(ctx?.dateStyle));
  } catch (e) {
    if (e instanceof DtError) throw dtError(e.kind, s, type);
    throw e;
  }
  const hasDate = f.y !== undefined || f.m !== undefined || f.d !== undefined || f.julian !== undefined;
  const hasTime = f.h !== undefined;
  let localDays: number;
  if (f.special !== undefined) {
    if (hasDate) throw dtError('syntax', s, type);
    if (f.special === 'infinity') {
      if (hasTime || f.tzName || f.tzOffset !== undefined) throw dtError('syntax', s, type);
      return Infinity;
    }
    if (f.special === 'epoch') {
      if (hasTime) throw dtError('syntax', s, type);
      return 0;
    }
    if (ctx?.now === undefined) throw nowRequired();
    if (f.special === 'now') {
      if (hasTime) throw dtError('syntax', s, type);
      if (type === 'timestamptz') return ctx.now;
      const local = ctx.now + utcOffsetSeconds(zone, ctx.now) * 1_000_000;
      return type === 'date' ? Math.floor(local / MICROS_PER_DAY) : local;
    }
    const todayLocal = Math.floor((ctx.now + utcOffsetSeconds(zone, ctx.now) * 1_000_000) / MICROS_PER_DAY);
    localDays = todayLocal + (f.special === 'tomorrow' ? 1 : f.special === 'yesterday' ? -1 : 0);
  } else if (f.julian !== undefined) {
    localDays = f.julian - 2440588;
  } else {
    // The fields given are range-checked before a missing one is reported, as PostgreSQL's ValidateDate.
    if ((f.y === 0 && !f.bc && (f.yDigits ?? 4) > 2) || (f.m !== undefined && (f.m < 1 || f.m > 12)) || (f.d !== undefined && (f.d < 1 || f.d > 31))) {
      throw dtError('range', s, type);
    }
    if (f.y === undefined || f.m === undefined || f.d === undefined) throw dtError('syntax', s, type);
    // A BC year is taken as written, two digits or not (PostgreSQL moves only AD years).
    let y = f.bc && (f.yDigits ?? 4) <= 2 ? f.yWritten! : f.y;
    if (f.bc) {
      if (y <= 0) throw dtError('range', s, type);
      y = 1 - y;
    } else if (y === 0) throw dtError('range', s, type);
    if (f.m < 1 || f.m > 12) throw dtError('range', s, type);
    if (f.d < 1 || f.d > daysInMonth(y, f.m)) throw dtError('range', s, type);
    localDays = ymdToDays(y, f.m, f.d);
  }
  let timeUs = 0;
  if (hasTime) {
    let h = f.h!;
    const mi = f.mi ?? 0;
    const sec = f.s ?? 0;
    const us = f.us ?? 0;
    if (f.ampm !== undefined) {
      if (h < 1 || h > 12) throw dtError('range', s, type);
      if (f.ampm === 'am' && h === 12) h = 0;
      else if (f.ampm === 'pm' && h !== 12) h += 12;
    }
    if (h > 24 || mi > 59 || sec > 60 || (sec === 60 && us > 0) || (h === 24 && (mi > 0 || sec > 0 || us > 0))) {
      throw dtError('range', s, type);
    }
    timeUs = ((h * 60 + mi) * 60 + sec) * 1_000_000 + us;
  } else if (f.ampm !== undefined) throw dtError('syntax', s, type);
  if (type === 'date') {
    if (localDays < MIN_DATE_DAYS || localDays > MAX_DATE_DAYS) throw new QuireError('22008', `date out of range: "${s}"`);
    return localDays;
  }
  const local = joinMicros(localDays, timeUs);
  let result: Micros;
  if (type === 'timestamp') result = local;
  else if (f.tzOffset !== undefined) result = addMicros(local, -f.tzOffset * 1_000_000);
  else if (f.tzName !== undefined) result = atTimeZoneLocalToUtc(f.tzName, local);
  else result = localToUtc(zone, local);
  if (!isValidTimestamp(result)) throw new QuireError('22008', `timestamp out of range: "${s}"`);
  return result;
}

// ---- time / timetz -----------------------------------------------------------------------------

const TIME_FAST = /^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?$/;

function timeError(kind: DtError['kind'], s: string, type: 'time' | 'timetz'): QuireError {
  if (kind === 'range') return new QuireError('22008', `date/time field value out of range: "${s}"`);
  if (kind === 'tzrange') return new QuireError('22009', `time zone displacement out of range: "${s}"`);
  return new QuireError('22007', `invalid input syntax for type ${type === 'time' ? 'time' : 'time with time zone'}: "${s}"`);
}

/**
 * time / timetz input (PostgreSQL's DecodeTimeOnly): a time of day with optional date (ignored but used
 * to resolve a zone name's offset), AM/PM, a zone offset, abbreviation or name; 'now' and 'allballs'.
 * A timetz without a zone takes the session zone's offset on the given date, or today.
 */
export function parseTimeOfDay(s: string, type: 'time' | 'timetz', ctx?: ParseContext): number | TimeTz {
  const zone = ctx?.timezone ?? 'UTC';
  const fast = type === 'time' ? TIME_FAST.exec(s) : null;
  if (fast !== null) {
    const h = Number(fast[1]);
    const mi = Number(fast[2]);
    const sec = fast[3] === undefined ? 0 : Number(fast[3]);
    if (h < 24 && mi < 60 && sec < 60) return ((h * 60 + mi) * 60 + sec) * 1_000_000 + (fast[4] === undefined ? 0 : Number(fast[4].padEnd(6, '0')));
  }
  const trimmed = trimC(s);
  // A leading sign is no time of day (PostgreSQL reads it as a bad field, not a zone).
  if (trimmed.startsWith('-') || trimmed.startsWith('+')) throw timeError('syntax', s, type);
  // ISO 8601's 'T' before a bare time, and the concatenated forms HHMM / HHMMSS[.fff].
  const bare = /^t?(\d\d)(\d\d)(\d\d)?(?:\.(\d*))?$/i.exec(trimmed);
  const text = bare !== null ? `${bare[1]}:${bare[2]}:${bare[3] ?? '00'}${bare[4] !== undefined ? '.' + bare[4] : ''}` : trimmed.replace(/^t(?=\d)/i, '');
  let f: DtFields;
  try {
    f = parseDateTimeFields(text);
  } catch (e) {
    if (e instanceof DtError) throw timeError(e.kind, s, type);
    throw e;
  }
  const now = ctx?.now ?? Date.now() * 1000;
  let timeUs: number;
  let localDays: number;
  if (f.special !== undefined) {
    if (f.special !== 'now' || f.h !== undefined || f.y !== undefined || f.m !== undefined || f.d !== undefined) throw timeError('syntax', s, type);
    if (ctx?.now === undefined) throw nowRequired();
    if (f.tzOffset !== undefined || f.tzName !== undefined) throw timeError('syntax', s, type);
    const off = utcOffsetSeconds(zone, now);
    const local = now + off * 1_000_000;
    timeUs = ((local % MICROS_PER_DAY) + MICROS_PER_DAY) % MICROS_PER_DAY;
    return type === 'time' ? timeUs : new TimeTz(timeUs, off);
  }
  if (f.h === undefined) throw timeError('syntax', s, type);
  let h = f.h;
  const mi = f.mi ?? 0;
  const sec = f.s ?? 0;
  const us = f.us ?? 0;
  if (f.ampm !== undefined) {
    if (h < 1 || h > 12) throw timeError('range', s, type);
    if (f.ampm === 'am' && h === 12) h = 0;
    else if (f.ampm === 'pm' && h !== 12) h += 12;
  }
  if (h > 24 || mi > 59 || sec > 60 || (sec === 60 && us > 0) || (h === 24 && (mi > 0 || sec > 0 || us > 0))) throw timeError('range', s, type);
  timeUs = ((h * 60 + mi) * 60 + sec) * 1_000_000 + us;
  // A zone name's offset depends on the date, so PostgreSQL wants one with it (even for time).
  if (f.tzName !== undefined && (f.y === undefined || f.m === undefined || f.d === undefined) && f.julian === undefined) throw timeError('syntax', s, type);
  if (type === 'time') return timeUs;
  if (f.tzOffset !== undefined) return new TimeTz(timeUs, f.tzOffset);
  if (f.y !== undefined && f.m !== undefined && f.d !== undefined) {
    if (f.m < 1 || f.m > 12 || f.d < 1 || f.d > daysInMonth(f.y, f.m)) throw timeError('range', s, type);
    localDays = ymdToDays(f.bc ? 1 - f.y : f.y, f.m, f.d);
  } else if (f.julian !== undefined) localDays = f.julian - 2440588;
  else localDays = Math.floor((now + utcOffsetSeconds(zone, now) * 1_000_000) / MICROS_PER_DAY);
  const local = localDays * MICROS_PER_DAY + timeUs;
  const utc = f.tzName !== undefined ? atTimeZoneLocalToUtc(f.tzName, local) : localToUtc(zone, local);
  return new TimeTz(timeUs, Math.round((local - Number(utc)) / 1_000_000));
}

/** json input: the text itself, once it is valid JSON (PostgreSQL keeps json verbatim). */
function parseJsonText(s: string): string {
  try {
    JSON.parse(s);
  } catch {
    throw new QuireError('22P02', 'invalid input syntax for type json', { detail: `Token in "${s.length > 40 ? s.slice(0, 40) + '…' : s}" is invalid.` });
  }
  return s;
}

// ---- dispatcher --------------------------------------------------------------------------------

export function parseValue(s: string, t: DataType, ctx?: ParseContext): Value {
  switch (t.name) {
    case 'bool':
      return parseBool(s);
    case 'int2':
    case 'int4':
    case 'int8':
      return parseInteger(s, t.name);
    case 'money':
      return parseMoney(s);
    case 'float4':
    case 'float8':
      return parseFloat8(s, t.name);
    case 'numeric': {
      const n = Numeric.parse(s);
      if (t.typmod < 0) return n;
      const { precision, scale } = decodeNumericTypmod(t.typmod);
      return n.applyTypmod(precision, scale);
    }
    case 'date':
      return parseDateTime(s, t.name, ctx);
    case 'timestamp':
    case 'timestamptz': {
      const v = parseDateTime(s, t.name, ctx) as Micros;
      return t.typmod < 0 ? v : roundTimestamp(v, t.typmod);
    }
    case 'interval':
      return t.typmod < 0 ? Interval.parse(s) : applyIntervalTypmod(Interval.parse(s, intervalRange(t.typmod)), t.typmod);
    case 'time': {
      const us = parseTimeOfDay(s, 'time', ctx) as number;
      return t.typmod < 0 ? us : roundTime(us, t.typmod);
    }
    case 'timetz': {
      const v = parseTimeOfDay(s, 'timetz', ctx) as TimeTz;
      return t.typmod < 0 ? v : roundTimeTz(v, t.typmod);
    }
    case 'varchar':
    case 'bpchar':
      return applyStringTypmod(s, t, false);
    case 'text':
    case 'unknown':
      return s;
    case 'name':
      return truncateName(s);
    case 'json':
      return parseJsonText(s);
    case 'oid':
      return parseOid(s);
    case 'bytea':
      return parseBytea(s);
    case 'bit':
    case 'varbit':
      return parseBitString(s, t);
    case 'point':
      return parsePoint(s);
    case 'record': {
      const c = t.composite;
      if (c === undefined) throw new QuireError('0A000', 'input of anonymous composite types is not implemented');
      const texts = parseRecordText(s, c.fields.length);
      return new RecordValue(
        texts.map((x, i) => (x === null ? null : parseValue(x, c.fields[i]!.type, ctx))),
        c.fields.map((f) => f.type),
      );
    }
    default: {
      const et = elementType(t);
      return parseArrayText(s).map((e) => (e === null ? null : parseValue(e, et, ctx)));
    }
  }
}
