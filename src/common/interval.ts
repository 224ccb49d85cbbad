/**
 * PostgreSQL interval: three independent fields, because months and days have no fixed length
 * (a month is not 30 days, a day is not 24 hours across DST). Comparison and hashing normalise
 * with 30-day months and 24-hour days, as PostgreSQL's interval_cmp does.
 *
 * PostgreSQL 17+ infinite intervals are represented with all three fields ±Infinity.
 *
 * The time field is PostgreSQL's int64 of microseconds: a number while it is a safe integer and a bigint
 * beyond (±2^53 µs is about 104,000 days of hours), as timestamps are (see Micros).
 */
import { QuireError } from './errors.js';
import { addMicros, microsApprox, normMicros, type Micros } from './datetime-calendar.js';

const USECS_PER_DAY = 86_400_000_000;
const USECS_PER_HOUR = 3_600_000_000;
const USECS_PER_MINUTE = 60_000_000;
const USECS_PER_SEC = 1_000_000;

/** PostgreSQL's interval field bits (datetime.h): a typmod's range is a mask of them. */
export const INTERVAL_FIELD = { MONTH: 1, YEAR: 2, DAY: 3, HOUR: 10, MINUTE: 11, SECOND: 12 } as const;
export const intervalMask = (field: keyof typeof INTERVAL_FIELD): number => 1 << INTERVAL_FIELD[field];
export const INTERVAL_FULL_RANGE = 0x7fff;

export class Interval {
  constructor(
    readonly months: number,
    readonly days: number,
    readonly micros: Micros,
  ) {}

  static readonly ZERO = new Interval(0, 0, 0);
  static readonly POSITIVE_INFINITY = new Interval(Infinity, Infinity, Infinity);
  static readonly NEGATIVE_INFINITY = new Interval(-Infinity, -Infinity, -Infinity);

  /** Total in microseconds with PostgreSQL's normalisation (1 month = 30 days, 1 day = 24 h). */
  normalized(): number {
    return (this.months * 30 + this.days) * 86_400_000_000 + microsApprox(this.micros);
  }

  /** Exact normalised total (the number form loses precision beyond 2^53 µs ≈ 285 years). */
  normalizedBig(): bigint {
    if (!this.isFinite()) throw new QuireError('22008', 'interval out of range');
    return BigInt(this.months * 30 + this.days) * 86_400_000_000n + BigInt(this.micros);
  }

  isFinite(): boolean {
    return Number.isFinite(this.months);
  }

  /** interval_cmp: -1, 0, 1 on the normalised value. */
  compare(o: Interval): number {
    const a = this.normalized();
    const b = o.normalized();
    if (Math.abs(a) < 2 ** 52 && Math.abs(b) < 2 ** 52 && typeof this.micros === 'number' && typeof o.micros === 'number') return a < b ? -1 : a > b ? 1 : 0;
    if (!this.isFinite() || !o.isFinite()) return a < b ? -1 : a > b ? 1 : 0;
    const x = this.normalizedBig();
    const y = o.normalizedBig();
    return x < y ? -1 : x > y ? 1 : 0;
  }

  equals(o: Interval): boolean {
    return this.compare(o) === 0;
  }

  /** A Map key equal for intervals that compare equal. */
  hashKey(): number | string {
    const n = this.normalized();
    if ((Math.abs(n) < 2 ** 52 && typeof this.micros === 'number') || !this.isFinite()) return n;
    return this.normalizedBig().toString();
  }

  add(o: Interval): Interval {
    if (!this.isFinite() || !o.isFinite()) {
      if (this.isFinite()) return o;
      if (o.isFinite() || this.months === o.months) return this;
      throw new QuireError('22008', 'interval out of range');
    }
    return new Interval(this.months + o.months, this.days + o.days, addMicros(this.micros, o.micros));
  }

  sub(o: Interval): Interval {
    return this.add(o.neg());
  }

  neg(): Interval {
    return new Interval(-this.months || 0, -this.days || 0, negMicros(this.micros));
  }

