/**
 * Numeric functions the Numeric class does not provide (power, sqrt, ln, exp, log), computed on the
 * coefficient with bigint (exactly, or with guard digits for transcendental results) and rounded
 * once to the result scale PostgreSQL's numeric.c would choose, so the printed digits match.
 */
import { err, SQLSTATE } from '../../../common/errors.js';
import { Numeric } from '../../../common/numeric.js';

const MIN_SIG_DIGITS = 16;
const MAX_DISPLAY_SCALE = 1000;
const INVALID_ARGUMENT_FOR_POWER = '2201F';

export function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** Round a/b half away from zero. */
function divRound(a: bigint, b: bigint): bigint {
  if (b < 0n) return divRound(-a, -b);
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
    if (base.coef === 0n) return Numeric.of(0n, clampScale(MIN_SIG_DIGITS, Math.max(base.scale, exp.scale)));
    return powerByLn(base, exp);
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

// ---- ln / exp / log on numeric ---------------------------------------------------------------
// Fixed-point bigint arithmetic: a value v is held as round(v * 10^P). Every result is computed with
// 20 guard digits beyond the scale PostgreSQL picks for it and rounded once at the end.

const GUARD = 20;
const INVALID_ARGUMENT_FOR_LOG = '2201E';

function fixedOf(n: Numeric, p: number): bigint {
  return p >= n.scale ? n.coef * pow10(p - n.scale) : divRound(n.coef, pow10(n.scale - p));
}

/** 2·atanh(z) = ln((1+z)/(1-z)) for small |z|, at P digits. */
function atanh2(z: bigint, one: bigint): bigint {
  const z2 = (z * z) / one;
  let term = z;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * z2) / one;
  }
  return 2n * sum;
}

/** ln(y) for y near 1 (fixed point): take square roots until y is within ~1.01 of 1, then atanh. */
function lnNearOne(y: bigint, p: number): bigint {
  const one = pow10(p);
  let s = 0;
  let v = y;
  const lo = one - one / 100n;
  const hi = one + one / 100n;
  while (v < lo || v > hi) {
    v = isqrt(v * one);
    s++;
  }
  return atanh2(((v - one) * one) / (v + one), one) << BigInt(s);
}

const ln10Cache = new Map<number, bigint>();
function ln10(p: number): bigint {
  let v = ln10Cache.get(p);
  if (v === undefined) {
    v = lnNearOne(10n * pow10(p), p);
    ln10Cache.set(p, v);
  }
  return v;
}

/** ln(x) at fixed point P for x > 0: split off the power of ten, then work on a mantissa in [1, 10). */
function lnFixed(x: Numeric, p: number): bigint {
  const k = leadingExponent(x);
  const mantissa = Numeric.of(x.coef, x.scale + k);
  return lnNearOne(fixedOf(mantissa, p), p) + BigInt(k) * ln10(p);
}

function checkLn(x: Numeric): void {
  if (x.special === 3 || (x.isFinite() && x.coef < 0n)) {
    throw err(INVALID_ARGUMENT_FOR_LOG, 'cannot take logarithm of a negative number');
  }
  if (x.isFinite() && x.coef === 0n) throw err(INVALID_ARGUMENT_FOR_LOG, 'cannot take logarithm of zero');
}

/** PostgreSQL's estimate_ln_dweight: the decimal weight of ln(x), from x's leading base-10000 digits. */
function estimateLnDweight(x: Numeric): number {
  const one = pow10(x.scale);
  const c = x.coef;
  // 0.9 <= x <= 1.1: ln(x) ≈ x - 1.
  if (c * 10n >= 9n * one && c * 10n <= 11n * one) {
    const d = c - one;
    return d === 0n ? 0 : leadingExponent(Numeric.of(d, x.scale));
  }
  // Leading two base-10000 digits, aligned to the decimal point as PostgreSQL stores them.
  const fracGroups = Math.ceil(x.scale / 4);
  let digits = (c * pow10(fracGroups * 4 - x.scale)).toString();
  digits = digits.padStart(Math.ceil(digits.length / 4) * 4, '0');
  const groups: number[] = [];
  for (let i = 0; i < digits.length; i += 4) groups.push(Number(digits.slice(i, i + 4)));
  let weight = groups.length - fracGroups - 1;
  let first = 0;
  while (first < groups.length && groups[first] === 0) {
    first++;
    weight--;
  }
  let last = groups.length;
  while (last > first && groups[last - 1] === 0) last--;
  let lead = groups[first]!;
  let dweight = weight * 4;
  if (last - first > 1) {
    lead = lead * 10000 + groups[first + 1]!;
    dweight -= 4;
  }
  const lnVar = Math.log(lead) + dweight * Math.LN10;
  return Math.trunc(Math.log10(Math.abs(lnVar)));
}

