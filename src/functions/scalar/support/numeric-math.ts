/**
 * Numeric functions the Numeric class does not provide (power, sqrt), computed exactly on the
 * coefficient with bigint and rounded to the result scale PostgreSQL would choose.
 */
import { err, SQLSTATE } from '../../../common/errors.js';
import { Numeric } from '../../../common/numeric.js';

const MIN_SIG_DIGITS = 16;
const MAX_DISPLAY_SCALE = 1000;
const INVALID_ARGUMENT_FOR_POWER = '2201F';

export function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** Round a/b (b > 0) half away from zero. */
function divRound(a: bigint, b: bigint): bigint {
  const neg = a < 0n;
  const x = neg ? -a : a;
  const q = (2n * x + b) / (2n * b);
  return neg ? -q : q;
}

/** Decimal exponent of the leading digit: |v| = d.ddd × 10^e. */
function leadingExponent(n: Numeric): number {
  const c = n.coef < 0n ? -n.coef : n.coef;
  return c.toString().length - 1 - n.scale;
}

/** PostgreSQL's base-10000 weight of the leading digit group. */
function nbaseWeight(n: Numeric): number {
  if (n.coef === 0n) return 0;
  return Math.floor(leadingExponent(n) / 4);
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  // Newton iteration from a power-of-two start above the root.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

function clampScale(s: number, minimum: number): number {
  return Math.min(Math.max(s, minimum, 0), MAX_DISPLAY_SCALE);
}

export function numericSqrt(x: Numeric): Numeric {
  if (x.isNaN()) return Numeric.NaN;
  if (x.special === 2) return x;
  if (x.special === 3 || x.coef < 0n) {
    throw err(INVALID_ARGUMENT_FOR_POWER, 'cannot take square root of a negative number');
  }
  const sweight = ((nbaseWeight(x) + 1) * 4) / 2 - 1;
  const rscale = clampScale(MIN_SIG_DIGITS - sweight, x.scale);
  // One extra digit so the final rounding sees the truncated root's next digit.
  const r = isqrt(x.coef * pow10(2 * rscale - x.scale + 2));
  return Numeric.of((r + 5n) / 10n, rscale);
}

function isInteger(n: Numeric): boolean {
  return n.isFinite() && (n.scale === 0 || n.coef % pow10(n.scale) === 0n);
}

export function numericPower(base: Numeric, exp: Numeric): Numeric {
  if (base.isNaN()) return isZero(exp) ? Numeric.of(1n, 0) : Numeric.NaN;
  if (exp.isNaN()) return isOne(base) ? Numeric.of(1n, 0) : Numeric.NaN;
  if (!base.isFinite() || !exp.isFinite()) {
    throw err(SQLSTATE.featureNotSupported, 'numeric power with infinite arguments is not supported yet');
  }
  if (base.coef === 0n && exp.coef < 0n) {
    throw err(INVALID_ARGUMENT_FOR_POWER, 'zero raised to a negative power is undefined');
  }
  if (!isInteger(exp)) {
    if (base.coef < 0n) {
      throw err(INVALID_ARGUMENT_FOR_POWER, 'a negative number raised to a non-integer power yields a complex result');
    }
    throw err(SQLSTATE.featureNotSupported, 'numeric power with a non-integer exponent is not supported yet');
  }
  const e = exp.coef / pow10(exp.scale);
  if (e === 0n) {
    const s = clampScale(MIN_SIG_DIGITS, Math.max(base.scale, exp.scale));
    return Numeric.of(pow10(s), s);
  }
  if (base.coef === 0n) return Numeric.of(0n, clampScale(MIN_SIG_DIGITS, Math.max(base.scale, exp.scale)));
  const absCoef = base.coef < 0n ? -base.coef : base.coef;
  const log10Base = Math.log10(Number(absCoef.toString().slice(0, 17))) +
    Math.max(absCoef.toString().length - 17, 0) - base.scale;
  const f = Number(e) * log10Base;
  if (f > 131072 * 4) throw err(SQLSTATE.numericValueOutOfRange, 'value overflows numeric format');
  const rscale = clampScale(MIN_SIG_DIGITS - Math.trunc(f), Math.max(base.scale, exp.scale));
  const n = e < 0n ? -e : e;
  const num = base.coef ** n;
  const den = pow10(base.scale * Number(n));
  const coef = e > 0n ? divRound(num * pow10(rscale), den) : divRound(den * pow10(rscale) * (num < 0n ? -1n : 1n), num < 0n ? -num : num);
  return Numeric.of(coef, rscale);
}

function isZero(n: Numeric): boolean {
  return n.isFinite() && n.coef === 0n;
}
function isOne(n: Numeric): boolean {
  return n.isFinite() && n.coef === pow10(n.scale);
}
