/**
 * Integer arithmetic with PostgreSQL's overflow rules. int2/int4 are plain numbers (exact in a double),
 * int8 is number in the safe range and bigint beyond it (see src/common/types.ts), so int8 paths try the
 * cheap double computation first and fall back to bigint only when the result leaves the safe range.
 */
import { err, SQLSTATE } from '../../../common/errors.js';

export type Int8 = number | bigint;

export const INT8_MIN = -(2n ** 63n);
export const INT8_MAX = 2n ** 63n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

export function int2Overflow(): never {
  throw err(SQLSTATE.numericValueOutOfRange, 'smallint out of range');
}
export function int4Overflow(): never {
  throw err(SQLSTATE.numericValueOutOfRange, 'integer out of range');
}
export function int8Overflow(): never {
  throw err(SQLSTATE.numericValueOutOfRange, 'bigint out of range');
}
export function divisionByZero(): never {
  throw err(SQLSTATE.divisionByZero, 'division by zero');
}

/** `| 0` also turns -0 (from e.g. -4 % 2) into 0, which SQL integers do not have. */
export function checkInt2(v: number): number {
  if (v < -32768 || v > 32767) int2Overflow();
  return v | 0;
}
export function checkInt4(v: number): number {
  if (v < -2147483648 || v > 2147483647) int4Overflow();
  return v | 0;
}

/** Back to the canonical int8 representation, or 22003 outside the int64 range. */
export function int8FromBig(b: bigint): Int8 {
  if (b < INT8_MIN || b > INT8_MAX) int8Overflow();
  return b >= SAFE_MIN && b <= SAFE_MAX ? Number(b) : b;
}

export function toBig(v: Int8): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

// A safe-integer double result of integer operands is exact: any true result beyond 2^53-1 rounds to a
// double that is itself outside the safe range, so Number.isSafeInteger is a sound overflow test.
export function int8Add(a: Int8, b: Int8): Int8 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return int8FromBig(toBig(a) + toBig(b));
}
export function int8Sub(a: Int8, b: Int8): Int8 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r + 0;
  }
  return int8FromBig(toBig(a) - toBig(b));
}
export function int8Mul(a: Int8, b: Int8): Int8 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r + 0;
  }
  return int8FromBig(toBig(a) * toBig(b));
}
export function int8Div(a: Int8, b: Int8): Int8 {
  if (b === 0 || b === 0n) divisionByZero();
  if (typeof a === 'number' && typeof b === 'number') {
    // a % b is exact for doubles, so (a - a % b) is an exact multiple of b and the division is exact.
    return (a - (a % b)) / b + 0;
  }
  return int8FromBig(toBig(a) / toBig(b));
}
export function int8Mod(a: Int8, b: Int8): Int8 {
  if (b === 0 || b === 0n) divisionByZero();
  if (typeof a === 'number' && typeof b === 'number') return (a % b) + 0;
  return int8FromBig(toBig(a) % toBig(b));
}
export function int8Neg(a: Int8): Int8 {
  if (typeof a === 'number') return -a + 0;
  return int8FromBig(-a);
}
export function int8Abs(a: Int8): Int8 {
  if (typeof a === 'number') return Math.abs(a);
  return int8FromBig(a < 0n ? -a : a);
}

export function int4Div(a: number, b: number): number {
  if (b === 0) divisionByZero();
  return checkInt4(Math.trunc(a / b));
}
export function int4Mod(a: number, b: number): number {
  if (b === 0) divisionByZero();
  return (a % b) | 0;
}
export function int2Div(a: number, b: number): number {
  if (b === 0) divisionByZero();
  return checkInt2(Math.trunc(a / b));
}

export function int8Cmp(a: Int8, b: Int8): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const x = toBig(a);
  const y = toBig(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
