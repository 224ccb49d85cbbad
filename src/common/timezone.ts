/**
 * Time zone offsets for the session TimeZone setting and AT TIME ZONE.
 *
 * Zone spellings, as PostgreSQL interprets them:
 *   'UTC', 'GMT', 'Z' …             offset 0
 *   IANA names ('America/New_York') via Intl.DateTimeFormat (case-insensitive, LMT before 1883 etc.)
 *   POSIX TZ strings ('PST8PDT', 'UTC+3', '<+02>-02', '-05:30', 'ABC-3DEF'): the POSIX offset is
 *                                    hours WEST of Greenwich, so 'UTC+3' is three hours behind UTC;
 *                                    a DST name without rules uses the US rules (PostgreSQL's posixrules)
 *   abbreviations ('PST', 'CEST')    fixed offsets from PostgreSQL's default abbreviation table;
 *                                    only where PostgreSQL accepts them (AT TIME ZONE, literal suffixes)
 *
 * SET TIME ZONE with a plain number ('+02', '5', '-3.5') is ISO-signed (east positive) in PostgreSQL;
 * normalizeTimeZoneSetting() turns it into the equivalent POSIX string so everything else is uniform.
 */
import { QuireError } from './errors.js';
import { MICROS_PER_DAY, addMicros, microsApprox, ymdToDays, type Micros } from './datetime-calendar.js';

const MICROS_PER_SECOND = 1_000_000;

interface PosixRule {
  /** 'M' month/week/day rule: month 1-12, week 1-5 (5 = last), weekday 0 = Sunday. 'J'/'N' julian days. */
  kind: 'M' | 'J' | 'N';
  month: number;
  week: number;
  day: number;
  /** seconds after local midnight */
  time: number;
}

interface Resolved {
  /** Fixed offset (seconds east) when there is no DST; otherwise null. */
  fixed: number | null;
  offsetAt(utcMicros: number): number;
}

/** PostgreSQL's default timezone abbreviations (timezonesets/Default), seconds east of UTC. */
const ABBREVIATIONS: Record<string, number> = {
  utc: 0, gmt: 0, ut: 0, z: 0, zulu: 0, uct: 0, wet: 0, west: 3600, bst: 3600,
  cet: 3600, cest: 7200, met: 3600, mest: 7200, eet: 7200, eest: 10800, msk: 10800, msd: 14400,
  ist: 7200, idt: 10800, eat: 10800, sast: 7200, cat: 7200, wat: 3600,
  est: -18000, edt: -14400, cst: -21600, cdt: -18000, mst: -25200, mdt: -21600, pst: -28800, pdt: -25200,
  akst: -32400, akdt: -28800, hst: -36000, ast: -14400, adt: -10800, nst: -12600, ndt: -9000,
  jst: 32400, kst: 32400, hkt: 28800, sgt: 28800, awst: 28800, acst: 34200, acdt: 37800,
  aest: 36000, aedt: 39600, nzst: 43200, nzdt: 46800, pht: 28800, wib: 25200, ict: 25200,
  brt: -10800, art: -10800, clt: -14400, pet: -18000, cot: -18000,
};

/** Seconds east of UTC for a PostgreSQL timezone abbreviation, or undefined. */
export function abbreviationOffset(abbrev: string): number | undefined {
  return ABBREVIATIONS[abbrev.toLowerCase()];
}

const UTC_NAMES = new Set(['utc', 'gmt', 'z', 'zulu', 'uct', 'ut', 'etc/utc', 'etc/gmt', 'etc/uct', 'etc/zulu', 'universal', 'etc/universal', 'greenwich', 'gmt0', 'gmt+0', 'gmt-0', 'etc/gmt0', 'etc/gmt+0', 'etc/gmt-0']);

const cache = new Map<string, Resolved | null>();

function fixedZone(off: number): Resolved {
  return { fixed: off, offsetAt: () => off };
}

/**
 * How a spelling is looked up: 'strict' (SET TIME ZONE: zone names only), 'session' (zone names,
 * then abbreviations as a lenient fallback), 'at' (AT TIME ZONE and literal suffixes: PostgreSQL
 * tries abbreviations first, so 'CET' there is a fixed +01 while the session zone 'CET' has DST).
 */
