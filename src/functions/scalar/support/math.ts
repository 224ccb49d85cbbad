/** Float math with PostgreSQL's error reporting (C library edge cases differ from JavaScript's Math). */
import { err, SQLSTATE } from '../../../common/errors.js';
import { floatOverflow, floatUnderflow } from './float.js';
import { powRounded } from './correctly-rounded.js';

const INVALID_ARGUMENT_FOR_POWER = '2201F';
const INVALID_ARGUMENT_FOR_LOG = '2201E';

/** PostgreSQL's dpow: POSIX pow() semantics (which JavaScript's Math.pow does not follow for 1 and -1). */
export function floatPow(x: number, y: number): number {
  if (Number.isNaN(x)) return y === 0 ? 1 : NaN;
  if (Number.isNaN(y)) return x === 1 ? 1 : NaN;
  if (x === 0 && y < 0) throw err(INVALID_ARGUMENT_FOR_POWER, 'zero raised to a negative power is undefined');
  if (x < 0 && Math.floor(y) !== y) {
    throw err(INVALID_ARGUMENT_FOR_POWER, 'a negative number raised to a non-integer power yields a complex result');
  }
  if (!Number.isFinite(y) && Math.abs(x) === 1) return 1;
  if (x === 1) return 1;
  // V8's Math.pow is not correctly rounded (C's pow nearly always is); sqrt is, so use it where it applies.
  const r = y === 0.5 && x !== -Infinity ? Math.sqrt(x) : powRounded(x, y);
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) floatOverflow();
  if (r === 0 && x !== 0 && Number.isFinite(x) && Number.isFinite(y)) floatUnderflow();
  return r;
}

export function floatSqrt(x: number): number {
  if (x < 0) throw err(INVALID_ARGUMENT_FOR_POWER, 'cannot take square root of a negative number');
  return Math.sqrt(x);
}

export function checkLogArg(x: number): void {
  if (x === 0) throw err(INVALID_ARGUMENT_FOR_LOG, 'cannot take logarithm of zero');
  if (x < 0) throw err(INVALID_ARGUMENT_FOR_LOG, 'cannot take logarithm of a negative number');
}

export function inputOutOfRange(): never {
  throw err(SQLSTATE.numericValueOutOfRange, 'input is out of range');
}
