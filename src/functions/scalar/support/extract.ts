/**
 * extract()/date_part() for every date/time type. Each field is computed once as an exact decimal
 * (coef / 10^scale, what extract() returns as numeric) and once the way PostgreSQL's float8 path
 * computes it (date_part()), because the two can differ in the last bit.
 */
import {
  addMicros,
  isFiniteMicros,
  joinMicros,
  microsApprox,
  type Micros,
  dayOfWeek,
  microsToParts,
  ymdToDays,
  type TimestampParts,
} from '../../../common/datetime-calendar.js';
import { splitHours, type Interval } from '../../../common/interval.js';
import { Numeric } from '../../../common/numeric.js';
import { utcOffsetSeconds } from '../../../common/timezone.js';
import {
  UNIX_EPOCH_JDATE,
  isoWeekAndYear,
  parseUnit,
  unitNotRecognized,
  unitNotSupported,
  type DateUnit,
} from './datetime.js';

/**
 * An extract() result: the float8 date_part() value and a builder for the numeric extract() value
 * (lazy, so date_part() never touches numeric). null means SQL NULL (e.g. the month of 'infinity').
 */
export type Extracted = { float: number; numeric: () => Numeric } | null;

const dec = (coef: bigint, scale: number, float: number): Extracted => ({ float, numeric: () => Numeric.of(coef, scale) });
const int = (v: number): Extracted => dec(BigInt(v), 0, v);

// Fields PostgreSQL can extract from an infinite value: they grow without bound with time.
const MONOTONIC = new Set<DateUnit>(['year', 'decade', 'century', 'millennium', 'julian', 'isoyear', 'epoch']);

function infinite(unit: DateUnit, sign: 1 | -1): Extracted {
  return MONOTONIC.has(unit) ? infiniteValue(sign) : null;
}

function infiniteValue(sign: 1 | -1): Extracted {
  return {
    float: sign * Infinity,
    numeric: () => (sign > 0 ? Numeric.POSITIVE_INFINITY : Numeric.NEGATIVE_INFINITY),
  };
}

/** PostgreSQL prints BC years negatively without a year 0. */
function sqlYear(y: number): number {
  return y > 0 ? y : y - 1;
}

function calendarField(unit: DateUnit, p: TimestampParts): Extracted | undefined {
  switch (unit) {
    case 'day':
      return int(p.d);
    case 'month':
      return int(p.m);
    case 'quarter':
      return int(Math.trunc((p.m - 1) / 3) + 1);
    case 'week':
      return int(isoWeekAndYear(p.y, p.m, p.d).week);
    case 'year':
      return int(sqlYear(p.y));
    case 'decade':
      return int(p.y >= 0 ? Math.trunc(p.y / 10) : -Math.trunc((8 - (p.y - 1)) / 10));
    case 'century':
      return int(p.y > 0 ? Math.trunc((p.y + 99) / 100) : -Math.trunc((99 - (p.y - 1)) / 100));
    case 'millennium':
      return int(p.y > 0 ? Math.trunc((p.y + 999) / 1000) : -Math.trunc((999 - (p.y - 1)) / 1000));
    case 'dow':
      return int(dayOfWeek(ymdToDays(p.y, p.m, p.d)));
    case 'isodow': {
      const d = dayOfWeek(ymdToDays(p.y, p.m, p.d));
      return int(d === 0 ? 7 : d);
    }
    case 'doy':
      return int(ymdToDays(p.y, p.m, p.d) - ymdToDays(p.y, 1, 1) + 1);
    case 'isoyear': {
      const y = isoWeekAndYear(p.y, p.m, p.d).year;
      return int(y <= 0 ? y - 1 : y);
    }
    default:
      return undefined;
  }
}

function timeField(unit: DateUnit, p: TimestampParts): Extracted | undefined {
  const secMicros = p.s * 1_000_000 + p.us;
  switch (unit) {
    case 'microseconds':
      return dec(BigInt(secMicros), 0, p.s * 1000000.0 + p.us);
    case 'milliseconds':
      return dec(BigInt(secMicros), 3, p.s * 1000.0 + p.us / 1000.0);
    case 'second':
      return dec(BigInt(secMicros), 6, p.s + p.us / 1000000.0);
    case 'minute':
      return int(p.mi);
    case 'hour':
      return int(p.h);
    default:
      return undefined;
  }
}

