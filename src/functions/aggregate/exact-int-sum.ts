/**
 * Exact per-group sums of integer inputs (int2/int4/int8), shared by sum() and avg(). See exactTotal()
 * in support.ts for the lo/hi representation: a safe-integer double per group on the hot path, a bigint
 * overflow part only for groups whose running sum has left ±2^53.
 */
import { Numeric } from '../../common/numeric.js';
import type { Value } from '../../common/types.js';
import { takeColumn, type Column } from '../../common/column.js';
import type { GroupedAccumulator, SlidingAccumulator } from './aggregate-function.js';
import { addInt8Slow, exactTotal, growArr, growF64, int8Of } from './support.js';
import { anchorShape } from '../../common/shape-anchor.js';

// A module-local constant rather than an import: hot loops must not go through a module binding
// (test runners rewrite imports into property reads on a namespace object).
const MAX_SAFE = 9007199254740991;
const TWO32 = 4294967296;

/** What the exact sum turns into: int8 (sum of int2/int4), numeric (sum of int8), numeric average. */
export type ExactIntResult = 'int8' | 'numeric' | 'avg';

function finish(total: bigint, count: number, kind: ExactIntResult): Value {
  switch (kind) {
    case 'int8':
      return int8Of(total);
    case 'numeric':
      return Numeric.fromInt(total);
    case 'avg':
      // PostgreSQL's int8_avg / numeric_poly_avg: numeric_div(sum, count), select_div_scale scale.
      return Numeric.fromInt(total).div(Numeric.fromInt(count));
  }
}

export class GroupedExactIntSum implements GroupedAccumulator {
  private lo = new Float64Array(0);
  private readonly hi: (bigint | undefined)[] = [];
  /** Sum of the high 32-bit halves of int8 inputs (see updateF64); exact for 2^32 rows per group. */
  private hp = new Float64Array(0);
  private counts = new Float64Array(0);

  constructor(private readonly kind: ExactIntResult) {}

  grow(groups: number): void {
    this.lo = growF64(this.lo, groups);
    this.hp = growF64(this.hp, groups);
    this.counts = growF64(this.counts, groups);
    growArr(this.hi, groups, undefined);
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data;
    if (d instanceof Int32Array) this.updateI32(gids, n, d, c.nulls);
    else if (d instanceof Float64Array) this.updateF64(gids, n, d, c.nulls);
    else this.updateObj(gids, n, d as Value[], c.nulls);
  }

  /** update() over rows sel[0..n) of a filter's uncopied batch: typed columns are read in place. */
  updateSel(gids: Int32Array, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data;
    const nulls = c.nulls;
    const lo = this.lo;
    const counts = this.counts;
    if (d instanceof Int32Array) {
      for (let k = 0; k < n; k++) {
        const i = sel[k]!;
        if (nulls !== null && nulls[i] === 1) continue;
        const g = gids[k]!;
        const v = d[i]!;
        const s = lo[g]! + v;
        if (s <= MAX_SAFE && s >= -MAX_SAFE) lo[g] = s;
        else this.spill(g, v);
        counts[g]++;
      }
    } else if (d instanceof Float64Array) {
      // As updateF64: high and low 32-bit halves summed apart.
      const hp = this.hp;
      for (let k = 0; k < n; k++) {
        const i = sel[k]!;
        if (nulls !== null && nulls[i] === 1) continue;
        const g = gids[k]!;
        const v = d[i]!;
        const h = Math.floor(v / TWO32);
        const l = v - h * TWO32;
        hp[g] += h;
        const s = lo[g]! + l;
        if (s <= MAX_SAFE && s >= -MAX_SAFE) lo[g] = s;
        else this.spill(g, l);
        counts[g]++;
      }
    } else this.update(gids, n, [takeColumn(c, sel, n)]);
  }

