/**
 * make_interval(years, months, weeks, days, hours, mins, secs): PostgreSQL declares defaults of 0
 * for every parameter, so each positional arity is registered.
 */
import { registerParamNames, registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { ArgType, ScalarOverload } from '../registry.js';
import { Interval } from '../../common/interval.js';
import { intervalOutOfRange } from './support/datetime.js';

const ARGS: ArgType[] = ['int4', 'int4', 'int4', 'int4', 'int4', 'int4', 'float8'];

function make(years = 0, months = 0, weeks = 0, days = 0, hours = 0, mins = 0, secs = 0): Interval {
  const m = years * 12 + months;
  const d = weeks * 7 + days;
  const us = (hours * 3600 + mins * 60) * 1_000_000 + Math.round(secs * 1_000_000);
  if (Number.isNaN(secs) || !Number.isFinite(secs)) intervalOutOfRange();
  if (m < -2147483648 || m > 2147483647 || d < -2147483648 || d > 2147483647 || Math.abs(us) > 9223372036854775807) {
    intervalOutOfRange();
  }
  return new Interval(m + 0, d + 0, us + 0);
}

const overloads: ScalarOverload[] = [];
for (let n = 0; n <= ARGS.length; n++) {
  overloads.push({
    args: ARGS.slice(0, n),
    returns: T.interval,
    fn: (_c: EvalContext, ...a: number[]) => make(...a),
  });
}
registerScalar('make_interval', ...overloads);
registerParamNames('make_interval', ['years', 'months', 'weeks', 'days', 'hours', 'mins', 'secs'], [0, 0, 0, 0, 0, 0, 0]);
