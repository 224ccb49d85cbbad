/** Field validation shared by make_date and make_timestamp, with PostgreSQL's messages. */
import { err, SQLSTATE } from '../../../common/errors.js';
import { daysInMonth, ymdToDays } from '../../../common/datetime-calendar.js';
import { checkDate } from './datetime.js';

const p2 = (n: number): string => (Math.abs(n) < 10 ? (n < 0 ? '-0' + -n : '0' + n) : String(n));

/** Days since 1970 for a SQL year (negative = BC, no year 0). */
export function makeDays(year: number, month: number, day: number): number {
  const bad = (): never => {
    throw err(SQLSTATE.datetimeFieldOverflow, `date field value out of range: ${year}-${p2(month)}-${p2(day)}`);
  };
  if (year === 0) bad();
  const y = year < 0 ? year + 1 : year;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(y, month)) bad();
  const days = ymdToDays(y, month, day);
  try {
    return checkDate(days);
  } catch {
    throw err(SQLSTATE.datetimeFieldOverflow, `date out of range: ${year}-${p2(month)}-${p2(day)}`);
  }
}

/** %02g-style seconds, as in PostgreSQL's "time field value out of range" message. */
function secText(s: number): string {
  const t = String(s);
  return t.length < 2 ? '0' + t : t;
}

export function makeTimeMicros(hour: number, min: number, sec: number): number {
  if (
    hour < 0 || min < 0 || min > 59 || !(sec >= 0) || sec > 60 || hour > 24 ||
    (hour === 24 && (min > 0 || sec > 0))
  ) {
    throw err(SQLSTATE.datetimeFieldOverflow, `time field value out of range: ${hour}:${p2(min)}:${secText(sec)}`);
  }
  return ((hour * 60 + min) * 60) * 1_000_000 + Math.round(sec * 1_000_000);
}
