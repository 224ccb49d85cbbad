/**
 * Arbitrary-precision decimal with PostgreSQL numeric semantics (NaN, ±Infinity, display scale).
 *
 * A finite value is coef / 10^scale where `scale` is PostgreSQL's display scale (dscale): the value
 * never carries digits beyond it, so toString() is just the coefficient with a decimal point.
 * Result scales follow PostgreSQL's numeric.c. Where PostgreSQL reasons in base-10000 digits
 * (select_div_scale, sqrt, ln estimates) we recompute those base-10000 weights from the decimal
 * coefficient, because the scale choices (and hence the printed digits) depend on them.
 *
 * Transcendental functions (sqrt, exp, ln, log, power) are computed exactly enough in bigint
 * fixed point with guard digits and then rounded half away from zero to PostgreSQL's result scale;
 * only the result-scale *estimates* use doubles, exactly where PostgreSQL itself uses doubles.
 */
import { printfDigits } from './printf-digits.js';
import { QuireError } from './errors.js';

const NUMERIC_MIN_SIG_DIGITS = 16;
const NUMERIC_MAX_DISPLAY_SCALE = 1000;
const NUMERIC_MAX_RESULT_SCALE = 2000;
/** Largest decimal exponent PostgreSQL's storage format accepts (weight 32767 in base 10000). */
const MAX_DECIMAL_EXPONENT = 131071;
const NUMERIC_DSCALE_MAX = 0x3fff;

const POW10_CACHE: bigint[] = [];
function pow10(n: number): bigint {
  if (n < 64) {
    let v = POW10_CACHE[n];
    if (v === undefined) {
      v = 10n ** BigInt(n);
      POW10_CACHE[n] = v;
    }
    return v;
  }
  return 10n ** BigInt(n);
}

function babs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

function digitCount(v: bigint): number {
  // abs already applied by callers; 0 counts as one digit.
  return v === 0n ? 1 : v.toString().length;
}

/** num/den rounded half away from zero (den may be negative). */
function divRound(num: bigint, den: bigint): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const q = num / den;
  const r = num - q * den;
  if (r === 0n) return q;
  if (babs(r) * 2n >= den) return num < 0n ? q - 1n : q + 1n;
  return q;
}

function overflow(): QuireError {
  return new QuireError('22003', 'value overflows numeric format');
}

function divisionByZero(): QuireError {
  return new QuireError('22012', 'division by zero');
}

