/** gcd(): int4/int8 overflow follows PostgreSQL (e.g. gcd of the most negative value). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { intGcd, numericGcd } from './support/gcd.js';
import type { Int8 } from './support/int.js';

registerScalar(
  'gcd',
  { args: ['int4', 'int4'], returns: T.int4, fn: (_c: EvalContext, a: number, b: number) => intGcd(a, b, 32) },
  { args: ['int8', 'int8'], returns: T.int8, fn: (_c: EvalContext, a: Int8, b: Int8) => intGcd(a, b, 64) },
  { args: ['numeric', 'numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric, b: Numeric) => numericGcd(a, b) },
);
