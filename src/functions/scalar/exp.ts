/** exp(): float8, and numeric computed exactly to PostgreSQL's result scale. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { floatOverflow, floatUnderflow } from './support/float.js';
import { numericExp } from './support/numeric-math.js';
import { expRounded } from './support/correctly-rounded.js';

registerScalar(
  'exp',
  {
    args: ['float8'],
    returns: T.float8,
    fn: (_c: EvalContext, a: number) => {
      const r = expRounded(a);
      if (r === Infinity && Number.isFinite(a)) floatOverflow();
      if (r === 0 && Number.isFinite(a)) floatUnderflow();
      return r;
    },
  },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => numericExp(a) },
);
