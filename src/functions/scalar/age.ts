/** age(a, b) and age(x) = age(current_date at midnight, x); timestamptz compares local wall clocks. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { MICROS_PER_DAY } from '../../common/datetime-calendar.js';
import { age } from './support/age.js';
import { fromLocal, toLocal } from './support/datetime.js';

function midnightToday(c: EvalContext): number {
  return Math.floor(toLocal(c.timezone, c.transactionTime) / MICROS_PER_DAY) * MICROS_PER_DAY;
}

registerScalar(
  'age',
  { args: ['timestamp', 'timestamp'], returns: T.interval, fn: (_c: EvalContext, a: number, b: number) => age(a, b) },
  {
    args: ['timestamptz', 'timestamptz'],
    returns: T.interval,
    fn: (c: EvalContext, a: number, b: number) => age(toLocal(c.timezone, a), toLocal(c.timezone, b)),
  },
  { args: ['timestamp'], returns: T.interval, fn: (c: EvalContext, b: number) => age(midnightToday(c), b) },
  {
    args: ['timestamptz'],
    returns: T.interval,
    // current_date::timestamptz is local midnight; convert there and back so DST days are right.
    fn: (c: EvalContext, b: number) => age(toLocal(c.timezone, fromLocal(c.timezone, midnightToday(c))), toLocal(c.timezone, b)),
  },
);
