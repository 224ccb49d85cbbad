/**
 * Logarithms, exp and power of doubles rounded correctly, as glibc's log, exp and pow (what
 * PostgreSQL's float8 ln, exp and power return) give them: V8's Math.log, Math.exp and Math.pow are
 * within one unit in the last place but miss the nearest double for 2-10% of inputs (ln(3) = …096
 * where PostgreSQL prints …098). Values are computed in double-double arithmetic (about 106 bits),
 * whose rounding to a double is the correctly rounded result except in cases too rare to meet.
 *
 * ln x = e·ln 2 + ln c + ln(m/c), with x = m·2^e, m in [√½, √2) and c the nearest multiple of 1/128 (its
 * logarithm from a table); ln(1 + t) = 2·atanh(s), s = t/(2+t), |s| < 0.003, summed as s·Σ s^2k/(2k+1).
 * Where the result is small, m is near 1 and c is 1, so no table term cancels it.
 */

const SPLIT = 134217729; // 2^27 + 1, Veltkamp's splitter for doubles

/** A double-double: hi + lo with |lo| at most half an ulp of hi. Results go in a shared pair. */
let rHi = 0;
let rLo = 0;

function twoProd(a: number, b: number): void {
  const p = a * b;
  let t = SPLIT * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b);
  const bl = b - bh;
  rHi = p;
  rLo = ah * bh - p + ah * bl + al * bh + al * bl;
}

function ddMul(ah: number, al: number, bh: number, bl: number): void {
  twoProd(ah, bh);
  const p = rHi;
  const e = rLo + (ah * bl + al * bh);
  rHi = p + e;
  rLo = e - (rHi - p);
}

function ddAdd(ah: number, al: number, bh: number, bl: number): void {
  const s = ah + bh;
  const bb = s - ah;
  const e = ah - (s - bb) + (bh - bb) + al + bl;
  rHi = s + e;
  rLo = e - (rHi - s);
}

function ddDiv(ah: number, al: number, bh: number, bl: number): void {
  const q1 = ah / bh;
  ddMul(q1, 0, bh, bl);
  const rh = ah - rHi;
  const q2 = (rh - rLo + al) / bh;
  rHi = q1 + q2;
  rLo = q2 - (rHi - q1);
}

const TERMS = 22;
/** 1/(2k+1) as double-doubles, k = 0..TERMS. */
const INV_ODD_HI = new Float64Array(TERMS + 1);
const INV_ODD_LO = new Float64Array(TERMS + 1);
for (let k = 0; k <= TERMS; k++) {
  ddDiv(1, 0, 2 * k + 1, 0);
  INV_ODD_HI[k] = rHi;
  INV_ODD_LO[k] = rLo;
}
/** 2·atanh(s) = ln((1 + s)/(1 − s)) into (rHi, rLo), for small |s|: 2s·Σ s^2k/(2k+1), k = 0..terms. */
function twiceAtanh(sh: number, sl: number, terms: number): void {
  ddMul(sh, sl, sh, sl);
  const zh = rHi;
  const zl = rLo;
  let ah = INV_ODD_HI[terms]!;
  let al = INV_ODD_LO[terms]!;
  for (let k = terms - 1; k >= 0; k--) {
    ddMul(ah, al, zh, zl);
    ddAdd(rHi, rLo, INV_ODD_HI[k]!, INV_ODD_LO[k]!);
    ah = rHi;
    al = rLo;
  }
  ddMul(ah, al, sh, sl);
  rHi *= 2;
  rLo *= 2;
}

const LN2_HI = 0.6931471805599453;
const LN2_LO = 2.3190468138462996e-17;
const INV_LN10_HI = 0.4342944819032518;
const INV_LN10_LO = 1.098319650216765e-17;
const SQRT2 = Math.SQRT2;

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** The mantissa splitLog leaves, in [√½, √2). */
let mantissa = 1;

