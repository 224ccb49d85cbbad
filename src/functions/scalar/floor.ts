/** floor(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { numericFloor } from './support/numeric-round.js';

registerScalar(
  'floor',
  { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => Math.floor(a) },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => numericFloor(a) },
);
