/** round(): float8 rounds half to even (C rint), numeric half away from zero. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { rint } from './support/float.js';

registerScalar(
  'round',
  { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => rint(a) },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => a.round(0) },
  { args: ['numeric', 'int4'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric, s: number) => a.round(s) },
);