/** x = mantissa·2^e with the mantissa in [√½, √2) (so ln of it is small near 1); returns e. */
function splitLog(x: number): number {
  let e = 0;
  if (x < 2.2250738585072014e-308) {
    x *= 18014398509481984; // 2^54: subnormals get a normal exponent
    e = -54;
  }
  bits[0] = x;
  e += ((words[HI]! >>> 20) & 0x7ff) - 1023;
  words[HI] = (words[HI]! & 0x800fffff) | 0x3ff00000;
  mantissa = bits[0]!;
  if (mantissa > SQRT2) {
    mantissa /= 2;
    e++;
  }
  return e;
}

/** ln x into (rHi, rLo), for finite x > 0, by the series alone (slow: fills the table below). */
function seriesLn(x: number): void {
  const e = splitLog(x);
  const m = mantissa;
  const f = m - 1; // exact (Sterbenz)
  if (f === 0) {
    twoProd(e, LN2_HI);
    ddAdd(rHi, rLo, e * LN2_LO, 0);
    return;
  }
  // s = f / (2 + f); 2 + f is exact as a double-double
  const d = 2 + f;
  ddDiv(f, 0, d, f - (d - 2));
  twiceAtanh(rHi, rLo, TERMS);
  const lh = rHi;
  const ll = rLo;
  if (e === 0) {
    rHi = lh;
    rLo = ll;
    return;
  }
  twoProd(e, LN2_HI);
  ddAdd(rHi, rLo + e * LN2_LO, lh, ll);
}

/** ln x, correctly rounded; the caller has refused x <= 0. Infinity and NaN pass through. */
export function lnRounded(x: number): number {
  if (!(x > 0) || x === Infinity) return Math.log(x);
  if (x === 1) return 0;
  lnDD(x);
  return rHi;
}

/** log10 x, correctly rounded (exact at powers of ten). */
export function log10Rounded(x: number): number {
  if (!(x > 0) || x === Infinity) return Math.log10(x);
  if (x === 1) return 0;
  lnDD(x);
  ddMul(rHi, rLo, INV_LN10_HI, INV_LN10_LO);
  return rHi;
}

/** ln(k/128) for k = 90..182, the multiples of 1/128 nearest to [√½, √2). */
const TABLE_FROM = 90;
const TABLE_TO = 182;
const LNC_HI = new Float64Array(TABLE_TO + 1);
const LNC_LO = new Float64Array(TABLE_TO + 1);
for (let k = TABLE_FROM; k <= TABLE_TO; k++) {
  seriesLn(k / 128);
  LNC_HI[k] = rHi;
  LNC_LO[k] = rLo;
}
const SHORT_TERMS = 7;

/** ln x into (rHi, rLo), for finite x > 0. */
function lnDD(x: number): void {
  const e = splitLog(x);
  const m = mantissa;
  const k = Math.round(m * 128);
  const c = k / 128;
  const diff = m - c; // exact (Sterbenz)
  let lh = 0;
  let ll = 0;
  if (diff !== 0) {
    // t = (m − c)/c, then s = t/(2 + t)
    ddDiv(diff, 0, c, 0);
    const th = rHi;
    const tl = rLo;
    ddAdd(2, 0, th, tl);
    ddDiv(th, tl, rHi, rLo);
    twiceAtanh(rHi, rLo, SHORT_TERMS);
    lh = rHi;
    ll = rLo;
  }
  if (k !== 128) {
    ddAdd(LNC_HI[k]!, LNC_LO[k]!, lh, ll);
    lh = rHi;
    ll = rLo;
  }
  if (e === 0) {
    rHi = lh;
    rLo = ll;
    return;
  }
  twoProd(e, LN2_HI);
  ddAdd(rHi, rLo + e * LN2_LO, lh, ll);
}

