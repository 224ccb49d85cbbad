/** now(): the transaction start, stable within the transaction (not volatile). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('now', { args: [], returns: T.timestamptz, fn: (c: EvalContext) => c.transactionTime });
