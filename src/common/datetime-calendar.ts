/**
 * Proleptic Gregorian calendar arithmetic on the engine's date and timestamp representations:
 * dates are days since 1970-01-01, timestamps microseconds since 1970-01-01 00:00:00.
 * Pure integer math (no Date objects), valid far beyond JavaScript Date's range.
 */
export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400_000_000;

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

export function microsToParts(micros: number): TimestampParts {
  const days = Math.floor(micros / MICROS_PER_DAY);
  let rest = micros - days * MICROS_PER_DAY;
  const h = Math.floor(rest / 3_600_000_000);
  rest -= h * 3_600_000_000;
  const mi = Math.floor(rest / 60_000_000);
  rest -= mi * 60_000_000;
  const s = Math.floor(rest / 1_000_000);
  const us = rest - s * 1_000_000;
  return { ...daysToYmd(days), h, mi, s, us };
}

export function partsToMicros(p: TimestampParts): number {
  return ymdToDays(p.y, p.m, p.d) * MICROS_PER_DAY + ((p.h * 60 + p.mi) * 60 + p.s) * MICROS_PER_SECOND + p.us;
}
