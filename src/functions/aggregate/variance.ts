/**
 * variance/var_samp/var_pop and stddev/stddev_samp/stddev_pop. Integers and numeric → numeric computed
 * exactly as numeric_stddev_internal (exact N, ΣX, ΣX², then (NΣX² − (ΣX)²) / (N(N−1)) at
 * select_div_scale, sqrt at that same scale); float4/float8 → float8 from the Youngs-Cramer state.
 * Any NaN or ±Infinity input makes the numeric result NaN, as PostgreSQL does.
 */
import { Numeric } from '../../common/numeric.js';
import { T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import type {
  AggregateFunction,
  GroupedAccumulator,
  ResolvedAggregate,
  SlidingAccumulator,
} from './aggregate-function.js';
import { GroupedFloatAccum, SlidingFloatAccum, type FloatFinal } from './float-accum.js';
import { NumericAccum } from './numeric-state.js';
import { exactTotal, growArr, growF64, sqrtAtScale } from './support.js';

// A module-local constant rather than an import: hot loops must not go through a module binding
// (test runners rewrite imports into property reads on a namespace object).
const MAX_SAFE = 9007199254740991;

interface VarKind {
  sample: boolean;
  stddev: boolean;
}

/** numeric_stddev_internal from the finite count, special count and exact sums. */
function numericVariance(k: VarKind, n: number, specials: number, sumX: Numeric, sumX2: Numeric): Value {
  const total = n + specials;
  if (total === 0 || (k.sample && total <= 1)) return null;
  if (specials > 0) return Numeric.NaN;
  const N = Numeric.fromInt(n);
  const num = N.mul(sumX2).sub(sumX.mul(sumX));
  // Roundoff cannot happen in exact arithmetic, but PostgreSQL returns a scale-0 zero here rather than
  // dividing, which changes the printed result ("0", not "0.0000…").
  if (num.sign() <= 0) return Numeric.ZERO;
  const den = k.sample ? N.mul(Numeric.fromInt(n - 1)) : N.mul(N);
  const q = num.div(den);
  return k.stddev ? sqrtAtScale(q, q.scale) : q;
}

/** Integer inputs: ΣX and ΣX² as exact lo/hi pairs (see support.ts), no per-row allocation when small. */
class GroupedIntVariance implements GroupedAccumulator {
  private lo = new Float64Array(0);
  private readonly hi: (bigint | undefined)[] = [];
  private lo2 = new Float64Array(0);
  private readonly hi2: (bigint | undefined)[] = [];
  private counts = new Float64Array(0);
  constructor(private readonly kind: VarKind) {}

  grow(groups: number): void {
    this.lo = growF64(this.lo, groups);
    this.lo2 = growF64(this.lo2, groups);
    this.counts = growF64(this.counts, groups);
    growArr(this.hi, groups, undefined);
    growArr(this.hi2, groups, undefined);
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data;
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k] as number | bigint | boolean | null;
      if (v === null) continue;
      this.addOne(g, v as number | bigint);
    }
  }

  private addOne(g: number, v: number | bigint): void {
    this.counts[g]++;
    if (typeof v === 'number') {
      const s = this.lo[g]! + v;
      if (s <= MAX_SAFE && s >= -MAX_SAFE) this.lo[g] = s;
      else {
        this.hi[g] = (this.hi[g] ?? 0n) + BigInt(this.lo[g]!);
        this.lo[g] = v;
      }
      const sq = v * v;
      if (sq <= MAX_SAFE) {
        const s2 = this.lo2[g]! + sq;
        if (s2 <= MAX_SAFE) this.lo2[g] = s2;
        else {
          this.hi2[g] = (this.hi2[g] ?? 0n) + BigInt(this.lo2[g]!);
          this.lo2[g] = sq;
        }
      } else {
        const b = BigInt(v);
        this.hi2[g] = (this.hi2[g] ?? 0n) + b * b;
      }
    } else {
      this.hi[g] = (this.hi[g] ?? 0n) + v;
      this.hi2[g] = (this.hi2[g] ?? 0n) + v * v;
    }
  }

  result(g: number): Value {
    const n = this.counts[g]!;
    const sx = Numeric.fromInt(exactTotal(this.lo[g]!, this.hi[g]));
    const sxx = Numeric.fromInt(exactTotal(this.lo2[g]!, this.hi2[g]));
    return numericVariance(this.kind, n, 0, sx, sxx);
  }
}

