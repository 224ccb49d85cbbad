/** cbrt(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('cbrt', { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => Math.cbrt(a) });
