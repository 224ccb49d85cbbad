/**
 * Date/time helpers shared by the operator and function files: range checks, interval arithmetic on
 * timestamps (PostgreSQL's timestamp_pl_interval), session-timezone conversion, field names.
 */
import { err, SQLSTATE } from '../../../common/errors.js';
import { Interval } from '../../../common/interval.js';
import {
  MICROS_PER_DAY,
  addMicros,
  joinMicros,
  type Micros,
  daysInMonth,
  daysToYmd,
  microsToParts,
  partsToMicros,
  ymdToDays,
  type TimestampParts,
} from '../../../common/datetime-calendar.js';
export { checkTimestamp, isValidTimestamp, timestampOutOfRange } from '../../../common/datetime-calendar.js';
import { checkTimestamp, timestampOutOfRange } from '../../../common/datetime-calendar.js';
import { localToUtc, utcOffsetSeconds } from '../../../common/timezone.js';

export const MICROS_PER_HOUR = 3_600_000_000;
export const MICROS_PER_MINUTE = 60_000_000;
/** Julian day number of 1970-01-01. */
export const UNIX_EPOCH_JDATE = 2440588;

// PostgreSQL's limits, re-based from its 2000-01-01 epoch to ours.
const MIN_DATE_DAYS = -UNIX_EPOCH_JDATE; // julian day 0, 4714-11-24 BC
const END_DATE_DAYS = 2147483494 - UNIX_EPOCH_JDATE; // exclusive, 5874898-01-01

export function dateOutOfRange(): never {
  throw err(SQLSTATE.datetimeFieldOverflow, 'date out of range');
}
export function intervalOutOfRange(): never {
  throw err(SQLSTATE.datetimeFieldOverflow, 'interval out of range');
}

export function checkDate(d: number): number {
  if (Number.isFinite(d) && (d < MIN_DATE_DAYS || d >= END_DATE_DAYS)) dateOutOfRange();
  return d;
}
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
export function checkInterval(months: number, days: number, micros: Micros): Interval {
  if (
    months < INT32_MIN ||
    months > INT32_MAX ||
    days < INT32_MIN ||
    days > INT32_MAX ||
    (typeof micros === 'bigint' ? micros > 9223372036854775807n || micros < -9223372036854775808n : !Number.isFinite(micros) || Math.abs(micros) > 9223372036854775807)
  ) {
    intervalOutOfRange();
  }
  return new Interval(months + 0, days + 0, typeof micros === 'bigint' ? micros : micros + 0);
}

/** Field-wise sum with int32/int64 overflow checks; infinite intervals follow PostgreSQL 17+. */
export function addIntervals(a: Interval, b: Interval): Interval {
  if (!a.isFinite() || !b.isFinite()) return a.add(b);
  return checkInterval(a.months + b.months, a.days + b.days, typeof a.micros === 'number' && typeof b.micros === 'number' && Number.isSafeInteger(a.micros + b.micros) ? a.micros + b.micros : BigInt(a.micros) + BigInt(b.micros));
}

export { dateToMicros as dateToTimestamp } from '../../../common/datetime-calendar.js';

/** Add months then days in the calendar (clamping the day of month), then the time part. */
function shiftLocal(local: Micros, iv: Interval): Micros {
  let t = local;
  if (iv.months !== 0) {
    const p = microsToParts(t);
    const total = p.y * 12 + (p.m - 1) + iv.months;
    const y = Math.floor(total / 12);
    const m = total - y * 12 + 1;
    const d = Math.min(p.d, daysInMonth(y, m));
    p.y = y;
    p.m = m;
    p.d = d;
    t = checkTimestamp(partsToMicros(p));
  }
  if (iv.days !== 0) t = checkTimestamp(addMicros(t, BigInt(iv.days) * BigInt(MICROS_PER_DAY)));
  return t;
}

/** PostgreSQL 17+: an infinite interval makes the result infinite; opposite infinities are an error. */
function infiniteSum(ts: Micros, iv: Interval): number | null {
  if (iv.isFinite()) return typeof ts === 'bigint' || Number.isFinite(ts) ? null : ts;
  const inf = iv.months > 0 ? Infinity : -Infinity;
  if (ts === -inf) timestampOutOfRange();
  return inf;
}