  /** interval * float8 with PostgreSQL's cascading of fractional months and days. */
  mul(factor: number): Interval {
    return scaleInterval(this, factor, false);
  }

  /** interval / float8; 22012 on zero. */
  div(factor: number): Interval {
    if (factor === 0) throw new QuireError('22012', 'division by zero');
    return scaleInterval(this, factor, true);
  }

  justifyHours(): Interval {
    if (!this.isFinite()) return this;
    const [wd, rest] = splitDays(this.micros);
    let days = this.days + wd;
    let micros = rest;
    if (days > 0 && micros < 0) {
      micros += USECS_PER_DAY;
      days--;
    } else if (days < 0 && micros > 0) {
      micros -= USECS_PER_DAY;
      days++;
    }
    return new Interval(this.months, days || 0, micros || 0);
  }

  justifyDays(): Interval {
    if (!this.isFinite()) return this;
    let months = this.months + Math.trunc(this.days / 30);
    let days = this.days % 30;
    if (months > 0 && days < 0) {
      days += 30;
      months--;
    } else if (months < 0 && days > 0) {
      days -= 30;
      months++;
    }
    return new Interval(months || 0, days || 0, this.micros);
  }

  justifyInterval(): Interval {
    if (!this.isFinite()) return this;
    let { months, days } = this;
    const [wd, rest] = splitDays(this.micros);
    let micros = rest;
    if ((days > 0 && this.micros > 0) || (days < 0 && this.micros < 0)) {
      const wm = Math.trunc(days / 30);
      days -= wm * 30;
      months += wm;
    }
    days += wd;
    const wm = Math.trunc(days / 30);
    days -= wm * 30;
    months += wm;
    if (months > 0 && (days < 0 || (days === 0 && micros < 0))) {
      days += 30;
      months--;
    } else if (months < 0 && (days > 0 || (days === 0 && micros > 0))) {
      days -= 30;
      months++;
    }
    if (days > 0 && micros < 0) {
      micros += USECS_PER_DAY;
      days--;
    } else if (days < 0 && micros > 0) {
      micros -= USECS_PER_DAY;
      days++;
    }
    return new Interval(months || 0, days || 0, micros || 0);
  }

  /** PostgreSQL text output in the default IntervalStyle 'postgres'. */
  toString(): string {
    return formatInterval(this);
  }

  /**
   * PostgreSQL interval input (postgres, SQL-standard and ISO 8601 forms); 22007 on bad syntax.
   * `range` is the field mask of an `interval <fields>` type (INTERVAL_FULL_RANGE without one): it
   * says which unit a bare number has ('26' read as interval day is 26 days) and whether 'a:b' is
   * minutes and seconds. Truncating to the fields is applyIntervalTypmod's part.
   */
  static parse(s: string, range = INTERVAL_FULL_RANGE): Interval {
    return parseInterval(s, range);
  }
}

const tsround = (x: number): number => Math.round(x * 1e6) / 1e6;

function negMicros(m: Micros): Micros {
  return typeof m === 'bigint' ? normMicros(-m) : -m || 0;
}

/** Whole days (toward zero) of a time field and the microseconds left, which always fit a number. */
function splitDays(m: Micros): [number, number] {
  if (typeof m === 'number') {
    const d = Math.trunc(m / USECS_PER_DAY);
    return [d, m - d * USECS_PER_DAY];
  }
  const d = m / 86_400_000_000n;
  return [Number(d), Number(m - d * 86_400_000_000n)];
}

/** A parsed time field within PostgreSQL's int64, or 22015 naming the input. */
function checkedMicros(m: bigint, input: string): Micros {
  if (m > 9223372036854775807n || m < -9223372036854775808n) throw overflowError(input);
  return normMicros(m);
}

function rint(x: number): number {
  // Round half to even, as C's rint() does in the default rounding mode.
  const r = Math.round(x);
  if (Math.abs(x - Math.trunc(x)) === 0.5 && r % 2 !== 0) return r - 1;
  return r;
}

