/** justify_days(interval): 30-day groups of days become months. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Interval } from '../../common/interval.js';
import { checkInterval } from './support/datetime.js';

registerScalar('justify_days', {
  args: ['interval'],
  returns: T.interval,
  fn: (_c: EvalContext, iv: Interval) => {
    const r = iv.justifyDays();
    return r.isFinite() ? checkInterval(r.months, r.days, r.micros) : r;
  },
});