export function timestampPlusInterval(ts: Micros, iv: Interval): Micros {
  const inf = infiniteSum(ts, iv);
  if (inf !== null) return inf;
  return checkTimestamp(addMicros(shiftLocal(ts, iv), iv.micros));
}

export function timestampMinusInterval(ts: Micros, iv: Interval): Micros {
  return timestampPlusInterval(ts, iv.neg());
}

/** Months and days move the wall clock in `zone` (so a day across DST is 23 or 25 hours); micros are absolute. */
export function timestamptzPlusInterval(zone: string, ts: Micros, iv: Interval): Micros {
  const inf = infiniteSum(ts, iv);
  if (inf !== null) return inf;
  let t = ts;
  if (iv.months !== 0 || iv.days !== 0) {
    const local = toLocal(zone, ts);
    t = checkTimestamp(localToUtc(zone, shiftLocal(local, iv)));
  }
  return checkTimestamp(addMicros(t, iv.micros));
}

export function toLocal(zone: string, utc: Micros): Micros {
  if (typeof utc === 'number' && !Number.isFinite(utc)) return utc;
  return addMicros(utc, utcOffsetSeconds(zone, utc) * 1_000_000);
}

export function fromLocal(zone: string, local: Micros): Micros {
  if (typeof local === 'number' && !Number.isFinite(local)) return local;
  return localToUtc(zone, local);
}

/** interval_justify_hours, with PostgreSQL's overflow check on the day field. */
export function justifyHours(iv: Interval): Interval {
  const r = iv.justifyHours();
  return r.isFinite() ? checkInterval(r.months, r.days, r.micros) : r;
}

/** ISO 8601 week number (PostgreSQL's date2isoweek). */
export function isoWeek(y: number, m: number, d: number): number {
  return isoWeekAndYear(y, m, d).week;
}

export function isoWeekAndYear(y: number, m: number, d: number): { week: number; year: number } {
  const days = ymdToDays(y, m, d);
  // ISO weeks belong to the year containing their Thursday.
  const dow = (((days + 3) % 7) + 7) % 7; // 0 = Monday
  const thursday = days - dow + 3;
  const ty = daysToYmd(thursday).y;
  const jan1 = ymdToDays(ty, 1, 1);
  return { week: Math.floor((thursday - jan1) / 7) + 1, year: ty };
}

/** Monday of ISO week 1 of the ISO year. */
export function isoYearStart(isoYear: number): number {
  const jan4 = ymdToDays(isoYear, 1, 4);
  const dow = (((jan4 + 3) % 7) + 7) % 7;
  return jan4 - dow;
}

export type DateUnit =
  | 'microseconds'
  | 'milliseconds'
  | 'second'
  | 'minute'
  | 'hour'
  | 'day'
  | 'week'
  | 'month'
  | 'quarter'
  | 'year'
  | 'decade'
  | 'century'
  | 'millennium'
  | 'epoch'
  | 'dow'
  | 'isodow'
  | 'doy'
  | 'isoyear'
  | 'julian'
  | 'timezone'
  | 'timezone_hour'
  | 'timezone_minute';

const UNIT_ALIASES: Record<string, DateUnit> = {};
function alias(unit: DateUnit, ...names: string[]): void {
  for (const n of [unit, ...names]) UNIT_ALIASES[n] = unit;
}
alias('microseconds', 'microsecond', 'microsecon', 'us', 'usec', 'usecs', 'useconds', 'usecond');
alias('milliseconds', 'millisecond', 'millisecon', 'ms', 'msec', 'msecs', 'mseconds', 'msecond');
alias('second', 'seconds', 's', 'sec', 'secs');
alias('minute', 'minutes', 'm', 'min', 'mins');
alias('hour', 'hours', 'h', 'hr', 'hrs');
alias('day', 'days', 'd');
alias('week', 'weeks', 'w');
alias('month', 'months', 'mon', 'mons');
alias('quarter', 'qtr');
alias('year', 'years', 'y', 'yr', 'yrs');
alias('decade', 'decades', 'dec', 'decs');
alias('century', 'centuries', 'c', 'cent');
alias('millennium', 'millennia', 'mil', 'mils', 'millenia', 'millenniums');
alias('epoch');
alias('dow');
alias('isodow');
alias('doy');
alias('isoyear');
alias('julian', 'j');
alias('timezone');
alias('timezone_hour', 'timezone_h');
alias('timezone_minute', 'timezone_m');

