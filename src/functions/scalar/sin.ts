/** sin(): infinite input is an error in PostgreSQL, not NaN. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { inputOutOfRange } from './support/math.js';

registerScalar('sin', {
  args: ['float8'],
  returns: T.float8,
  fn: (_c: EvalContext, a: number) => {
    if (a === Infinity || a === -Infinity) inputOutOfRange();
    return Math.sin(a);
  },
});
