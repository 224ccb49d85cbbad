/** '^': float8 (dpow) and numeric; PostgreSQL has no integer '^', ints resolve to float8 or numeric. */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { Numeric } from '../../../common/numeric.js';
import type { EvalContext } from '../../eval-context.js';
import { floatPow } from '../support/math.js';
import { numericPower } from '../support/numeric-math.js';

registerScalar(
  '^',
  { args: ['float8', 'float8'], returns: T.float8, fn: (_c: EvalContext, x: number, y: number) => floatPow(x, y) },
  { args: ['numeric', 'numeric'], returns: T.numeric, fn: (_c: EvalContext, x: Numeric, y: Numeric) => numericPower(x, y) },
);
