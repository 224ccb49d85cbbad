/**
 * to_date / to_timestamp(text, template): the common subset of PostgreSQL's template parsing.
 * Not in FX mode: whitespace before fields is skipped and a template separator matches any single
 * non-alphanumeric input character; parsing stops when the input runs out. Unset fields default to
 * year 0 (1 BC, as PostgreSQL does), January 1st, 00:00:00.
 */
import { err, SQLSTATE } from '../../../common/errors.js';
import { daysInMonth, joinMicros, ymdToDays, type Micros } from '../../../common/datetime-calendar.js';
import { DAYS, MONTHS, parseTemplate } from './to-char.js';

export interface ParsedDateTime {
  /** Local wall-clock microseconds. */
  local: Micros;
  /** Explicit offset from TZH/TZM (seconds east), or null to use the session zone. */
  offset: number | null;
}

const WIDTH: Record<string, number> = {
  HH: 2, HH12: 2, HH24: 2, MI: 2, SS: 2, MS: 3, US: 6, FF1: 1, FF2: 2, FF3: 3, FF4: 4, FF5: 5, FF6: 6,
  MM: 2, DD: 2, DDD: 3, D: 1, ID: 1, YYY: 3, YY: 2, Y: 1, IYY: 3, IY: 2, I: 1, W: 1, WW: 2, IW: 2, Q: 1, CC: 2,
};

function adjustPartialYear(y: number): number {
  if (y < 70) return y + 2000;
  if (y < 100) return y + 1900;
  if (y < 520) return y + 2000;
  if (y < 1000) return y + 1000;
  return y;
}

