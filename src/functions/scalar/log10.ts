/** log10(x): base-10 logarithm. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { Numeric } from '../../common/numeric.js';
import { checkLogArg } from './support/math.js';
import { log10Rounded } from './support/correctly-rounded.js';
import { numericLog } from './support/numeric-math.js';

// log(x) on numeric is log(10, x) in PostgreSQL (an SQL-language wrapper), scale rules included.
const TEN = Numeric.of(10n, 0);

registerScalar(
  'log10',
  {
    args: ['float8'],
    returns: T.float8,
    fn: (_c: EvalContext, a: number) => {
      checkLogArg(a);
      return log10Rounded(a);
    },
  },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => numericLog(TEN, a) },
);
