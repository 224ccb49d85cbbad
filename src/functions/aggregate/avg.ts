/**
 * avg(): integers → numeric (exact sum / count with numeric_div's select_div_scale, so avg(int4) of 1, 2
 * is 1.5000000000000000), numeric → numeric (NaN/Infinity as numeric_avg), float4/float8 → float8
 * (float8_accum state), interval → interval (sum / count with interval_div's cascading).
 */
import type { Interval } from '../../common/interval.js';
import { T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import { addInterval } from '../scalar/operators/add.js';
import { scaleInterval } from '../scalar/operators/multiply.js';
import type { AggregateFunction, GroupedAccumulator, ResolvedAggregate } from './aggregate-function.js';
import { GroupedExactIntSum, SlidingExactIntSum } from './exact-int-sum.js';
import { GroupedScaledNumericSum } from './scaled-numeric-sum.js';
import { GroupedFloatAccum, SlidingFloatAccum } from './float-accum.js';
import { SlidingIntervalSum, SlidingNumericSum } from './sum.js';
import { growArr, growF64 } from './support.js';

/** Sum and count per group of an object-represented type; `finish` turns them into the average. */
class GroupedObjAvg<V extends Value> implements GroupedAccumulator {
  private readonly sums: (V | null)[] = [];
  private counts = new Float64Array(0);
  constructor(
    private readonly plus: (a: V, b: V) => V,
    private readonly finish: (sum: V, n: number) => Value,
  ) {}
  grow(groups: number): void {
    growArr(this.sums, groups, null);
    this.counts = growF64(this.counts, groups);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as V[];
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      if (v === null) continue;
      const a = this.sums[g]!;
      this.sums[g] = a === null ? v : this.plus(a, v);
      this.counts[g]++;
    }
  }
  result(g: number): Value {
    const s = this.sums[g]!;
    return s === null ? null : this.finish(s, this.counts[g]!);
  }
}

function intervalAvg(sum: Interval, n: number): Value {
  return scaleInterval(sum, n, true);
}

function resolved(
  returnType: DataType,
  argType: DataType,
  invertible: boolean,
  grouped: ResolvedAggregate['grouped'],
  sliding: ResolvedAggregate['sliding'],
): ResolvedAggregate {
  return { name: 'avg', returnType, argTypes: [argType], invertible, grouped, sliding };
}

export const avg: AggregateFunction = {
  name: 'avg',
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    if (argTypes.length !== 1) return null;
    const t = argTypes[0]!;
    switch (t.name) {
      case 'int2':
      case 'int4':
      case 'int8':
        return resolved(T.numeric, T[t.name], true, () => new GroupedExactIntSum('avg'), () => new SlidingExactIntSum('avg'));
      case 'numeric':
        return resolved(
          T.numeric,
          T.numeric,
          true,
          () => new GroupedScaledNumericSum(true),
          () => new SlidingNumericSum(true),
        );
      case 'float4':
      case 'float8':
        return resolved(T.float8, T[t.name], false, () => new GroupedFloatAccum('avg'), () => new SlidingFloatAccum('avg'));
      case 'interval':
        return resolved(
          T.interval,
          T.interval,
          true,
          () => new GroupedObjAvg<Interval>(addInterval, intervalAvg),
          () => new SlidingIntervalSum(intervalAvg),
        );
      default:
        return null;
    }
  },
};
