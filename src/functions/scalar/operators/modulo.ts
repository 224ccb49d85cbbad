/** '%': PostgreSQL defines it only for same-width integers and numeric (no float modulo). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { Numeric } from '../../../common/numeric.js';
import type { EvalContext } from '../../eval-context.js';
import { int4Mod, int8Mod, type Int8 } from '../support/int.js';

registerScalar(
  '%',
  { args: ['int2', 'int2'], returns: T.int2, fn: (_c: EvalContext, a: number, b: number) => int4Mod(a, b) },
  { args: ['int4', 'int4'], returns: T.int4, fn: (_c: EvalContext, a: number, b: number) => int4Mod(a, b) },
  { args: ['int8', 'int8'], returns: T.int8, fn: (_c: EvalContext, a: Int8, b: Int8) => int8Mod(a, b) },
  { args: ['numeric', 'numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric, b: Numeric) => a.mod(b) },
);
