/** asin(): arguments outside [-1, 1] are an error in PostgreSQL, not NaN. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { inputOutOfRange } from './support/math.js';

registerScalar('asin', {
  args: ['float8'],
  returns: T.float8,
  fn: (_c: EvalContext, a: number) => {
    if (a < -1 || a > 1) inputOutOfRange();
    return Math.asin(a);
  },
});