function julian(p: TimestampParts, withTime: boolean): Extracted {
  const jd = ymdToDays(p.y, p.m, p.d) + UNIX_EPOCH_JDATE;
  if (!withTime) return int(jd);
  const us = ((p.h * 60 + p.mi) * 60 + p.s) * 1_000_000 + p.us;
  const float = jd + (((p.h * 60 + p.mi) * 60 + p.s) + p.us / 1000000.0) / 86400;
  // PostgreSQL divides in numeric here (even for midnight), so the scale follows numeric division's rules.
  return { float, numeric: () => Numeric.fromInt(jd).add(Numeric.fromInt(us).div(Numeric.fromInt(86400000000))) };
}

export function extractTimestamp(units: string, ts: Micros, zone: string | null): Extracted {
  const typeName = zone === null ? 'timestamp without time zone' : 'timestamp with time zone';
  const unit = parseUnit(units);
  if (unit === null) unitNotRecognized(units, typeName);
  const tzUnit = unit === 'timezone' || unit === 'timezone_hour' || unit === 'timezone_minute';
  // Infinite inputs are answered before the unit is checked against the type.
  if (!isFiniteMicros(ts)) return infinite(unit, ts > 0 ? 1 : -1);
  if (tzUnit && zone === null) unitNotSupported(units, typeName);
  const off = zone === null ? 0 : utcOffsetSeconds(zone, ts);
  if (unit === 'timezone') return int(off);
  if (unit === 'timezone_hour') return int(Math.trunc(off / 3600));
  if (unit === 'timezone_minute') return int(Math.trunc(off / 60) % 60);
  if (unit === 'epoch') {
    // PostgreSQL subtracts its 2000 epoch in int64 unless that overflows (the last 29 years of the range);
    // then it divides in numeric at numeric's default scale and rounds to 6 digits, losing microseconds.
    if (typeof ts === 'bigint' && ts >= 9223372036854775807n) {
      return { float: microsApprox(ts) / 1000000.0, numeric: () => Numeric.fromInt(ts).div(Numeric.fromInt(1000000)).round(6) };
    }
    return dec(BigInt(ts), 6, microsApprox(ts) / 1000000.0);
  }
  const p = microsToParts(addMicros(ts, off * 1_000_000));
  if (unit === 'julian') return julian(p, true);
  const r = calendarField(unit, p) ?? timeField(unit, p);
  if (r === undefined) return unitNotSupported(units, typeName);
  return r;
}

export function extractDate(units: string, days: number): Extracted {
  const unit = parseUnit(units);
  if (unit === null) unitNotRecognized(units, 'date');
  if (!Number.isFinite(days)) {
    if (timeOnly(unit)) unitNotSupported(units, 'date');
    return infinite(unit, days > 0 ? 1 : -1);
  }
  if (unit === 'epoch') return int(days * 86400);
  if (unit === 'julian') return int(days + UNIX_EPOCH_JDATE);
  const r = calendarField(unit, microsToParts(joinMicros(days, 0)));
  if (r === undefined) return unitNotSupported(units, 'date');
  return r;
}

function timeOnly(u: DateUnit): boolean {
  return (
    u === 'microseconds' || u === 'milliseconds' || u === 'second' || u === 'minute' || u === 'hour' ||
    u === 'timezone' || u === 'timezone_hour' || u === 'timezone_minute'
  );
}

