/** Greatest common divisor / least common multiple on integers and on numeric coefficients. */
import { Numeric } from '../../../common/numeric.js';
import { err, SQLSTATE } from '../../../common/errors.js';
import { int8FromBig, toBig, type Int8 } from './int.js';

export function bigGcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) {
    const t = x % y;
    x = y;
    y = t;
  }
  return x;
}

function intLimit(v: bigint, bits: 32 | 64): number | Int8 {
  if (bits === 32) {
    if (v > 2147483647n || v < -2147483648n) {
      throw err(SQLSTATE.numericValueOutOfRange, 'integer out of range');
    }
    return Number(v);
  }
  return int8FromBig(v);
}

export function intGcd(a: Int8, b: Int8, bits: 32 | 64): Int8 {
  return intLimit(bigGcd(toBig(a), toBig(b)), bits);
}

export function intLcm(a: Int8, b: Int8, bits: 32 | 64): Int8 {
  const x = toBig(a);
  const y = toBig(b);
  if (x === 0n || y === 0n) return 0;
  const l = (x / bigGcd(x, y)) * y;
  return intLimit(l < 0n ? -l : l, bits);
}

function common(a: Numeric, b: Numeric): [bigint, bigint, number] {
  const s = Math.max(a.scale, b.scale);
  return [a.coef * 10n ** BigInt(s - a.scale), b.coef * 10n ** BigInt(s - b.scale), s];
}

export function numericGcd(a: Numeric, b: Numeric): Numeric {
  if (a.isNaN() || b.isNaN()) return Numeric.NaN;
  if (!a.isFinite() || !b.isFinite()) return Numeric.NaN;
  const [x, y, s] = common(a, b);
  return Numeric.of(bigGcd(x, y), s);
}

export function numericLcm(a: Numeric, b: Numeric): Numeric {
  if (a.isNaN() || b.isNaN()) return Numeric.NaN;
  if (!a.isFinite() || !b.isFinite()) return Numeric.NaN;
  const [x, y, s] = common(a, b);
  if (x === 0n || y === 0n) return Numeric.of(0n, s);
  const l = (x / bigGcd(x, y)) * y;
  return Numeric.of(l < 0n ? -l : l, s);
}
