/** age(a, b) and age(x) = age(current_date at midnight, x); timestamptz compares local wall clocks. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { joinMicros, splitMicros, type Micros } from '../../common/datetime-calendar.js';
import { age } from './support/age.js';
import { fromLocal, toLocal } from './support/datetime.js';

function midnightToday(c: EvalContext): Micros {
  return joinMicros(splitMicros(toLocal(c.timezone, c.transactionTime)).days, 0);
}

registerScalar(
  'age',
  { args: ['timestamp', 'timestamp'], returns: T.interval, fn: (_c: EvalContext, a: Micros, b: Micros) => age(a, b) },
  {
    args: ['timestamptz', 'timestamptz'],
    returns: T.interval,
    fn: (c: EvalContext, a: Micros, b: Micros) => age(toLocal(c.timezone, a), toLocal(c.timezone, b)),
  },
  { args: ['timestamp'], returns: T.interval, fn: (c: EvalContext, b: Micros) => age(midnightToday(c), b) },
  {
    args: ['timestamptz'],
    returns: T.interval,
    // current_date::timestamptz is local midnight; convert there and back so DST days are right.
    fn: (c: EvalContext, b: Micros) => age(toLocal(c.timezone, fromLocal(c.timezone, midnightToday(c))), toLocal(c.timezone, b)),
  },
);
