/**
 * to_char(timestamp, pattern) and the shared template tokenizer for to_date / to_timestamp.
 * Keywords are matched longest-first and case-sensitively (their case picks the output case of
 * names: Month / MONTH / month), with the FM (no padding) prefix and TH/th ordinal suffixes.
 */
import { microsToParts, ymdToDays, dayOfWeek, type TimestampParts, type Micros } from '../../../common/datetime-calendar.js';
import { formatUtcOffset } from '../../../common/timezone.js';
import { UNIX_EPOCH_JDATE, isoWeekAndYear, isoYearStart } from './datetime.js';

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'];

/** Keywords in match order: a keyword must come before any keyword that is its prefix. */
export const KEYWORDS = [
  'A.D.', 'A.M.', 'AD', 'AM', 'B.C.', 'BC', 'CC', 'DAY', 'DDD', 'DD', 'DY', 'Day', 'Dy', 'D',
  'FF1', 'FF2', 'FF3', 'FF4', 'FF5', 'FF6', 'FX', 'HH24', 'HH12', 'HH', 'IDDD', 'ID', 'IW', 'IYYY', 'IYY', 'IY', 'I',
  'J', 'MI', 'MM', 'MONTH', 'MON', 'MS', 'Month', 'Mon', 'OF', 'P.M.', 'PM', 'Q', 'RM', 'SSSSS', 'SSSS', 'SS',
  'TZH', 'TZM', 'TZ', 'US', 'WW', 'W', 'Y,YYY', 'YYYY', 'YYY', 'YY', 'Y',
  'a.d.', 'a.m.', 'ad', 'am', 'b.c.', 'bc', 'cc', 'day', 'ddd', 'dd', 'dy', 'd', 'ff1', 'ff2', 'ff3', 'ff4', 'ff5', 'ff6',
  'fx', 'hh24', 'hh12', 'hh', 'iddd', 'id', 'iw', 'iyyy', 'iyy', 'iy', 'i', 'j', 'mi', 'mm', 'month', 'mon', 'ms',
  'of', 'p.m.', 'pm', 'q', 'rm', 'sssss', 'ssss', 'ss', 'tzh', 'tzm', 'tz', 'us', 'ww', 'w', 'y,yyy', 'yyyy', 'yyy', 'yy', 'y',
];

export type TemplateNode =
  | { kind: 'keyword'; key: string; fm: boolean; th: 'TH' | 'th' | null }
  | { kind: 'literal'; text: string; quoted: boolean };

const cache = new Map<string, TemplateNode[]>();

export function parseTemplate(fmt: string): TemplateNode[] {
  const hit = cache.get(fmt);
  if (hit) return hit;
  const nodes: TemplateNode[] = [];
  let i = 0;
  while (i < fmt.length) {
    let fm = false;
    // FM and TM are prefixes; TM (translation mode) changes nothing in the C locale.
    for (;;) {
      const pre = fmt.slice(i, i + 2);
      if (pre === 'FM' || pre === 'fm') {
        fm = true;
        i += 2;
      } else if (pre === 'TM' || pre === 'tm') {
        i += 2;
      } else break;
    }
    const key = KEYWORDS.find((k) => fmt.startsWith(k, i));
    if (key !== undefined) {
      i += key.length;
      let th: 'TH' | 'th' | null = null;
      const suf = fmt.slice(i, i + 2);
      if (suf === 'TH' || suf === 'th') {
        th = suf;
        i += 2;
      }
      nodes.push({ kind: 'keyword', key, fm, th });
      continue;
    }
    const c = fmt[i]!;
    if (c === '"') {
      let text = '';
      i++;
      while (i < fmt.length && fmt[i] !== '"') {
        if (fmt[i] === '\\' && i + 1 < fmt.length) i++;
        text += fmt[i];
        i++;
      }
      i++;
      nodes.push({ kind: 'literal', text, quoted: true });
      continue;
    }
    if (c === '\\' && i + 1 < fmt.length && fmt[i + 1] === '"') {
      nodes.push({ kind: 'literal', text: '"', quoted: false });
      i += 2;
      continue;
    }
    nodes.push({ kind: 'literal', text: c, quoted: false });
    i++;
  }
  if (cache.size > 256) cache.clear();
  cache.set(fmt, nodes);
  return nodes;
}

