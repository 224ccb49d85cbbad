/** '/' with PostgreSQL's catalog overloads; integer division truncates toward zero. */
import { registerScalar, type ScalarOverload } from '../../registry.js';
import { arithmeticOverloads } from '../support/arithmetic-overloads.js';
import { T } from '../../../common/types.js';
import type { Interval } from '../../../common/interval.js';
import type { EvalContext } from '../../eval-context.js';
import type { Money } from '../../../common/money.js';
import { moneyDivFloat, moneyDivInt, moneyDivMoney } from '../support/money.js';
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
  ...arithmeticOverloads({ i2, i4, i8, f4, f8, numeric: (a, b) => a.div(b) }),
  {
    args: ['interval', 'float8'],
    returns: T.interval,
    fn: (_c: EvalContext, iv: Interval, f: number) => scaleInterval(iv, f, true),
  },
  { args: ['money', 'float8'], returns: T.money, fn: (_c: EvalContext, m: Money, x: number) => moneyDivFloat(m, x) },
  { args: ['money', 'float4'], returns: T.money, fn: (_c: EvalContext, m: Money, x: number) => moneyDivFloat(m, x) },
  ...(['int8', 'int4', 'int2'] as const).map((i): ScalarOverload => ({ args: ['money', i], returns: T.money, fn: (_c: EvalContext, m: Money, x: Int8) => moneyDivInt(m, x) })),
  { args: ['money', 'money'], returns: T.float8, fn: (_c: EvalContext, a: Money, b: Money) => moneyDivMoney(a, b) },
);
