/** current_date: the transaction start's date in the session time zone. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { splitMicros } from '../../common/datetime-calendar.js';
import { toLocal } from './support/datetime.js';

registerScalar('current_date', {
  args: [],
  returns: T.date,
  fn: (c: EvalContext) => splitMicros(toLocal(c.timezone, c.transactionTime)).days,
});
