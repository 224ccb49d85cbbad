/**
 * Logarithms, exp and power of doubles rounded correctly, as glibc's log, exp and pow (what
 * PostgreSQL's float8 ln, exp and power return) give them: V8's Math.log, Math.exp and Math.pow are
 * within one unit in the last place but miss the nearest double for 2-10% of inputs (ln(3) = …096
 * where PostgreSQL prints …098).
 *
 * Each call first takes a fast path with about 65 good bits and an error bound (Ziv's method, below
 * lnParts); only when that cannot decide the rounding (a fraction of a percent of calls) is the value
 * computed in double-double arithmetic (about 106 bits), whose rounding to a double is the correctly
 * rounded result except in cases too rare to meet. The fast path alone made a million ln, exp and power
 * calls cost about 1.2 times Math's; double-double for every call cost about 8 times.
 *
 * ln x = e·ln 2 + ln c + ln(m/c), with x = m·2^e, m in [√½, √2) and c the nearest multiple of 1/128 (its
 * logarithm from a table); ln(1 + t) = 2·atanh(s), s = t/(2+t), |s| < 0.003, summed as s·Σ s^2k/(2k+1).
 * Where the result is small, m is near 1 and c is 1, so no table term cancels it.
 */

const SPLIT = 134217729; // 2^27 + 1, Veltkamp's splitter for doubles

/**
 * A double-double: hi + lo with |lo| at most half an ulp of hi. Results go in a shared pair held in a
 * typed array: a module variable holding a double boxes it on every store, which cost most of the time.
 */
const R = new Float64Array(3);

function twoProd(a: number, b: number): void {
  const p = a * b;
  let t = SPLIT * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b);
  const bl = b - bh;
  R[0] = p;
  R[1] = ah * bh - p + ah * bl + al * bh + al * bl;
}

function ddMul(ah: number, al: number, bh: number, bl: number): void {
  twoProd(ah, bh);
  const p = R[0];
  const e = R[1] + (ah * bl + al * bh);
  R[0] = p + e;
  R[1] = e - (R[0] - p);
}

function ddAdd(ah: number, al: number, bh: number, bl: number): void {
  const s = ah + bh;
  const bb = s - ah;
  const e = ah - (s - bb) + (bh - bb) + al + bl;
  R[0] = s + e;
  R[1] = e - (R[0] - s);
}

function ddDiv(ah: number, al: number, bh: number, bl: number): void {
  const q1 = ah / bh;
  ddMul(q1, 0, bh, bl);
  const rh = ah - R[0];
  const q2 = (rh - R[1] + al) / bh;
  R[0] = q1 + q2;
  R[1] = q2 - (R[0] - q1);
}

const TERMS = 22;
/** 1/(2k+1) as double-doubles, k = 0..TERMS. */
const INV_ODD_HI = new Float64Array(TERMS + 1);
const INV_ODD_LO = new Float64Array(TERMS + 1);
for (let k = 0; k <= TERMS; k++) {
  ddDiv(1, 0, 2 * k + 1, 0);
  INV_ODD_HI[k] = R[0];
  INV_ODD_LO[k] = R[1];
}
/** 2·atanh(s) = ln((1 + s)/(1 − s)) into (R[0], R[1]), for small |s|: 2s·Σ s^2k/(2k+1), k = 0..terms. */
function twiceAtanh(sh: number, sl: number, terms: number): void {
  ddMul(sh, sl, sh, sl);
  const zh = R[0];
  const zl = R[1];
  let ah = INV_ODD_HI[terms]!;
  let al = INV_ODD_LO[terms]!;
  for (let k = terms - 1; k >= 0; k--) {
    ddMul(ah, al, zh, zl);
    ddAdd(R[0], R[1], INV_ODD_HI[k]!, INV_ODD_LO[k]!);
    ah = R[0];
    al = R[1];
  }
  ddMul(ah, al, sh, sl);
  R[0] *= 2;
  R[1] *= 2;
}

const LN2_HI = 0.6931471805599453;
const LN2_LO = 2.3190468138462996e-17;
const INV_LN10_HI = 0.4342944819032518;
const INV_LN10_LO = 1.098319650216765e-17;
const SQRT2 = Math.SQRT2;

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;


/** x = m·2^e with the mantissa m (left in R[2]) in [√½, √2), so ln m is small near 1; returns e. */
function splitLog(x: number): number {
  let e = 0;
  if (x < 2.2250738585072014e-308) {
    x *= 18014398509481984; // 2^54: subnormals get a normal exponent
    e = -54;
  }
  bits[0] = x;
  e += ((words[HI]! >>> 20) & 0x7ff) - 1023;
  words[HI] = (words[HI]! & 0x800fffff) | 0x3ff00000;
  R[2] = bits[0]!;
  if (R[2] > SQRT2) {
    R[2] /= 2;
    e++;
  }
  return e;
}

