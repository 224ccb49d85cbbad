/** sign(): float8 NaN gives 0 (neither comparison holds, as in C); numeric NaN stays NaN. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { Numeric } from '../../common/numeric.js';

registerScalar(
  'sign',
  {
    args: ['float8'],
    returns: T.float8,
    fn: (_c: EvalContext, a: number) => (a > 0 ? 1 : a < 0 ? -1 : 0),
  },
  {
    args: ['numeric'],
    returns: T.numeric,
    fn: (_c: EvalContext, a: Numeric) => (a.isNaN() ? a : Numeric.fromInt(a.sign())),
  },
);
