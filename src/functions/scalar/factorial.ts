/** factorial(int8) → numeric, exact via bigint. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { Numeric } from '../../common/numeric.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { toBig, type Int8 } from './support/int.js';

// PostgreSQL's numeric cannot hold more than 131072 digits before the point; 32177! is the last that fits.
const MAX_FACTORIAL = 32177n;

registerScalar('factorial', {
  args: ['int8'],
  returns: T.numeric,
  fn: (_c: EvalContext, a: Int8) => {
    const n = toBig(a);
    if (n < 0n) throw err(SQLSTATE.numericValueOutOfRange, 'factorial of a negative number is undefined');
    if (n > MAX_FACTORIAL) throw err(SQLSTATE.numericValueOutOfRange, 'value overflows numeric format');
    let r = 1n;
    for (let i = 2n; i <= n; i++) r *= i;
    return Numeric.of(r, 0);
  },
});
