/**
 * sum(): int2/int4 → int8 and int8 → numeric (both exact), float4/float8 → same type (PostgreSQL's
 * float4pl/float8pl in input order, overflow is 22003 unless an input was infinite), numeric → numeric
 * (exact, scale = largest input scale, NaN/Infinity rules of numeric_sum), interval → interval, money →
 * money (cash_pl at each step, so an intermediate overflow is an error as in PostgreSQL).
 */
import { Numeric } from '../../common/numeric.js';
import { Interval } from '../../common/interval.js';
import { QuireError } from '../../common/errors.js';
import { T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import { addInterval } from '../scalar/operators/add.js';
import { moneyAdd, moneySub } from '../scalar/support/money.js';
import type { Money } from '../../common/money.js';
import { floatOverflow } from '../scalar/support/float.js';
import type {
  AggregateFunction,
  GroupedAccumulator,
  InlineCode,
  InlineStep,
  ResolvedAggregate,
  SlidingAccumulator,
} from './aggregate-function.js';
import { GroupedExactIntSum, SlidingExactIntSum } from './exact-int-sum.js';
import { NumericAccum } from './numeric-state.js';
import { GroupedScaledNumericSum } from './scaled-numeric-sum.js';
import { growArr, growF64, growU8 } from './support.js';
import { anchorShape } from '../../common/shape-anchor.js';

/** float8pl / float4pl: overflow only when finite inputs give an infinite result. */
function floatAdd(a: number, b: number, float4: boolean): number {
  const s = float4 ? Math.fround(a + b) : a + b;
  if ((s === Infinity || s === -Infinity) && Number.isFinite(a) && Number.isFinite(b)) floatOverflow();
  return s;
}

class GroupedFloatSum implements GroupedAccumulator {
  // Starting at -0 makes "first input becomes the state" (PostgreSQL: strict transition function with a
  // NULL initial value) fall out of plain addition: -0 + v === v for every v, including -0.
  private sums = new Float64Array(0);
  private seen = new Uint8Array(0);
  constructor(private readonly float4: boolean) {}

  grow(groups: number): void {
    this.sums = growF64(this.sums, groups, -0);
    this.seen = growU8(this.seen, groups);
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    const sums = this.sums;
    const seen = this.seen;
    const f4 = this.float4;
    if (nulls === null && !f4) {
      // The common case without the per-row NULL and float4 tests.
      for (let k = 0; k < n; k++) {
        const g = gids[k]!;
        if (g < 0) continue;
        const a = sums[g]!;
        const v = d[k]!;
        let s = a + v;
        if (s - s !== 0 && s === s) s = floatAdd(a, v, false);
        sums[g] = s;
        seen[g] = 1;
      }
      return;
    }
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const a = sums[g]!;
      const v = d[k]!;
      let s = a + v;
      if (f4) s = Math.fround(s);
      // One comparison on the hot path; the overflow rule only runs when the sum is infinite.
      if (s - s !== 0 && s === s) s = floatAdd(a, v, f4);
      sums[g] = s;
      seen[g] = 1;
    }
  }

  /**
   * A batch of one group (no GROUP BY): the running sum stays in a local instead of a store and reload
   * of sums[g] per row, which chained every addition through memory. Same additions in the same order.
   */
  updateGroup(g: number, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    let s = this.sums[g]!;
    let any = false;
    if (this.float4) {
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k] === 1) continue;
        const v = d[k]!;
        const t = Math.fround(s + v);
        s = t - t !== 0 && t === t ? floatAdd(s, v, true) : t;
        any = true;
      }
    } else if (nulls === null) {
      for (let k = 0; k < n; k++) {
        const v = d[k]!;
        const t = s + v;
        s = t - t !== 0 && t === t ? floatAdd(s, v, false) : t;
      }
      any = n > 0;
    } else {
      for (let k = 0; k < n; k++) {
        if (nulls[k] === 1) continue;
        const v = d[k]!;
        const t = s + v;
        s = t - t !== 0 && t === t ? floatAdd(s, v, false) : t;
        any = true;
      }
    }
    this.sums[g] = s;
    if (any) this.seen[g] = 1;
  }

  /** updateGroup() over the rows sel[0..n): the same additions in the same order as updateSel(). */
  updateGroupSel(g: number, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    let s = this.sums[g]!;
    let any = false;
    if (this.float4) {
      for (let k = 0; k < n; k++) {
        const i = sel[k]!;
        if (nulls !== null && nulls[i] === 1) continue;
        const v = d[i]!;
        const t = Math.fround(s + v);
        s = t - t !== 0 && t === t ? floatAdd(s, v, true) : t;
        any = true;
      }
    } else if (nulls === null) {
      for (let k = 0; k < n; k++) {
        const v = d[sel[k]!]!;
        const t = s + v;
        s = t - t !== 0 && t === t ? floatAdd(s, v, false) : t;
      }
      any = n > 0;
    } else {
      for (let k = 0; k < n; k++) {
        const i = sel[k]!;
        if (nulls[i] === 1) continue;
        const v = d[i]!;
        const t = s + v;
        s = t - t !== 0 && t === t ? floatAdd(s, v, false) : t;
        any = true;
      }
    }
    this.sums[g] = s;
    if (any) this.seen[g] = 1;
  }

  updateSel(gids: Int32Array, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    const sums = this.sums;
    const seen = this.seen;
    const f4 = this.float4;
    for (let k = 0; k < n; k++) {
      const i = sel[k]!;
      if (nulls !== null && nulls[i] === 1) continue;
      const g = gids[k]!;
      const a = sums[g]!;
      const v = d[i]!;
      let s = a + v;
      if (f4) s = Math.fround(s);
      if (s - s !== 0 && s === s) s = floatAdd(a, v, f4);
      sums[g] = s;
      seen[g] = 1;
    }
  }

  /** float8 without NULLs: the statement of update()'s common loop. */
  inlineStep(args: readonly Column[]): InlineStep | null {
    const c = args[0]!;
    if (this.float4 || !(c.data instanceof Float64Array)) return null;
    return { refs: [this.sums, this.seen], code: floatSumStep, skipsNulls: c.nulls !== null };
  }

  result(g: number): Value {
    return this.seen[g] === 1 ? this.sums[g]! : null;
  }
}

