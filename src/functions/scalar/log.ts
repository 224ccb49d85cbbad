/** log(x): base-10 logarithm. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { checkLogArg } from './support/math.js';

registerScalar('log', {
  args: ['float8'],
  returns: T.float8,
  fn: (_c: EvalContext, a: number) => {
    checkLogArg(a);
    return Math.log10(a);
  },
});
