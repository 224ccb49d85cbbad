/** '>>': arithmetic (sign-propagating) shift, as C's >> on signed integers is on PostgreSQL's platforms. */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { int2Shr, int8Shr } from '../support/bitwise.js';
import type { Int8 } from '../support/int.js';

registerScalar(
  '>>',
  { args: ['int2', 'int4'], returns: T.int2, fn: (_c: EvalContext, a: number, n: number) => int2Shr(a, n) },
  { args: ['int4', 'int4'], returns: T.int4, fn: (_c: EvalContext, a: number, n: number) => a >> n },
  { args: ['int8', 'int4'], returns: T.int8, fn: (_c: EvalContext, a: Int8, n: number) => int8Shr(a, n) },
);