class SlidingIntVariance implements SlidingAccumulator {
  n = 0;
  sx = 0n;
  sxx = 0n;
  constructor(private readonly kind: VarKind) {}
  add(args: readonly Value[]): void {
    const v = args[0];
    if (v === null) return;
    const b = BigInt(v as number | bigint);
    this.n++;
    this.sx += b;
    this.sxx += b * b;
  }
  remove(args: readonly Value[]): void {
    const v = args[0];
    if (v === null) return;
    const b = BigInt(v as number | bigint);
    this.n--;
    this.sx -= b;
    this.sxx -= b * b;
  }
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingIntVariance;
    this.n += o.n;
    this.sx += o.sx;
    this.sxx += o.sxx;
  }
  value(): Value {
    return numericVariance(this.kind, this.n, 0, Numeric.fromInt(this.sx), Numeric.fromInt(this.sxx));
  }
  reset(): void {
    this.n = 0;
    this.sx = 0n;
    this.sxx = 0n;
  }
}

function accumVariance(k: VarKind, a: NumericAccum): Value {
  return numericVariance(k, a.n, a.nan + a.pinf + a.ninf, a.sumX(), a.sumX2());
}

class GroupedNumericVariance implements GroupedAccumulator {
  private readonly accs: (NumericAccum | null)[] = [];
  constructor(private readonly kind: VarKind) {}
  grow(groups: number): void {
    growArr(this.accs, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Value[];
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k];
      if (v === null || v === undefined) continue;
      let a = this.accs[g]!;
      if (a === null) this.accs[g] = a = new NumericAccum(true, false);
      a.add(v as Numeric);
    }
  }
  result(g: number): Value {
    const a = this.accs[g]!;
    return a === null ? null : accumVariance(this.kind, a);
  }
}

class SlidingNumericVariance implements SlidingAccumulator {
  readonly acc = new NumericAccum(true, true);
  constructor(private readonly kind: VarKind) {}
  add(args: readonly Value[]): void {
    if (args[0] !== null) this.acc.add(args[0] as Numeric);
  }
  remove(args: readonly Value[]): void {
    if (args[0] !== null) this.acc.remove(args[0] as Numeric);
  }
  merge(other: SlidingAccumulator): void {
    this.acc.merge((other as SlidingNumericVariance).acc);
  }
  value(): Value {
    return accumVariance(this.kind, this.acc);
  }
  reset(): void {
    this.acc.reset();
  }
}

function family(name: string, sample: boolean, stddev: boolean): AggregateFunction {
  const kind: VarKind = { sample, stddev };
  const floatKind: FloatFinal = stddev ? (sample ? 'stddev_samp' : 'stddev_pop') : sample ? 'var_samp' : 'var_pop';
  return {
    name,
    resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
      if (argTypes.length !== 1) return null;
      const t = argTypes[0]!;
      const base = { name };
      switch (t.name) {
        case 'int2':
        case 'int4':
        case 'int8':
          return {
            ...base,
            argTypes: [T[t.name]],
            returnType: T.numeric,
            invertible: true,
            grouped: () => new GroupedIntVariance(kind),
            sliding: () => new SlidingIntVariance(kind),
          };
        case 'numeric':
          return {
            ...base,
            argTypes: [T.numeric],
            returnType: T.numeric,
            invertible: true,
            grouped: () => new GroupedNumericVariance(kind),
            sliding: () => new SlidingNumericVariance(kind),
          };
        case 'float4':
        case 'float8':
          return {
            ...base,
            argTypes: [T[t.name]],
            returnType: T.float8,
            invertible: false,
            grouped: () => new GroupedFloatAccum(floatKind),
            sliding: () => new SlidingFloatAccum(floatKind),
          };
        default:
          return null;
      }
    },
  };
}

export const stddev = family('stddev', true, true);
export const stddevSamp = family('stddev_samp', true, true);
export const stddevPop = family('stddev_pop', false, true);
export const variance = family('variance', true, false);
export const varSamp = family('var_samp', true, false);
export const varPop = family('var_pop', false, false);