type Mode = 'strict' | 'session' | 'at';

function resolve(zone: string, mode: Mode): Resolved | null {
  const key = mode + ':' + zone;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let r: Resolved | null = null;
  const z = zone.trim();
  const lower = z.toLowerCase();
  if (UTC_NAMES.has(lower)) r = fixedZone(0);
  else {
    const abbrev = (): Resolved | null => {
      const a = abbreviationOffset(lower);
      return a === undefined ? null : fixedZone(a);
    };
    if (mode === 'at') r = abbrev();
    if (r === null && /^(est5edt|cst6cdt|mst7mdt|pst8pdt)$/.test(lower)) r = usFederalZone(-Number(lower[3]) * 3600);
    if (r === null && /^[a-z]/i.test(z)) r = ianaZone(z);
    if (r === null) r = posixZone(z);
    if (r === null && mode === 'session') r = abbrev();
  }
  cache.set(key, r);
  return r;
}

function zoneError(zone: string): QuireError {
  return new QuireError('22023', `time zone "${zone}" not recognized`);
}

/** True if `zone` is acceptable as a session TimeZone value (after normalizeTimeZoneSetting). */
export function isValidTimeZone(zone: string): boolean {
  return resolve(zone, 'strict') !== null;
}

/**
 * The value a SET TIME ZONE stores: numbers become PostgreSQL's POSIX form ('+02' → '<+02>-02'),
 * IANA names keep the user's spelling (PostgreSQL canonicalises case; we keep Intl's casing).
 * Returns null if the zone is unknown.
 */
export function normalizeTimeZoneSetting(value: string): string | null {
  const v = value.trim();
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(v)) {
    const hours = Number(v);
    const secs = Math.round(hours * 3600);
    if (Math.abs(secs) > 15 * 3600) return null;
    const name = formatOffsetName(secs);
    return `<${name}>${formatPosixOffset(-secs)}`;
  }
  if (resolve(v, 'strict') === null) return null;
  const canon = canonicalIana(v);
  return canon ?? v;
}

function formatOffsetName(secs: number): string {
  const sign = secs < 0 ? '-' : '+';
  const a = Math.abs(secs);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  return `${sign}${String(h).padStart(2, '0')}${m || s ? String(m).padStart(2, '0') : ''}${s ? String(s).padStart(2, '0') : ''}`;
}

function formatPosixOffset(secs: number): string {
  const sign = secs < 0 ? '-' : '+';
  const a = Math.abs(secs);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  return `${sign}${String(h).padStart(2, '0')}${m || s ? ':' + String(m).padStart(2, '0') : ''}${s ? ':' + String(s).padStart(2, '0') : ''}`;
}

/** Seconds east of UTC in the session zone `zone` at the UTC instant `utcMicros`; 22023 if unknown. */
export function utcOffsetSeconds(zone: string, utcMicros: Micros): number {
  return offsetIn(zone, utcMicros, 'session');
}

/** Like utcOffsetSeconds, with AT TIME ZONE's lookup order (abbreviations first). */
export function atTimeZoneOffsetSeconds(zone: string, utcMicros: Micros): number {
  return offsetIn(zone, utcMicros, 'at');
}

function offsetIn(zone: string, utcMicros: Micros, mode: Mode): number {
  const r = resolve(zone, mode);
  if (r === null) throw zoneError(zone);
  if (r.fixed !== null) return r.fixed;
  // A zone's rules are looked up at the nearest double: beyond 2255 that is within a microsecond.
  const t = microsApprox(utcMicros);
  if (!Number.isFinite(t)) return 0;
  return r.offsetAt(t);
}

/**
 * UTC microseconds for a local wall-clock time in the session zone `zone`. PostgreSQL's rules
 * for DST transitions: a time in a spring-forward gap uses the offset in force before the gap;
 * an ambiguous time in a fall-back overlap uses the offset in force after it.
 */
export function localToUtc(zone: string, localMicros: Micros): Micros {
  return localToUtcIn(zone, localMicros, 'session');
}

