/** current_timestamp(): the transaction start, stable within the transaction (not volatile). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('current_timestamp', { args: [], returns: T.timestamptz, fn: (c: EvalContext) => c.transactionTime });
