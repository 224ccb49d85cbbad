/** '*' with PostgreSQL's catalog overloads, including interval * float8 (Interval.mul cascades fractional months into days). */
import { registerScalar, type ScalarOverload } from '../../registry.js';
import { arithmeticOverloads } from '../support/arithmetic-overloads.js';
import { T } from '../../../common/types.js';
import type { Interval } from '../../../common/interval.js';
import type { EvalContext } from '../../eval-context.js';
import type { Money } from '../../../common/money.js';
import { moneyMulFloat, moneyMulInt } from '../support/money.js';
import { checkInt2, checkInt4, int8Mul, type Int8 } from '../support/int.js';
import { checkFloat4MulDiv, checkFloat8MulDiv } from '../support/float.js';
import { checkInterval } from '../support/datetime.js';

// Products of two int4 may exceed 2^53 and lose bits, but only when far outside the int4 range,
// so the range check on the double product is still exact.
const i2 = (_c: EvalContext, a: number, b: number): number => checkInt2(a * b);
const i4 = (_c: EvalContext, a: number, b: number): number => checkInt4(a * b);
const i8 = (_c: EvalContext, a: Int8, b: Int8): Int8 => int8Mul(a, b);
const f4 = (_c: EvalContext, a: number, b: number): number => checkFloat4MulDiv(a * b, a, b, false);
const f8 = (_c: EvalContext, a: number, b: number): number => checkFloat8MulDiv(a * b, a, b, false);

/** interval * factor or interval / factor (also used by the avg aggregate). */
export function scaleInterval(iv: Interval, factor: number, divide: boolean): Interval {
  const r = divide ? iv.div(factor) : iv.mul(factor);
  // Interval.mul bounds the month and day fields; the int64 time field is checked here.
  return r.isFinite() ? checkInterval(r.months, r.days, r.micros) : r;
}

registerScalar(
  '*',
  ...arithmeticOverloads({ i2, i4, i8, f4, f8, numeric: (a, b) => a.mul(b) }),
  { args: ['interval', 'float8'], returns: T.interval, fn: (_c: EvalContext, iv: Interval, f: number) => scaleInterval(iv, f, false) },
  { args: ['float8', 'interval'], returns: T.interval, fn: (_c: EvalContext, f: number, iv: Interval) => scaleInterval(iv, f, false) },
  // cash_mul_flt8 … int2_mul_cash: float factors multiply in float8 and round, integer ones exactly.
  ...(['float8', 'float4'] as const).flatMap((f): ScalarOverload[] => [
    { args: ['money', f], returns: T.money, fn: (_c: EvalContext, m: Money, x: number) => moneyMulFloat(m, x) },
    { args: [f, 'money'], returns: T.money, fn: (_c: EvalContext, x: number, m: Money) => moneyMulFloat(m, x) },
  ]),
  ...(['int8', 'int4', 'int2'] as const).flatMap((i): ScalarOverload[] => [
    { args: ['money', i], returns: T.money, fn: (_c: EvalContext, m: Money, x: Int8) => moneyMulInt(m, x) },
    { args: [i, 'money'], returns: T.money, fn: (_c: EvalContext, x: Int8, m: Money) => moneyMulInt(m, x) },
  ]),
);