/** localToUtc with AT TIME ZONE's lookup order (timestamp AT TIME ZONE zone, literal zone suffixes). */
export function atTimeZoneLocalToUtc(zone: string, localMicros: Micros): Micros {
  return localToUtcIn(zone, localMicros, 'at');
}

function localToUtcIn(zone: string, localMicros: Micros, mode: Mode): Micros {
  const r = resolve(zone, mode);
  if (r === null) throw zoneError(zone);
  if (typeof localMicros === 'number' && !Number.isFinite(localMicros)) return localMicros;
  if (r.fixed !== null) return addMicros(localMicros, -r.fixed * MICROS_PER_SECOND);
  const local = microsApprox(localMicros);
  const before = r.offsetAt(local - MICROS_PER_DAY);
  const after = r.offsetAt(local + MICROS_PER_DAY);
  if (r.offsetAt(local - after * MICROS_PER_SECOND) === after) return addMicros(localMicros, -after * MICROS_PER_SECOND);
  // Valid only with the earlier offset, or in a gap: both use the earlier offset.
  return addMicros(localMicros, -before * MICROS_PER_SECOND);
}

/** Zone abbreviation-free display of an offset as PostgreSQL prints it in timestamptz ('+00', '-07', '+05:30'). */
export function formatUtcOffset(secs: number): string {
  const sign = secs < 0 ? '-' : '+';
  const a = Math.abs(secs);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  let out = sign + String(h).padStart(2, '0');
  if (m !== 0 || s !== 0) out += ':' + String(m).padStart(2, '0');
  if (s !== 0) out += ':' + String(s).padStart(2, '0');
  return out;
}

// ---- IANA via Intl -----------------------------------------------------------------------------

const MIN_DATE_MS = -8.64e15;
const MAX_DATE_MS = 8.64e15;
const CYCLE_MS = 146097 * 86_400_000;

