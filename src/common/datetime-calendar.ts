/**
 * Proleptic Gregorian calendar arithmetic on the engine's date and timestamp representations:
 * dates are days since 1970-01-01, timestamps microseconds since 1970-01-01 00:00:00.
 * Pure integer math (no Date objects), valid far beyond JavaScript Date's range.
 */
import { QuireError } from './errors.js';

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400_000_000;
/** Microseconds from 1970 to 2000, PostgreSQL's timestamp epoch. */
export const PG_EPOCH_MICROS = 946_684_800_000_000;
const PG_EPOCH_MICROS_BIG = BigInt(PG_EPOCH_MICROS);

/**
 * A finite timestamp as microseconds from 2000, as PostgreSQL stores it: counted from 1970 the last
 * valid timestamps (294276 AD) pass the int8 range, from 2000 every one fits. A number stays a safe
 * integer after the shift.
 */
export function microsFromPgEpoch(t: number | bigint): number | bigint {
  return typeof t === 'bigint' ? t - PG_EPOCH_MICROS_BIG : t - PG_EPOCH_MICROS;
}

/** Days since 1970-01-01 for a proleptic Gregorian date (year 0 = 1 BC). */
export function ymdToDays(y: number, m: number, d: number): number {
  // Howard Hinnant's days_from_civil.
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export interface YMD {
  y: number;
  m: number;
  d: number;
}

export function daysToYmd(days: number): YMD {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: era * 400 + yoe + (m <= 2 ? 1 : 0), m, d };
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

/** 0 = Sunday … 6 = Saturday. */
export function dayOfWeek(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

export interface TimestampParts extends YMD {
  h: number;
  mi: number;
  s: number;
  us: number;
}

/**
 * A timestamp: microseconds since 1970-01-01 00:00:00, a number while it is a safe integer (or ±Infinity)
 * and a bigint beyond, as int8 is. A double is exact only to 2^53 µs (about 1685–2255); PostgreSQL's
 * range (4713 BC – 294276 AD) needs 63 bits. Never a bigint in the safe range, so === stays equality.
 */
export type Micros = number | bigint;

const MPD_BIG = 86_400_000_000n;
/** Largest |days| whose days * MICROS_PER_DAY is exact in a double (and a safe integer). */
const SAFE_DAYS = Math.floor(Number.MAX_SAFE_INTEGER / MICROS_PER_DAY);

/** Not ±Infinity (Number.isFinite is false for every bigint, so it cannot ask this). */
export function isFiniteMicros(t: Micros): boolean {
  return typeof t === 'bigint' || Number.isFinite(t);
}

/** The representation of an exact microsecond count: a number when safe, else the bigint. */
export function normMicros(v: bigint): Micros {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/** Days since 1970 plus microseconds: exact over any range. */
export function joinMicros(days: number, time: number): Micros {
  if (Math.abs(days) <= SAFE_DAYS) {
    const r = days * MICROS_PER_DAY + time;
    if (Number.isSafeInteger(r)) return r;
  }
  return normMicros(BigInt(days) * MPD_BIG + BigInt(time));
}

/** Whole days (floored) and the microseconds into that day, exactly. */
export function splitMicros(t: Micros): { days: number; time: number } {
  if (typeof t === 'number') {
    let days = Math.floor(t / MICROS_PER_DAY);
    let time = t - days * MICROS_PER_DAY;
    // The division rounds: near a day boundary the floor may be one off.
    if (time < 0) {
      days--;
      time += MICROS_PER_DAY;
    } else if (time >= MICROS_PER_DAY) {
      days++;
      time -= MICROS_PER_DAY;
    }
    return { days, time };
  }
  let d = t / MPD_BIG;
  let r = t - d * MPD_BIG;
  if (r < 0n) {
    d--;
    r += MPD_BIG;
  }
  return { days: Number(d), time: Number(r) };
}

/** t + delta, exact; infinities absorb finite deltas. */
export function addMicros(t: Micros, delta: number | bigint): Micros {
  if (typeof t === 'number' && typeof delta === 'number') {
    const r = t + delta;
    if (Number.isSafeInteger(r) || !Number.isFinite(t)) return r;
  }
  if (typeof t === 'number' && !Number.isFinite(t)) return t;
  return normMicros(BigInt(t) + BigInt(delta));
}

/** a - b, exact (finite values only). */
export function diffMicros(a: Micros, b: Micros): Micros {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normMicros(BigInt(a) - BigInt(b));
}

/** t truncated toward zero to a multiple of `unit` µs, exactly. */
export function truncMicros(t: Micros, unit: number): Micros {
  if (typeof t === 'number') return Math.trunc(t / unit) * unit || 0;
  const u = BigInt(unit);
  return normMicros((t / u) * u);
}

/**
 * A timestamp rounded to `precision` fractional digits (timestamp(p)), as PostgreSQL's
 * AdjustTimestampForTypmod: half away from zero in PostgreSQL's own epoch (2000-01-01), so a value
 * between 1970 and 2000 rounds its halves as PostgreSQL does. Infinities and p >= 6 pass through.
 */
export function roundTimestamp(t: Micros, precision: number): Micros {
  if (precision < 0 || precision >= 6 || !isFiniteMicros(t)) return t;
  const scale = 10n ** BigInt(6 - precision);
  const half = scale / 2n;
  const pg = BigInt(t) - 946_684_800_000_000n;
  const r = pg >= 0n ? ((pg + half) / scale) * scale : -(((-pg + half) / scale) * scale);
  return checkTimestamp(normMicros(r + 946_684_800_000_000n));
}

/** A microsecond count as a number (nearest double): for magnitudes and zone lookups, never for results. */
export function microsApprox(t: Micros): number {
  return typeof t === 'number' ? t : Number(t);
}

// PostgreSQL's timestamp range, 4714-11-24 BC 00:00 up to (not including) 294277-01-01, in our epoch.
const MIN_TIMESTAMP_BIG = -211813488000000000n + 946684800000000n;
const END_TIMESTAMP_BIG = 9223371331200000000n + 946684800000000n;
// Both ends lie far outside the safe-integer range: a number is compared with them only when it is
// infinite or came from inexact input (a float cast), and the double bounds serve that.
const MIN_TIMESTAMP = Number(MIN_TIMESTAMP_BIG);
const END_TIMESTAMP = Number(END_TIMESTAMP_BIG);

export function timestampOutOfRange(): never {
  throw new QuireError('22008', 'timestamp out of range');
}

export function isValidTimestamp(t: Micros): boolean {
  return typeof t === 'bigint' ? t >= MIN_TIMESTAMP_BIG && t < END_TIMESTAMP_BIG : t >= MIN_TIMESTAMP && t < END_TIMESTAMP;
}

/** t, or 22008 when it is finite and outside PostgreSQL's range. */
export function checkTimestamp(t: Micros): Micros {
  if ((typeof t === 'bigint' || Number.isFinite(t)) && !isValidTimestamp(t)) timestampOutOfRange();
  return t;
}

/** date → timestamp (midnight): 22008 with PostgreSQL's message past the timestamp range. */
export function dateToMicros(days: number): Micros {
  if (!Number.isFinite(days)) return days;
  const t = joinMicros(days, 0);
  if (!isValidTimestamp(t)) throw new QuireError('22008', 'date out of range for timestamp');
  return t;
}

export function microsToParts(micros: Micros): TimestampParts {
  const { days, time } = splitMicros(micros);
  let rest = time;
  const h = Math.floor(rest / 3_600_000_000);
  rest -= h * 3_600_000_000;
  const mi = Math.floor(rest / 60_000_000);
  rest -= mi * 60_000_000;
  const s = Math.floor(rest / 1_000_000);
  const us = rest - s * 1_000_000;
  // Fields written out, not spread: a spread copies through a generic property loop, ~50× slower here.
  const ymd = daysToYmd(days);
  return { y: ymd.y, m: ymd.m, d: ymd.d, h, mi, s, us };
}

export function partsToMicros(p: TimestampParts): Micros {
  return joinMicros(ymdToDays(p.y, p.m, p.d), ((p.h * 60 + p.mi) * 60 + p.s) * MICROS_PER_SECOND + p.us);
}