/** The common loop of update(): a sum that is finite (or NaN from a NaN input) needs no overflow test. */
function floatSumStep(ref: (i: number) => string, g: string, v: string, t: string): InlineCode {
  const [sums, seen] = [ref(0), ref(1)];
  return {
    compute: `const ${t}s = ${sums}[${g}] + ${v};`,
    ok: `(${t}s - ${t}s === 0 || ${t}s !== ${t}s)`,
    store: `${sums}[${g}] = ${t}s; ${seen}[${g}] = 1;`,
  };
}

class SlidingFloatSum implements SlidingAccumulator {
  private s = -0;
  private seen = false;
  constructor(private readonly float4: boolean) {}
  add(args: readonly Value[]): void {
    const v = args[0];
    if (v === null) return;
    this.s = floatAdd(this.s, v as number, this.float4);
    this.seen = true;
  }
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingFloatSum;
    if (!o.seen) return;
    this.s = floatAdd(this.s, o.s, this.float4);
    this.seen = true;
  }
  value(): Value {
    return this.seen ? this.s : null;
  }
  reset(): void {
    this.s = -0;
    this.seen = false;
  }
}

/** Per-group value summed with an immutable `add` (numeric, interval). */
class GroupedObjSum<V extends Value> implements GroupedAccumulator {
  private readonly sums: (V | null)[] = [];
  constructor(private readonly plus: (a: V, b: V) => V) {}
  grow(groups: number): void {
    growArr(this.sums, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as V[];
    const nulls = c.nulls;
    const sums = this.sums;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      if (v === null) continue;
      const a = sums[g]!;
      sums[g] = a === null ? v : this.plus(a, v);
    }
  }
  result(g: number): Value {
    return this.sums[g]!;
  }
}

export class SlidingNumericSum implements SlidingAccumulator {
  readonly acc = new NumericAccum(false, true);
  constructor(private readonly avg: boolean) {}
  add(args: readonly Value[]): void {
    if (args[0] !== null) this.acc.add(args[0] as Numeric);
  }
  remove(args: readonly Value[]): void {
    if (args[0] !== null) this.acc.remove(args[0] as Numeric);
  }
  merge(other: SlidingAccumulator): void {
    this.acc.merge((other as SlidingNumericSum).acc);
  }
  value(): Value {
    const a = this.acc;
    if (a.total === 0) return null;
    const sp = a.special();
    if (sp !== null) return sp;
    return this.avg ? a.sumX().div(Numeric.fromInt(a.n)) : a.sumX();
  }
  reset(): void {
    this.acc.reset();
  }
}

export function negInterval(v: Interval): Interval {
  return v.neg();
}

/**
 * Interval sums over a moving frame, kept as PostgreSQL keeps them: the finite values' sum beside counts
 * of infinite ones, so a frame that loses its infinity gets its finite sum back, and adding or removing
 * an infinity never touches the sum (infinity minus infinity would be out of range). A frame holding
 * both infinities is out of range, as in PostgreSQL.
 */