function scaleInterval(iv: Interval, factor: number, divide: boolean): Interval {
  if (Number.isNaN(factor)) throw new QuireError('22008', 'interval out of range');
  const op = (v: number): number => (divide ? v / factor : v * factor);
  if (!iv.isFinite() || !Number.isFinite(factor)) {
    if (divide && iv.isFinite()) return Interval.ZERO;
    const sign = Math.sign(iv.isFinite() ? iv.normalized() : iv.months) * Math.sign(factor);
    if (sign === 0 || Number.isNaN(sign)) throw new QuireError('22008', 'interval out of range');
    return sign > 0 ? Interval.POSITIVE_INFINITY : Interval.NEGATIVE_INFINITY;
  }
  const m = op(iv.months);
  if (!(m >= -2147483648 && m < 2147483648)) throw new QuireError('22008', 'interval out of range');
  const months = Math.trunc(m);
  const d = op(iv.days);
  if (!(d >= -2147483648 && d < 2147483648)) throw new QuireError('22008', 'interval out of range');
  let days = Math.trunc(d);
  const monthRemainderDays = tsround((m - months) * 30);
  let secRemainder = tsround((d - days + monthRemainderDays - Math.trunc(monthRemainderDays)) * 86400);
  if (Math.abs(secRemainder) >= 86400) {
    const extra = Math.trunc(secRemainder / 86400);
    days += extra;
    secRemainder -= extra * 86400;
  }
  days += Math.trunc(monthRemainderDays);
  // The time field is scaled through a double, as PostgreSQL does (even * 1 rounds beyond 2^53 µs).
  const micros = rint(op(microsApprox(iv.micros)) + secRemainder * 1e6);
  if (!(Math.abs(micros) <= 9223372036854775807)) throw new QuireError('22008', 'interval out of range');
  return new Interval(months || 0, days || 0, Number.isSafeInteger(micros) ? micros || 0 : normMicros(BigInt(micros)));
}

// ---- output ------------------------------------------------------------------------------------

function formatInterval(iv: Interval): string {
  if (!iv.isFinite()) return iv.months > 0 ? 'infinity' : '-infinity';
  const year = Math.trunc(iv.months / 12);
  const mon = iv.months % 12;
  const mday = iv.days;
  const [hour, below] = splitHours(iv.micros);
  let time = below;
  const min = Math.trunc(time / USECS_PER_MINUTE);
  time -= min * USECS_PER_MINUTE;
  const sec = Math.trunc(time / USECS_PER_SEC);
  const fsec = time - sec * USECS_PER_SEC;
  let out = '';
  let isZero = true;
  let isBefore = false;
  const part = (value: number, unit: string): void => {
    if (value === 0) return;
    out += `${!isZero ? ' ' : ''}${isBefore && value > 0 ? '+' : ''}${value} ${unit}${value !== 1 ? 's' : ''}`;
    isBefore = value < 0;
    isZero = false;
  };
  part(year, 'year');
  part(mon, 'mon');
  part(mday, 'day');
  if (isZero || hour !== 0 || min !== 0 || sec !== 0 || fsec !== 0) {
    const minus = hour < 0 || min < 0 || sec < 0 || fsec < 0;
    out += `${isZero ? '' : ' '}${minus ? '-' : isBefore ? '+' : ''}${pad2(Math.abs(hour))}:${pad2(Math.abs(min))}:${pad2(
      Math.abs(sec),
    )}${fraction(Math.abs(fsec))}`;
  }
  return out;
}

