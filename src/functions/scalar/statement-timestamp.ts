/** statement_timestamp(): the start of the current statement. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('statement_timestamp', { args: [], returns: T.timestamptz, fn: (c: EvalContext) => c.statementTime });
