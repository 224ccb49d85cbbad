/** justify_hours(interval): 24-hour groups of time become days. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Interval } from '../../common/interval.js';
import { checkInterval } from './support/datetime.js';

registerScalar('justify_hours', {
  args: ['interval'],
  returns: T.interval,
  fn: (_c: EvalContext, iv: Interval) => {
    const r = iv.justifyHours();
    return r.isFinite() ? checkInterval(r.months, r.days, r.micros) : r;
  },
});
