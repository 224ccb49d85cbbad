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
 * avg is that sum divided by the count with numeric_div, as numeric_avg does. A scaledNumericColumn
 * (column.ts) is summed from its doubles, so none of its Numerics is built. While every group's sum has
 * the scale of the batch's column (counted as scales change, not looked up per batch), the one-pass
 * loop's step leaves out the per-row load and test of the group's scale (a fifth of that loop's time).
 */
import { Numeric } from '../../common/numeric.js';
import type { Value } from '../../common/types.js';
import { scaledNumbers, takeColumn, type Column, type ScaledNumbers } from '../../common/column.js';
import type { GroupedAccumulator, InlineCode, InlineStep } from './aggregate-function.js';
import { growArr, growF64 } from './support.js';

const LIMIT = 2 ** 53;
/** Powers of ten that are exact doubles. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

export class GroupedScaledNumericSum implements GroupedAccumulator {
  /** Coefficient sum at scale scales[g]. */
  private sums = new Float64Array(0);
  /** Largest scale of the group's values so far; -1: no value yet. */
  private scales = new Float64Array(0);
  /** Non-null values (avg's divisor); sum's short inline step does not count (see result()). */
  private counts = new Float64Array(0);
  /** What the doubles could not hold exactly, summed as Numerics. */
  private readonly rest: (Numeric | null)[] = [];
  /** Scratch group ids for updateGroup() over columns without doubles. */
  private gids = new Int32Array(0);
  /** The batch whose inline step was the checked one (see inlineStep). */
  private checkedFor: ScaledNumbers | null = null;
  /** Groups there are (the arrays above may be longer). */
  private groups = 0;
  /** The scale of the first value summed (-1: none yet), and how many groups' sums have it. */
  private common = -1;
  private atCommon = 0;

  constructor(private readonly avg: boolean) {}

  grow(groups: number): void {
    const from = this.scales.length;
    this.sums = growF64(this.sums, groups);
    this.scales = growF64(this.scales, groups);
    this.scales.fill(-1, from);
    this.counts = growF64(this.counts, groups);
    growArr(this.rest, groups, null);
    if (groups > this.groups) this.groups = groups;
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn !== null) {
      this.updateScaled(gids, null, n, sn, c.nulls);
      return;
    }
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

  updateSel(gids: Int32Array, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn !== null) this.updateScaled(gids, sel, n, sn, c.nulls);
    else this.update(gids, n, [takeColumn(c, sel, n)]);
  }

  updateGroup(g: number, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn !== null) this.foldScaled(g, null, n, sn, c.nulls);
    else this.update(this.oneGroup(g, n), n, args);
  }

  updateGroupSel(g: number, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn !== null) this.foldScaled(g, sel, n, sn, c.nulls);
    else this.update(this.oneGroup(g, n), n, [takeColumn(c, sel, n)]);
  }

  /** Group ids saying that n rows all belong to group g. */
  private oneGroup(g: number, n: number): Int32Array {
    if (this.gids.length < n) this.gids = new Int32Array(Math.max(n, 2 * this.gids.length));
    this.gids.fill(g, 0, n);
    return this.gids;
  }

  /**
   * update() of a scaled column (rows sel[k], or k without a selection): its values are coefficients of
   * one scale already, so no Numeric is read or built while a group's sum stays exact.
   */
  private updateScaled(gids: Int32Array, sel: Uint32Array | null, n: number, sn: ScaledNumbers, nulls: Uint8Array | null): void {
    const u = sn.unscaled;
    const vs = sn.scale;
    const sums = this.sums;
    const scales = this.scales;
    const counts = this.counts;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      const i = sel === null ? k : sel[k]!;
      if (g < 0 || (nulls !== null && nulls[i] === 1)) continue;
      counts[g]!++;
      const x = u[i]!;
      if (scales[g] === vs) {
        const s = sums[g]! + x;
        if (s < LIMIT && s > -LIMIT) {
          sums[g] = s;
          continue;
        }
      }
      this.slowAddScaled(g, x, vs);
    }
  }

  /** updateScaled() for rows that all belong to group g: the running sum stays in a local. */
  private foldScaled(g: number, sel: Uint32Array | null, n: number, sn: ScaledNumbers, nulls: Uint8Array | null): void {
    const u = sn.unscaled;
    const vs = sn.scale;
    let s = this.sums[g]!;
    let same = this.scales[g] === vs;
    let count = 0;
    for (let k = 0; k < n; k++) {
      const i = sel === null ? k : sel[k]!;
      if (nulls !== null && nulls[i] === 1) continue;
      count++;
      const x = u[i]!;
      if (same) {
        const t = s + x;
        if (t < LIMIT && t > -LIMIT) {
          s = t;
          continue;
        }
      }
      this.sums[g] = s;
      this.slowAddScaled(g, x, vs);
      s = this.sums[g]!;
      same = this.scales[g] === vs;
    }
    this.sums[g] = s;
    this.counts[g]! += count;
  }

  /** A value of another scale, a large one, a special one, or a sum leaving the exact range. */
  private slowAdd(g: number, v: Numeric): void {
    if (v.special !== 0 || !this.addDouble(g, Number(v.coef), v.scale)) this.exactAdd(g, v);
  }

  /** slowAdd() of the value x / 10^vs (x a whole number below 2^53), its Numeric built only if the doubles cannot take it. */
  private slowAddScaled(g: number, x: number, vs: number): void {
    if (!this.addDouble(g, x, vs)) this.exactAdd(g, Numeric.of(BigInt(x), vs));
  }

  /** Adds x / 10^vs to the group's double part when every step is exact; false (nothing changed) otherwise. */
  private addDouble(g: number, x: number, vs: number): boolean {
    if (!(x < LIMIT && x > -LIMIT)) return false;
    const was = this.scales[g]!;
    let gs = was;
    let s = this.sums[g]!;
    if (gs < 0) gs = vs;
    if (vs > gs && vs - gs < POW10.length) {
      s *= POW10[vs - gs]!;
      gs = vs;
    }
    if (gs === vs || (gs > vs && gs - vs < POW10.length)) {
      const y = gs === vs ? x : x * POW10[gs - vs]!;
      const t = s + y;
      if (y < LIMIT && y > -LIMIT && s < LIMIT && s > -LIMIT && t < LIMIT && t > -LIMIT) {
        this.sums[g] = t;
        if (gs !== was) this.rescaled(g, was, gs);
        return true;
      }
    }
    return false;
  }

  /** A group's sum moved from scale `was` to `now` (scales only grow): the count of groups at the common scale follows. */
  private rescaled(g: number, was: number, now: number): void {
    this.scales[g] = now;
    if (this.common < 0) this.common = now;
    if (was === this.common) this.atCommon--;
    if (now === this.common) this.atCommon++;
  }

  /** The exact path: the double part moves over first, so the doubles start again from zero. */
  private exactAdd(g: number, v: Numeric): void {
    const r = this.rest[g]!;
    const part = this.part(g);
    let acc = r === null ? v : r.add(v);
    if (part !== null) acc = acc.add(part);
    this.rest[g] = acc;
    this.sums[g] = 0;
  }

  /**
   * A scaled column without NULLs: the row's coefficient added to a group whose sum has the column's
   * scale, while it stays exact. A group's first value, another scale and a sum leaving 2^53 go to update().
   */
  inlineStep(args: readonly Column[]): InlineStep | null {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn === null || c.nulls !== null) return null;
    // Every group's sum already at the column's scale (the usual case: one DECIMAL column, every
    // group past its first value): the step need not load and compare the group's scale per row.
    // Asked again for the same batch after the loop stopped, the answer stays the batch's first: the
    // loop compiled for it is not rebuilt. That holds either way: with no NULL and every value below
    // 2^53, a group the general path creates meanwhile takes the column's scale with its first value.
    if (sn !== this.checkedFor && this.common === sn.scale && this.atCommon === this.groups) {
      return this.avg ? { refs: [this.sums, this.counts], code: sameScaleSumStep, rowCountRef: 1 } : { refs: [this.sums], code: sameScaleSumStep };
    }
    this.checkedFor = sn;
    return { refs: [this.sums, this.scales, this.counts, sn.scale], code: scaledSumStep, rowCountRef: 2 };
  }

  /** The double part as a Numeric (null: no finite value was ever summed there). */
  private part(g: number): Numeric | null {
    const gs = this.scales[g]!;
    return gs < 0 ? null : Numeric.of(BigInt(this.sums[g]!), gs);
  }

  result(g: number): Value {
    const n = this.counts[g]!;
    // sum's short step does not count rows: a group has had a value when its double part has a scale or
    // its exact part exists (each is set by the first value that goes there).
    if (this.avg ? n === 0 : this.scales[g]! < 0 && this.rest[g] === null) return null;
    const part = this.part(g);
    const r = this.rest[g]!;
    const sum = r === null ? part! : part === null ? r : r.add(part);
    if (!this.avg) return sum;
    return sum.isFinite() ? sum.div(Numeric.fromInt(n)) : sum;
  }
}

/**
 * scaledSumStep when every group's sum has the column's scale: the range test only. sum counts no rows
 * here (result() tells an empty group by its scale); avg does (its divisor, ref 1: rowCountRef).
 */
function sameScaleSumStep(ref: (i: number) => string, g: string, v: string, t: string): InlineCode {
  const sums = ref(0);
  return { compute: `const ${t}s = ${sums}[${g}] + ${v};`, ok: `(${t}s < ${LIMIT} && ${t}s > -${LIMIT})`, store: `${sums}[${g}] = ${t}s;` };
}

/**
 * update()'s common case as inline text (inline-aggregate-loop.ts); ref(3) is the column's scale, ref(2)
 * the counts (rowCountRef: the loop adds the row).
 */
function scaledSumStep(ref: (i: number) => string, g: string, v: string, t: string): InlineCode {
  const [sums, scales, scale] = [ref(0), ref(1), ref(3)];
  return {
    compute: `const ${t}s = ${sums}[${g}] + ${v};`,
    ok: `(${scales}[${g}] === ${scale} && ${t}s < ${LIMIT} && ${t}s > -${LIMIT})`,
    store: `${sums}[${g}] = ${t}s;`,
  };
}