/** ln x into (R[0], R[1]), for finite x > 0, by the series alone (slow: fills the table below). */
function seriesLn(x: number): void {
  const e = splitLog(x);
  const m = R[2];
  const f = m - 1; // exact (Sterbenz)
  if (f === 0) {
    twoProd(e, LN2_HI);
    ddAdd(R[0], R[1], e * LN2_LO, 0);
    return;
  }
  // s = f / (2 + f); 2 + f is exact as a double-double
  const d = 2 + f;
  ddDiv(f, 0, d, f - (d - 2));
  twiceAtanh(R[0], R[1], TERMS);
  const lh = R[0];
  const ll = R[1];
  if (e === 0) {
    R[0] = lh;
    R[1] = ll;
    return;
  }
  twoProd(e, LN2_HI);
  ddAdd(R[0], R[1] + e * LN2_LO, lh, ll);
}

/** ln x, correctly rounded; the caller has refused x <= 0. Infinity and NaN pass through. */
export function lnRounded(x: number): number {
  if (!(x > 0) || x === Infinity) return Math.log(x);
  if (x === 1) return 0;
  lnParts(x);
  const hi = F[0];
  const lo = F[1];
  const r = hi + lo;
  if (hi + (lo + F[2]) === r && hi + (lo - F[2]) === r) return r;
  lnDD(x);
  return R[0];
}

/** log10 x, correctly rounded (exact at powers of ten). */
export function log10Rounded(x: number): number {
  if (!(x > 0) || x === Infinity) return Math.log10(x);
  if (x === 1) return 0;
  lnParts(x);
  const s = F[0];
  const lo = F[1];
  twoProd(s, INV_LN10_HI);
  const hi = R[0];
  const pe = R[1];
  const slo = s * INV_LN10_LO;
  const llo = lo * INV_LN10_HI;
  const rest = pe + slo + llo;
  const bound = F[2] * 0.44 + TWO_M48 * (Math.abs(pe) + Math.abs(slo) + Math.abs(llo)) + TWO_M76 * Math.abs(hi);
  const r = hi + rest;
  if (hi + (rest + bound) === r && hi + (rest - bound) === r) return r;
  lnDD(x);
  ddMul(R[0], R[1], INV_LN10_HI, INV_LN10_LO);
  return R[0];
}

/** ln(k/128) for k = 90..182, the multiples of 1/128 nearest to [√½, √2). */
const TABLE_FROM = 90;
const TABLE_TO = 182;
const LNC_HI = new Float64Array(TABLE_TO + 1);
const LNC_LO = new Float64Array(TABLE_TO + 1);
for (let k = TABLE_FROM; k <= TABLE_TO; k++) {
  seriesLn(k / 128);
  LNC_HI[k] = R[0];
  LNC_LO[k] = R[1];
}
const SHORT_TERMS = 7;

/** ln x into (R[0], R[1]), for finite x > 0. */
function lnDD(x: number): void {
  const e = splitLog(x);
  const m = R[2];
  const k = Math.round(m * 128);
  const c = k / 128;
  const diff = m - c; // exact (Sterbenz)
  let lh = 0;
  let ll = 0;
  if (diff !== 0) {
    // t = (m − c)/c, then s = t/(2 + t)
    ddDiv(diff, 0, c, 0);
    const th = R[0];
    const tl = R[1];
    ddAdd(2, 0, th, tl);
    ddDiv(th, tl, R[0], R[1]);
    twiceAtanh(R[0], R[1], SHORT_TERMS);
    lh = R[0];
    ll = R[1];
  }
  if (k !== 128) {
    ddAdd(LNC_HI[k]!, LNC_LO[k]!, lh, ll);
    lh = R[0];
    ll = R[1];
  }
  if (e === 0) {
    R[0] = lh;
    R[1] = ll;
    return;
  }
  twoProd(e, LN2_HI);
  ddAdd(R[0], R[1] + e * LN2_LO, lh, ll);
}

/*
 * The fast paths (Ziv's method): the result is computed as hi + lo in plain double arithmetic with about
 * 65 good bits and a bound on its error. When both ends of hi + lo ± bound round to the same double,
 * that double is the correctly rounded result; otherwise (about one call in a few hundred) the slower
 * double-double path above decides. The bounds are deliberately loose (several times the worst case
 * worked out term by term), which only costs a few more slow calls.
 */
const F = new Float64Array(3);
const TWO_M48 = 2 ** -48;
const TWO_M52 = 2 ** -52;
const TWO_M64 = 2 ** -64;
const TWO_M76 = 2 ** -76;
/** ln 2 = LN2_SHORT + LN2_REST, LN2_SHORT with 32 significant bits so that e·LN2_SHORT is exact for any exponent. */
const LN2_SHORT = 0.6931471803691238;
const LN2_REST = 1.9082149292705877e-10;

