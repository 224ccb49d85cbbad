/** div(numeric, numeric): the integer quotient, truncated toward zero. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';

// a - mod(a, b) is an exact multiple of b, so the division below is exact and rounding in div()
// cannot carry the quotient to the next integer.
registerScalar('div', {
  args: ['numeric', 'numeric'],
  returns: T.numeric,
  fn: (_c: EvalContext, a: Numeric, b: Numeric) => {
    if (!a.isFinite() || !b.isFinite()) return a.div(b).trunc(0);
    return a.sub(a.mod(b)).div(b).trunc(0);
  },
});