/** Units are case-insensitive in PostgreSQL; null when the name is not a unit at all. */
export function parseUnit(s: string): DateUnit | null {
  return UNIT_ALIASES[s.toLowerCase()] ?? null;
}

/**
 * Units PostgreSQL's tables file as reserved words rather than units (DecodeUnits does not return
 * UNITS for them): date_trunc reports these as not recognized instead of not supported.
 */
export function isReservedUnit(u: DateUnit): boolean {
  return u === 'epoch' || u === 'isoyear' || u === 'julian' || u === 'isodow' || u === 'doy' || u === 'dow';
}

export function unitNotRecognized(units: string, typeName: string): never {
  throw err(SQLSTATE.invalidParameterValue, `unit "${units.toLowerCase()}" not recognized for type ${typeName}`);
}
export function unitNotSupported(units: string, typeName: string): never {
  throw err(SQLSTATE.featureNotSupported, `unit "${units.toLowerCase()}" not supported for type ${typeName}`);
}

export const TS_NAME = 'timestamp without time zone';
export const TSTZ_NAME = 'timestamp with time zone';

/** Truncate a local timestamp to a unit (PostgreSQL's timestamp_trunc); null for units it does not accept. */
export function truncateLocal(local: Micros, unit: DateUnit): Micros | null {
  const p: TimestampParts = microsToParts(local);
  switch (unit) {
    case 'millennium':
      p.y = p.y > 0 ? Math.trunc((p.y + 999) / 1000) * 1000 - 999 : -Math.trunc((999 - (p.y - 1)) / 1000) * 1000 + 1;
      p.m = 1;
      p.d = 1;
      break;
    case 'century':
      p.y = p.y > 0 ? Math.trunc((p.y + 99) / 100) * 100 - 99 : -Math.trunc((99 - (p.y - 1)) / 100) * 100 + 1;
      p.m = 1;
      p.d = 1;
      break;
    case 'decade':
      p.y = p.y > 0 ? Math.trunc(p.y / 10) * 10 : -Math.trunc((8 - (p.y - 1)) / 10) * 10;
      p.m = 1;
      p.d = 1;
      break;
    case 'year':
      p.m = 1;
      p.d = 1;
      break;
    case 'quarter':
      p.m = 3 * Math.trunc((p.m - 1) / 3) + 1;
      p.d = 1;
      break;
    case 'month':
      p.d = 1;
      break;
    case 'week': {
      const days = ymdToDays(p.y, p.m, p.d);
      const monday = days - ((((days + 3) % 7) + 7) % 7);
      return joinMicros(monday, 0);
    }
    case 'day':
      break;
    case 'hour':
      p.mi = p.s = p.us = 0;
      return partsToMicros(p);
    case 'minute':
      p.s = p.us = 0;
      return partsToMicros(p);
    case 'second':
      p.us = 0;
      return partsToMicros(p);
    case 'milliseconds':
      p.us = Math.trunc(p.us / 1000) * 1000;
      return partsToMicros(p);
    case 'microseconds':
      return local;
    default:
      return null;
  }
  return joinMicros(ymdToDays(p.y, p.m, p.d), 0);
}

/** True for units at or above a day, where PostgreSQL re-resolves the zone offset after truncating. */
export function unitRedoesZone(unit: DateUnit): boolean {
  return unit !== 'hour' && unit !== 'minute' && unit !== 'second' && unit !== 'milliseconds' && unit !== 'microseconds';
}

/** A parsed value of extract(): an exact decimal coef / 10^scale (or ±Infinity / null for infinite inputs). */
export interface ExtractResult {
  coef: bigint;
  scale: number;
  /** The float8 date_part() result, computed the way PostgreSQL's float path computes it. */
  float: number;
}
