/**
 * age(): a symbolic difference in years, months and days (PostgreSQL's timestamp_age): subtract
 * field by field, then borrow from the next larger field, using the length of the month of the
 * earlier timestamp when days go negative.
 */
import { Interval } from '../../../common/interval.js';
import { daysInMonth, isFiniteMicros, microsToParts, type Micros } from '../../../common/datetime-calendar.js';
import { checkInterval, intervalOutOfRange } from './datetime.js';

export function age(local1: Micros, local2: Micros): Interval {
  if (!isFiniteMicros(local1) || !isFiniteMicros(local2)) {
    if (local1 === local2) intervalOutOfRange();
    const positive = isFiniteMicros(local1) ? local2 < 0 : local1 > 0;
    return positive ? Interval.POSITIVE_INFINITY : Interval.NEGATIVE_INFINITY;
  }
  const a = microsToParts(local1);
  const b = microsToParts(local2);
  const neg = local1 < local2;
  const sign = neg ? -1 : 1;
  let us = sign * (a.us - b.us);
  let sec = sign * (a.s - b.s);
  let min = sign * (a.mi - b.mi);
  let hour = sign * (a.h - b.h);
  let mday = sign * (a.d - b.d);
  let mon = sign * (a.m - b.m);
  let year = sign * (a.y - b.y);
  while (us < 0) {
    us += 1_000_000;
    sec--;
  }
  while (sec < 0) {
    sec += 60;
    min--;
  }
  while (min < 0) {
    min += 60;
    hour--;
  }
  while (hour < 0) {
    hour += 24;
    mday--;
  }
  while (mday < 0) {
    const ref = neg ? a : b;
    mday += daysInMonth(ref.y, ref.m);
    mon--;
  }
  while (mon < 0) {
    mon += 12;
    year--;
  }
  const months = sign * (year * 12 + mon);
  const micros = sign * (((hour * 60 + min) * 60 + sec) * 1_000_000 + us);
  return checkInterval(months, sign * mday, micros);
}
