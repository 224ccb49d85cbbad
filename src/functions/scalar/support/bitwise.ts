/**
 * Bitwise operators on the int8 representation (number in the safe range, bigint beyond). JS bitwise
 * operators work on 32 bits, so only values that fit an int32 take the number path; the rest go through
 * BigInt, whose two's-complement semantics on negative values match int64's.
 *
 * Shift counts follow what PostgreSQL's C code does on its platforms (and in WebAssembly): the count is
 * taken modulo the operand width (32 for smallint/integer, which C promotes to int, and 64 for bigint),
 * so `1 << 32` is 1 and a negative count shifts by its low bits, with no error.
 */
import { int8FromBig, toBig, type Int8 } from './int.js';

const fits32 = (v: Int8): v is number => typeof v === 'number' && (v | 0) === v;

export function int8And(a: Int8, b: Int8): Int8 {
  if (fits32(a) && fits32(b)) return a & b;
  return int8FromBig(toBig(a) & toBig(b));
}
export function int8Or(a: Int8, b: Int8): Int8 {
  if (fits32(a) && fits32(b)) return a | b;
  return int8FromBig(toBig(a) | toBig(b));
}
export function int8Xor(a: Int8, b: Int8): Int8 {
  if (fits32(a) && fits32(b)) return a ^ b;
  return int8FromBig(toBig(a) ^ toBig(b));
}
export function int8Not(a: Int8): Int8 {
  if (fits32(a)) return ~a;
  return int8FromBig(~toBig(a));
}
export function int8Shl(a: Int8, n: number): Int8 {
  return int8FromBig(BigInt.asIntN(64, toBig(a) << BigInt(n & 63)));
}
export function int8Shr(a: Int8, n: number): Int8 {
  const s = n & 63;
  if (fits32(a) && s < 32) return a >> s;
  return int8FromBig(toBig(a) >> BigInt(s));
}

/** int2 shifts compute in int (C's promotion) and truncate to 16 bits on return, without an error. */
export function int2Shl(a: number, n: number): number {
  return ((a << n) << 16) >> 16;
}
export function int2Shr(a: number, n: number): number {
  return a >> n;
}