function ordinal(n: number, upper: boolean): string {
  const a = Math.abs(n);
  const s = a % 100 >= 11 && a % 100 <= 13 ? 'th' : a % 10 === 1 ? 'st' : a % 10 === 2 ? 'nd' : a % 10 === 3 ? 'rd' : 'th';
  return upper ? s.toUpperCase() : s;
}

function zpad(n: number, width: number, fm: boolean): string {
  const neg = n < 0;
  let s = String(Math.abs(n));
  if (!fm && s.length < width) s = '0'.repeat(width - s.length) + s;
  return neg ? '-' + s : s;
}

function casedName(name: string, key: string): string {
  if (key === key.toUpperCase()) return name.toUpperCase();
  if (key === key.toLowerCase()) return name.toLowerCase();
  return name;
}

/** Format local wall-clock micros; `offset` (seconds east) is null for timestamp without time zone. */
export function toChar(local: Micros, offset: number | null, zone: string | null, fmt: string): string {
  const p: TimestampParts = microsToParts(local);
  const days = ymdToDays(p.y, p.m, p.d);
  const year = p.y <= 0 ? 1 - p.y : p.y;
  let out = '';
  for (const n of parseTemplate(fmt)) {
    if (n.kind === 'literal') {
      out += n.text;
      continue;
    }
    const K = n.key.toUpperCase();
    let num: number | null = null;
    let text: string;
    switch (K) {
      case 'HH':
      case 'HH12':
        num = p.h % 12 === 0 ? 12 : p.h % 12;
        text = zpad(num, 2, n.fm);
        break;
      case 'HH24':
        num = p.h;
        text = zpad(num, 2, n.fm);
        break;
      case 'MI':
        num = p.mi;
        text = zpad(num, 2, n.fm);
        break;
      case 'SS':
        num = p.s;
        text = zpad(num, 2, n.fm);
        break;
      case 'MS':
        num = Math.trunc(p.us / 1000);
        text = zpad(num, 3, n.fm);
        break;
      case 'US':
        num = p.us;
        text = zpad(num, 6, n.fm);
        break;
      case 'FF1':
      case 'FF2':
      case 'FF3':
      case 'FF4':
      case 'FF5':
      case 'FF6': {
        const w = Number(K[2]);
        num = Math.trunc(p.us / 10 ** (6 - w));
        text = zpad(num, w, n.fm);
        break;
      }
      case 'SSSS':
      case 'SSSSS':
        num = (p.h * 60 + p.mi) * 60 + p.s;
        text = String(num);
        break;
      case 'AM':
      case 'PM':
        text = casedName(p.h >= 12 ? 'PM' : 'AM', n.key);
        break;
      case 'A.M.':
      case 'P.M.':
        text = casedName(p.h >= 12 ? 'P.M.' : 'A.M.', n.key);
        break;
      case 'AD':
      case 'BC':
        text = casedName(p.y <= 0 ? 'BC' : 'AD', n.key);
        break;
      case 'A.D.':
      case 'B.C.':
        text = casedName(p.y <= 0 ? 'B.C.' : 'A.D.', n.key);
        break;
      case 'Y,YYY':
        num = year;
        text = `${Math.trunc(year / 1000)},${zpad(year % 1000, 3, false)}`;
        break;
      case 'YYYY':
        num = year;
        text = zpad(year, 4, n.fm);
        break;
      case 'YYY':
        num = year % 1000;
        text = zpad(num, 3, n.fm);
        break;
      case 'YY':
        num = year % 100;
        text = zpad(num, 2, n.fm);
        break;
      case 'Y':
        num = year % 10;
        text = String(num);
        break;
      case 'IYYY':
      case 'IYY':
      case 'IY':
      case 'I': {
        const iy = isoWeekAndYear(p.y, p.m, p.d).year;
        const y = iy <= 0 ? 1 - iy : iy;
        const w = K.length;
        num = w === 4 ? y : y % 10 ** w;
        text = zpad(num, w, n.fm);
        break;
      }
      case 'MONTH':
        text = casedName(MONTHS[p.m - 1]!, n.key);
        if (!n.fm) text = text.padEnd(9);
        break;
      case 'MON':
        text = casedName(MONTHS[p.m - 1]!.slice(0, 3), n.key);
        break;
      case 'MM':
        num = p.m;
        text = zpad(num, 2, n.fm);
        break;
      case 'DAY':
        text = casedName(DAYS[dayOfWeek(days)]!, n.key);
        if (!n.fm) text = text.padEnd(9);
        break;
      case 'DY':
        text = casedName(DAYS[dayOfWeek(days)]!.slice(0, 3), n.key);
        break;
      case 'DDD':
        num = days - ymdToDays(p.y, 1, 1) + 1;
        text = zpad(num, 3, n.fm);
        break;
      case 'IDDD': {
        const iy = isoWeekAndYear(p.y, p.m, p.d).year;
        num = days - isoYearStart(iy) + 1;
        text = zpad(num, 3, n.fm);
        break;
      }
      case 'DD':
        num = p.d;
        text = zpad(num, 2, n.fm);
        break;
      case 'D':
        num = dayOfWeek(days) + 1;
        text = String(num);
        break;
      case 'ID': {
        const d = dayOfWeek(days);
        num = d === 0 ? 7 : d;
        text = String(num);
        break;
      }
      case 'W':
        num = Math.trunc((p.d - 1) / 7) + 1;
        text = String(num);
        break;
      case 'WW':
        num = Math.trunc((days - ymdToDays(p.y, 1, 1)) / 7) + 1;
        text = zpad(num, 2, n.fm);
        break;
      case 'IW':
        num = isoWeekAndYear(p.y, p.m, p.d).week;
        text = zpad(num, 2, n.fm);
        break;
      case 'Q':
        num = Math.trunc((p.m - 1) / 3) + 1;
        text = String(num);
        break;
      case 'CC':
        num = p.y > 0 ? Math.trunc((p.y - 1) / 100) + 1 : Math.trunc(p.y / 100) - 1;
        text = zpad(num, 2, n.fm);
        break;
      case 'J':
        num = days + UNIX_EPOCH_JDATE;
        text = String(num);
        break;
      case 'RM':
        text = casedName(ROMAN[p.m - 1]!, n.key);
        if (!n.fm) text = text.padEnd(4);
        break;
      case 'TZ':
        text = offset === null ? '' : casedName(zoneAbbrev(zone, offset), n.key);
        break;
      // Without a time zone the offset fields print a zero offset (only TZ itself goes empty).
      case 'OF':
        text = formatUtcOffset(offset ?? 0);
        break;
      case 'TZH':
        text = ((offset ?? 0) < 0 ? '-' : '+') + zpad(Math.trunc(Math.abs(offset ?? 0) / 3600), 2, n.fm);
        break;
      case 'TZM':
        text = zpad(Math.trunc((Math.abs(offset ?? 0) % 3600) / 60), 2, n.fm);
        break;
      case 'FX':
        text = '';
        break;
      default:
        text = n.key;
    }
    out += text;
    if (n.th !== null && num !== null) out += ordinal(num, n.th === 'TH');
  }
  return out;
}

/** PostgreSQL prints the zone abbreviation; without a zone database, UTC is named and others are offsets. */
function zoneAbbrev(zone: string | null, offset: number): string {
  if (zone !== null && /^(utc|gmt|z|zulu|etc\/utc|uct|universal)$/i.test(zone)) return zone.toLowerCase() === 'gmt' ? 'GMT' : 'UTC';
  return formatUtcOffset(offset);
}
