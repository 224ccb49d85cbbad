/** to_hex(): negative values print as their two's complement, as PostgreSQL's unsigned cast does. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { toBig, type Int8 } from './support/int.js';

registerScalar(
  'to_hex',
  { args: ['int4'], returns: T.text, fn: (_c: EvalContext, n: number) => (n >>> 0).toString(16) },
  { args: ['int8'], returns: T.text, fn: (_c: EvalContext, n: Int8) => BigInt.asUintN(64, toBig(n)).toString(16) },
);
