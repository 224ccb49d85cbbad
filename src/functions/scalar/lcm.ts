/** lcm(): int4/int8 overflow follows PostgreSQL (e.g. lcm of the most negative value). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { intLcm, numericLcm } from './support/gcd.js';
import type { Int8 } from './support/int.js';

registerScalar(
  'lcm',
  { args: ['int4', 'int4'], returns: T.int4, fn: (_c: EvalContext, a: number, b: number) => intLcm(a, b, 32) },
  { args: ['int8', 'int8'], returns: T.int8, fn: (_c: EvalContext, a: Int8, b: Int8) => intLcm(a, b, 64) },
  { args: ['numeric', 'numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric, b: Numeric) => numericLcm(a, b) },
);
