/** pi(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('pi', { args: [], returns: T.float8, fn: (_c: EvalContext) => Math.PI });
