/**
 * A date brought to timestamp / timestamptz for comparing with one (date < timestamp, date = timestamptz).
 * PostgreSQL compares such pairs without the cast's range check: a date past the timestamp range sorts
 * after every finite timestamp and before infinity (before every finite one and after -infinity at the
 * low end). The value returned for such a date lies just outside the valid range, which gives exactly that
 * order and equals no timestamp. Not callable by name: the binder builds the call.
 */
import { T } from '../../common/types.js';
import { isValidTimestamp, joinMicros, type Micros } from '../../common/datetime-calendar.js';
import { localToUtc } from '../../common/timezone.js';
import type { EvalContext } from '../eval-context.js';
import type { ScalarOverload } from '../registry.js';

// Just past each end of PostgreSQL's range (4714-11-24 BC .. 294277-01-01 exclusive), in our epoch.
const BEYOND_END = 9223371331200000000n + 946684800000000n;
const BEFORE_START = -211813488000000000n + 946684800000000n - 1n;

function saturate(t: Micros, days: number): Micros {
  return isValidTimestamp(t) ? t : days > 0 ? BEYOND_END : BEFORE_START;
}

export const dateAsTimestampForComparison: ScalarOverload = {
  args: ['date'],
  returns: T.timestamp,
  fn: (_c: EvalContext, d: number) => (Number.isFinite(d) ? saturate(joinMicros(d, 0), d) : d),
};

export const dateAsTimestamptzForComparison: ScalarOverload = {
  args: ['date'],
  returns: T.timestamptz,
  fn: (c: EvalContext, d: number) => (Number.isFinite(d) ? saturate(localToUtc(c.timezone, joinMicros(d, 0)), d) : d),
};
