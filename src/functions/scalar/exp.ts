/** exp(): float8 only for now (numeric exp resolves to float8 through the implicit cast). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { floatOverflow, floatUnderflow } from './support/float.js';

registerScalar('exp', {
  args: ['float8'],
  returns: T.float8,
  fn: (_c: EvalContext, a: number) => {
    const r = Math.exp(a);
    if (r === Infinity && Number.isFinite(a)) floatOverflow();
    if (r === 0 && Number.isFinite(a)) floatUnderflow();
    return r;
  },
});