/** 1/n! as double-doubles for the series of exp: 12 terms at run time, 30 for the table below. */
const EXP_TERMS = 12;
const EXP_TABLE_TERMS = 30;
const INV_FACT_HI = new Float64Array(EXP_TABLE_TERMS + 1);
const INV_FACT_LO = new Float64Array(EXP_TABLE_TERMS + 1);
{
  let fh = 1;
  let fl = 0;
  for (let n = 0; n <= EXP_TABLE_TERMS; n++) {
    if (n > 0) {
      ddDiv(fh, fl, n, 0);
      fh = rHi;
      fl = rLo;
    }
    INV_FACT_HI[n] = fh;
    INV_FACT_LO[n] = fl;
  }
}

/** exp(t) into (rHi, rLo) by `terms` terms of its series, for small |t|. */
function seriesExp(th: number, tl: number, terms: number): void {
  let ah = INV_FACT_HI[terms]!;
  let al = INV_FACT_LO[terms]!;
  for (let n = terms - 1; n >= 0; n--) {
    ddMul(ah, al, th, tl);
    ddAdd(rHi, rLo, INV_FACT_HI[n]!, INV_FACT_LO[n]!);
    ah = rHi;
    al = rLo;
  }
  rHi = ah;
  rLo = al;
}

/** exp(j/64) for j = -23..23, at index j + 23. */
const EXPC_HI = new Float64Array(47);
const EXPC_LO = new Float64Array(47);
for (let j = -23; j <= 23; j++) {
  seriesExp(j / 64, 0, EXP_TABLE_TERMS);
  EXPC_HI[j + 23] = rHi;
  EXPC_LO[j + 23] = rLo;
}

/**
 * exp(xh + xl) as hi·2^k: (rHi, rLo) hold the mantissa part and the power of two is returned. x = k·ln 2 +
 * j/64 + t with |t| <= 1/128: exp(j/64) from the table, exp(t) from 13 terms of its series.
 */
function expDD(xh: number, xl: number): number {
  const k = Math.round(xh / LN2_HI);
  twoProd(k, LN2_HI);
  ddAdd(xh, xl, -rHi, -rLo - k * LN2_LO);
  const j = Math.round(rHi * 64);
  ddAdd(rHi, rLo, -j / 64, 0);
  seriesExp(rHi, rLo, EXP_TERMS);
  ddMul(rHi, rLo, EXPC_HI[j + 23]!, EXPC_LO[j + 23]!);
  return k;
}

/** hi·2^k for a normal result (two steps where 2^k alone is not a double). */
function scale(hi: number, k: number): number {
  if (k > 1000) return hi * 2 ** 1000 * 2 ** (k - 1000);
  if (k < -1000) return hi * 2 ** -1000 * 2 ** (k + 1000);
  return hi * 2 ** k;
}

/** e^x, correctly rounded where the result is a normal double; overflow gives Infinity, underflow 0. */
export function expRounded(x: number): number {
  // Beyond these the result is not a normal double: Math.exp's answer (Infinity, a subnormal, 0) stands.
  if (!(x > -708 && x < 709.7) || x === 0) return Math.exp(x);
  const k = expDD(x, 0);
  return scale(rHi, k);
}

/**
 * x^y for finite x and y (the caller has refused the cases PostgreSQL refuses), correctly rounded where
 * the result is a normal double: exp(y·ln|x|) in double-double, negative for a negative x and an odd y.
 */
export function powRounded(x: number, y: number): number {
  if (x === 0 || y === 0 || !Number.isFinite(x) || !Number.isFinite(y) || x === 1) return Math.pow(x, y);
  const negative = x < 0 && Math.abs(y) < 9007199254740992 && y % 2 !== 0;
  lnDD(Math.abs(x));
  ddMul(rHi, rLo, y, 0);
  const wh = rHi;
  const wl = rLo;
  if (!(wh > -708 && wh < 709.7)) return Math.pow(x, y);
  const k = expDD(wh, wl);
  const r = scale(rHi, k);
  return negative ? -r : r;
}