  /**
   * A batch of one group (no GROUP BY). The running sum is kept in a local; int8 values (safe integers
   * in f64 storage) are added whole while the sum stays safe, since the sum of two safe integers that
   * is itself within ±2^53 is exact: the split of updateF64 is only needed when it leaves that range.
   */
  updateGroup(g: number, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data;
    if (!(d instanceof Int32Array || d instanceof Float64Array)) {
      this.update(this.sameGroup(g, n), n, args);
      return;
    }
    const nulls = c.nulls;
    let s = 0;
    let m = 0;
    if (d instanceof Int32Array) {
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k] === 1) continue;
        const t = s + d[k]!;
        if (t <= MAX_SAFE && t >= -MAX_SAFE) s = t;
        else {
          this.addSafe(g, s);
          s = d[k]!;
        }
        m++;
      }
    } else {
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k] === 1) continue;
        const t = s + d[k]!;
        if (t <= MAX_SAFE && t >= -MAX_SAFE) s = t;
        else {
          this.addSafe(g, s);
          s = d[k]!;
        }
        m++;
      }
    }
    this.addSafe(g, s);
    this.counts[g] += m;
  }

  /** Adds a safe integer to group g's sum. */
  private addSafe(g: number, v: number): void {
    const s = this.lo[g]! + v;
    if (s <= MAX_SAFE && s >= -MAX_SAFE) this.lo[g] = s;
    else this.spill(g, v);
  }

  private ones = new Int32Array(0);
  /** Group ids of n rows all in group g, for the object-storage path. */
  private sameGroup(g: number, n: number): Int32Array {
    if (this.ones.length < n) this.ones = new Int32Array(n);
    const a = this.ones.subarray(0, n);
    a.fill(g);
    return a;
  }

  // The two typed loops are identical except for the array type; keeping them separate keeps each
  // loop monomorphic for V8.
  private updateI32(gids: Int32Array, n: number, d: Int32Array, nulls: Uint8Array | null): void {
    const lo = this.lo;
    const counts = this.counts;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      const s = lo[g]! + v;
      if (s <= MAX_SAFE && s >= -MAX_SAFE) lo[g] = s;
      else this.spill(g, v);
      counts[g]++;
    }
  }

  /**
   * int8 inputs may be close to 2^53 (timestamps in microseconds, large ids), where two of them already
   * leave the safe range and every other row would spill into bigint. Splitting each value into
   * h * 2^32 + l (both parts exact in doubles, 0 <= l < 2^32, |h| <= 2^21) keeps the low sum safe for
   * ~2^21 rows and the high sum for 2^32 rows, so spills stay rare.
   */
  private updateF64(gids: Int32Array, n: number, d: Float64Array, nulls: Uint8Array | null): void {
    const lo = this.lo;
    const hp = this.hp;
    const counts = this.counts;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      const h = Math.floor(v / TWO32);
      const l = v - h * TWO32;
      hp[g] += h;
      const s = lo[g]! + l;
      if (s <= MAX_SAFE && s >= -MAX_SAFE) lo[g] = s;
      else this.spill(g, l);
      counts[g]++;
    }
  }

  private updateObj(gids: Int32Array, n: number, d: Value[], nulls: Uint8Array | null): void {
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k];
      if (v === null || v === undefined) continue;
      addInt8Slow(this.lo, this.hi, g, v as number | bigint);
      this.counts[g]++;
    }
  }

  /** Moves the safe part into the bigint part; v (a safe integer) starts the new safe part. */
  private spill(g: number, v: number): void {
    this.hi[g] = (this.hi[g] ?? 0n) + BigInt(this.lo[g]!);
    this.lo[g] = v;
  }

  result(g: number): Value {
    const n = this.counts[g]!;
    if (n === 0) return null;
    const h = this.hp[g]!;
    const total = exactTotal(this.lo[g]!, this.hi[g]) + (h === 0 ? 0n : BigInt(h) << 32n);
    return finish(total, n, this.kind);
  }
}

/** Sum of two exact integers in the int8 representation (number when safe, bigint otherwise). */
export function addExact(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (s <= MAX_SAFE && s >= -MAX_SAFE) return s;
  }
  return int8Of(BigInt(a) + BigInt(b));
}

export class SlidingExactIntSum implements SlidingAccumulator {
  sum: number | bigint = 0;
  n = 0;
  constructor(private readonly kind: ExactIntResult) {}
  add(args: readonly Value[]): void {
    const v = args[0];
    if (v === null || v === undefined) return;
    this.sum = addExact(this.sum, v as number | bigint);
    this.n++;
  }
  remove(args: readonly Value[]): void {
    const v = args[0];
    if (v === null || v === undefined) return;
    this.sum = addExact(this.sum, typeof v === 'bigint' ? -v : -(v as number));
    this.n--;
  }
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingExactIntSum;
    this.sum = addExact(this.sum, o.sum);
    this.n += o.n;
  }
  value(): Value {
    if (this.n === 0) return null;
    return finish(BigInt(this.sum), this.n, this.kind);
  }
  reset(): void {
    this.sum = 0;
    this.n = 0;
  }
}

// Long-lived instances keep the shapes the optimized update/result loops check, so code optimized by
// one query serves the next (see shape-anchor.ts).
anchorShape(new GroupedExactIntSum('int8'));
anchorShape(new SlidingExactIntSum('int8'));