/** Whole hours (toward zero) of a time field and the microseconds left. */
export function splitHours(m: Micros): [number, number] {
  if (typeof m === 'number') {
    const h = Math.trunc(m / USECS_PER_HOUR);
    return [h, m - h * USECS_PER_HOUR];
  }
  const h = m / 3_600_000_000n;
  return [Number(h), Number(m - h * 3_600_000_000n)];
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** '.ffffff' with trailing zeros dropped, '' when zero. */
export function fraction(us: number): string {
  if (us === 0) return '';
  return ('.' + String(us).padStart(6, '0')).replace(/0+$/, '');
}

// ---- input -------------------------------------------------------------------------------------

function syntaxError(s: string): QuireError {
  return new QuireError('22007', `invalid input syntax for type interval: "${s}"`);
}

function overflowError(s: string): QuireError {
  return new QuireError('22015', `interval field value out of range: "${s}"`);
}

type Unit = 'us' | 'ms' | 's' | 'min' | 'h' | 'd' | 'w' | 'mon' | 'y' | 'dec' | 'c' | 'mil';

const UNITS: Record<string, Unit> = {};
for (const [u, names] of [
  ['us', 'microsecond microseconds microsecon us usec usecs useconds'],
  ['ms', 'millisecond milliseconds millisecon ms msec msecs mseconds'],
  ['s', 'second seconds s sec secs'],
  ['min', 'minute minutes m min mins'],
  ['h', 'hour hours h hr hrs'],
  ['d', 'day days d'],
  ['w', 'week weeks w'],
  ['mon', 'month months mon mons'],
  ['y', 'year years y yr yrs'],
  ['dec', 'decade decades dec decs'],
  ['c', 'century centuries c cent'],
  ['mil', 'millennium millennia mil mils'],
] as const) {
  for (const n of names.split(' ')) UNITS[n] = u;
}

/** Accumulator mirroring PostgreSQL's struct pg_itm_in (years folded into months). */
class Acc {
  months = 0;
  days = 0;
  /** Exact, as PostgreSQL's int64: '2562047788 hours' is beyond a double's exact range. */
  micros = 0n;
  /** AdjustFractMicroseconds: the fraction is rounded to a whole microsecond on its own. */
  fractMicros(frac: number, scale: number): void {
    if (frac !== 0) this.micros += BigInt(rint(frac * scale));
  }
  /** AdjustFractDays: whole days first, the rest as microseconds. */
  fractDays(frac: number, scale: number): void {
    if (frac === 0) return;
    const f = frac * scale;
    const extra = Math.trunc(f);
    this.days += extra;
    this.fractMicros(f - extra, USECS_PER_DAY);
  }
}

/**
 * Splits '12.5' / '-0.25' into integer and fractional parts the way PostgreSQL's strtoi64 + strtod do;
 * the integer part exactly (9223372036854775807 microseconds is a valid interval).
 */
function splitNumber(tok: string): [bigint, number] {
  if (/e/i.test(tok)) {
    const v = Number(tok);
    const w = Math.trunc(v);
    return [Number.isFinite(w) ? BigInt(w) : 0n, v - w];
  }
  const neg = tok.startsWith('-');
  const body = tok.replace(/^[+-]/, '');
  const dot = body.indexOf('.');
  const ip = dot < 0 ? body : body.slice(0, dot);
  const fp = dot < 0 ? '' : body.slice(dot + 1);
  const w = ip === '' ? 0n : BigInt(ip);
  const f = fp === '' ? 0 : Number('0.' + fp);
  return neg ? [-w, -f || 0] : [w, f];
}

const UNIT_MICROS: Partial<Record<Unit, number>> = { us: 1, ms: 1000, s: USECS_PER_SEC, min: USECS_PER_MINUTE, h: USECS_PER_HOUR };
const UNIT_YEARS: Partial<Record<Unit, number>> = { y: 1, dec: 10, c: 100, mil: 1000 };

function applyUnit(acc: Acc, unit: Unit, wholeBig: bigint, frac: number): void {
  const us = UNIT_MICROS[unit];
  if (us !== undefined) {
    acc.micros += wholeBig * BigInt(us);
    acc.fractMicros(frac, us);
    return;
  }
  const whole = Number(wholeBig);
  const years = UNIT_YEARS[unit];
  if (years !== undefined) {
    acc.months += whole * years * 12;
    // AdjustFractYears: only whole months survive, rounded.
    if (frac !== 0) acc.months += rint(frac * years * 12);
    return;
  }
  switch (unit) {
    case 'd':
      acc.days += whole;
      acc.fractMicros(frac, USECS_PER_DAY);
      return;
    case 'w':
      acc.days += whole * 7;
      acc.fractDays(frac, 7);
      return;
    case 'mon':
      acc.months += whole;
      acc.fractDays(frac, 30);
      return;
  }
}

const NUM = String.raw`(?:\d+(?:\.\d*)?|\.\d+)`;
const TIME_RE = new RegExp(String.raw`^([+-]?)(\d+):(\d+)(?::(${NUM}))?$`);
const MINSEC_RE = new RegExp(String.raw`^([+-]?)(\d+):(\d+\.\d*)$`);
const YM_RE = /^([+-]?)(\d+)-(\d+)$/;
const NUM_RE = new RegExp(String.raw`^[+-]?${NUM}(?:e[+-]?\d+)?$`);

/**
 * The time field of 'h:m[:s]' / 'm:s.f', exactly; null when it is not one, 'range' for bad minutes/seconds.
 * Under a MINUTE TO SECOND range 'a:b' is minutes and seconds too.
 */
function parseTime(tok: string, range: number): bigint | null | 'range' {
  let m = MINSEC_RE.exec(tok);
  if (m !== null) {
    const us = BigInt(m[2]!) * BigInt(USECS_PER_MINUTE) + BigInt(rint(Number(m[3]) * USECS_PER_SEC));
    return m[1] === '-' ? -us : us;
  }
  m = TIME_RE.exec(tok);
  if (m === null) return null;
  if (m[4] === undefined && range === (intervalMask('MINUTE') | intervalMask('SECOND'))) {
    if (Number(m[2]) > 59 || Number(m[3]) > 60) return 'range';
    const us = BigInt(m[2]!) * BigInt(USECS_PER_MINUTE) + BigInt(m[3]!) * BigInt(USECS_PER_SEC);
    return m[1] === '-' ? -us : us;
  }
  const mi = Number(m[3]);
  const sec = m[4] !== undefined ? Number(m[4]) : 0;
  if (mi > 59 || sec >= 60) return 'range';
  const us = BigInt(m[2]!) * BigInt(USECS_PER_HOUR) + BigInt(mi * USECS_PER_MINUTE + rint(sec * USECS_PER_SEC));
  return m[1] === '-' ? -us : us;
}

/** The unit of a bare number no unit word or time field names: the lowest field of the range (DecodeInterval). */
function rangeUnit(range: number): Unit {
  const [Y, M, D, H, MI] = [intervalMask('YEAR'), intervalMask('MONTH'), intervalMask('DAY'), intervalMask('HOUR'), intervalMask('MINUTE')];
  switch (range) {
    case Y:
      return 'y';
    case M:
    case Y | M:
      return 'mon';
    case D:
      return 'd';
    case H:
    case D | H:
      return 'h';
    case MI:
    case H | MI:
    case D | H | MI:
      return 'min';
    default:
      return 's';
  }
}

function parseInterval(s: string, range: number): Interval {
  let t = s.trim().toLowerCase();
  if (t === 'infinity' || t === '+infinity') return Interval.POSITIVE_INFINITY;
  if (t === '-infinity') return Interval.NEGATIVE_INFINITY;
  if (t.startsWith('p')) return parseIso(s, t.slice(1));
  if (t.startsWith('@')) t = t.slice(1).trim();
  if (t === '') throw syntaxError(s);
  // Split numbers from attached unit words ('2hours', '1day') while keeping signs with numbers.
  const raw = t.split(/\s+/);
  const tokens: string[] = [];
  for (const r of raw) {
    const m = /^([+-]?[\d.:e+-]*?\d\.?)([a-z]+)$/.exec(r);
    if (m !== null && !/^[+-]?\d+-\d+$/.test(m[1]!)) tokens.push(m[1]!, m[2]!);
    else tokens.push(r);
  }
  let ago = false;
  if (tokens[tokens.length - 1] === 'ago') {
    ago = true;
    tokens.pop();
    if (tokens.length === 0) throw syntaxError(s);
  }
  const acc = new Acc();
  const seen = new Set<string>();
  const mark = (k: string): void => {
    if (seen.has(k)) throw syntaxError(s);
    seen.add(k);
  };
  // PostgreSQL decodes fields right to left, `next` being the unit the next number takes: a unit
  // word names it; after a time field it is days; after an hour count, days too ('1 2' as interval
  // day to hour is a day and two hours); otherwise a number's unit stays, so a second bare number
  // collides with the first. The rightmost bare number takes the range's lowest field.
  let next: Unit | null = null;
  let unitWord = false;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const tok = tokens[i]!;
    if (/^[a-z]+$/.test(tok)) {
      const u = UNITS[tok];
      if (u === undefined || unitWord) throw syntaxError(s);
      next = u;
      unitWord = true;
      continue;
    }
    if (tok.includes(':')) {
      if (unitWord) throw syntaxError(s);
      const us = parseTime(tok, range);
      if (us === null) throw syntaxError(s);
      if (us === 'range') throw overflowError(s);
      for (const k of ['h', 'min', 's', 'ms', 'us']) mark(k);
      acc.micros += us;
      next = 'd';
      continue;
    }
    const ym = YM_RE.exec(tok);
    if (ym !== null) {
      if (unitWord) throw syntaxError(s);
      mark('y');
      mark('mon');
      const months = Number(ym[2]) * 12 + Number(ym[3]);
      if (Number(ym[3]) > 11) throw overflowError(s);
      acc.months += ym[1] === '-' ? -months : months;
      next = 'mon';
      continue;
    }
    if (!NUM_RE.test(tok)) throw syntaxError(s);
    const [whole, frac] = splitNumber(tok);
    const unit: Unit = next ?? rangeUnit(range);
    // PostgreSQL's field mask: fractional seconds also claim the millisecond and microsecond slots.
    mark(unit);
    if (unit === 's' && frac !== 0) {
      mark('ms');
      mark('us');
    }
    applyUnit(acc, unit, whole, frac);
    next = unit === 'h' ? 'd' : unit;
    unitWord = false;
  }
  if (unitWord) throw syntaxError(s);
  let r = new Interval(acc.months || 0, acc.days || 0, checkedMicros(acc.micros, s));
  if (ago) r = r.neg();
  return r;
}