export function numericLn(x: Numeric): Numeric {
  if (x.isNaN()) return Numeric.NaN;
  checkLn(x);
  if (x.special === 2) return x;
  const rscale = clampScale(MIN_SIG_DIGITS - estimateLnDweight(x), x.scale);
  const p = rscale + GUARD;
  return Numeric.of(divRound(lnFixed(x, p), pow10(GUARD)), rscale);
}

/** log(base, x) = ln(x) / ln(base), with PostgreSQL's log_var result scale. */
export function numericLog(base: Numeric, x: Numeric): Numeric {
  if (base.isNaN() || x.isNaN()) return Numeric.NaN;
  checkLn(base);
  checkLn(x);
  if (x.special === 2 && base.isFinite()) {
    if (isOne(base)) throw err(SQLSTATE.divisionByZero, 'division by zero');
    return base.cmp(Numeric.of(1n, 0)) > 0 ? Numeric.POSITIVE_INFINITY : Numeric.NEGATIVE_INFINITY;
  }
  if (!base.isFinite() || !x.isFinite()) {
    throw err(SQLSTATE.featureNotSupported, 'numeric log with an infinite base is not supported yet');
  }
  const resultDweight = estimateLnDweight(x) - estimateLnDweight(base);
  const rscale = clampScale(MIN_SIG_DIGITS - resultDweight, Math.max(base.scale, x.scale));
  // ln(base) may be tiny (base near 1), so carry extra digits in proportion to how small it is.
  const p = rscale + GUARD + Math.max(0, -estimateLnDweight(base)) + Math.max(0, estimateLnDweight(x));
  const lb = lnFixed(base, p);
  if (lb === 0n) throw err(SQLSTATE.divisionByZero, 'division by zero');
  const lx = lnFixed(x, p);
  return Numeric.of(divRound(lx * pow10(rscale), lb), rscale);
}

/** e^f at fixed point P for 0 <= f < 1 (Taylor series). */
function expSmall(f: bigint, one: bigint): bigint {
  let term = one;
  let sum = one;
  for (let k = 1n; term !== 0n; k++) {
    term = (term * f) / (one * k);
    sum += term;
  }
  return sum;
}

function fixedPow(b: bigint, n: bigint, one: bigint): bigint {
  let result = one;
  let base = b;
  let e = n;
  while (e > 0n) {
    if (e & 1n) result = (result * base) / one;
    e >>= 1n;
    if (e > 0n) base = (base * base) / one;
  }
  return result;
}

/** round(e^y × 10^rscale) for y given at fixed point P (P must cover the precision wanted). */
function expFixedToScale(y: bigint, p: number, rscale: number): Numeric {
  const one = pow10(p);
  const neg = y < 0n;
  const ay = neg ? -y : y;
  const n = ay / one;
  const e = fixedPow(expSmall(one, one), n, one);
  const big = (e * expSmall(ay - n * one, one)) / one;
  const coef = neg ? divRound(pow10(rscale) * one, big) : divRound(big, pow10(p - rscale));
  return Numeric.of(coef, rscale);
}

export function numericExp(x: Numeric): Numeric {
  if (x.isNaN()) return Numeric.NaN;
  if (x.special === 2) return x;
  if (x.special === 3) return Numeric.ZERO;
  const approx = x.toNumber();
  let val = approx * 0.434294481903252;
  val = Math.min(Math.max(val, -2000), 2000);
  const rscale = clampScale(MIN_SIG_DIGITS - Math.trunc(val), x.scale);
  // PostgreSQL's exp_var limit is on the argument itself.
  if (Math.abs(approx) >= 6000) {
    if (approx > 0) throw err(SQLSTATE.numericValueOutOfRange, 'value overflows numeric format');
    return Numeric.of(0n, rscale);
  }
  // Relative precision must cover the integer digits of a large result as well as rscale.
  const q = rscale + GUARD + Math.ceil(Math.log10(Math.abs(approx) + 2)) + Math.max(0, Math.ceil(approx * 0.434294481903252));
  return expFixedToScale(fixedOf(x, q), q, rscale);
}

/** base ^ exp for a non-integer exponent and positive base: e^(exp · ln(base)), as power_var does. */
function powerByLn(base: Numeric, exp: Numeric): Numeric {
  const approxLn = exp.toNumber() * Math.log(base.toNumber());
  if (!Number.isFinite(approxLn) || Math.abs(approxLn) > 2000 * 3.01) {
    if (approxLn > 0) throw err(SQLSTATE.numericValueOutOfRange, 'value overflows numeric format');
    return Numeric.of(0n, MAX_DISPLAY_SCALE);
  }
  const val = approxLn * 0.434294481903252;
  const rscale = clampScale(MIN_SIG_DIGITS - Math.trunc(val), Math.max(base.scale, exp.scale));
  const p = rscale + GUARD + Math.max(0, Math.ceil(val)) + Math.ceil(Math.log10(Math.abs(exp.toNumber()) + 2));
  const y = (lnFixed(base, p) * fixedOf(exp, p)) / pow10(p);
  return expFixedToScale(y, p, rscale);
}
