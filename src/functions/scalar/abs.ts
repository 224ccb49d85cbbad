/** abs(): integer overflow on the most negative value, as PostgreSQL reports it. */
import { registerScalar, type ScalarOverload } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';
import { checkInt2, checkInt4, int8Abs, type Int8 } from './support/int.js';

/** Shared with prefix '@' (operators/prefix-abs.ts), which PostgreSQL defines as the same functions. */
export const ABS_OVERLOADS: readonly ScalarOverload[] = [
  { args: ['int2'], returns: T.int2, fn: (_c: EvalContext, a: number) => checkInt2(Math.abs(a)) },
  { args: ['int4'], returns: T.int4, fn: (_c: EvalContext, a: number) => checkInt4(Math.abs(a)) },
  { args: ['int8'], returns: T.int8, fn: (_c: EvalContext, a: Int8) => int8Abs(a) },
  { args: ['float4'], returns: T.float4, fn: (_c: EvalContext, a: number) => Math.abs(a) },
  { args: ['float8'], returns: T.float8, fn: (_c: EvalContext, a: number) => Math.abs(a) },
  { args: ['numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric) => a.abs() },
];

registerScalar('abs', ...ABS_OVERLOADS);