/** Integer square root (floor) by Newton's method. */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  // Start from a float estimate scaled to the bit length so big inputs converge in few steps.
  const bits = n.toString(2).length;
  let x = 1n << BigInt(Math.ceil(bits / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

/** 10^0 … 10^22: the powers of ten a double holds exactly. */
const EXACT_POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

export class Numeric {
  private constructor(
    /** Unscaled coefficient: value = coef / 10^scale. 0n for special values. */
    readonly coef: bigint,
    /** Display scale (digits after the point), >= 0. */
    readonly scale: number,
    /** 0 = finite, 1 = NaN, 2 = +Infinity, 3 = -Infinity. */
    readonly special: 0 | 1 | 2 | 3 = 0,
  ) {}
  static of(coef: bigint, scale: number): Numeric {
    if (scale < 0) return new Numeric(coef * pow10(-scale), 0);
    return new Numeric(coef, scale);
  }
  static readonly NaN = new Numeric(0n, 0, 1);
  static readonly POSITIVE_INFINITY = new Numeric(0n, 0, 2);
  static readonly NEGATIVE_INFINITY = new Numeric(0n, 0, 3);
  static readonly ZERO = new Numeric(0n, 0);
  private static readonly ONE = new Numeric(1n, 0);

  /** PostgreSQL numeric input syntax ('1.50', '-1e3', 'NaN', 'Infinity'); throws 22P02. */
  static parse(s: string): Numeric {
    const r = Numeric.tryParse(s);
    if (r === null) throw new QuireError('22P02', `invalid input syntax for type numeric: "${s}"`);
    return r;
  }

  /** Like parse but returns null on a syntax error (still throws 22003 on overflow). */
  static tryParse(s: string): Numeric | null {
    // Fast path for plain decimals, the common case when loading data.
    const f = SIMPLE_RE.exec(s);
    if (f !== null && s.length < 1000) {
      const frac = f[2];
      return new Numeric(BigInt(frac === undefined ? f[1]! : f[1]! + frac), frac === undefined ? 0 : frac.length);
    }
    const t = s.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
    const m = DECIMAL_RE.exec(t);
    if (m === null) {
      const lower = t.toLowerCase();
      switch (lower) {
        case 'nan':
          return Numeric.NaN;
        case 'infinity':
        case '+infinity':
        case 'inf':
        case '+inf':
          return Numeric.POSITIVE_INFINITY;
        case '-infinity':
        case '-inf':
          return Numeric.NEGATIVE_INFINITY;
      }
      const h = NONDECIMAL_RE.exec(t);
      if (h === null) return null;
      const radix = h[2]!.toLowerCase();
      const prefix = radix === 'x' ? '0x' : radix === 'o' ? '0o' : '0b';
      let v = BigInt(prefix + h[3]!.replace(/_/g, ''));
      if (h[1] === '-') v = -v;
      return new Numeric(v, 0);
    }
    const neg = m[1] === '-';
    const intPart = (m[2] ?? '').replace(/_/g, '');
    const fracPart = (m[3] ?? m[4] ?? '').replace(/_/g, '');
    let exponent = 0;
    if (m[5] !== undefined) {
      const e = m[5].replace(/_/g, '');
      const digits = e.replace(/^[+-]/, '');
      // PostgreSQL rejects absurd exponents as out of range before doing any arithmetic.
      if (digits.replace(/^0+/, '').length > 10 || Number(digits) > 0x3fffffff) throw overflow();
      exponent = Number(e);
    }
    let coef = BigInt((intPart + fracPart).replace(/^0+(?=\d)/, '') || '0');
    let scale = fracPart.length - exponent;
    if (scale < 0) {
      if (coef !== 0n && digitCount(coef) - scale - fracPart.length > MAX_DECIMAL_EXPONENT + 1) throw overflow();
      coef *= pow10(-scale);
      scale = 0;
    }
    if (coef !== 0n) {
      const e = digitCount(coef) - 1 - scale;
      if (e > MAX_DECIMAL_EXPONENT) throw overflow();
    }
    if (scale > NUMERIC_DSCALE_MAX) {
      // PostgreSQL cannot store such a display scale; it rounds numbers this small away only on
      // typmod, so the input is simply rejected as out of range.
      throw overflow();
    }
    return new Numeric(neg ? -coef : coef, scale);
  }

  /** Exact for integers (number or bigint). */
  static fromInt(v: number | bigint): Numeric {
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) return Numeric.fromFloat(v);
      return new Numeric(BigInt(v), 0);
    }
    return new Numeric(v, 0);
  }

  /** float8 → numeric as PostgreSQL does (15 significant digits, NaN/Infinity kept). */
  static fromFloat(v: number): Numeric {
    return Numeric.fromFloatDigits(v, 15);
  }

  /** float4 → numeric as PostgreSQL does (FLT_DIG = 6 significant digits). */
  static fromFloat4(v: number): Numeric {
    return Numeric.fromFloatDigits(v, 6);
  }

  private static fromFloatDigits(v: number, digits: number): Numeric {
    if (Number.isNaN(v)) return Numeric.NaN;
    if (v === Infinity) return Numeric.POSITIVE_INFINITY;
    if (v === -Infinity) return Numeric.NEGATIVE_INFINITY;
    if (v === 0) return Numeric.ZERO;
    // Mirrors snprintf("%.*g"): significant digits (ties to even), then trailing fractional zeros dropped.
    const { digits: ds, exp } = printfDigits(v, digits);
    let len = ds.length;
    while (len > 1 && ds.charCodeAt(len - 1) === 48) len--;
    // At most 15 digits: exact in a double.
    const m = Number(ds.slice(0, len));
    const scale = len - 1 - exp;
    const signed = v < 0 ? -m : m;
    if (scale >= 0) return new Numeric(BigInt(signed), scale);
    return new Numeric(BigInt(signed) * pow10(-scale), 0);
  }

  isNaN(): boolean {
    return this.special === 1;
  }
  isFinite(): boolean {
    return this.special === 0;
  }
  isZero(): boolean {
    return this.special === 0 && this.coef === 0n;
  }
  /** True for finite values without a fractional part (regardless of display scale). */
  isInteger(): boolean {
    if (this.special !== 0) return false;
    return this.scale === 0 || this.coef % pow10(this.scale) === 0n;
  }

  private static align(a: Numeric, b: Numeric): [bigint, bigint, number] {
    if (a.scale === b.scale) return [a.coef, b.coef, a.scale];
    if (a.scale > b.scale) return [a.coef, b.coef * pow10(a.scale - b.scale), a.scale];
    return [a.coef * pow10(b.scale - a.scale), b.coef, b.scale];
  }

  add(o: Numeric): Numeric {
    if (this.special !== 0 || o.special !== 0) {
      if (this.special === 1 || o.special === 1) return Numeric.NaN;
      if (this.special !== 0 && o.special !== 0) return this.special === o.special ? this : Numeric.NaN;
      return this.special !== 0 ? this : o;
    }
    const [a, b, s] = Numeric.align(this, o);
    return new Numeric(a + b, s);
  }

  sub(o: Numeric): Numeric {
    return this.add(o.neg());
  }

  mul(o: Numeric): Numeric {
    if (this.special !== 0 || o.special !== 0) {
      if (this.special === 1 || o.special === 1) return Numeric.NaN;
      const sa = this.sign();
      const sb = o.sign();
      if (sa === 0 || sb === 0) return Numeric.NaN;
      return sa * sb > 0 ? Numeric.POSITIVE_INFINITY : Numeric.NEGATIVE_INFINITY;
    }
    let scale = this.scale + o.scale;
    let coef = this.coef * o.coef;
    // PostgreSQL caps every result's display scale; beyond it the product is rounded.
    if (scale > NUMERIC_DSCALE_MAX) {
      coef = divRound(coef, pow10(scale - NUMERIC_DSCALE_MAX));
      scale = NUMERIC_DSCALE_MAX;
    }
    return new Numeric(coef, scale);
  }

  /** Base-10000 weight and leading base-10000 digit, as PostgreSQL's NumericVar would hold them. */
  private baseWeight(): { weight: number; first: number } {
    if (this.coef === 0n) return { weight: 0, first: 0 };
    const a = babs(this.coef);
    const e = digitCount(a) - 1 - this.scale;
    const weight = Math.floor(e / 4);
    const shift = this.scale + 4 * weight;
    const first = shift >= 0 ? Number(a / pow10(shift)) : Number(a * pow10(-shift));
    return { weight, first };
  }

  /** Decimal exponent of the leading digit (floor(log10|x|)); 0 for zero. */
  private decimalExponent(): number {
    if (this.coef === 0n) return 0;
    return digitCount(babs(this.coef)) - 1 - this.scale;
  }

  private selectDivScale(o: Numeric): number {
    const w1 = this.baseWeight();
    const w2 = o.baseWeight();
    let qweight = w1.weight - w2.weight;
    if (w1.first <= w2.first) qweight--;
    let rscale = NUMERIC_MIN_SIG_DIGITS - qweight * 4;
    rscale = Math.max(rscale, this.scale, o.scale, 0);
    return Math.min(rscale, NUMERIC_MAX_DISPLAY_SCALE);
  }

  private divSpecial(o: Numeric): Numeric | null {
    if (this.special === 0 && o.special === 0) return null;
    if (this.special === 1 || o.special === 1) return Numeric.NaN;
    if (this.special !== 0) {
      if (o.special !== 0) return Numeric.NaN;
      const s = o.sign();
      if (s === 0) throw divisionByZero();
      return (this.special === 2) === s > 0 ? Numeric.POSITIVE_INFINITY : Numeric.NEGATIVE_INFINITY;
    }
    return Numeric.ZERO;
  }

  /** PostgreSQL select_div_scale rules; 22012 on division by zero. */
  div(o: Numeric): Numeric {
    const sp = this.divSpecial(o);
    if (sp !== null) return sp;
    if (o.coef === 0n) throw divisionByZero();
    return this.divScale(o, this.selectDivScale(o));
  }

  /** Division to an explicit result scale (used by avg and friends). */
  divScale(o: Numeric, scale: number): Numeric {
    const sp = this.divSpecial(o);
    if (sp !== null) return sp;
    if (o.coef === 0n) throw divisionByZero();
    // coef/10^s1 / (coef2/10^s2) at result scale r: coef*10^(s2+r) / (coef2*10^s1).
    let num = this.coef;
    let den = o.coef;
    const k = o.scale + scale - this.scale;
    if (k >= 0) num *= pow10(k);
    else den *= pow10(-k);
    const r = Math.max(scale, 0);
    let q = divRound(num, den);
    if (scale < 0) q *= pow10(-scale);
    return new Numeric(q, r);
  }

  /** Truncating integer division (PostgreSQL div(numeric, numeric)). */
  divTrunc(o: Numeric): Numeric {
    const sp = this.divSpecial(o);
    if (sp !== null) return sp;
    if (o.coef === 0n) throw divisionByZero();
    const [a, b] = Numeric.align(this, o);
    return new Numeric(a / b, 0);
  }

  mod(o: Numeric): Numeric {
    if (this.special !== 0 || o.special !== 0) {
      if (this.special === 1 || o.special === 1) return Numeric.NaN;
      if (this.special !== 0) {
        if (o.sign() === 0) throw divisionByZero();
        return Numeric.NaN;
      }
      return this;
    }
    if (o.coef === 0n) throw divisionByZero();
    const [a, b, s] = Numeric.align(this, o);
    return new Numeric(a % b, s);
  }

  neg(): Numeric {
    switch (this.special) {
      case 1:
        return this;
      case 2:
        return Numeric.NEGATIVE_INFINITY;
      case 3:
        return Numeric.POSITIVE_INFINITY;
    }
    return this.coef === 0n ? this : new Numeric(-this.coef, this.scale);
  }

  abs(): Numeric {
    if (this.special === 3) return Numeric.POSITIVE_INFINITY;
    return this.coef < 0n ? new Numeric(-this.coef, this.scale) : this;
  }

  /** -1, 0, 1; NaN sorts above everything and equals NaN (PostgreSQL's ordering). */
  cmp(o: Numeric): number {
    if (this.special !== 0 || o.special !== 0) {
      const rank = (n: Numeric): number => (n.special === 1 ? 3 : n.special === 2 ? 2 : n.special === 3 ? -2 : 0);
      const ra = rank(this);
      const rb = rank(o);
      if (ra !== rb) return ra < rb ? -1 : 1;
      if (ra !== 0) return 0;
    }
    if (this.scale === o.scale) return this.coef < o.coef ? -1 : this.coef > o.coef ? 1 : 0;
    const [a, b] = Numeric.align(this, o);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** -1, 0, 1 of the value; NaN gives 0 here, so SQL sign(NaN) (which is NaN) must test isNaN() first. */
  sign(): number {
    if (this.special === 2) return 1;
    if (this.special === 3) return -1;
    if (this.special === 1) return 0;
    return this.coef < 0n ? -1 : this.coef > 0n ? 1 : 0;
  }

  /** Round half away from zero to `scale` digits (negative scale rounds left of the point). */
  round(scale: number): Numeric {
    if (this.special !== 0) return this;
    scale = Math.max(-NUMERIC_MAX_RESULT_SCALE, Math.min(NUMERIC_MAX_RESULT_SCALE, Math.trunc(scale)));
    return this.rescale(scale, true);
  }

  trunc(scale: number): Numeric {
    if (this.special !== 0) return this;
    scale = Math.max(-NUMERIC_MAX_RESULT_SCALE, Math.min(NUMERIC_MAX_RESULT_SCALE, Math.trunc(scale)));
    return this.rescale(scale, false);
  }

  private rescale(scale: number, round: boolean): Numeric {
    const rs = Math.max(scale, 0);
    if (scale >= this.scale) return new Numeric(this.coef * pow10(rs - this.scale), rs);
    const d = pow10(this.scale - scale);
    let q = round ? divRound(this.coef, d) : this.coef / d;
    if (scale < 0) q *= pow10(-scale);
    return new Numeric(q, rs);
  }

  /** ceil / floor to an integer (display scale 0). */
  ceil(): Numeric {
    if (this.special !== 0) return this;
    const d = pow10(this.scale);
    let q = this.coef / d;
    if (q * d !== this.coef && this.coef > 0n) q += 1n;
    return new Numeric(q, 0);
  }
  floor(): Numeric {
    if (this.special !== 0) return this;
    const d = pow10(this.scale);
    let q = this.coef / d;
    if (q * d !== this.coef && this.coef < 0n) q -= 1n;
    return new Numeric(q, 0);
  }

  /** Apply numeric(precision, scale): round, then 22003 if the integer part does not fit. */
  applyTypmod(precision: number, scale: number): Numeric {
    if (this.special !== 0) {
      if (this.special === 1) return this;
      throw new QuireError('22003', 'numeric field overflow', {
        detail: `A field with precision ${precision}, scale ${scale} cannot hold an infinite value.`,
      });
    }
    const r = this.rescale(scale, true);
    const maxdigits = precision - scale;
    if (r.coef !== 0n) {
      const ddigits = r.decimalExponent() + 1;
      if (ddigits > maxdigits) {
        throw new QuireError('22003', 'numeric field overflow', {
          detail: `A field with precision ${precision}, scale ${scale} must round to an absolute value less than ${
            maxdigits !== 0 ? '10^' : ''
          }${maxdigits !== 0 ? maxdigits : 1}.`,
        });
      }
    }
    return r;
  }

  /** Apply a packed numeric typmod (pg's ((p << 16) | (s & 0x7ff)) + 4); -1 means none. */
  applyPackedTypmod(typmod: number): Numeric {
    if (typmod < 0) return this;
    const { precision, scale } = decodeNumericTypmod(typmod);
    return this.applyTypmod(precision, scale);
  }

  toNumber(): number {
    switch (this.special) {
      case 1:
        return NaN;
      case 2:
        return Infinity;
      case 3:
        return -Infinity;
    }
    // A coefficient below 2^53 and a power of ten up to 10^22 are both exact doubles, and one IEEE
    // division of exact operands is correctly rounded: the same double as parsing the decimal text.
    if (this.scale <= 22) {
      const c = Number(this.coef);
      if (c < 9007199254740992 && c > -9007199254740992) return this.scale === 0 ? c : c / EXACT_POW10[this.scale]!;
    }
    // Number() of the decimal string is correctly rounded, as PostgreSQL's strtod-based cast is.
    return Number(this.toString());
  }

  /** Round half away from zero to an integer; throws 0A000 for NaN/Infinity (PostgreSQL's code). */
  toBigInt(typeName = 'bigint'): bigint {
    if (this.special === 1) throw new QuireError('0A000', `cannot convert NaN to ${typeName}`);
    if (this.special !== 0) throw new QuireError('0A000', `cannot convert infinity to ${typeName}`);
    if (this.scale === 0) return this.coef;
    return divRound(this.coef, pow10(this.scale));
  }

  /** PostgreSQL's text output ('1.50', 'NaN', 'Infinity'). */
  toString(): string {
    switch (this.special) {
      case 1:
        return 'NaN';
      case 2:
        return 'Infinity';
      case 3:
        return '-Infinity';
    }
    const neg = this.coef < 0n;
    let digits = babs(this.coef).toString();
    if (this.scale === 0) return neg ? '-' + digits : digits;
    if (digits.length <= this.scale) digits = '0'.repeat(this.scale - digits.length + 1) + digits;
    const p = digits.length - this.scale;
    const s = digits.slice(0, p) + '.' + digits.slice(p);
    return neg ? '-' + s : s;
  }

  // ---- transcendental functions --------------------------------------------------------------

  /** PostgreSQL's estimate_ln_dweight. */
  private estimateLnDweight(): number {
    if (this.sign() <= 0) return 0;
    const a = this.coef;
    const s = this.scale;
    // 0.9 <= x <= 1.1: ln(x) ≈ x - 1
    const p = pow10(s);
    if (a * 10n >= 9n * p && a * 10n <= 11n * p) {
      const x = a - p;
      if (x === 0n) return 0;
      return digitCount(babs(x)) - 1 - s;
    }
    const { weight } = this.baseWeight();
    const shift = s + 4 * weight;
    const below = shift > 0 ? a % pow10(shift) : 0n;
    let lnv: number;
    if (below === 0n) {
      const d0 = shift >= 0 ? Number(a / pow10(shift)) : Number(a * pow10(-shift));
      lnv = Math.log(d0) + weight * 4 * 2.302585092994046;
    } else {
      const shift2 = shift - 4;
      const d = shift2 >= 0 ? Number(a / pow10(shift2)) : Number(a * pow10(-shift2));
      lnv = Math.log(d) + (weight * 4 - 4) * 2.302585092994046;
    }
    return Math.trunc(Math.log10(Math.abs(lnv)));
  }

  sqrt(): Numeric {
    if (this.special !== 0) {
      if (this.special === 3) throw new QuireError('2201F', 'cannot take square root of a negative number');
      return this;
    }
    if (this.coef < 0n) throw new QuireError('2201F', 'cannot take square root of a negative number');
    const { weight } = this.baseWeight();
    const sweight = Math.trunc(((weight + 1) * 4) / 2) - 1;
    let rscale = NUMERIC_MIN_SIG_DIGITS - sweight;
    rscale = Math.min(Math.max(rscale, this.scale, 0), NUMERIC_MAX_DISPLAY_SCALE);
    // sqrt(coef/10^s) at scale r+1: isqrt(coef * 10^(2(r+1) - s)), made even by adjusting.
    // sqrt(coef / 10^s) * 10^(r+1) = sqrt(coef * 10^(2(r+1) - s)); the exponent is positive
    // because r >= s. One extra digit, then rounding, equals rounding the exact root.
    const root = isqrt(this.coef * pow10(2 * (rscale + 1) - this.scale));
    return new Numeric(divRound(root, 10n), rscale);
  }

  exp(): Numeric {
    if (this.special !== 0) {
      if (this.special === 3) return Numeric.ZERO;
      return this;
    }
    // exp_var's guard: beyond |x| >= 6000 PostgreSQL reports overflow (or underflows to zero).
    const xd = this.toNumber();
    if (Math.abs(xd) >= NUMERIC_MAX_RESULT_SCALE * 3) {
      if (xd > 0) throw overflow();
      return new Numeric(0n, Math.min(Math.max(NUMERIC_MIN_SIG_DIGITS + NUMERIC_MAX_RESULT_SCALE, this.scale), NUMERIC_MAX_DISPLAY_SCALE));
    }
    let val = xd * 0.434294481903252;
    val = Math.max(val, -NUMERIC_MAX_RESULT_SCALE);
    val = Math.min(val, NUMERIC_MAX_RESULT_SCALE);
    if (val > MAX_DECIMAL_EXPONENT) throw overflow();
    let rscale = NUMERIC_MIN_SIG_DIGITS - Math.trunc(val);
    rscale = Math.min(Math.max(rscale, this.scale, 0), NUMERIC_MAX_DISPLAY_SCALE);
    if (val < -rscale - 2) return new Numeric(0n, rscale);
    // The halve-and-square evaluation loses about one digit per digit of the result's magnitude.
    const guard = 12 + 2 * Math.max(0, Math.ceil(val));
    const w = rscale + guard;
    const x = toFixed(this, w);
    const r = expFixed(x, w);
    return new Numeric(divRound(r, pow10(guard)), rscale);
  }

  ln(): Numeric {
    if (this.special !== 0) {
      if (this.special === 3) throw new QuireError('2201E', 'cannot take logarithm of a negative number');
      return this;
    }
    if (this.coef === 0n) throw new QuireError('2201E', 'cannot take logarithm of zero');
    if (this.coef < 0n) throw new QuireError('2201E', 'cannot take logarithm of a negative number');
    let rscale = NUMERIC_MIN_SIG_DIGITS - this.estimateLnDweight();
    rscale = Math.min(Math.max(rscale, this.scale, 0), NUMERIC_MAX_DISPLAY_SCALE);
    const guard = 12;
    const r = lnFixed(this, rscale + guard);
    return new Numeric(divRound(r, pow10(guard)), rscale);
  }

  /** log(base, this) as PostgreSQL's numeric_log. */
  log(base: Numeric): Numeric {
    if (this.special !== 0 || base.special !== 0) {
      if (this.special === 1 || base.special === 1) return Numeric.NaN;
      if (this.sign() <= 0 || base.sign() <= 0) {
        if (this.sign() === 0 || base.sign() === 0) throw new QuireError('2201E', 'cannot take logarithm of zero');
        throw new QuireError('2201E', 'cannot take logarithm of a negative number');
      }
      if (base.special === 2) {
        if (this.special === 2) return Numeric.NaN;
        return Numeric.ZERO;
      }
      return Numeric.POSITIVE_INFINITY;
    }
    for (const v of [this, base]) {
      if (v.coef === 0n) throw new QuireError('2201E', 'cannot take logarithm of zero');
      if (v.coef < 0n) throw new QuireError('2201E', 'cannot take logarithm of a negative number');
    }
    const resultDweight = this.estimateLnDweight() - base.estimateLnDweight();
    let rscale = NUMERIC_MIN_SIG_DIGITS - resultDweight;
    rscale = Math.min(Math.max(rscale, this.scale, base.scale, 0), NUMERIC_MAX_DISPLAY_SCALE);
    const w = rscale + 20 + Math.max(0, resultDweight < 0 ? -resultDweight : 0);
    const lb = lnFixed(base, w);
    if (lb === 0n) throw divisionByZero();
    const ln = lnFixed(this, w);
    return new Numeric(divRound(ln * pow10(rscale), lb), rscale);
  }

  log10(): Numeric {
    return this.log(Numeric.fromInt(10));
  }

  /** this ^ exp with PostgreSQL's numeric_power special cases and result scales. */
  power(exp: Numeric): Numeric {
    const s1 = this.sign();
    const s2 = exp.sign();
    if (this.special !== 0 || exp.special !== 0) {
      if (this.special === 1) return exp.isZero() ? Numeric.ONE : Numeric.NaN;
      if (exp.special === 1) return this.special === 0 && this.cmp(Numeric.ONE) === 0 ? Numeric.ONE : Numeric.NaN;
      if (s1 === 0 && s2 < 0) throw zeroNegPower();
      if (s1 < 0 && !exp.isInteger() && exp.special === 0) throw complexPower();
      if (this.special === 0 && this.cmp(Numeric.ONE) === 0) return Numeric.ONE;
      if (s2 === 0) return Numeric.ONE;
      if (exp.special !== 0) {
        let absGtOne: boolean;
        if (this.special !== 0) absGtOne = true;
        else {
          const c = this.abs().cmp(Numeric.ONE);
          if (c === 0) return Numeric.ONE;
          absGtOne = c > 0;
        }
        return absGtOne === s2 > 0 ? Numeric.POSITIVE_INFINITY : Numeric.ZERO;
      }
      if (s2 < 0) return Numeric.ZERO;
      if (s1 > 0) return Numeric.POSITIVE_INFINITY;
      const odd = exp.isInteger() && exp.toBigInt() % 2n !== 0n;
      return odd ? Numeric.NEGATIVE_INFINITY : Numeric.POSITIVE_INFINITY;
    }
    if (s1 === 0 && s2 < 0) throw zeroNegPower();
    if (s1 < 0 && !exp.isInteger()) throw complexPower();
    if (exp.isInteger()) {
      const e = exp.toBigInt();
      if (e >= -2147483648n && e <= 2147483647n) return this.powerInt(Number(e), exp.scale);
    }
    if (this.coef === 0n) return new Numeric(0n, NUMERIC_MIN_SIG_DIGITS);
    // General case: exp(exp * ln(base)).
    const lnDweight = this.estimateLnDweight();
    const localRscale = Math.max(8 - lnDweight, 0);
    // Mimic PostgreSQL's low-precision estimate digit for digit: ln rounded to localRscale, the
    // product rounded again, then a double (its truncation decides the result scale).
    const lnb0 = new Numeric(divRound(lnFixed(this.abs(), localRscale + 12), pow10(12)), localRscale);
    let val = lnb0.mul(exp).round(localRscale).toNumber();
    if (Math.abs(val) > 32767 * 4 * 2.3026) {
      if (val > 0) throw overflow();
      return new Numeric(0n, NUMERIC_MAX_DISPLAY_SCALE);
    }
    const lnNum = val;
    val *= 0.434294481903252;
    let rscale = NUMERIC_MIN_SIG_DIGITS - Math.trunc(val);
    rscale = Math.min(Math.max(rscale, this.scale, exp.scale, 0), NUMERIC_MAX_DISPLAY_SCALE);
    if (Math.abs(lnNum) >= NUMERIC_MAX_RESULT_SCALE * 3) {
      if (lnNum > 0) throw overflow();
      return new Numeric(0n, rscale);
    }
    if (val < -rscale - 2) return new Numeric(0n, rscale);
    const guard = 14 + 2 * Math.max(0, Math.ceil(val));
    const w = rscale + guard + Math.max(0, digitCount(babs(exp.coef)) - exp.scale);
    const lnb = lnFixed(this, w);
    // exp.coef/10^exp.scale * lnb/10^w, kept at scale w.
    const prod = divRound(lnb * exp.coef, pow10(exp.scale));
    const r = expFixed(prod, w);
    const negResult = s1 < 0 && exp.toBigInt() % 2n !== 0n;
    const q = divRound(r, pow10(w - rscale));
    return new Numeric(negResult ? -q : q, rscale);
  }

  private powerInt(e: number, expDscale: number): Numeric {
    let f = 0;
    if (this.coef !== 0n) {
      // base ≈ f * 10^p from its leading (up to ~16) digits, as PostgreSQL estimates it.
      const a = babs(this.coef);
      const ds = a.toString();
      const take = Math.min(ds.length, 17);
      const lead = Number(ds.slice(0, take));
      const p = ds.length - take - this.scale;
      f = e * (Math.log10(lead) + p);
    }
    if (f > (32767 + 1) * 4) throw overflow();
    if (f + 1 < -NUMERIC_MAX_DISPLAY_SCALE) return new Numeric(0n, NUMERIC_MAX_DISPLAY_SCALE);
    let rscale = NUMERIC_MIN_SIG_DIGITS - Math.trunc(f);
    rscale = Math.min(Math.max(rscale, this.scale, expDscale, 0), NUMERIC_MAX_DISPLAY_SCALE);
    if (e === 0) return new Numeric(pow10(rscale), rscale);
    if (this.coef === 0n) {
      if (e < 0) throw divisionByZero();
      return new Numeric(0n, rscale);
    }
    const absE = Math.abs(e);
    const approxDigits = digitCount(babs(this.coef)) * absE;
    if (approxDigits <= 40000) {
      // Exact: coef^|e| / 10^(scale*|e|), then rounded (or inverted) to rscale.
      const num = this.coef ** BigInt(absE);
      const sc = this.scale * absE;
      if (e > 0) return Numeric.of(num, sc).rescale(rscale, true);
      // 1 / (num/10^sc) = 10^sc / num at scale rscale.
      return new Numeric(divRound(pow10(sc + rscale), num), rscale);
    }
    // Large exponent: go through logarithms at high precision.
    const guard = 14 + Math.max(0, Math.ceil(f));
    const w = rscale + guard + digitCount(BigInt(absE));
    const lnb = lnFixed(this.abs(), w);
    const r = expFixed(lnb * BigInt(e), w);
    const q = divRound(r, pow10(w - rscale));
    return new Numeric(this.coef < 0n && absE % 2 === 1 ? -q : q, rscale);
  }
}

const SIMPLE_RE = /^(-?\d+)(?:\.(\d+))?$/;
const DECIMAL_RE = /^([+-])?(?:(\d+(?:_\d+)*)(?:\.(\d+(?:_\d+)*)?)?|\.(\d+(?:_\d+)*))(?:[eE]([+-]?\d+(?:_\d+)*))?$/;
const NONDECIMAL_RE = /^([+-])?0([xXoObB])((?:_?[0-9a-fA-F])+)$/;

/** Decodes PostgreSQL's packed numeric typmod (scale may be negative since PostgreSQL 15). */
export function decodeNumericTypmod(typmod: number): { precision: number; scale: number } {
  const t = typmod - 4;
  return { precision: (t >> 16) & 0xffff, scale: ((t & 0x7ff) ^ 1024) - 1024 };
}

export function encodeNumericTypmod(precision: number, scale: number): number {
  return ((precision << 16) | (scale & 0x7ff)) + 4;
}

function zeroNegPower(): QuireError {
  return new QuireError('2201F', 'zero raised to a negative power is undefined');
}
function complexPower(): QuireError {
  return new QuireError('2201F', 'a negative number raised to a non-integer power yields a complex result');
}

/** x as a fixed-point bigint with w fractional digits (truncated toward zero). */
function toFixed(x: Numeric, w: number): bigint {
  if (w >= x.scale) return x.coef * pow10(w - x.scale);
  return x.coef / pow10(x.scale - w);
}

/** e^(x / 10^w) as a fixed-point bigint with w fractional digits. */
function expFixed(x: bigint, w: number): bigint {
  // Halve the argument until it is tiny, sum the Taylor series, then square back up. Extra guard
  // digits cover the relative error growth of the squarings.
  const one = pow10(w);
  let n = 0;
  let xr = x;
  const limit = one / 100n;
  while (babs(xr) > limit) {
    xr /= 2n;
    n++;
  }
  const g = w + n + 10;
  const oneG = pow10(g);
  const xg = xr * pow10(g - w);
  let sum = oneG;
  let term = oneG;
  for (let k = 1n; ; k++) {
    term = (term * xg) / oneG / k;
    if (term === 0n) break;
    sum += term;
  }
  for (let i = 0; i < n; i++) sum = (sum * sum) / oneG;
  return sum / pow10(g - w);
}

const LN10_CACHE = new Map<number, bigint>();

/** ln(x) for finite positive x as a fixed-point bigint with w fractional digits. */
function lnFixed(x: Numeric, w: number): bigint {
  // ln(m * 10^e) = ln(m) + e ln(10) with m in [0.5, 5); ln(m) via repeated square roots then
  // the atanh series, which converges fast once m is near 1.
  const a = babs(x.coef);
  const e = digitCount(a) - 1 - x.scale;
  const g = w + 20;
  const oneG = pow10(g);
  // m = a / 10^(digits-1) in fixed point g.
  const nd = digitCount(a);
  const m = nd - 1 <= g ? a * pow10(g - (nd - 1)) : a / pow10(nd - 1 - g);
  let r = lnNear(m, oneG);
  if (e !== 0) r += BigInt(e) * ln10(g);
  return r / pow10(g - w);
}

function ln10(g: number): bigint {
  let v = LN10_CACHE.get(g);
  if (v === undefined) {
    const oneG = pow10(g);
    v = lnNear(10n * oneG, oneG);
    LN10_CACHE.set(g, v);
  }
  return v;
}

/** ln(m / 10^g) for m in a moderate range, fixed point g. */
function lnNear(m: bigint, oneG: bigint): bigint {
  let k = 0;
  const lo = oneG - oneG / 100n;
  const hi = oneG + oneG / 100n;
  while (m < lo || m > hi) {
    m = isqrt(m * oneG);
    k++;
  }
  // ln(m) = 2 atanh(z), z = (m-1)/(m+1)
  const z = ((m - oneG) * oneG) / (m + oneG);
  const z2 = (z * z) / oneG;
  let sum = 0n;
  let term = z;
  for (let i = 1n; ; i += 2n) {
    const t = term / i;
    if (t === 0n) break;
    sum += t;
    term = (term * z2) / oneG;
  }
  return (sum * 2n) << BigInt(k);
}
