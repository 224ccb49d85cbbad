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
  const s = x.toExponential(p - 1);
  const ei = s.indexOf('e');
  const rounded = { digits: p === 1 ? s[0]! : s[0]! + s.slice(2, ei), exp: Number(s.slice(ei + 1)) };
  // A tie has a 5 right after the kept digits and nothing after it; most values fail this at once.
  const wide = x.toExponential(Math.min(100, p + 19));
  const wi = wide.indexOf('e');
  if (wide.charCodeAt(p + 1) !== 53) return rounded;
  for (let i = p + 2; i < wi; i++) if (wide.charCodeAt(i) !== 48) return rounded;
  const exp = Number(wide.slice(wi + 1));
  if (!exactTie(x, p, exp)) return rounded;
  const kept = p === 1 ? wide[0]! : wide[0]! + wide.slice(2, p + 1);
  // Rounding up (what toExponential did) is right when the last kept digit is odd.
  return (kept.charCodeAt(p - 1) - 48) % 2 === 0 ? { digits: kept, exp } : rounded;
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