/**
 * ln x ≈ F[0] + F[1] with |error| <= F[2], for finite x > 0: e·ln 2 + ln c from the table, and
 * ln(1 + r), r = (m − c)/c (|r| < 0.0056) as r's double-double plus a degree-9 polynomial in double.
 */
function lnParts(x: number): void {
  const e = splitLog(x);
  const m = R[2];
  const k = Math.round(m * 128);
  const c = k / 128;
  const diff = m - c; // exact (Sterbenz)
  const rh = diff / c;
  twoProd(rh, c);
  const rl = (diff - R[0] - R[1]) / c; // the division's residual is exact
  const poly =
    rh * rh * (-0.5 + rh * (1 / 3 + rh * (-0.25 + rh * (0.2 + rh * (-1 / 6 + rh * (1 / 7 + rh * (-0.125 + rh / 9)))))));
  const q = rl - rl * rh + poly;
  const a = e * LN2_SHORT; // exact
  const b = LNC_HI[k]!;
  const s1 = a + b;
  const b1 = s1 - a;
  const t1 = a - (s1 - b1) + (b - b1);
  const s2 = s1 + rh;
  const b2 = s2 - s1;
  const t2 = s1 - (s2 - b2) + (rh - b2);
  const cl = LNC_LO[k]!;
  const el = e * LN2_REST;
  F[0] = s2;
  F[1] = q + cl + el + t1 + t2;
  // Rounding in q and in the sum of the low parts; the polynomial's truncation and the dropped r_lo² terms
  // (below 2^-67·|r|); the tables' and ln 2's own errors (below 2^-82 of the result).
  F[2] = TWO_M48 * (Math.abs(q) + Math.abs(cl) + Math.abs(el) + Math.abs(t1) + Math.abs(t2)) + TWO_M64 * Math.abs(rh) + TWO_M76 * Math.abs(s2);
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
      fh = R[0];
      fl = R[1];
    }
    INV_FACT_HI[n] = fh;
    INV_FACT_LO[n] = fl;
  }
}

/** exp(t) into (R[0], R[1]) by `terms` terms of its series, for small |t|. */
function seriesExp(th: number, tl: number, terms: number): void {
  let ah = INV_FACT_HI[terms]!;
  let al = INV_FACT_LO[terms]!;
  for (let n = terms - 1; n >= 0; n--) {
    ddMul(ah, al, th, tl);
    ddAdd(R[0], R[1], INV_FACT_HI[n]!, INV_FACT_LO[n]!);
    ah = R[0];
    al = R[1];
  }
  R[0] = ah;
  R[1] = al;
}

/** exp(j/64) for j = -23..23, at index j + 23. */
const EXPC_HI = new Float64Array(47);
const EXPC_LO = new Float64Array(47);
for (let j = -23; j <= 23; j++) {
  seriesExp(j / 64, 0, EXP_TABLE_TERMS);
  EXPC_HI[j + 23] = R[0];
  EXPC_LO[j + 23] = R[1];
}

/**
 * exp(xh + xl) as hi·2^k: (R[0], R[1]) hold the mantissa part and the power of two is returned. x = k·ln 2 +
 * j/64 + t with |t| <= 1/128: exp(j/64) from the table, exp(t) from 13 terms of its series.
 */
function expDD(xh: number, xl: number): number {
  const k = Math.round(xh / LN2_HI);
  twoProd(k, LN2_HI);
  ddAdd(xh, xl, -R[0], -R[1] - k * LN2_LO);
  const j = Math.round(R[0] * 64);
  ddAdd(R[0], R[1], -j / 64, 0);
  seriesExp(R[0], R[1], EXP_TERMS);
  ddMul(R[0], R[1], EXPC_HI[j + 23]!, EXPC_LO[j + 23]!);
  return k;
}

/** 2^k for -1022 <= k <= 1023, built from its exponent bits (2 ** k is a pow call, most of exp's time). */
function twoTo(k: number): number {
  words[HI] = (k + 1023) << 20;
  words[1 - HI] = 0;
  return bits[0]!;
}

/** hi·2^k for a normal result (two steps where 2^k alone is not a normal double). */
function scale(hi: number, k: number): number {
  if (k > 1000) return hi * twoTo(1000) * twoTo(k - 1000);
  if (k < -1000) return hi * twoTo(-1000) * twoTo(k + 1000);
  return hi * twoTo(k);
}

const INV_LN2 = 1.4426950408889634;

/**
 * exp(xh + xl) ≈ (F[0] + F[1])·2^k with relative error at most F[2]; returns k. x = k·ln 2 + j/64 + t
 * (|t| <= 1/128 + 2^-22): exp(j/64) from the table, exp(t) as 1 + t + a degree-8 polynomial in double.
 */
