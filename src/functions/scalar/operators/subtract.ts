/** '-' (binary) with PostgreSQL's catalog overloads. */
import { registerScalar } from '../../registry.js';
import { arithmeticOverloads } from '../support/arithmetic-overloads.js';
import { T } from '../../../common/types.js';
import { Interval } from '../../../common/interval.js';
import { diffMicros, isFiniteMicros, type Micros } from '../../../common/datetime-calendar.js';
import type { EvalContext } from '../../eval-context.js';
import type { Money } from '../../../common/money.js';
import { moneySub } from '../support/money.js';
import { timeMinusInterval, timeTzMinusInterval, type TimeTz } from '../../../common/time-of-day.js';
import { err, SQLSTATE } from '../../../common/errors.js';
import { checkInt2, checkInt4, int8Sub, type Int8 } from '../support/int.js';
import { checkFloat4, checkFloat8 } from '../support/float.js';
import {
  checkDate,
  addIntervals,
  intervalOutOfRange,
  dateToTimestamp,
  justifyHours,
  timestampMinusInterval,
  timestamptzPlusInterval,
} from '../support/datetime.js';

const i2 = (_c: EvalContext, a: number, b: number): number => checkInt2(a - b);
const i4 = (_c: EvalContext, a: number, b: number): number => checkInt4(a - b);
const i8 = (_c: EvalContext, a: Int8, b: Int8): Int8 => int8Sub(a, b);
const f4 = (_c: EvalContext, a: number, b: number): number => checkFloat4(a - b, a, b);
const f8 = (_c: EvalContext, a: number, b: number): number => checkFloat8(a - b, a, b);

/** timestamp_mi: the difference goes into the time field, then whole days are split out. */
export function timestampDiff(a: Micros, b: Micros): Interval {
  if ((typeof a === 'number' && !Number.isFinite(a)) || (typeof b === 'number' && !Number.isFinite(b))) {
    // PostgreSQL 17+: an infinite operand gives an infinite interval; equal infinities have no difference.
    if (a === b) intervalOutOfRange();
    return !isFiniteMicros(a) ? (a > 0 ? Interval.POSITIVE_INFINITY : Interval.NEGATIVE_INFINITY)
      : b > 0 ? Interval.NEGATIVE_INFINITY : Interval.POSITIVE_INFINITY;
  }
  const d = diffMicros(a, b);
  if (typeof d === 'number') return justifyHours(new Interval(0, 0, d));
  // Beyond 2^53 µs the day split is done exactly; the time field itself must fit PostgreSQL's int64.
  if (d > 9223372036854775807n || d < -9223372036854775808n) intervalOutOfRange();
  const days = d / 86_400_000_000n;
  return new Interval(0, Number(days), Number(d - days * 86_400_000_000n));
}

registerScalar(
  '-',
  ...arithmeticOverloads({ i2, i4, i8, f4, f8, numeric: (a, b) => a.sub(b) }),
  {
    args: ['date', 'date'],
    returns: T.int4,
    fn: (_c: EvalContext, a: number, b: number) => {
      if (!Number.isFinite(a) || !Number.isFinite(b)) {
        throw err(SQLSTATE.datetimeFieldOverflow, 'cannot subtract infinite dates');
      }
      return a - b;
    },
  },
  { args: ['date', 'int4'], returns: T.date, fn: (_c: EvalContext, d: number, n: number) => checkDate(d - n) },
  {
    args: ['date', 'interval'],
    returns: T.timestamp,
    fn: (_c: EvalContext, d: number, iv: Interval) => timestampMinusInterval(dateToTimestamp(d), iv),
  },
  { args: ['timestamp', 'interval'], returns: T.timestamp, fn: (_c: EvalContext, t: Micros, iv: Interval) => timestampMinusInterval(t, iv) },
  {
    args: ['timestamptz', 'interval'],
    returns: T.timestamptz,
    fn: (c: EvalContext, t: Micros, iv: Interval) =>
      timestamptzPlusInterval(c.timezone, t, iv.neg()),
  },
  { args: ['timestamp', 'timestamp'], returns: T.interval, fn: (_c: EvalContext, a: Micros, b: Micros) => timestampDiff(a, b) },
  { args: ['timestamptz', 'timestamptz'], returns: T.interval, fn: (_c: EvalContext, a: Micros, b: Micros) => timestampDiff(a, b) },
  { args: ['interval', 'interval'], returns: T.interval, fn: (_c: EvalContext, a: Interval, b: Interval) => addIntervals(a, b.neg()) },
  { args: ['money', 'money'], returns: T.money, fn: (_c: EvalContext, a: Money, b: Money) => moneySub(a, b) },
  { args: ['time', 'interval'], returns: T.time, fn: (_c: EvalContext, t: number, iv: Interval) => timeMinusInterval(t, iv) },
  // time_mi_time: a plain difference in the time field, no day split.
  { args: ['time', 'time'], returns: T.interval, fn: (_c: EvalContext, a: number, b: number) => new Interval(0, 0, a - b) },
  { args: ['timetz', 'interval'], returns: T.timetz, fn: (_c: EvalContext, t: TimeTz, iv: Interval) => timeTzMinusInterval(t, iv) },
);
