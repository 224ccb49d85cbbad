/** sqrt(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { floatSqrt } from './support/math.js';
import { numericSqrt } from './support/numeric-math.js';

registerScalar(
  'sqrt',
  { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => floatSqrt(a) },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => numericSqrt(a) },
);
