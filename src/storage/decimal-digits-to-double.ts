/**
 * The correctly rounded double of a decimal whose mantissa has 16 to 18 significant digits, straight
 * from its bytes. Clinger's fast path (mantissa and power of ten both exact doubles, one rounding)
 * stops at 2^53, and shortest round-trip output (DuckDB's, JavaScript's, PostgreSQL's) writes 17
 * digits for about a third of all doubles; going through Number(string) for those cost a string and
 * a general conversion per value.
 *
 * Method: the mantissa M is held exactly as a sum of two doubles, an approximate quotient q of
 * M / 10^k is corrected by the exactly computed remainder M - q·10^k (Dekker's product, no fused
 * multiply-add in JavaScript), and the corrected sum is rounded once. The remainder is exact to far
 * below an ulp, so the result is the correctly rounded one unless the true value lies within about
 * 2^-23 ulp of a midpoint between two doubles; those cases return NaN and the caller converts the
 * text.
 */

/** 10^0 … 10^22, each exact in a double, and their Dekker splits (high 26 bits, the rest). */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
const SPLITTER = 134217729; // 2^27 + 1
const POW10_HI = POW10.map((p) => {
  const t = SPLITTER * p;
  return t - (t - p);
});
const POW10_LO = POW10.map((p, i) => p - POW10_HI[i]!);
const INV_POW10 = POW10.map((p) => 1 / p);

/** Mantissas from here on may not split exactly into a·10^8 + b (a must stay below 2^34). */
const MAX_MANTISSA = 1.7e18;

/**
 * The double nearest to M / 10^scale, where M is the integer written by the bytes '0'…'9' of
 * buf[from, to) (`digits` of them; other bytes, such as one decimal point, are skipped) and scale is
 * 1 … 22. `approx` is M as the caller accumulated it in a double (only its range is used). NaN when the exact answer
 * is not certain here (see the header).
 */
export function decimalDigitsToDouble(buf: Uint8Array, from: number, to: number, digits: number, scale: number, approx: number): number {
  if (approx >= MAX_MANTISSA || scale < 1 || scale > 22) return NaN;
  const split = digits - 8;
  // M = a·10^8 + b: a < 1.7·10^10 < 2^34 and 10^8 = 2^8·5^8 (19 significant bits), so a·10^8 is exact.
  let a = 0;
  let b = 0;
  let k = 0;
  for (let i = from; i < to; i++) {
    const d = buf[i]! - 48;
    if (d >>> 0 > 9) continue;
    if (k < split) a = a * 10 + d;
    else b = b * 10 + d;
    k++;
  }
  const A = a * 1e8;
  // Two-sum: mh + ml === A + b exactly.
  const mh = A + b;
  const bb = mh - A;
  const ml = A - (mh - bb) + (b - bb);
  return quotient(mh, ml, scale);
}

/**
 * The double nearest to M / 10^scale for an integer M below 1.8·10^19 given as `approx`, its value as
 * accumulated by approx = approx·10 + digit in doubles, and `low32`, M mod 2^32 accumulated exactly in
 * 32-bit integers alongside (Math.imul). Readers get M's digits in one pass this way, where
 * decimalDigitsToDouble reads them a second time. NaN when not certain (see the header) or out of range.
 *
 * approx is off from M by far less than 2^31 (each of at most 20 steps rounds by half an ulp of a
 * value below 2^64, at most 2^10, and later steps multiply earlier errors by ten at most three times
 * past 2^53), so M's high 32 bits are approx - low32 over 2^32, rounded; high·2^32 has 32 significant
 * bits and is exact, and the two-sum with low32 holds M exactly.
 */
export function mantissaOverPow10(approx: number, low32: number, scale: number): number {
  if (approx >= 1.8e19 || scale < 0 || scale > 22) return NaN;
  const lo = low32 >>> 0;
  const A = Math.round((approx - lo) / 4294967296) * 4294967296;
  const mh = A + lo;
  const bb = mh - A;
  const ml = A - (mh - bb) + (lo - bb);
  // An integer: the two-sum's rounded sum is the nearest double.
  if (scale === 0) return mh;
  return quotient(mh, ml, scale);
}

/** The double nearest to (mh + ml) / 10^scale, or NaN when not certain (scale 1 … 22). */
function quotient(mh: number, ml: number, scale: number): number {
  const p = POW10[scale]!;
  // Any q near M / p will do (the correction below measures how far off it is): a multiply by the
  // rounded reciprocal, where a division took longer than the rest together.
  const q = mh * INV_POW10[scale]!;
  // Dekker's two-product: ph + pl === q·p exactly.
  const t = SPLITTER * q;
  const qh = t - (t - q);
  const ql = q - qh;
  const ph = q * p;
  const pl = qh * POW10_HI[scale]! - ph + qh * POW10_LO[scale]! + ql * POW10_HI[scale]! + ql * POW10_LO[scale]!;
  // mh - ph is exact (Sterbenz: ph is within a factor of two of mh); the rest is tiny beside an ulp.
  const rem = mh - ph - pl + ml;
  const c = rem * INV_POW10[scale]!;
  const r = q + c;
  // The true value lies within far less than 2^-24 ulp of q + c; with d = |r|·2^-75 (at least 2^-23
  // ulp: an ulp is at most |r|·2^-52), r is its nearest double when everything within d of q + c
  // rounds to r too, rounding being monotonic. This holds at a power of two as well, where the
  // spacing of doubles changes, and needs no bit access (writing a double and reading its halves
  // stalled the store buffer).
  const d = Math.abs(r) * 2.6469779601696886e-23;
  return q + (c + d) === r && q + (c - d) === r ? r : NaN;
}
