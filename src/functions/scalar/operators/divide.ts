/** '/' with PostgreSQL's catalog overloads; integer division truncates toward zero. */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { Numeric } from '../../../common/numeric.js';
import type { Interval } from '../../../common/interval.js';
import type { EvalContext } from '../../eval-context.js';
import { divisionByZero, int2Div, int4Div, int8Div, type Int8 } from '../support/int.js';
import { checkFloat4MulDiv, checkFloat8MulDiv } from '../support/float.js';
import { scaleInterval } from './multiply.js';

const i2 = (_c: EvalContext, a: number, b: number): number => int2Div(a, b);
const i4 = (_c: EvalContext, a: number, b: number): number => int4Div(a, b);
const i8 = (_c: EvalContext, a: Int8, b: Int8): Int8 => int8Div(a, b);

// NaN / 0 is NaN in PostgreSQL, not a division-by-zero error.
function f4(_c: EvalContext, a: number, b: number): number {
  if (b === 0 && !Number.isNaN(a)) divisionByZero();
  return checkFloat4MulDiv(a / b, a, b, true);
}
function f8(_c: EvalContext, a: number, b: number): number {
  if (b === 0 && !Number.isNaN(a)) divisionByZero();
  return checkFloat8MulDiv(a / b, a, b, true);
}

registerScalar(
  '/',
  { args: ['int2', 'int2'], returns: T.int2, fn: i2 },
  { args: ['int4', 'int4'], returns: T.int4, fn: i4 },
  { args: ['int8', 'int8'], returns: T.int8, fn: i8 },
  { args: ['int2', 'int4'], returns: T.int4, fn: i4 },
  { args: ['int4', 'int2'], returns: T.int4, fn: i4 },
  { args: ['int2', 'int8'], returns: T.int8, fn: i8 },
  { args: ['int8', 'int2'], returns: T.int8, fn: i8 },
  { args: ['int4', 'int8'], returns: T.int8, fn: i8 },
  { args: ['int8', 'int4'], returns: T.int8, fn: i8 },
  { args: ['float4', 'float4'], returns: T.float4, fn: f4 },
  { args: ['float8', 'float8'], returns: T.float8, fn: f8 },
  { args: ['float4', 'float8'], returns: T.float8, fn: f8 },
  { args: ['float8', 'float4'], returns: T.float8, fn: f8 },
  { args: ['numeric', 'numeric'], returns: T.numeric, fn: (_c: EvalContext, a: Numeric, b: Numeric) => a.div(b) },
  {
    args: ['interval', 'float8'],
    returns: T.interval,
    fn: (_c: EvalContext, iv: Interval, f: number) => scaleInterval(iv, f, true),
  },
);
