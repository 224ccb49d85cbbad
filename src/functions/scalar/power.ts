/** power(): same implementations as the '^' operator. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { floatPow } from './support/math.js';
import { numericPower } from './support/numeric-math.js';

registerScalar(
  'power',
  { args: ['float8', 'float8'], returns: T.float8, fn: (_c: EvalContext, x: number, y: number) => floatPow(x, y) },
  { args: ['numeric', 'numeric'], returns: T.numeric, fn: (_c: EvalContext, x: Numeric, y: Numeric) => numericPower(x, y) },
);
