/**
 * The first p significant decimal digits of |v| (finite, not 0) as C's printf rounds them: from the
 * exact binary value, an exact tie to the even digit. JavaScript's toExponential and toFixed take a tie
 * away from zero, so 12345678901234.25 to 15 digits was …234.3 where PostgreSQL's float8 → numeric and
 * its %g output (extra_float_digits <= 0) give …234.2. `exp` is the decimal exponent of the first digit.
 */
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

export function printfDigits(v: number, p: number): { digits: string; exp: number } {
  const x = Math.abs(v);
  // Two digits more than wanted (at most 17 significant: V8's fast path; more goes through bignums).
  const probe = x.toExponential(p + 1);
  // "d.ddd…e±x": significant digit j (j ≥ 1) at index j + 1, the 'e' at p + 3.
  const exp = Number(probe.slice(p + 4));
  const next = probe.charCodeAt(p + 1) - 48;
  const kept = p === 1 ? probe[0]! : probe[0]! + probe.slice(2, p + 1);
  if (next !== 5 || probe.charCodeAt(p + 2) !== 48) {
    // The two extra digits are not "50", so rounding them off gives what rounding x would.
    return next < 5 ? { digits: kept, exp } : roundUp(kept, exp);
  }
  // Close to halfway: an exact tie goes to the even digit; anything else as toExponential rounds it.
  if (exactTie(x, p, exp)) {
    return (kept.charCodeAt(p - 1) - 48) % 2 === 0 ? { digits: kept, exp } : roundUp(kept, exp);
  }
  const s = x.toExponential(p - 1);
  const si = s.indexOf('e');
  return { digits: p === 1 ? s[0]! : s[0]! + s.slice(2, si), exp: Number(s.slice(si + 1)) };
}

/** `digits` plus one in its last place; a carry out of the first digit moves the exponent. */
function roundUp(digits: string, exp: number): { digits: string; exp: number } {
  let i = digits.length - 1;
  while (i >= 0 && digits.charCodeAt(i) === 57) i--;
  if (i < 0) return { digits: '1' + '0'.repeat(digits.length - 1), exp: exp + 1 };
  return { digits: digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - 1 - i), exp };
}

/** Whether x (positive) lies exactly halfway between two p-digit decimals at exponent exp: 2·x·10^(p−1−exp) is odd. */
function exactTie(x: number, p: number, exp: number): boolean {
  f64[0] = x;
  const lo = u32[0]!;
  const hi = u32[1]!;
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let k = -1074;
  if (biased !== 0) {
    m |= 1n << 52n;
    k = biased - 1075;
  }
  let num = m * 2n;
  let den = 1n;
  if (k >= 0) num <<= BigInt(k);
  else den <<= BigInt(-k);
  const shift = p - 1 - exp;
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den *= 10n ** BigInt(-shift);
  return num % den === 0n && ((num / den) & 1n) === 1n;
}