function expParts(xh: number, xl: number): number {
  const k = Math.round(xh * INV_LN2);
  const u0 = xh - k * LN2_SHORT; // exact: k·LN2_SHORT is, and the difference fits in x's precision
  const j = Math.round(u0 * 64);
  const u = u0 - j / 64; // exact
  const kl = k * LN2_REST;
  const v = xl - kl;
  const th = u + v;
  const bv = th - u;
  const tl = u - (th - bv) + (v - bv);
  const q =
    tl + th * tl +
    th * th * (0.5 + th * (1 / 6 + th * (1 / 24 + th * (1 / 120 + th * (1 / 720 + th * (1 / 5040 + th / 40320))))));
  const eh = EXPC_HI[j + 23]!;
  const el = EXPC_LO[j + 23]!;
  twoProd(eh, th);
  const p = R[0];
  const pe = R[1];
  const s = eh + p;
  const bp = s - eh;
  const t1 = eh - (s - bp) + (p - bp);
  const eq = eh * q;
  const et = el * (th + q);
  F[0] = s;
  F[1] = t1 + pe + eq + el + et;
  // Rounding in q and in the low sum; the truncation (below 2^-70); the error of t itself (the rounding
  // of xl − k·ln2_rest, and ln 2's split), which is a relative error of the result.
  const terr = TWO_M52 * (Math.abs(xl) + Math.abs(kl)) + Math.abs(k) * 2 ** -83;
  F[2] = TWO_M48 * (Math.abs(q) + Math.abs(t1) + Math.abs(pe) + Math.abs(eq) + Math.abs(el) + Math.abs(et)) + (TWO_M64 + 2 * terr) * Math.abs(s);
  return k;
}

/** e^x, correctly rounded where the result is a normal double; overflow gives Infinity, underflow 0. */
export function expRounded(x: number): number {
  // Beyond these the result is not a normal double: Math.exp's answer (Infinity, a subnormal, 0) stands.
  if (!(x > -708 && x < 709.7) || x === 0) return Math.exp(x);
  let k = expParts(x, 0);
  const hi = F[0];
  const lo = F[1];
  const r = hi + lo;
  if (hi + (lo + F[2]) === r && hi + (lo - F[2]) === r) return scale(r, k);
  k = expDD(x, 0);
  return scale(R[0], k);
}

/**
 * x^y for finite x and y (the caller has refused the cases PostgreSQL refuses), correctly rounded where
 * the result is a normal double: exp(y·ln|x|), negative for a negative x and an odd y.
 */
export function powRounded(x: number, y: number): number {
  if (x === 0 || y === 0 || !Number.isFinite(x) || !Number.isFinite(y) || x === 1) return Math.pow(x, y);
  const negative = x < 0 && Math.abs(y) < 9007199254740992 && y % 2 !== 0;
  const ax = Math.abs(x);
  lnParts(ax);
  const lh = F[0];
  const ll = F[1];
  const lerr = F[2];
  twoProd(y, lh);
  const w0 = R[0];
  const we = R[1];
  const yl = y * ll;
  const wl0 = we + yl;
  const wh = w0 + wl0;
  const wl = wl0 - (wh - w0);
  if (!(wh > -708 && wh < 709.7)) return Math.pow(x, y);
  // An absolute error in y·ln|x| is a relative error of the result.
  const werr = Math.abs(y) * lerr + TWO_M52 * 4 * (Math.abs(we) + Math.abs(yl));
  let k = expParts(wh, wl);
  const hi = F[0];
  const lo = F[1];
  const bound = F[2] + 2 * werr * Math.abs(hi);
  let r = hi + lo;
  if (!(hi + (lo + bound) === r && hi + (lo - bound) === r)) {
    lnDD(ax);
    ddMul(R[0], R[1], y, 0);
    const dh = R[0];
    const dl = R[1];
    k = expDD(dh, dl);
    r = R[0];
  }
  r = scale(r, k);
  return negative ? -r : r;
}

/** The double-double path alone, which the fast paths must agree with (tests compare them). */
export const doubleDoubleOnly = {
  ln(x: number): number {
    lnDD(x);
    return R[0];
  },
  log10(x: number): number {
    lnDD(x);
    ddMul(R[0], R[1], INV_LN10_HI, INV_LN10_LO);
    return R[0];
  },
  exp(x: number): number {
    const k = expDD(x, 0);
    return scale(R[0], k);
  },
  pow(x: number, y: number): number {
    lnDD(Math.abs(x));
    ddMul(R[0], R[1], y, 0);
    const k = expDD(R[0], R[1]);
    const r = scale(R[0], k);
    return x < 0 && y % 2 !== 0 ? -r : r;
  },
};