export function extractInterval(units: string, iv: Interval): Extracted {
  const unit = parseUnit(units);
  if (unit === null) unitNotRecognized(units, 'interval');
  if (!iv.isFinite()) {
    const sign = iv.months > 0 ? 1 : -1;
    if (unit === 'epoch' || unit === 'year' || unit === 'decade' || unit === 'century' || unit === 'millennium' ||
      unit === 'hour' || unit === 'day') {
      return infiniteValue(sign);
    }
    if (unit === 'microseconds' || unit === 'milliseconds' || unit === 'second' || unit === 'minute' ||
      unit === 'month' || unit === 'quarter' || unit === 'week') {
      return null;
    }
    return unitNotSupported(units, 'interval');
  }
  const years = Math.trunc(iv.months / 12);
  const mon = iv.months % 12;
  const [hour, below] = splitHours(iv.micros);
  let rest = below;
  const min = Math.trunc(rest / 60_000_000);
  rest -= min * 60_000_000;
  const sec = Math.trunc(rest / 1_000_000);
  const us = rest - sec * 1_000_000;
  const secMicros = sec * 1_000_000 + us;
  switch (unit) {
    case 'microseconds':
      return dec(BigInt(secMicros), 0, sec * 1000000.0 + us);
    case 'milliseconds':
      return dec(BigInt(secMicros), 3, sec * 1000.0 + us / 1000.0);
    case 'second':
      return dec(BigInt(secMicros), 6, sec + us / 1000000.0);
    case 'minute':
      return int(min);
    case 'hour':
      return int(hour);
    case 'day':
      return int(iv.days);
    case 'month':
      return int(mon);
    case 'quarter':
      // PostgreSQL 18 mirrors the quarter for negative intervals (-1 month is quarter -1).
      return int(mon >= 0 ? Math.trunc(mon / 3) + 1 : -(Math.trunc(-mon / 3) + 1));
    case 'week':
      return int(Math.trunc(iv.days / 7));
    case 'year':
      return int(years);
    case 'decade':
      return int(Math.trunc(years / 10));
    case 'century':
      return int(Math.trunc(years / 100));
    case 'millennium':
      return int(Math.trunc(years / 1000));
    case 'epoch': {
      // A year is 365.25 days and a month 30 days here, as in PostgreSQL.
      const secs = BigInt(years) * 31557600n + BigInt(mon) * 2592000n + BigInt(iv.days) * 86400n;
      const float =
        microsApprox(iv.micros) / 1000000.0 + 365.25 * 86400 * years + 30 * 86400 * mon + 86400 * iv.days;
      return dec(secs * 1000000n + BigInt(iv.micros), 6, float);
    }
    default:
      return unitNotSupported(units, 'interval');
  }
}

/**
 * extract()/date_part() on time and timetz (time_part_common): sub-day fields only, the offset fields
 * for timetz (offset east: PostgreSQL negates its seconds-west zone), and epoch as seconds since
 * midnight (UTC midnight for timetz).
 */
export function extractTime(units: string, us: number, offset: number | null): Extracted {
  const typeName = offset === null ? 'time without time zone' : 'time with time zone';
  const unit = parseUnit(units);
  if (unit === null) unitNotRecognized(units, typeName);
  const secMicros = us % 60_000_000;
  const sec = Math.trunc(secMicros / 1_000_000);
  const frac = secMicros - sec * 1_000_000;
  switch (unit) {
    case 'microseconds':
      return dec(BigInt(secMicros), 0, sec * 1000000.0 + frac);
    case 'milliseconds':
      return dec(BigInt(secMicros), 3, sec * 1000.0 + frac / 1000.0);
    case 'second':
      return dec(BigInt(secMicros), 6, sec + frac / 1000000.0);
    case 'minute':
      return int(Math.trunc(us / 60_000_000) % 60);
    case 'hour':
      return int(Math.trunc(us / 3_600_000_000));
    case 'epoch':
      if (offset === null) return dec(BigInt(us), 6, us / 1000000.0);
      return dec(BigInt(us - offset * 1_000_000), 6, us / 1000000.0 - offset);
    case 'timezone':
      if (offset !== null) return int(offset);
      break;
    case 'timezone_hour':
      if (offset !== null) return int(Math.trunc(offset / 3600) + 0);
      break;
    case 'timezone_minute':
      if (offset !== null) return int((Math.trunc(offset / 60) % 60) + 0);
      break;
  }
  return unitNotSupported(units, typeName);
}
