/** localtimestamp: the transaction start as a wall-clock timestamp in the session time zone. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { toLocal } from './support/datetime.js';

registerScalar('localtimestamp', {
  args: [],
  returns: T.timestamp,
  fn: (c: EvalContext) => toLocal(c.timezone, c.transactionTime),
});
