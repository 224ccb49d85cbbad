/** Prefix '|/': square root. PostgreSQL defines it for double precision only (no numeric overload). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { floatSqrt } from '../support/math.js';

registerScalar('|/', { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => floatSqrt(a) });
