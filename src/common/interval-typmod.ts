/**
 * The modifier of `interval <fields> [(p)]` / `interval(p)`, as PostgreSQL encodes it: the field mask
 * (the range) in the high 16 bits, the fractional-second precision in the low ones, -1 for neither.
 * A value of the type keeps only its fields (interval day drops the time of day) and its time is
 * rounded to p digits, half away from zero (AdjustIntervalForTypmod).
 */
import { QuireError } from './errors.js';
import { normMicros } from './datetime-calendar.js';
import { INTERVAL_FULL_RANGE, Interval, intervalMask } from './interval.js';

const FULL_PRECISION = 0xffff;
const MAX_PRECISION = 6;

export function intervalRange(typmod: number): number {
  return typmod < 0 ? INTERVAL_FULL_RANGE : (typmod >> 16) & 0x7fff;
}

function intervalPrecision(typmod: number): number {
  return typmod < 0 ? FULL_PRECISION : typmod & 0xffff;
}

const Y = intervalMask('YEAR');
const MO = intervalMask('MONTH');
const D = intervalMask('DAY');
const H = intervalMask('HOUR');
const MI = intervalMask('MINUTE');
const S = intervalMask('SECOND');

/** The ranges the grammar can write. */
const RANGES = new Set([Y, MO, D, H, MI, S, Y | MO, D | H, D | H | MI, D | H | MI | S, H | MI, H | MI | S, MI | S]);

/**
 * The typmod of the modifiers the parser gives (intervaltypmodin): [range] or [range, precision].
 * A precision above 6 is reduced to 6, as PostgreSQL does (with a warning).
 */
export function intervalTypmod(mods: readonly number[], position?: number): number {
  const range = mods[0] ?? INTERVAL_FULL_RANGE;
  if (range !== INTERVAL_FULL_RANGE && !RANGES.has(range)) throw new QuireError('22023', 'invalid INTERVAL type modifier', { position });
  let precision = FULL_PRECISION;
  if (mods.length > 1) {
    precision = mods[1]!;
    if (precision < 0) throw new QuireError('22023', `INTERVAL(${precision}) precision must not be negative`, { position });
    precision = Math.min(precision, MAX_PRECISION);
  }
  if (mods.length > 2) throw new QuireError('22023', 'invalid INTERVAL type modifier', { position });
  if (range === INTERVAL_FULL_RANGE && precision === FULL_PRECISION) return -1;
  return (range << 16) | precision;
}

/** Truncates toward zero to a multiple of `unit` (C's integer division, as PostgreSQL computes it). */
function truncTo(us: bigint, unit: bigint): bigint {
  return (us / unit) * unit;
}

/** `v` as a value of interval with modifier `typmod`. */
export function applyIntervalTypmod(v: Interval, typmod: number): Interval {
  if (typmod < 0 || !v.isFinite()) return v;
  const range = intervalRange(typmod);
  const precision = intervalPrecision(typmod);
  let { months, days } = v;
  let time = BigInt(v.micros);
  switch (range) {
    case Y:
      months = Math.trunc(months / 12) * 12;
      days = 0;
      time = 0n;
      break;
    case MO:
    case Y | MO:
      days = 0;
      time = 0n;
      break;
    case D:
      time = 0n;
      break;
    case H:
    case D | H:
      time = truncTo(time, 3_600_000_000n);
      break;
    case MI:
    case D | H | MI:
    case H | MI:
      time = truncTo(time, 60_000_000n);
      break;
    default:
      // Ranges ending in SECOND, and the full range, keep the time; its precision applies below.
      break;
  }
  if (precision !== FULL_PRECISION && precision < MAX_PRECISION) {
    const scale = 10n ** BigInt(MAX_PRECISION - precision);
    const half = scale / 2n;
    time = time >= 0n ? time + half : time - half;
    time -= time % scale;
  }
  if (months === v.months && days === v.days && time === BigInt(v.micros)) return v;
  return new Interval(months || 0, days || 0, normMicros(time));
}
