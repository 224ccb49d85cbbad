/**
 * PostgreSQL's time and timetz.
 *
 *   time    number: microseconds since midnight, 0 ..= 86,400,000,000 (24:00:00 is a valid time)
 *   timetz  TimeTz: the same time of day plus the UTC offset it was written with (seconds east)
 *
 * timetz keeps its offset rather than normalising to UTC because PostgreSQL prints it back as written
 * and only calls two values equal when both the instant and the offset agree (timetz_cmp_internal).
 */
import { QuireError } from './errors.js';
import { Interval } from './interval.js';
import type { Micros } from './datetime-calendar.js';
import { formatUtcOffset } from './timezone.js';

export const MICROS_PER_DAY = 86_400_000_000;
/** PostgreSQL's limit on a time zone displacement (TZDISP_LIMIT): 15:59:59. */
export const MAX_TZ_DISPLACEMENT = 15 * 3600 + 59 * 60 + 59;
/** Highest fractional-second precision of time(p). */
export const MAX_TIME_PRECISION = 6;

export class TimeTz {
  constructor(
    /** Local time of day in microseconds. */
    readonly micros: number,
    /** UTC offset in seconds east of Greenwich ('10:00+02' has 7200). */
    readonly offset: number,
  ) {}

  /** The instant as microseconds after 00:00 UTC (may fall outside one day). */
  utcMicros(): number {
    return this.micros - this.offset * 1_000_000;
  }

  /**
   * By instant first; on equal instants the value with the larger offset west of UTC sorts later, as
   * PostgreSQL orders its zone field (seconds west), so '10:00+02' < '08:00+00'.
   */
  compare(o: TimeTz): number {
    const a = this.utcMicros();
    const b = o.utcMicros();
    if (a !== b) return a < b ? -1 : 1;
    return this.offset === o.offset ? 0 : this.offset > o.offset ? -1 : 1;
  }

  /** A Map key, equal exactly when compare() is 0. */
  hashKey(): string {
    return `${this.micros}@${this.offset}`;
  }

  toString(): string {
    return formatTimeTz(this);
  }
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** 'HH:MM:SS' with the fraction's trailing zeros dropped, as PostgreSQL prints time. */
export function formatTime(us: number): string {
  const secs = Math.floor(us / 1_000_000);
  const frac = us - secs * 1_000_000;
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  let out = `${pad2(h)}:${pad2(m)}:${pad2(s)}`;
  if (frac !== 0) out += '.' + String(frac).padStart(6, '0').replace(/0+$/, '');
  return out;
}

export function formatTimeTz(v: TimeTz): string {
  return formatTime(v.micros) + formatUtcOffset(v.offset);
}

/**
 * Rounds a time of day to `precision` fractional digits (time(p)), half away from zero as
 * PostgreSQL's AdjustTimeForTypmod; 23:59:59.9 rounded to 0 digits is 24:00:00, which time allows.
 */
export function roundTime(us: number, precision: number): number {
  if (precision < 0 || precision >= MAX_TIME_PRECISION) return us;
  const scale = 10 ** (MAX_TIME_PRECISION - precision);
  return Math.floor((us + scale / 2) / scale) * scale;
}

/** A time(p)/timetz(p) typmod as PostgreSQL checks it: precision 0..6, larger ones reduced with a warning. */
export function timePrecision(typmod: number): number {
  return typmod < 0 ? -1 : Math.min(typmod, MAX_TIME_PRECISION);
}

export function roundTimeTz(v: TimeTz, precision: number): TimeTz {
  const us = roundTime(v.micros, precision);
  return us === v.micros ? v : new TimeTz(us, v.offset);
}

/** Wraps a microsecond count into [0, one day), as time arithmetic does. */
function wrapDay(us: number): number {
  const r = us % MICROS_PER_DAY;
  return r < 0 ? r + MICROS_PER_DAY : r === 0 ? 0 : r;
}

/** An interval's time field modulo one day, exact for bigint fields too. */
function dayPart(us: Micros): number {
  return typeof us === 'bigint' ? Number(us % BigInt(MICROS_PER_DAY)) : us % MICROS_PER_DAY;
}

/**
 * time + interval: only the interval's time field counts (months and days are whole days, which leave
 * a time of day unchanged), and the result wraps around midnight.
 */
export function timePlusInterval(t: number, iv: Interval): number {
  if (!iv.isFinite()) throw new QuireError('22008', 'cannot add infinite interval to time');
  return wrapDay(t + dayPart(iv.micros));
}

export function timeMinusInterval(t: number, iv: Interval): number {
  if (!iv.isFinite()) throw new QuireError('22008', 'cannot subtract infinite interval from time');
  return wrapDay(t - dayPart(iv.micros));
}

export function timeTzPlusInterval(t: TimeTz, iv: Interval): TimeTz {
  if (!iv.isFinite()) throw new QuireError('22008', 'cannot add infinite interval to time');
  return new TimeTz(wrapDay(t.micros + dayPart(iv.micros)), t.offset);
}

export function timeTzMinusInterval(t: TimeTz, iv: Interval): TimeTz {
  if (!iv.isFinite()) throw new QuireError('22008', 'cannot subtract infinite interval from time');
  return new TimeTz(wrapDay(t.micros - dayPart(iv.micros)), t.offset);
}

/** interval → time: the time field modulo a day (days and months are dropped, as PostgreSQL does). */
export function intervalToTime(iv: Interval): number {
  if (!iv.isFinite()) throw new QuireError('22008', 'cannot convert infinite interval to time');
  return wrapDay(dayPart(iv.micros));
}

export function timeToInterval(t: number): Interval {
  return new Interval(0, 0, t);
}
