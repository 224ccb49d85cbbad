/**
 * The correctly rounded double of a decimal whose mantissa has 16 to 18 significant digits, straight
 * from its bytes. Clinger's fast path (mantissa and power of ten both exact doubles, one rounding)
 * stops at 2^53, and shortest round-trip output (DuckDB's, JavaScript's, PostgreSQL's) writes 17
 * digits for about a third of all doubles; going through Number(string) for those cost a string and
 * a general conversion per value.
 *
 * Method: the mantissa M is held exactly as a sum of two doubles, the quotient q = fl(M / 10^k) is
 * corrected by the exactly computed remainder M - q·10^k (Dekker's product, no fused multiply-add in
 * JavaScript), and the corrected sum is rounded once. The remainder is exact to far below an ulp, so
 * the result is the correctly rounded one unless the true value lies within 2^-24 ulp of a midpoint
 * between two doubles or q sits at a binade edge; those cases return NaN and the caller converts
 * the text.
 */

/** 10^0 … 10^22, each exact in a double, and their Dekker splits (high 26 bits, the rest). */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
const SPLITTER = 134217729; // 2^27 + 1
const POW10_HI = POW10.map((p) => {
  const t = SPLITTER * p;
  return t - (t - p);
});
const POW10_LO = POW10.map((p, i) => p - POW10_HI[i]!);

/** Bit access to a double, for its neighbour; only on little-endian hosts (every Node.js target). */
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const LITTLE_ENDIAN = (() => {
  F64[0] = 1;
  return U32[1] === 0x3ff00000;
})();

/** Mantissas from here on may not split exactly into a·10^8 + b (a must stay below 2^34). */
const MAX_MANTISSA = 1.7e18;

/**
 * The double nearest to M / 10^scale, where M is the integer written by the bytes '0'…'9' of
 * buf[from, to) (`digits` of them; other bytes, such as one decimal point, are skipped) and scale is
 * 1 … 22. `approx` is M as the caller accumulated it in a double (only its range is used). NaN when the exact answer
 * is not certain here (see the header).
 */
export function decimalDigitsToDouble(buf: Uint8Array, from: number, to: number, digits: number, scale: number, approx: number): number {
  if (!LITTLE_ENDIAN || approx >= MAX_MANTISSA || scale < 1 || scale > 22) return NaN;
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
  const p = POW10[scale]!;
  const q = mh / p;
  // Dekker's two-product: ph + pl === q·p exactly.
  const t = SPLITTER * q;
  const qh = t - (t - q);
  const ql = q - qh;
  const ph = q * p;
  const pl = qh * POW10_HI[scale]! - ph + qh * POW10_LO[scale]! + ql * POW10_HI[scale]! + ql * POW10_LO[scale]!;
  // mh - ph is exact (Sterbenz: ph is within a factor of two of mh); the rest is tiny beside an ulp.
  const rem = mh - ph - pl + ml;
  const c = rem / p;
  const r = q + c;
  // The true value lies within |q + c - r| of r; r is its nearest double unless that is about half
  // the spacing at r, or r is a power of two (where the spacing below is half the spacing above).
  F64[0] = r;
  const lo = U32[0]!;
  if (((U32[1]! & 0xfffff) | lo) === 0 || lo === 0xffffffff) return NaN;
  U32[0] = lo + 1;
  const ulp = F64[0] - r;
  const off = Math.abs(q - r + c) / ulp;
  return off < 0.5 - 6e-8 ? r : NaN;
}