function parseIso(orig: string, body: string): Interval {
  const acc = new Acc();
  const alt = /^(\d+)-(\d+)-(\d+)(?:t(\d+):(\d+):(\d+(?:\.\d*)?))?$/.exec(body);
  if (alt !== null) {
    acc.months += Number(alt[1]) * 12 + Number(alt[2]);
    acc.days += Number(alt[3]);
    if (alt[4] !== undefined) {
      acc.micros += BigInt(alt[4]!) * BigInt(USECS_PER_HOUR) + BigInt(Number(alt[5]) * USECS_PER_MINUTE + rint(Number(alt[6]) * USECS_PER_SEC));
    }
    return new Interval(acc.months, acc.days, checkedMicros(acc.micros, orig));
  }
  let inTime = false;
  const re = /([+-]?(?:\d+(?:\.\d*)?|\.\d+))([ymwdhs])|(t)/gy;
  let pos = 0;
  let any = false;
  while (pos < body.length) {
    re.lastIndex = pos;
    const m = re.exec(body);
    if (m === null) throw syntaxError(orig);
    pos = re.lastIndex;
    if (m[3] !== undefined) {
      if (inTime) throw syntaxError(orig);
      inTime = true;
      continue;
    }
    any = true;
    const [whole, frac] = splitNumber(m[1]!);
    const d = m[2]!;
    let unit: Unit;
    if (!inTime) {
      if (d === 'y') unit = 'y';
      else if (d === 'm') unit = 'mon';
      else if (d === 'w') unit = 'w';
      else if (d === 'd') unit = 'd';
      else throw syntaxError(orig);
    } else {
      if (d === 'h') unit = 'h';
      else if (d === 'm') unit = 'min';
      else if (d === 's') unit = 's';
      else throw syntaxError(orig);
    }
    applyUnit(acc, unit, whole, frac);
  }
  if (!any) throw syntaxError(orig);
  return new Interval(acc.months || 0, acc.days || 0, checkedMicros(acc.micros, orig));
}
