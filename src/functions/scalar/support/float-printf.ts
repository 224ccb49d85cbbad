/**
 * PostgreSQL's snprintf "%.*f" and "%+.*e" for doubles: digits of the exact binary value rounded half
 * to even (as the C library does; JavaScript's toFixed / toExponential round ties away from zero),
 * "NaN" and "Infinity" spelled as PostgreSQL's own snprintf spells them, and -0 keeping its sign.
 */

const view = new DataView(new ArrayBuffer(8));

/** |v| = coef / 10^scale exactly, for a finite non-zero v. */
function exactDecimal(v: number): { coef: bigint; scale: number } {
  view.setFloat64(0, v);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const bits = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (bits === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = bits - 1075;
  }
  while (e < 0 && (mant & 1n) === 0n) {
    mant >>= 1n;
    e++;
  }
  if (e >= 0) return { coef: mant << BigInt(e), scale: 0 };
  return { coef: mant * 5n ** BigInt(-e), scale: -e };
}

/** The exponent of the lowest set bit of a finite positive double (a = odd · 2^e). */
function lowestBitExponent(a: number): number {
  view.setFloat64(0, a);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const bits = (hi >>> 20) & 0x7ff;
  const mhi = bits === 0 ? hi & 0xfffff : (hi & 0xfffff) | 0x100000;
  const tz = lo !== 0 ? 31 - Math.clz32(lo & -lo) : 32 + (31 - Math.clz32(mhi & -mhi));
  return (bits === 0 ? -1074 : bits - 1075) + tz;
}

/** coef / 10^drop rounded half to even. */
function dropDigitsHalfEven(coef: bigint, drop: number): bigint {
  if (drop <= 0) return coef * 10n ** BigInt(-drop);
  const d = 10n ** BigInt(drop);
  const q = coef / d;
  const r2 = (coef % d) * 2n;
  return r2 > d || (r2 === d && (q & 1n) === 1n) ? q + 1n : q;
}

function isNegative(v: number): boolean {
  return v < 0 || Object.is(v, -0);
}

/** printf("%.*f", prec, v). */
export function printfFixed(v: number, prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  const sign = isNegative(v) ? '-' : '';
  if (!Number.isFinite(v)) return sign + 'Infinity';
  const a = Math.abs(v);
  // toFixed also rounds the exact value and differs only on an exact tie, which needs the binary
  // fraction to end exactly one digit past `prec` (a fraction of 2^-k has exactly k decimals).
  if (a < 1e21 && prec <= 100 && (a === 0 || -lowestBitExponent(a) !== prec + 1)) return sign + a.toFixed(prec);
  const { coef, scale } = exactDecimal(a);
  const digits = dropDigitsHalfEven(coef, scale - prec).toString().padStart(prec + 1, '0');
  return sign + (prec > 0 ? `${digits.slice(0, -prec)}.${digits.slice(-prec)}` : digits);
}

/** printf("%+.*e", prec, v) for finite v. */
export function printfExp(v: number, prec: number): string {
  const sign = isNegative(v) ? '-' : '+';
  let digits: string;
  let exp = 0;
  if (v === 0) digits = '0'.repeat(prec + 1);
  else {
    const { coef, scale } = exactDecimal(Math.abs(v));
    const n = coef.toString().length;
    exp = n - 1 - scale;
    digits = dropDigitsHalfEven(coef, n - (prec + 1)).toString();
    // Rounding 9.99… up carries into a new leading digit: one more power of ten.
    if (digits.length > prec + 1) {
      digits = digits.slice(0, prec + 1);
      exp++;
    }
  }
  const mant = prec > 0 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}
