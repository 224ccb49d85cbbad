/**
 * sum(numeric) and avg(numeric) per group, summing coefficients as doubles while they are exact.
 *
 * A numeric is coef / 10^scale. Each group keeps the sum of its values' coefficients at the largest
 * scale seen so far in one double: values of that scale add their coefficient, others are first brought
 * to the common scale by a power of ten. Every such step is exact while the operands and the sum stay
 * below 2^53, so the group's sum is exactly what adding the Numerics would give (scale included: the
 * largest input scale, as numeric_add keeps it). A step that would leave that range, a coefficient of
 * 2^53 or more, and NaN / ±Infinity go to the group's exact Numeric sum instead (the general code); the
 * two parts are added at result(), which is exact and keeps numeric_add's NaN and infinity rules.
 * avg is that sum divided by the count with numeric_div, as numeric_avg does.
 */
import { Numeric } from '../../common/numeric.js';
import type { Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import type { GroupedAccumulator } from './aggregate-function.js';
import { growArr, growF64 } from './support.js';

const LIMIT = 2 ** 53;
/** Powers of ten that are exact doubles. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

export class GroupedScaledNumericSum implements GroupedAccumulator {
  /** Coefficient sum at scale scales[g]. */
  private sums = new Float64Array(0);
  /** Largest scale of the group's values so far; -1: no value yet. */
  private scales = new Float64Array(0);
  /** Non-null values (avg's divisor). */
  private counts = new Float64Array(0);
  /** What the doubles could not hold exactly, summed as Numerics. */
  private readonly rest: (Numeric | null)[] = [];

  constructor(private readonly avg: boolean) {}

  grow(groups: number): void {
    const from = this.scales.length;
    this.sums = growF64(this.sums, groups);
    this.scales = growF64(this.scales, groups);
    this.scales.fill(-1, from);
    this.counts = growF64(this.counts, groups);
    growArr(this.rest, groups, null);
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as (Numeric | null)[];
    const nulls = c.nulls;
    const sums = this.sums;
    const scales = this.scales;
    const counts = this.counts;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k];
      if (v === null || v === undefined) continue;
      counts[g]!++;
      const vs = v.scale;
      const gs = scales[g]!;
      if (v.special === 0 && vs === gs) {
        const s = sums[g]! + Number(v.coef);
        // Both operands below 2^53 make the rounded sum reach 2^53 exactly when the true sum does.
        if (s < LIMIT && s > -LIMIT) {
          sums[g] = s;
          continue;
        }
      }
      this.slowAdd(g, v);
    }
  }

  /** A value of another scale, a large one, a special one, or a sum leaving the exact range. */
  private slowAdd(g: number, v: Numeric): void {
    if (v.special === 0) {
      const x = Number(v.coef);
      if (x < LIMIT && x > -LIMIT) {
        let gs = this.scales[g]!;
        let s = this.sums[g]!;
        if (gs < 0) gs = v.scale;
        if (v.scale > gs) {
          if (v.scale - gs < POW10.length) {
            s *= POW10[v.scale - gs]!;
            gs = v.scale;
          }
        }
        if (gs === v.scale || (gs > v.scale && gs - v.scale < POW10.length)) {
          const y = gs === v.scale ? x : x * POW10[gs - v.scale]!;
          const t = s + y;
          if (y < LIMIT && y > -LIMIT && s < LIMIT && s > -LIMIT && t < LIMIT && t > -LIMIT) {
            this.sums[g] = t;
            this.scales[g] = gs;
            return;
          }
        }
      }
    }
    // The exact path: the double part moves over first, so the doubles start again from zero.
    const r = this.rest[g]!;
    const part = this.part(g);
    let acc = r === null ? v : r.add(v);
    if (part !== null) acc = acc.add(part);
    this.rest[g] = acc;
    this.sums[g] = 0;
  }

  /** The double part as a Numeric (null: no finite value was ever summed there). */
  private part(g: number): Numeric | null {
    const gs = this.scales[g]!;
    return gs < 0 ? null : Numeric.of(BigInt(this.sums[g]!), gs);
  }

  result(g: number): Value {
    const n = this.counts[g]!;
    if (n === 0) return null;
    const part = this.part(g);
    const r = this.rest[g]!;
    const sum = r === null ? part! : part === null ? r : r.add(part);
    if (!this.avg) return sum;
    return sum.isFinite() ? sum.div(Numeric.fromInt(n)) : sum;
  }
}