export function parseDateTime(input: string, fmt: string): ParsedDateTime {
  const nodes = parseTemplate(fmt);
  let pos = 0;
  let year: number | null = null;
  let month = 1;
  let day = 1;
  let doy: number | null = null;
  let hour = 0;
  let hourIs12 = false;
  let pm: boolean | null = null;
  let min = 0;
  let sec = 0;
  let us = 0;
  let bc = false;
  let tzh: number | null = null;
  let tzm = 0;
  let julian: number | null = null;
  const outOfRange = (): never => {
    throw err(SQLSTATE.datetimeFieldOverflow, `date/time field value out of range: "${input}"`);
  };
  const skipSpaces = (): void => {
    while (pos < input.length && /\s/.test(input[pos]!)) pos++;
  };
  const readInt = (key: string, width: number | null): number => {
    skipSpaces();
    if (pos >= input.length) {
      throw err(SQLSTATE.invalidDatetimeFormat, `source string too short for "${key}" formatting field`, undefined, {
        detail: `Field requires ${width ?? 1} characters, but only 0 remain.`,
        hint: 'If your source string is not fixed-width, try using the "FM" modifier.',
      });
    }
    let j = pos;
    if (input[j] === '-' || input[j] === '+') j++;
    while (j < input.length && /[0-9]/.test(input[j]!) && (width === null || j - pos < width)) j++;
    const s = input.slice(pos, j);
    if (!/[0-9]/.test(s)) {
      throw err(SQLSTATE.invalidDatetimeFormat, `invalid value "${input.slice(pos, pos + (width ?? 1))}" for "${key}"`, undefined, {
        detail: 'Value must be an integer.',
      });
    }
    pos = j;
    return Number(s);
  };
  const readName = (key: string, names: string[], len: number | null): number => {
    skipSpaces();
    const rest = input.slice(pos).toLowerCase();
    for (let i = 0; i < names.length; i++) {
      const nm = (len === null ? names[i]! : names[i]!.slice(0, len)).toLowerCase();
      if (rest.startsWith(nm)) {
        pos += nm.length;
        return i;
      }
    }
    throw err(SQLSTATE.invalidDatetimeFormat, `invalid value "${input.slice(pos, pos + (len ?? 3))}" for "${key}"`, undefined, {
      detail: 'The given value did not match any of the allowed values for this field.',
    });
  };
  for (let k = 0; k < nodes.length && pos < input.length; k++) {
    const n = nodes[k]!;
    if (n.kind === 'literal') {
      if (n.quoted) {
        pos += n.text.length;
      } else if (/\s/.test(n.text)) {
        skipSpaces();
      } else if (/[0-9A-Za-z]/.test(n.text)) {
        if (pos < input.length && input[pos]!.toLowerCase() === n.text.toLowerCase()) pos++;
      } else {
        skipSpaces();
        if (pos < input.length && !/[0-9A-Za-z]/.test(input[pos]!)) pos++;
      }
      continue;
    }
    const K = n.key.toUpperCase();
    // A field followed directly by another keyword has to stop at its nominal width.
    const next = nodes[k + 1];
    const fixed = next !== undefined && next.kind === 'keyword';
    const width = n.fm ? null : (WIDTH[K] ?? null);
    const w = width ?? (fixed ? (K === 'YYYY' || K === 'IYYY' ? 4 : null) : null);
    switch (K) {
      case 'YYYY':
      case 'IYYY':
        year = readInt(n.key, w);
        break;
      case 'Y,YYY': {
        const a = readInt(n.key, null);
        if (input[pos] === ',') pos++;
        year = a * 1000 + readInt(n.key, 3);
        break;
      }
      case 'YYY':
      case 'YY':
      case 'Y':
      case 'IYY':
      case 'IY':
      case 'I': {
        const start = pos;
        const v = readInt(n.key, w);
        year = pos - start < 4 ? adjustPartialYear(v) : v;
        break;
      }
      case 'MM':
        month = readInt(n.key, w);
        break;
      case 'DD':
        day = readInt(n.key, w);
        break;
      case 'DDD':
        doy = readInt(n.key, w);
        break;
      case 'HH':
      case 'HH12':
        hour = readInt(n.key, w);
        hourIs12 = true;
        break;
      case 'HH24':
        hour = readInt(n.key, w);
        break;
      case 'MI':
        min = readInt(n.key, w);
        break;
      case 'SS':
        sec = readInt(n.key, w);
        break;
      case 'MS': {
        const start = pos;
        const v = readInt(n.key, w);
        us = v * 10 ** (3 - (pos - start)) * 1000;
        break;
      }
      case 'US':
      case 'FF1':
      case 'FF2':
      case 'FF3':
      case 'FF4':
      case 'FF5':
      case 'FF6': {
        const start = pos;
        const v = readInt(n.key, w);
        us = v * 10 ** (6 - (pos - start));
        break;
      }
      case 'SSSS':
      case 'SSSSS': {
        const v = readInt(n.key, null);
        hour = Math.trunc(v / 3600);
        min = Math.trunc((v % 3600) / 60);
        sec = v % 60;
        break;
      }
      case 'J':
        julian = readInt(n.key, null);
        break;
      case 'MONTH':
        month = readName(n.key, MONTHS, null) + 1;
        break;
      case 'MON':
        month = readName(n.key, MONTHS, 3) + 1;
        break;
      case 'DAY':
        readName(n.key, DAYS, null);
        break;
      case 'DY':
        readName(n.key, DAYS, 3);
        break;
      case 'AM':
      case 'PM':
      case 'A.M.':
      case 'P.M.':
        pm = readName(n.key, K.length === 2 ? ['am', 'pm'] : ['a.m.', 'p.m.'], null) === 1;
        break;
      case 'AD':
      case 'BC':
      case 'A.D.':
      case 'B.C.':
        bc = readName(n.key, K.length === 2 ? ['ad', 'bc'] : ['a.d.', 'b.c.'], null) === 1;
        break;
      case 'TZH': {
        skipSpaces();
        const neg = input[pos] === '-';
        tzh = readInt(n.key, null);
        if (neg && tzh === 0) tzh = -0;
        break;
      }
      case 'TZM':
        tzm = readInt(n.key, 2);
        break;
      case 'FX':
        break;
      default:
        // Fields that do not contribute to the result (D, ID, W, WW, IW, Q, CC, RM, TZ, OF): consume digits/letters.
        skipSpaces();
        while (pos < input.length && /[0-9A-Za-z]/.test(input[pos]!)) pos++;
    }
  }
  if (hourIs12) {
    if (hour < 1 || hour > 12) {
      throw err(SQLSTATE.invalidDatetimeFormat, `hour "${hour}" is invalid for the 12-hour clock`, undefined, {
        hint: 'Use the 24-hour clock, or give an hour between 1 and 12.',
      });
    }
  }
  if (pm !== null) {
    if (pm && hour < 12) hour += 12;
    else if (!pm && hour === 12) hour = 0;
  }
  let days: number;
  if (julian !== null) {
    days = julian - 2440588;
  } else {
    let y = year ?? 0;
    if (year !== null) {
      if (bc) y = 1 - y;
      else if (y < 0) y = y + 1;
    }
    if (doy !== null && month === 1 && day === 1) {
      const len = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 366 : 365;
      if (doy < 1 || doy > len) outOfRange();
      days = ymdToDays(y, 1, 1) + doy - 1;
    } else {
      if (month < 1 || month > 12 || day < 1 || day > daysInMonth(y, month)) outOfRange();
      days = ymdToDays(y, month, day);
    }
  }
  if (hour < 0 || hour > 24 || min < 0 || min > 59 || sec < 0 || sec > 60 || (hour === 24 && (min > 0 || sec > 0 || us > 0))) {
    outOfRange();
  }
  const local = joinMicros(days, ((hour * 60 + min) * 60 + sec) * 1_000_000 + us);
  const offset = tzh === null ? null : (Object.is(tzh, -0) || tzh < 0 ? -1 : 1) * (Math.abs(tzh) * 3600 + tzm * 60);
  return { local, offset };
}
