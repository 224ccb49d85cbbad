/** trunc(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';

registerScalar(
  'trunc',
  { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => Math.trunc(a) },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => a.trunc(0) },
  { args: ['numeric', 'int4'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric, s: number) => a.trunc(s) },
);
