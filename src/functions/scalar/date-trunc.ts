/**
 * date_trunc(unit, timestamp | timestamptz [, zone] | interval). For timestamptz the truncation
 * happens on the local wall clock; units of a day or more then re-resolve the zone offset
 * (midnight may have a different offset than the original time), finer units keep it.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { Interval } from '../../common/interval.js';
import { addMicros, isFiniteMicros, truncMicros, type Micros } from '../../common/datetime-calendar.js';
import { utcOffsetSeconds, localToUtc } from '../../common/timezone.js';
import {
  MICROS_PER_HOUR,
  MICROS_PER_MINUTE,
  TSTZ_NAME,
  TS_NAME,
  checkTimestamp,
  isReservedUnit,
  parseUnit,
  truncateLocal,
  unitNotRecognized,
  unitNotSupported,
  unitRedoesZone,
} from './support/datetime.js';

function truncTimestamp(units: string, ts: Micros): Micros {
  const unit = parseUnit(units);
  if (unit === null || isReservedUnit(unit)) return unitNotRecognized(units, TS_NAME);
  if (!isFiniteMicros(ts)) {
    if (truncateLocal(0, unit) === null) unitNotSupported(units, TS_NAME);
    return ts;
  }
  const r = truncateLocal(ts, unit);
  if (r === null) return unitNotSupported(units, TS_NAME);
  return checkTimestamp(r);
}

function truncTimestamptz(units: string, ts: Micros, zone: string): Micros {
  const unit = parseUnit(units);
  if (unit === null || isReservedUnit(unit)) return unitNotRecognized(units, TSTZ_NAME);
  if (!isFiniteMicros(ts)) {
    if (truncateLocal(0, unit) === null) unitNotSupported(units, TSTZ_NAME);
    return ts;
  }
  const off = utcOffsetSeconds(zone, ts) * 1_000_000;
  const local = truncateLocal(addMicros(ts, off), unit);
  if (local === null) return unitNotSupported(units, TSTZ_NAME);
  return checkTimestamp(unitRedoesZone(unit) ? localToUtc(zone, local) : addMicros(local, -off));
}

function truncInterval(units: string, iv: Interval): Interval {
  const unit = parseUnit(units);
  if (unit === null || isReservedUnit(unit)) return unitNotRecognized(units, 'interval');
  if (!iv.isFinite()) {
    if (!['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'day', 'month', 'quarter', 'year', 'decade', 'century', 'millennium'].includes(unit)) {
      return unitNotSupported(units, 'interval');
    }
    return iv;
  }
  const years = Math.trunc(iv.months / 12);
  const mon = iv.months % 12;
  const t = iv.micros;
  const hourPart = truncMicros(t, MICROS_PER_HOUR);
  const minPart = truncMicros(t, MICROS_PER_MINUTE);
  const secPart = truncMicros(t, 1_000_000);
  switch (unit) {
    case 'millennium':
      return new Interval(Math.trunc(years / 1000) * 12000, 0, 0);
    case 'century':
      return new Interval(Math.trunc(years / 100) * 1200, 0, 0);
    case 'decade':
      return new Interval(Math.trunc(years / 10) * 120, 0, 0);
    case 'year':
      return new Interval(years * 12, 0, 0);
    case 'quarter':
      return new Interval(years * 12 + 3 * Math.trunc(mon / 3), 0, 0);
    case 'month':
      return new Interval(iv.months, 0, 0);
    case 'day':
      return new Interval(iv.months, iv.days, 0);
    case 'hour':
      return new Interval(iv.months, iv.days, hourPart);
    case 'minute':
      return new Interval(iv.months, iv.days, minPart);
    case 'second':
      return new Interval(iv.months, iv.days, secPart);
    case 'milliseconds':
      return new Interval(iv.months, iv.days, truncMicros(t, 1000));
    case 'microseconds':
      return iv;
    default:
      return unitNotSupported(units, 'interval');
  }
}

registerScalar(
  'date_trunc',
  { args: ['text', 'timestamp'], returns: T.timestamp, fn: (_c: EvalContext, u: string, t: Micros) => truncTimestamp(u, t) },
  {
    args: ['text', 'timestamptz'],
    returns: T.timestamptz,
    fn: (c: EvalContext, u: string, t: Micros) => truncTimestamptz(u, t, c.timezone),
  },
  {
    args: ['text', 'timestamptz', 'text'],
    returns: T.timestamptz,
    fn: (_c: EvalContext, u: string, t: Micros, zone: string) => truncTimestamptz(u, t, zone),
  },
  { args: ['text', 'interval'], returns: T.interval, fn: (_c: EvalContext, u: string, iv: Interval) => truncInterval(u, iv) },
);
