/** random(): volatile, drawn from the session generator so setseed() makes it repeatable. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('random', { args: [], returns: T.float8, volatile: true, fn: (c: EvalContext) => c.random() });