export class SlidingIntervalSum implements SlidingAccumulator {
  sum = new Interval(0, 0, 0);
  n = 0;
  private posInf = 0;
  private negInf = 0;
  constructor(private readonly finish: (sum: Interval, n: number) => Value) {}
  add(args: readonly Value[]): void {
    const v = args[0] as Interval | null;
    if (v === null) return;
    this.n++;
    if (v.isFinite()) this.sum = addInterval(this.sum, v);
    else if (v.months > 0) this.posInf++;
    else this.negInf++;
  }
  remove(args: readonly Value[]): void {
    const v = args[0] as Interval | null;
    if (v === null) return;
    this.n--;
    if (v.isFinite()) this.sum = addInterval(this.sum, negInterval(v));
    else if (v.months > 0) this.posInf--;
    else this.negInf--;
  }
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingIntervalSum;
    this.sum = addInterval(this.sum, o.sum);
    this.n += o.n;
    this.posInf += o.posInf;
    this.negInf += o.negInf;
  }
  value(): Value {
    if (this.n === 0) return null;
    if (this.posInf > 0 && this.negInf > 0) throw new QuireError('22008', 'interval out of range');
    if (this.posInf > 0) return Interval.POSITIVE_INFINITY;
    if (this.negInf > 0) return Interval.NEGATIVE_INFINITY;
    return this.finish(this.sum, this.n);
  }
  reset(): void {
    this.sum = new Interval(0, 0, 0);
    this.n = 0;
    this.posInf = 0;
    this.negInf = 0;
  }
}

/** money over a moving frame: cash_pl to add, cash_mi to take a row back out (PostgreSQL's minvfunc). */
class SlidingMoneySum implements SlidingAccumulator {
  private s: Money = 0;
  private n = 0;
  add(args: readonly Value[]): void {
    const v = args[0] as Money | null;
    if (v === null) return;
    this.s = moneyAdd(this.s, v);
    this.n++;
  }
  remove(args: readonly Value[]): void {
    const v = args[0] as Money | null;
    if (v === null) return;
    this.s = moneySub(this.s, v);
    this.n--;
  }
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingMoneySum;
    if (o.n === 0) return;
    this.s = moneyAdd(this.s, o.s);
    this.n += o.n;
  }
  value(): Value {
    return this.n === 0 ? null : this.s;
  }
  reset(): void {
    this.s = 0;
    this.n = 0;
  }
}

function resolved(
  returnType: DataType,
  argType: DataType,
  invertible: boolean,
  grouped: () => GroupedAccumulator,
  sliding: () => SlidingAccumulator,
): ResolvedAggregate {
  return { name: 'sum', returnType, argTypes: [argType], invertible, grouped, sliding };
}

export const sum: AggregateFunction = {
  name: 'sum',
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    if (argTypes.length !== 1) return null;
    switch (argTypes[0]!.name) {
      case 'int2':
      case 'int4': {
        const t = argTypes[0]!.name === 'int2' ? T.int2 : T.int4;
        return resolved(T.int8, t, true, () => new GroupedExactIntSum('int8'), () => new SlidingExactIntSum('int8'));
      }
      case 'int8':
        return resolved(T.numeric, T.int8, true, () => new GroupedExactIntSum('numeric'), () => new SlidingExactIntSum('numeric'));
      case 'float4':
        return resolved(T.float4, T.float4, false, () => new GroupedFloatSum(true), () => new SlidingFloatSum(true));
      case 'float8':
        return resolved(T.float8, T.float8, false, () => new GroupedFloatSum(false), () => new SlidingFloatSum(false));
      case 'numeric':
        return resolved(
          T.numeric,
          T.numeric,
          true,
          () => new GroupedScaledNumericSum(false),
          () => new SlidingNumericSum(false),
        );
      case 'interval':
        return resolved(
          T.interval,
          T.interval,
          true,
          () => new GroupedObjSum<Interval>(addInterval),
          () => new SlidingIntervalSum((s) => s),
        );
      case 'money':
        return resolved(T.money, T.money, true, () => new GroupedObjSum<Money>(moneyAdd), () => new SlidingMoneySum());
      default:
        return null;
    }
  },
};

// Long-lived instances keep the shapes the optimized update/result loops check, so code optimized by
// one query serves the next (see shape-anchor.ts).
anchorShape(new GroupedFloatSum(false));
anchorShape(new SlidingFloatSum(false));
