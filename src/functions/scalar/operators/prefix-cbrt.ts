/** Prefix '||/': cube root, double precision only like cbrt(). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';

registerScalar('||/', { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => Math.cbrt(a) });