function canonicalIana(zone: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function ianaZone(zone: string): Resolved | null {
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return null;
  }
  // Offsets only change at whole seconds; memoise per UTC hour to keep bulk conversions cheap.
  const memo = new Map<number, number>();
  const offsetAt = (utcMicros: number): number => {
    let ms = Math.floor(utcMicros / 1000);
    // Beyond Date's range, shift by whole 400-year Gregorian cycles (same calendar and weekdays),
    // so the zone's rules extrapolate the way PostgreSQL's POSIX-rule tail does.
    if (ms > MAX_DATE_MS - CYCLE_MS) ms -= Math.ceil((ms - (MAX_DATE_MS - CYCLE_MS)) / CYCLE_MS) * CYCLE_MS;
    else if (ms < MIN_DATE_MS + CYCLE_MS) ms += Math.ceil((MIN_DATE_MS + CYCLE_MS - ms) / CYCLE_MS) * CYCLE_MS;
    const wholeSec = Math.floor(ms / 1000);
    const hourKey = Math.floor(wholeSec / 900);
    const memoHit = memo.get(hourKey);
    if (memoHit !== undefined) return memoHit;
    const probe = hourKey * 900 * 1000;
    let y = 0;
    let mo = 0;
    let d = 0;
    let h = 0;
    let mi = 0;
    let s = 0;
    let bc = false;
    for (const p of fmt.formatToParts(new Date(probe))) {
      switch (p.type) {
        case 'year':
          y = Number(p.value);
          break;
        case 'month':
          mo = Number(p.value);
          break;
        case 'day':
          d = Number(p.value);
          break;
        case 'hour':
          h = Number(p.value);
          break;
        case 'minute':
          mi = Number(p.value);
          break;
        case 'second':
          s = Number(p.value);
          break;
        case 'era':
          bc = p.value.startsWith('B');
          break;
      }
    }
    if (bc) y = 1 - y;
    const localSec = ymdToDays(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    const off = localSec - probe / 1000;
    // Transitions happen on quarter-hour UTC boundaries in practice except for LMT changes, which
    // are at local midnight; the quarter-hour memo cannot straddle one except there (rare, pre-1900).
    if (memo.size > 100_000) memo.clear();
    memo.set(hourKey, off);
    return off;
  };
  return { fixed: null, offsetAt };
}

// ---- POSIX TZ strings --------------------------------------------------------------------------

function parsePosixOffset(s: string, pos: number): [number, number] | null {
  const m = /^([+-]?)(\d{1,2})(?::(\d{1,2})(?::(\d{1,2}))?)?/.exec(s.slice(pos));
  if (m === null) return null;
  const h = Number(m[2]);
  const mi = m[3] !== undefined ? Number(m[3]) : 0;
  const sec = m[4] !== undefined ? Number(m[4]) : 0;
  if (h > 24 || mi > 59 || sec > 59) return null;
  let v = h * 3600 + mi * 60 + sec;
  if (m[1] === '-') v = -v;
  return [v, pos + m[0].length];
}

function parsePosixName(s: string, pos: number): [string, number] | null {
  if (s[pos] === '<') {
    const end = s.indexOf('>', pos);
    if (end < 0) return null;
    return [s.slice(pos + 1, end), end + 1];
  }
  const m = /^[a-zA-Z]{3,}/.exec(s.slice(pos));
  if (m === null) return null;
  return [m[0], pos + m[0].length];
}

function parseRule(s: string): PosixRule | null {
  const m = /^(?:M(\d{1,2})\.(\d)\.(\d)|J(\d{1,3})|(\d{1,3}))(?:\/([+-]?\d{1,3}(?::\d{1,2}(?::\d{1,2})?)?))?$/.exec(s);
  if (m === null) return null;
  let time = 7200;
  if (m[6] !== undefined) {
    const t = parsePosixOffset(m[6], 0);
    if (t === null) return null;
    time = t[0];
  }
  if (m[1] !== undefined) return { kind: 'M', month: Number(m[1]), week: Number(m[2]), day: Number(m[3]), time };
  if (m[4] !== undefined) return { kind: 'J', month: 0, week: 0, day: Number(m[4]), time };
  return { kind: 'N', month: 0, week: 0, day: Number(m[5]), time };
}

/** Local days-since-epoch of a rule's transition date in `year`. */
function ruleDay(r: PosixRule, year: number): number {
  const jan1 = ymdToDays(year, 1, 1);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (r.kind === 'J') return jan1 + r.day - 1 + (leap && r.day >= 60 ? 1 : 0);
  if (r.kind === 'N') return jan1 + r.day;
  const first = ymdToDays(year, r.month, 1);
  const dow = (((first + 4) % 7) + 7) % 7;
  let d = first + ((r.day - dow + 7) % 7) + (r.week - 1) * 7;
  const nextMonth = r.month === 12 ? ymdToDays(year + 1, 1, 1) : ymdToDays(year, r.month + 1, 1);
  while (d >= nextMonth) d -= 7;
  return d;
}

const US_START: PosixRule = { kind: 'M', month: 3, week: 2, day: 0, time: 7200 };
const US_END: PosixRule = { kind: 'M', month: 11, week: 1, day: 0, time: 7200 };

function posixZone(s: string): Resolved | null {
  if (s === '') return null;
  let pos = 0;
  // PostgreSQL accepts a bare POSIX offset ('-05:30') with an implied empty name.
  let name = parsePosixName(s, pos);
  if (name !== null) pos = name[1];
  else if (!/^[+-]?\d/.test(s)) return null;
  const std = parsePosixOffset(s, pos);
  if (std === null) return null;
  pos = std[1];
  const stdOff = -std[0];
  if (pos === s.length) return fixedZone(stdOff);
  name = parsePosixName(s, pos);
  if (name === null) return null;
  pos = name[1];
  let dstOff = stdOff + 3600;
  if (pos < s.length && s[pos] !== ',') {
    const d = parsePosixOffset(s, pos);
    if (d === null) return null;
    dstOff = -d[0];
    pos = d[1];
  }
  let start = US_START;
  let end = US_END;
  if (pos < s.length) {
    if (s[pos] !== ',') return null;
    const parts = s.slice(pos + 1).split(',');
    if (parts.length !== 2) return null;
    const a = parseRule(parts[0]!);
    const b = parseRule(parts[1]!);
    if (a === null || b === null) return null;
    start = a;
    end = b;
  }
  const offsetAt = (utcMicros: number): number => {
    const utcSec = Math.floor(utcMicros / MICROS_PER_SECOND);
    const approxYear = Math.floor(1970 + utcSec / 31556952);
    for (const year of [approxYear - 1, approxYear, approxYear + 1]) {
      // Transition instants in UTC: start is given in standard local time, end in DST local time.
      const st = ruleDay(start, year) * 86400 + start.time - stdOff;
      const en = ruleDay(end, year) * 86400 + end.time - dstOff;
      const yStart = ymdToDays(year, 1, 1) * 86400 - stdOff;
      const yEnd = ymdToDays(year + 1, 1, 1) * 86400 - stdOff;
      if (utcSec < yStart || utcSec >= yEnd) continue;
      if (st < en) return utcSec >= st && utcSec < en ? dstOff : stdOff;
      // Southern hemisphere: DST spans the new year.
      return utcSec >= en && utcSec < st ? stdOff : dstOff;
    }
    return stdOff;
  };
  return { fixed: null, offsetAt };
}

// ---- US federal rules (PostgreSQL's EST5EDT, CST6CDT, MST7MDT, PST8PDT zones) ------------------

const M = (month: number, week: number, day = 0): PosixRule => ({ kind: 'M', month, week, day, time: 7200 });
/** Fixed-date rule: the n-th day of the month, as a 'J'-like absolute day in the year. */
function fixedDay(year: number, month: number, day: number): number {
  return ymdToDays(year, month, day) - ymdToDays(year, 1, 1) + 1;
}

/** [start rule, end rule] of US federal DST in `year`, 'all' for war time, null for none. */
function usRules(year: number): [PosixRule, PosixRule | null] | 'all' | null {
  if (year >= 2007) return [M(3, 2), M(11, 1)];
  if (year >= 1987) return [M(4, 1), M(10, 5)];
  if (year >= 1976) return [M(4, 5), M(10, 5)];
  if (year === 1975) return [{ kind: 'N', month: 0, week: 0, day: fixedDay(1975, 2, 23) - 1, time: 7200 }, M(10, 5)];
  if (year === 1974) return [{ kind: 'N', month: 0, week: 0, day: fixedDay(1974, 1, 6) - 1, time: 7200 }, M(10, 5)];
  if (year >= 1967) return [M(4, 5), M(10, 5)];
  if (year >= 1946) return null;
  if (year === 1945) return [{ kind: 'N', month: 0, week: 0, day: 0, time: 0 }, { kind: 'N', month: 0, week: 0, day: fixedDay(1945, 9, 30) - 1, time: 7200 }];
  if (year === 1943 || year === 1944) return 'all';
  if (year === 1942) return [{ kind: 'N', month: 0, week: 0, day: fixedDay(1942, 2, 9) - 1, time: 7200 }, null];
  if (year === 1918 || year === 1919) return [M(3, 5), M(10, 5)];
  return null;
}

function usFederalZone(stdOff: number): Resolved {
  const dstOff = stdOff + 3600;
  const offsetAt = (utcMicros: number): number => {
    const utcSec = Math.floor(utcMicros / MICROS_PER_SECOND);
    const localDays = Math.floor((utcSec + stdOff) / 86400);
    const year = daysToYear(localDays);
    const rules = usRules(year);
    if (rules === null) return stdOff;
    if (rules === 'all') return dstOff;
    const st = ruleDay(rules[0], year) * 86400 + rules[0].time - stdOff;
    const en = rules[1] === null ? Infinity : ruleDay(rules[1], year) * 86400 + rules[1].time - dstOff;
    return utcSec >= st && utcSec < en ? dstOff : stdOff;
  };
  return { fixed: null, offsetAt };
}

function daysToYear(days: number): number {
  let y = Math.floor(1970 + days / 365.2425);
  while (ymdToDays(y, 1, 1) > days) y--;
  while (ymdToDays(y + 1, 1, 1) <= days) y++;
  return y;
}
