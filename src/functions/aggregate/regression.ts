/**
 * corr, covar_pop/covar_samp and the regr_* family over (Y, X): PostgreSQL's float8_regr_accum state
 * {N, Sx, Sxx, Sy, Syy, Sxy} (Youngs-Cramer), its overflow rule (finite inputs reaching an infinite sum
 * raise 22003, infinite inputs turn the dependent sums into NaN) and float8_regr_combine for merges.
 * PostgreSQL takes double precision only, so every numeric argument is coerced to float8. A row counts
 * only when both arguments are non-null (the transition function is strict).
 */
import { isNumericType, T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import { floatOverflow } from '../scalar/support/float.js';
import type { AggregateFunction, GroupedAccumulator, ResolvedAggregate, SlidingAccumulator } from './aggregate-function.js';
import { growF64 } from './support.js';

type RegrFinal =
  | 'corr'
  | 'covar_pop'
  | 'covar_samp'
  | 'regr_count'
  | 'regr_avgx'
  | 'regr_avgy'
  | 'regr_sxx'
  | 'regr_syy'
  | 'regr_sxy'
  | 'regr_slope'
  | 'regr_intercept'
  | 'regr_r2';

const isInf = (v: number): boolean => v === Infinity || v === -Infinity;

/** The final functions (float8_corr, float8_covar_pop, …), each with PostgreSQL's NULL cases. */
function regrFinal(kind: RegrFinal, n: number, sx: number, sxx: number, sy: number, syy: number, sxy: number): Value {
  if (kind === 'regr_count') return n;
  if (n < 1) return null;
  switch (kind) {
    case 'covar_pop':
      return sxy / n;
    case 'covar_samp':
      return n < 2 ? null : sxy / (n - 1);
    case 'regr_avgx':
      return sx / n;
    case 'regr_avgy':
      return sy / n;
    case 'regr_sxx':
      return sxx;
    case 'regr_syy':
      return syy;
    case 'regr_sxy':
      return sxy;
    case 'regr_slope':
      return sxx === 0 ? null : sxy / sxx;
    case 'regr_intercept':
      return sxx === 0 ? null : (sy - (sx * sxy) / sxx) / n;
    case 'regr_r2':
      if (sxx === 0) return null;
      return syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
    case 'corr': {
      // Horizontal and vertical lines have no correlation. One sqrt of the product, as PostgreSQL
      // computes it: rooting each sum separately rounds differently in the last bit.
      if (sxx === 0 || syy === 0) return null;
      return sxy / Math.sqrt(sxx * syy);
    }
  }
}

/** One float8_regr_accum step on state slot g of the six arrays. */
function accum(s: Float64Array[], g: number, y: number, x: number): void {
  const N = s[0]!;
  const SX = s[1]!;
  const SXX = s[2]!;
  const SY = s[3]!;
  const SYY = s[4]!;
  const SXY = s[5]!;
  const n0 = N[g]!;
  const sx0 = SX[g]!;
  const sy0 = SY[g]!;
  const n = n0 + 1;
  const sx = sx0 + x;
  const sy = sy0 + y;
  let sxx = SXX[g]!;
  let syy = SYY[g]!;
  let sxy = SXY[g]!;
  if (n0 > 0) {
    const tx = x * n - sx;
    const ty = y * n - sy;
    const scale = 1 / (n * n0);
    sxx += tx * tx * scale;
    syy += ty * ty * scale;
    sxy += tx * ty * scale;
    if (isInf(sx) || isInf(sxx)) {
      if (!isInf(sx0) && !isInf(x)) floatOverflow();
      sxx = NaN;
    }
    if (isInf(sy) || isInf(syy)) {
      if (!isInf(sy0) && !isInf(y)) floatOverflow();
      syy = NaN;
    }
    if (isInf(sxy)) {
      if (!isInf(sx0) && !isInf(x) && !isInf(sy0) && !isInf(y)) floatOverflow();
      sxy = NaN;
    }
  } else {
    // A lone Inf/NaN first input must not leave the dependent sums at a misleading 0.
    if (!Number.isFinite(x)) sxx = sxy = NaN;
    if (!Number.isFinite(y)) syy = sxy = NaN;
  }
  N[g] = n;
  SX[g] = sx;
  SXX[g] = sxx;
  SY[g] = sy;
  SYY[g] = syy;
  SXY[g] = sxy;
}

class GroupedRegr implements GroupedAccumulator {
  private s: Float64Array[] = [0, 1, 2, 3, 4, 5].map(() => new Float64Array(0));
  constructor(private readonly kind: RegrFinal) {}
  grow(groups: number): void {
    this.s = this.s.map((a) => growF64(a as Float64Array<ArrayBuffer>, groups));
  }
  update(gids: Int32Array, count: number, args: readonly Column[]): void {
    const cy = args[0]!;
    const cx = args[1]!;
    const dy = cy.data as Float64Array;
    const dx = cx.data as Float64Array;
    const ny = cy.nulls;
    const nx = cx.nulls;
    for (let k = 0; k < count; k++) {
      const g = gids[k]!;
      if (g < 0 || (ny !== null && ny[k] === 1) || (nx !== null && nx[k] === 1)) continue;
      accum(this.s, g, dy[k]!, dx[k]!);
    }
  }
  result(g: number): Value {
    const s = this.s;
    return regrFinal(this.kind, s[0]![g]!, s[1]![g]!, s[2]![g]!, s[3]![g]!, s[4]![g]!, s[5]![g]!);
  }
}

class SlidingRegr implements SlidingAccumulator {
  readonly s: Float64Array[] = [0, 1, 2, 3, 4, 5].map(() => new Float64Array(1));
  constructor(private readonly kind: RegrFinal) {}
  add(args: readonly Value[]): void {
    const y = args[0];
    const x = args[1];
    if (y === null || x === null) return;
    accum(this.s, 0, y as number, x as number);
  }
  /** float8_regr_combine. */
  merge(other: SlidingAccumulator): void {
    const o = (other as SlidingRegr).s.map((a) => a[0]!);
    const t = this.s.map((a) => a[0]!);
    const [n2, sx2, sxx2, sy2, syy2, sxy2] = o as [number, number, number, number, number, number];
    const [n1, sx1, sxx1, sy1, syy1, sxy1] = t as [number, number, number, number, number, number];
    if (n2 === 0) return;
    if (n1 === 0) {
      this.s.forEach((a, i) => (a[0] = o[i]!));
      return;
    }
    const n = n1 + n2;
    const sx = sx1 + sx2;
    if (isInf(sx) && !isInf(sx1) && !isInf(sx2)) floatOverflow();
    const t1 = sx1 / n1 - sx2 / n2;
    const sxx = sxx1 + sxx2 + (n1 * n2 * t1 * t1) / n;
    if (isInf(sxx) && !isInf(sxx1) && !isInf(sxx2)) floatOverflow();
    const sy = sy1 + sy2;
    if (isInf(sy) && !isInf(sy1) && !isInf(sy2)) floatOverflow();
    const t2 = sy1 / n1 - sy2 / n2;
    const syy = syy1 + syy2 + (n1 * n2 * t2 * t2) / n;
    if (isInf(syy) && !isInf(syy1) && !isInf(syy2)) floatOverflow();
    const sxy = sxy1 + sxy2 + (n1 * n2 * t1 * t2) / n;
    if (isInf(sxy) && !isInf(sxy1) && !isInf(sxy2)) floatOverflow();
    [n, sx, sxx, sy, syy, sxy].forEach((v, i) => (this.s[i]![0] = v));
  }
  value(): Value {
    const s = this.s;
    return regrFinal(this.kind, s[0]![0]!, s[1]![0]!, s[2]![0]!, s[3]![0]!, s[4]![0]!, s[5]![0]!);
  }
  reset(): void {
    for (const a of this.s) a[0] = 0;
  }
}

function regr(name: RegrFinal): AggregateFunction {
  return {
    name,
    resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
      if (argTypes.length !== 2 || !argTypes.every((t) => isNumericType(t) && t.name !== 'money')) return null;
      return {
        name,
        argTypes: [T.float8, T.float8],
        returnType: name === 'regr_count' ? T.int8 : T.float8,
        invertible: false,
        grouped: () => new GroupedRegr(name),
        sliding: () => new SlidingRegr(name),
      };
    },
  };
}

export const corr = regr('corr');
export const covarPop = regr('covar_pop');
export const covarSamp = regr('covar_samp');
export const regrCount = regr('regr_count');
export const regrAvgx = regr('regr_avgx');
export const regrAvgy = regr('regr_avgy');
export const regrSxx = regr('regr_sxx');
export const regrSyy = regr('regr_syy');
export const regrSxy = regr('regr_sxy');
export const regrSlope = regr('regr_slope');
export const regrIntercept = regr('regr_intercept');
export const regrR2 = regr('regr_r2');
