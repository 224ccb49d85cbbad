/** Shared pieces of the aggregate implementations: growable per-group arrays and exact integer sums. */
import { Numeric } from '../../common/numeric.js';
import { allocateForGrowth } from './growth-reserve.js';

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** New capacity for `groups` ids: doubling keeps grow() amortised O(1) per group. */
export function capacityFor(current: number, groups: number): number {
  let c = Math.max(current, 16);
  while (c < groups) c *= 2;
  return c;
}

export function growF64(a: Float64Array<ArrayBuffer>, groups: number, fill = 0): Float64Array<ArrayBuffer> {
  if (a.length >= groups) return a;
  const n = allocateForGrowth('f64', capacityFor(a.length, groups), fill !== 0 || Object.is(fill, -0));
  n.set(a);
  if (fill !== 0 || Object.is(fill, -0)) n.fill(fill, a.length);
  return n;
}

export function growU8(a: Uint8Array<ArrayBuffer>, groups: number): Uint8Array<ArrayBuffer> {
  if (a.length >= groups) return a;
  const n = allocateForGrowth('u8', capacityFor(a.length, groups), false);
  n.set(a);
  return n;
}

export function growI32(a: Int32Array<ArrayBuffer>, groups: number, fill = 0): Int32Array<ArrayBuffer> {
  if (a.length >= groups) return a;
  const n = allocateForGrowth('i32', capacityFor(a.length, groups), fill !== 0);
  n.set(a);
  if (fill !== 0) n.fill(fill, a.length);
  return n;
}

export function growArr<V>(a: V[], groups: number, fill: V): void {
  for (let i = a.length; i < groups; i++) a.push(fill);
}

/** The canonical int8 representation of an exact integer (number in the safe range, bigint beyond). */
export function int8Of(b: bigint): number | bigint {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

/**
 * An exact integer sum kept as `lo + hi`: `lo` is a double that is always a safe integer (so float
 * addition of integer inputs is exact), `hi` a bigint that absorbs `lo` whenever the next addition would
 * leave the safe range. The per-row path is then a float add and a range test; bigint work happens once
 * per ~2^53 of accumulated magnitude.
 */
export function exactTotal(lo: number, hi: bigint | undefined): bigint {
  return hi === undefined ? BigInt(lo) : hi + BigInt(lo);
}

/** Adds an arbitrary int8 value (number or bigint) into a lo/hi pair stored at index g. */
export function addInt8Slow(lo: Float64Array, hi: (bigint | undefined)[], g: number, v: number | bigint): void {
  if (typeof v === 'number') {
    const s = lo[g]! + v;
    if (s <= MAX_SAFE && s >= -MAX_SAFE) {
      lo[g] = s;
      return;
    }
    hi[g] = (hi[g] ?? 0n) + BigInt(lo[g]!);
    lo[g] = v;
    return;
  }
  hi[g] = (hi[g] ?? 0n) + v;
}

/** Integer square root (floor) of a non-negative bigint, Newton's method from a power-of-two guess. */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

/**
 * sqrt(x) rounded (half away from zero) to `scale` digits, for non-negative finite x. PostgreSQL's
 * stddev takes the square root at the scale select_div_scale chose for the variance, not at sqrt()'s
 * own result scale, so Numeric.sqrt() does not fit.
 */
export function sqrtAtScale(x: Numeric, scale: number): Numeric {
  // sqrt(c / 10^s) * 10^(scale+1) = sqrt(c * 10^(2(scale+1) - s)); one extra digit, then round.
  const e = 2 * (scale + 1) - x.scale;
  const n = e >= 0 ? x.coef * 10n ** BigInt(e) : x.coef / 10n ** BigInt(-e);
  const r = isqrt(n);
  const q = r / 10n;
  return Numeric.of(r % 10n >= 5n ? q + 1n : q, scale);
}
