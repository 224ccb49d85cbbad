/** Unary minus, registered as 'neg' (one argument) so it cannot collide with binary '-'. */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { Numeric } from '../../../common/numeric.js';
import type { Interval } from '../../../common/interval.js';
import type { EvalContext } from '../../eval-context.js';
import { checkInt2, checkInt4, int8Neg, type Int8 } from '../support/int.js';
import { checkInterval } from '../support/datetime.js';

registerScalar(
  'neg',
  { args: ['int2'], returns: T.int2, fn: (_c: EvalContext, a: number) => checkInt2(-a) },
  { args: ['int4'], returns: T.int4, fn: (_c: EvalContext, a: number) => checkInt4(-a) },
  { args: ['int8'], returns: T.int8, fn: (_c: EvalContext, a: Int8) => int8Neg(a) },
  // Float negation keeps -0, as C does.
  { args: ['float4'], returns: T.float4, fn: (_c: EvalContext, a: number) => -a },
  { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => -a },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => a.neg() },
  { args: ['interval'], returns: T.interval, fn: (_c: EvalContext, a: Interval) => (a.isFinite() ? checkInterval(-a.months, -a.days, -a.micros) : a.neg()) },
);
