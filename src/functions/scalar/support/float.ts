/** float4/float8 result checks as PostgreSQL's float.h does them: overflow only when no input was infinite. */
import { err, SQLSTATE } from '../../../common/errors.js';
import { formatFloatG } from '../../../common/format-value.js';

export function floatOverflow(): never {
  throw err(SQLSTATE.numericValueOutOfRange, 'value out of range: overflow');
}
export function floatUnderflow(): never {
  throw err(SQLSTATE.numericValueOutOfRange, 'value out of range: underflow');
}

export function checkFloat8(r: number, a: number, b: number): number {
  if (r === Infinity || r === -Infinity) {
    if (Number.isFinite(a) && Number.isFinite(b)) floatOverflow();
  }
  return r;
}

/** Multiplication and division may also underflow to zero, which PostgreSQL reports. */
export function checkFloat8MulDiv(r: number, a: number, b: number, isDiv: boolean): number {
  checkFloat8(r, a, b);
  if (r === 0 && a !== 0 && (isDiv ? Number.isFinite(b) : b !== 0)) floatUnderflow();
  return r;
}

export function checkFloat4(r: number, a: number, b: number): number {
  return checkFloat8(Math.fround(r), a, b);
}
export function checkFloat4MulDiv(r: number, a: number, b: number, isDiv: boolean): number {
  return checkFloat8MulDiv(Math.fround(r), a, b, isDiv);
}

/** PostgreSQL rounds float → integer with rint (half to even). */
export function rint(x: number): number {
  const r = Math.round(x);
  if (Math.abs(x - Math.trunc(x)) === 0.5) return 2 * Math.round(x / 2);
  return r;
}

/** C's printf("%g"): 6 significant digits, exponent form below 1e-4 or from 1e6, no trailing zeros. */
export function formatG(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  return formatFloatG(x, 6);
}
