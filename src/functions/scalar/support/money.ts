/**
 * money arithmetic as PostgreSQL's cash.c does it: sums and integer products checked against int64
 * ("money out of range"), integer division truncating toward zero, float products and quotients computed
 * in float8 and rounded half to even (rint) before the range check.
 */
import { moneyFromBig, moneyOutOfRange, moneyToBig, type Money } from '../../../common/money.js';
import { rint } from '../../../common/cast.js';
import { divisionByZero, type Int8 } from './int.js';

// 2^63 as a double: FLOAT8_FITS_IN_INT64 accepts [-2^63, 2^63).
const TWO63 = 9223372036854775808;

export function moneyAdd(a: Money, b: Money): Money {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return moneyFromBig(moneyToBig(a) + moneyToBig(b));
}

export function moneySub(a: Money, b: Money): Money {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r + 0;
  }
  return moneyFromBig(moneyToBig(a) - moneyToBig(b));
}

export function moneyMulInt(c: Money, i: Int8): Money {
  if (typeof c === 'number' && typeof i === 'number') {
    const r = c * i;
    if (Number.isSafeInteger(r)) return r + 0;
  }
  return moneyFromBig(moneyToBig(c) * moneyToBig(i));
}

export function moneyDivInt(c: Money, i: Int8): Money {
  if (i === 0 || i === 0n) divisionByZero();
  if (typeof c === 'number' && typeof i === 'number') return (c - (c % i)) / i + 0;
  return moneyFromBig(moneyToBig(c) / moneyToBig(i));
}

/** A float8 result back to money: NaN and values outside int64 are out of range. */
function fromFloat(res: number): Money {
  if (Number.isNaN(res) || !(res >= -TWO63 && res < TWO63)) moneyOutOfRange();
  return Number.isSafeInteger(res) ? res + 0 : BigInt(res);
}

export function moneyMulFloat(c: Money, f: number): Money {
  return fromFloat(rint(Number(c) * f));
}

export function moneyDivFloat(c: Money, f: number): Money {
  const res = rint(Number(c) / f);
  if (f === 0) divisionByZero();
  return fromFloat(res);
}

/** money / money is a plain float8 ratio. */
export function moneyDivMoney(a: Money, b: Money): number {
  if (b === 0 || b === 0n) divisionByZero();
  return Number(a) / Number(b);
}
