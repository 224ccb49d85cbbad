/** ceiling(): float8 keeps -0 for e.g. ceiling(-0.5), as C's ceil does. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { numericCeil } from './support/numeric-round.js';

registerScalar(
  'ceiling',
  { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => Math.ceil(a) },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => numericCeil(a) },
);
