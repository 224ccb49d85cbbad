/** '+' with PostgreSQL's catalog overloads (int2pl … numeric_add, date_pli, timestamp_pl_interval, …). */
import { registerScalar } from '../../registry.js';
import { arithmeticOverloads } from '../support/arithmetic-overloads.js';
import { T } from '../../../common/types.js';
import type { Interval } from '../../../common/interval.js';
import { addMicros, checkTimestamp, type Micros } from '../../../common/datetime-calendar.js';
import { timePlusInterval, timeTzPlusInterval, type TimeTz } from '../../../common/time-of-day.js';
import type { EvalContext } from '../../eval-context.js';
import type { Money } from '../../../common/money.js';
import { moneyAdd } from '../support/money.js';
import { checkInt2, checkInt4, int8Add, type Int8 } from '../support/int.js';
import { checkFloat4, checkFloat8 } from '../support/float.js';
import {
  checkDate,
  addIntervals,
  dateToTimestamp,
  timestampPlusInterval,
  timestamptzPlusInterval,
} from '../support/datetime.js';

const i2 = (_c: EvalContext, a: number, b: number): number => checkInt2(a + b);
const i4 = (_c: EvalContext, a: number, b: number): number => checkInt4(a + b);
const i8 = (_c: EvalContext, a: Int8, b: Int8): Int8 => int8Add(a, b);
const f4 = (_c: EvalContext, a: number, b: number): number => checkFloat4(a + b, a, b);
const f8 = (_c: EvalContext, a: number, b: number): number => checkFloat8(a + b, a, b);

/** interval + interval (also used by the sum/avg aggregates). */
export function addInterval(a: Interval, b: Interval): Interval {
  return addIntervals(a, b);
}

const dateInt = (_c: EvalContext, d: number, n: number): number => checkDate(d + n);
const dateIv = (_c: EvalContext, d: number, iv: Interval): Micros => timestampPlusInterval(dateToTimestamp(d), iv);
const tsIv = (_c: EvalContext, t: Micros, iv: Interval): Micros => timestampPlusInterval(t, iv);
const tstzIv = (c: EvalContext, t: Micros, iv: Interval): Micros => timestamptzPlusInterval(c.timezone, t, iv);

registerScalar(
  '+',
  ...arithmeticOverloads({ i2, i4, i8, f4, f8, numeric: (a, b) => a.add(b) }),
  { args: ['date', 'int4'], returns: T.date, fn: dateInt },
  { args: ['int4', 'date'], returns: T.date, fn: (c: EvalContext, n: number, d: number) => dateInt(c, d, n) },
  { args: ['date', 'interval'], returns: T.timestamp, fn: dateIv },
  { args: ['interval', 'date'], returns: T.timestamp, fn: (c: EvalContext, iv: Interval, d: number) => dateIv(c, d, iv) },
  { args: ['timestamp', 'interval'], returns: T.timestamp, fn: tsIv },
  { args: ['interval', 'timestamp'], returns: T.timestamp, fn: (c: EvalContext, iv: Interval, t: Micros) => tsIv(c, t, iv) },
  { args: ['timestamptz', 'interval'], returns: T.timestamptz, fn: tstzIv },
  {
    args: ['interval', 'timestamptz'],
    returns: T.timestamptz,
    fn: (c: EvalContext, iv: Interval, t: Micros) => tstzIv(c, t, iv),
  },
  { args: ['interval', 'interval'], returns: T.interval, fn: (_c: EvalContext, a: Interval, b: Interval) => addIntervals(a, b) },
  { args: ['money', 'money'], returns: T.money, fn: (_c: EvalContext, a: Money, b: Money) => moneyAdd(a, b) },
  { args: ['time', 'interval'], returns: T.time, fn: (_c: EvalContext, t: number, iv: Interval) => timePlusInterval(t, iv) },
  { args: ['interval', 'time'], returns: T.time, fn: (_c: EvalContext, iv: Interval, t: number) => timePlusInterval(t, iv) },
  { args: ['timetz', 'interval'], returns: T.timetz, fn: (_c: EvalContext, t: TimeTz, iv: Interval) => timeTzPlusInterval(t, iv) },
  { args: ['interval', 'timetz'], returns: T.timetz, fn: (_c: EvalContext, iv: Interval, t: TimeTz) => timeTzPlusInterval(t, iv) },
  { args: ['date', 'time'], returns: T.timestamp, fn: (_c: EvalContext, d: number, t: number) => dateAtTime(d, t) },
  { args: ['time', 'date'], returns: T.timestamp, fn: (_c: EvalContext, t: number, d: number) => dateAtTime(d, t) },
  { args: ['date', 'timetz'], returns: T.timestamptz, fn: (_c: EvalContext, d: number, t: TimeTz) => dateAtTimeTz(d, t) },
  { args: ['timetz', 'date'], returns: T.timestamptz, fn: (_c: EvalContext, t: TimeTz, d: number) => dateAtTimeTz(d, t) },
);

/** date + time (datetime_timestamp): an infinite date stays infinite. */
function dateAtTime(d: number, t: number): Micros {
  if (!Number.isFinite(d)) return d;
  return checkTimestamp(addMicros(dateToTimestamp(d), t));
}

/** date + timetz (datetimetz_timestamptz): the wall clock read at the value's own offset. */
function dateAtTimeTz(d: number, t: TimeTz): Micros {
  if (!Number.isFinite(d)) return d;
  return checkTimestamp(addMicros(dateToTimestamp(d), t.utcMicros()));
}
