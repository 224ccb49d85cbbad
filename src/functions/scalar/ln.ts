/** ln(): float8 only for now (numeric ln resolves to float8 through the implicit cast). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { checkLogArg } from './support/math.js';

registerScalar('ln', {
  args: ['float8'],
  returns: T.float8,
  fn: (_c: EvalContext, a: number) => {
    checkLogArg(a);
    return Math.log(a);
  },
});
