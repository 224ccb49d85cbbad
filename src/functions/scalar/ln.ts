/** ln(): float8, and numeric computed exactly to PostgreSQL's result scale. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { checkLogArg } from './support/math.js';
import { lnRounded } from './support/correctly-rounded.js';
import { numericLn } from './support/numeric-math.js';

registerScalar(
  'ln',
  {
    args: ['float8'],
    returns: T.float8,
    fn: (_c: EvalContext, a: number) => {
      checkLogArg(a);
      return lnRounded(a);
    },
  },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => numericLn(a) },
);
