/**
 * sum / avg / min / max over OVER frames, reading the argument's typed storage and writing the result's
 * typed storage: no Value boxing, no accumulator call per row, O(1) amortised per row for every frame.
 *
 * A frame after EXCLUDE is up to three pieces in row order: [fs, x), the current row (TIES only) and
 * [y, fe), where x and y are the current row or its peer group's bounds clamped to the frame. The frame
 * ends and the current row only move forward, so each outer piece is a window whose start and end never
 * decrease, and each piece keeps its own state:
 *
 *   - min/max: a monotonic deque of row indexes (Lemire's ascending minima); each row enters and leaves
 *     at most once. Among equal values the later row wins, as with PostgreSQL's *larger / *smaller
 *     transition functions (visible as -0 vs 0), and NaN is above every number.
 *   - float sums and averages: PostgreSQL has no inverse for float8 sums (subtracting a large value
 *     back out loses the small ones), so nothing is ever subtracted. The window is split into a front
 *     part, whose suffix sums are computed once when the start passes the split, and a back part with a
 *     running sum ("two stacks"); each row is added twice at most, and the result is front + back.
 *     That order differs from PostgreSQL's left-to-right loop, which can change the last digit printed,
 *     so where it matters and frames are short (a few hundred rows on average) each frame is added from
 *     its start in a typed loop, as PostgreSQL does. Two stacks run where every partial sum is exact
 *     (integer values below 2^53), where the frame start never moves (the back sum is then PostgreSQL's
 *     own loop), and for long moving frames, whose left-to-right sums would cost the frame length per
 *     row: there each partial sum spans at most one frame, so the rounding error stays within the bound
 *     of PostgreSQL's loop. An overflow to infinity from finite values, which PostgreSQL raises as an
 *     error, cannot happen in either order when every finite |value| times the row count stays below
 *     the guard; other partitions go to the general path.
 *   - integer sums (int2/int4): prefix sums, exact in doubles below 2^53, answer any piece in O(1).
 *
 * A piece that moves backwards (not produced by any frame Quire computes today) restarts its state,
 * so the result stays right even then.
 */
import type { DataType } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import { floatOverflow } from '../scalar/support/float.js';
import type { ResolvedAggregate } from '../aggregate/aggregate-function.js';
import type { FrameBounds, ResultColumn, WindowBlock } from './window-function.js';

export type TypedAggregateKind = 'sum-float' | 'avg-float' | 'sum-int' | 'min' | 'max';

/** Largest |sum| of finite float8 values that can never overflow, whatever the order of additions. */
const FLOAT_SUM_GUARD = 2 ** 1000;
/** avg(float8) also keeps PostgreSQL's sum of squares, which overflows (an error) for values near 1e154. */
const FLOAT_AVG_VALUE_GUARD = 1e100;
/** Integer prefix sums stay exact while rows * 2^31 < 2^53. */
const INT_SUM_MAX_ROWS = 2 ** 21;

/** The typed strategy for an aggregate and argument type, or null when only the general path applies. */
export function typedAggregateKind(agg: ResolvedAggregate, argTypes: readonly DataType[]): TypedAggregateKind | null {
  if (argTypes.length !== 1) return null;
  const t = argTypes[0]!.name;
  switch (agg.name) {
    case 'sum':
      if (t === 'float8' && agg.returnType.name === 'float8') return 'sum-float';
      if ((t === 'int2' || t === 'int4') && agg.returnType.name === 'int8') return 'sum-int';
      return null;
    case 'avg':
      return (t === 'float8' || t === 'float4') && agg.returnType.name === 'float8' ? 'avg-float' : null;
    case 'min':
    case 'max':
      // Types whose storage is a typed array of numbers that order like the values.
      if (t === 'int2' || t === 'int4' || t === 'int8' || t === 'float4' || t === 'float8' || t === 'date' || t === 'timestamp' || t === 'timestamptz') {
        return agg.name;
      }
      return null;
    default:
      return null;
  }
}

/**
 * A running aggregate (frame from the partition start to an end that only moves forward) over numbers,
 * fed one row at a time in row order, so a float sum adds in PostgreSQL's own order and is identical.
 * Chunked evaluation of a large partition carries it from one chunk to the next.
 */
export class RunningTypedAggregate {
  private acc = -0;
  private n = 0;
  private constructor(private readonly kind: 'sum-float' | 'sum-int' | 'min' | 'max') {}

  /** Null when the general accumulator must run (avg keeps a sum of squares; int8 may not fit doubles). */
  static create(agg: ResolvedAggregate, rows: number): RunningTypedAggregate | null {
    const kind = typedAggregateKind(agg, agg.argTypes);
    if (kind === null || kind === 'avg-float' || agg.argTypes[0]!.name === 'int8') return null;
    if (kind === 'sum-int' && rows > INT_SUM_MAX_ROWS) return null;
    return new RunningTypedAggregate(kind);
  }

  add(c: Column, i: number): void {
    if (c.nulls !== null && c.nulls[i] === 1) return;
    const x = c.data[i];
    if (typeof x !== 'number') return;
    const acc = this.acc;
    switch (this.kind) {
      case 'sum-float': {
        const r = acc + x;
        // float8pl: an infinite sum of finite values is an overflow error.
        if (r - r !== 0 && r === r && Number.isFinite(acc) && Number.isFinite(x)) floatOverflow();
        this.acc = r;
        break;
      }
      case 'sum-int':
        this.acc = acc + x;
        break;
      case 'max':
        if (this.n === 0 || !(acc > x || (acc !== acc && x === x))) this.acc = x;
        break;
      case 'min':
        if (this.n === 0 || !(x > acc || (x !== x && acc === acc))) this.acc = x;
        break;
    }
    this.n++;
  }

  write(out: ResultColumn, i: number): void {
    const od = out.data;
    if (this.n === 0) out.setNull(i);
    else if (od instanceof Float64Array || od instanceof Int32Array) od[i] = this.acc;
    else out.set(i, this.acc);
  }
}

/** Moving state of one frame piece for sums: front suffix sums over [.., m), running sum of [m, z). */
class SumPiece {
  front = new Float64Array(0);
  m = 0;
  z = 0;
  back = -0;
  lastS = 0;
  lastE = 0;

  reset(at: number, capacity: number): void {
    if (this.front.length < capacity + 1) this.front = new Float64Array(Math.max(capacity + 1, this.front.length * 2));
    this.m = at;
    this.z = at;
    this.back = -0;
    this.lastS = at;
    this.lastE = at;
  }

  /** Sum of the non-NULL values of rows [s, e) (s < e); NULL rows hold 0 in `d` via the caller's copy. */
  sum(d: Float64Array, s: number, e: number, capacity: number): number {
    if (s < this.lastS || e < this.lastE || s > this.z) this.reset(s, capacity);
    this.lastS = s;
    this.lastE = e;
    let z = this.z;
    let back = this.back;
    while (z < e) back += d[z++]!;
    this.z = z;
    if (s > this.m) {
      // The start passed the split: rows [s, z) become the new front, summed from the right once.
      const f = this.front;
      let acc = -0;
      for (let j = z - 1; j >= s; j--) {
        acc = d[j]! + acc;
        f[j] = acc;
      }
      this.m = z;
      back = -0;
    }
    this.back = back;
    return s < this.m ? this.front[s]! + back : back;
  }
}

/** Monotonic deque of one frame piece for min/max: row indexes whose values strictly decrease (max). */
class DequePiece {
  q = new Int32Array(0);
  h = 0;
  t = 0;
  z = 0;
  lastS = 0;
  lastE = 0;

  reset(at: number, capacity: number): void {
    if (this.q.length < capacity) this.q = new Int32Array(Math.max(capacity, this.q.length * 2));
    this.h = 0;
    this.t = 0;
    this.z = at;
    this.lastS = at;
    this.lastE = at;
  }

  /** Row of the extreme non-NULL value of rows [s, e) (the later one among equals), or -1. */
  best(d: Float64Array | Int32Array, nulls: Uint8Array | null, isMax: boolean, s: number, e: number, capacity: number): number {
    if (s < this.lastS || e < this.lastE) this.reset(s, capacity);
    this.lastS = s;
    this.lastE = e;
    const q = this.q;
    let h = this.h;
    let t = this.t;
    let z = this.z < s ? s : this.z;
    for (; z < e; z++) {
      if (nulls !== null && nulls[z] === 1) continue;
      const v = d[z]!;
      // Drop rows the new one beats or ties (NaN above every number, equal NaNs tie).
      if (isMax) {
        while (t > h) {
          const w = d[q[t - 1]!]!;
          if (w > v || (w !== w && v === v)) break;
          t--;
        }
      } else {
        while (t > h) {
          const w = d[q[t - 1]!]!;
          if (v > w || (v !== v && w === w)) break;
          t--;
        }
      }
      q[t++] = z;
    }
    while (h < t && q[h]! < s) h++;
    this.z = z;
    this.h = h;
    this.t = t;
    return h < t ? q[h]! : -1;
  }
}

/**
 * Per-evaluator scratch: piece states and prefix arrays, grown to the largest partition seen and reused
 * for the next partitions of the block and the next blocks.
 */
export class TypedFrameAggregate {
  private readonly sums = [new SumPiece(), new SumPiece()];
  private readonly deques = [new DequePiece(), new DequePiece()];
  private prefix = new Float64Array(0);
  private counts = new Float64Array(0);
  private zeroed = new Float64Array(0);
  private readonly range = new Int32Array(2);
  /** Whether the last floatInputs saw only integer values (NULLs aside). */
  private integral = true;

  constructor(readonly kind: TypedAggregateKind) {}

  /**
   * Writes the results of rows [ps, pe) into `out`; returns false (nothing written) when the column's
   * storage or values need the general path.
   */
  evaluate(b: WindowBlock, col: Column, ps: number, pe: number, f: FrameBounds, out: ResultColumn): boolean {
    const d = col.data;
    if (!(d instanceof Float64Array || d instanceof Int32Array)) return false;
    const od = out.data;
    const n = pe - ps;
    const nulls = col.nulls;
    switch (this.kind) {
      case 'min':
      case 'max':
        if (od.constructor !== d.constructor) return false;
        this.minMax(b, d, nulls, ps, pe, f, out, this.kind === 'max');
        return true;
      case 'sum-int':
        if (!(d instanceof Int32Array) || !(od instanceof Float64Array) || n > INT_SUM_MAX_ROWS) return false;
        this.prefixSums(d, nulls, ps, pe);
        this.intSum(b, d, nulls, ps, pe, f, out);
        return true;
      case 'sum-float':
      case 'avg-float':
        if (!(d instanceof Float64Array) || !(od instanceof Float64Array)) return false;
        if (!this.floatInputs(d, nulls, ps, pe)) return false;
        // PostgreSQL has no inverse for float sums: each frame whose start moves is summed again from its
        // start, left to right. Two stacks add in another order, which changes the last bits unless
        // every value is an integer (then every partial sum is exact). Frames that only grow add in
        // PostgreSQL's order already, and short frames are summed from their start as PostgreSQL does.
        if (!this.integral && !(f.exclude === 'no-others' && f.fs[ps] === f.fs[pe - 1]) && shortFrames(b, f, ps, pe)) {
          this.floatInOrder(b, ps, pe, f, out, this.kind === 'avg-float');
          return true;
        }
        // Long moving frames: PostgreSQL's order would cost the frame length per row, and no O(1)
        // method rounds as it does. Two stacks add each row at most twice, and each partial sum runs
        // over at most one frame, so the error stays within a left-to-right loop's bound.
        this.floatSum(b, ps, pe, f, out, this.kind === 'avg-float');
        return true;
    }
  }

  /** Prefix counts of non-NULL rows; for float sums also a copy with NULLs as -0 (adds nothing). */
  private floatInputs(d: Float64Array, nulls: Uint8Array | null, ps: number, pe: number): boolean {
    const n = pe - ps;
    if (this.counts.length < n + 1) this.counts = new Float64Array(Math.max(n + 1, this.counts.length * 2));
    if (this.zeroed.length < n) this.zeroed = new Float64Array(Math.max(n, this.zeroed.length * 2));
    const cnt = this.counts;
    const z = this.zeroed;
    let c = 0;
    let maxAbs = 0;
    let integral = true;
    cnt[0] = 0;
    for (let i = ps; i < pe; i++) {
      if (nulls !== null && nulls[i] === 1) z[i - ps] = -0;
      else {
        const v = d[i]!;
        z[i - ps] = v;
        c++;
        const a = v < 0 ? -v : v;
        if (a > maxAbs && a !== Infinity) maxAbs = a;
        if (v !== Math.trunc(v)) integral = false;
      }
      cnt[i - ps + 1] = c;
    }
    // Integer sums stay exact below 2^53 in any order.
    this.integral = integral && maxAbs * n < 2 ** 53;
    if (this.kind === 'avg-float' && maxAbs > FLOAT_AVG_VALUE_GUARD) return false;
    return maxAbs * n < FLOAT_SUM_GUARD;
  }

  private prefixSums(d: Int32Array, nulls: Uint8Array | null, ps: number, pe: number): void {
    const n = pe - ps;
    if (this.counts.length < n + 1) this.counts = new Float64Array(Math.max(n + 1, this.counts.length * 2));
    if (this.prefix.length < n + 1) this.prefix = new Float64Array(Math.max(n + 1, this.prefix.length * 2));
    const cnt = this.counts;
    const pre = this.prefix;
    let c = 0;
    let s = 0;
    cnt[0] = 0;
    pre[0] = 0;
    for (let i = ps; i < pe; i++) {
      if (nulls === null || nulls[i] !== 1) {
        c++;
        s += d[i]!;
      }
      cnt[i - ps + 1] = c;
      pre[i - ps + 1] = s;
    }
  }

  private intSum(b: WindowBlock, d: Int32Array, nulls: Uint8Array | null, ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    const od = out.data as Float64Array;
    const cnt = this.counts;
    const pre = this.prefix;
    const fs = f.fs;
    const fe = f.fe;
    const ex = f.exclude;
    const x = this.range;
    for (let i = ps; i < pe; i++) {
      // Prefix indexes are relative to ps.
      const s = fs[i]! - ps;
      const e = fe[i]! - ps;
      let c = 0;
      let v = 0;
      if (s < e) {
        c = cnt[e]! - cnt[s]!;
        v = pre[e]! - pre[s]!;
        if (ex !== 'no-others') {
          excludedRange(b, ex, i, ps, s, e, x);
          c -= cnt[x[1]!]! - cnt[x[0]!]!;
          v -= pre[x[1]!]! - pre[x[0]!]!;
          // TIES keeps the current row itself.
          if (ex === 'ties' && i - ps >= s && i - ps < e && (nulls === null || nulls[i] !== 1)) {
            c++;
            v += d[i]!;
          }
        }
      }
      if (c === 0) out.setNull(i);
      else od[i] = v;
    }
  }

  private floatSum(b: WindowBlock, ps: number, pe: number, f: FrameBounds, out: ResultColumn, avg: boolean): void {
    const od = out.data as Float64Array;
    const cnt = this.counts;
    const z = this.zeroed;
    const n = pe - ps;
    const [p0, p2] = this.sums as [SumPiece, SumPiece];
    p0.reset(0, n);
    p2.reset(0, n);
    const fs = f.fs;
    const fe = f.fe;
    const ex = f.exclude;
    for (let i = ps; i < pe; i++) {
      const s = fs[i]! - ps;
      const e = fe[i]! - ps;
      const r = i - ps;
      let c = 0;
      let v = -0;
      if (ex === 'no-others') {
        if (s < e) {
          c = cnt[e]! - cnt[s]!;
          v = p0.sum(z, s, e, n);
        }
      } else if (s < e) {
        // Pieces before and after the excluded rows; TIES puts the current row back in between.
        let x = r;
        let y = r + 1;
        if (ex !== 'current-row') {
          x = b.peerStart[i]! - ps;
          y = b.peerEnd[i]! - ps;
        }
        const e0 = x < e ? x : e;
        const s2 = y > s ? y : s;
        if (s < e0) {
          c += cnt[e0]! - cnt[s]!;
          v = p0.sum(z, s, e0, n);
        }
        if (ex === 'ties' && r >= s && r < e && cnt[r + 1]! !== cnt[r]!) {
          c++;
          v += z[r]!;
        }
        if (s2 < e) {
          c += cnt[e]! - cnt[s2]!;
          v += p2.sum(z, s2, e, n);
        }
      }
      if (c === 0) out.setNull(i);
      else od[i] = avg ? v / c : v;
    }
  }

  /**
   * Every frame summed afresh from its first row, skipping excluded rows, in row order: PostgreSQL's
   * loop when the frame start moves (float sums have no inverse), so the result is bit for bit its own.
   * sum starts from -0 (float8pl takes the first value as it is), avg from 0 (float8_accum's {0,0,0}).
   */
  private floatInOrder(b: WindowBlock, ps: number, pe: number, f: FrameBounds, out: ResultColumn, avg: boolean): void {
    const od = out.data as Float64Array;
    const cnt = this.counts;
    const z = this.zeroed;
    const fs = f.fs;
    const fe = f.fe;
    const ex = f.exclude;
    const zero = avg ? 0 : -0;
    if (ex === 'no-others') {
      floatFramesInOrder(fs, fe, cnt, z, ps, pe, zero, avg, out);
      return;
    }
    // When every frame starts at the same row (EXCLUDE over a running frame), the piece before the
    // excluded rows is a running sum: PostgreSQL's own partial sums, read from a prefix array.
    let pre: Float64Array | null = null;
    if (fs[ps] === fs[pe - 1]) {
      const n = pe - ps;
      if (this.prefix.length < n + 1) this.prefix = new Float64Array(Math.max(n + 1, this.prefix.length * 2));
      pre = this.prefix;
      const s0 = fs[ps]! - ps;
      pre[s0] = zero;
      for (let j = s0; j < n; j++) pre[j + 1] = pre[j]! + z[j]!;
    }
    for (let i = ps; i < pe; i++) {
      const s = fs[i]! - ps;
      const e = fe[i]! - ps;
      const r = i - ps;
      let c = 0;
      let v = zero;
      if (s < e) {
        let x = r;
        let y = r + 1;
        if (ex !== 'current-row') {
          x = b.peerStart[i]! - ps;
          y = b.peerEnd[i]! - ps;
        }
        const e0 = x < e ? x : e;
        const s2 = y > s ? y : s;
        if (s < e0) {
          if (pre !== null) v = pre[e0]!;
          else for (let j = s; j < e0; j++) v += z[j]!;
          c += cnt[e0]! - cnt[s]!;
        }
        if (ex === 'ties' && r >= s && r < e && cnt[r + 1]! !== cnt[r]!) {
          c++;
          v += z[r]!;
        }
        for (let j = s2; j < e; j++) v += z[j]!;
        if (s2 < e) c += cnt[e]! - cnt[s2]!;
      }
      if (c === 0) out.setNull(i);
      else od[i] = avg ? v / c : v;
    }
  }

  private minMax(b: WindowBlock, d: Float64Array | Int32Array, nulls: Uint8Array | null, ps: number, pe: number, f: FrameBounds, out: ResultColumn, isMax: boolean): void {
    const od = out.data as Float64Array | Int32Array;
    const n = pe - ps;
    const [p0, p2] = this.deques as [DequePiece, DequePiece];
    p0.reset(ps, n);
    p2.reset(ps, n);
    const fs = f.fs;
    const fe = f.fe;
    const ex = f.exclude;
    for (let i = ps; i < pe; i++) {
      const s = fs[i]!;
      const e = fe[i]!;
      let best = -1;
      if (ex === 'no-others') {
        if (s < e) best = p0.best(d, nulls, isMax, s, e, n);
      } else if (s < e) {
        let x = i;
        let y = i + 1;
        if (ex !== 'current-row') {
          x = b.peerStart[i]!;
          y = b.peerEnd[i]!;
        }
        const e0 = x < e ? x : e;
        const s2 = y > s ? y : s;
        if (s < e0) best = p0.best(d, nulls, isMax, s, e0, n);
        // Later pieces win ties, as a later row replaces an equal state in PostgreSQL.
        if (ex === 'ties' && i >= s && i < e && (nulls === null || nulls[i] !== 1)) best = later(d, best, i, isMax);
        if (s2 < e) {
          const k = p2.best(d, nulls, isMax, s2, e, n);
          if (k >= 0) best = later(d, best, k, isMax);
        }
      }
      if (best < 0) out.setNull(i);
      else od[i] = d[best]!;
    }
  }
}

/** Frame rows summed per result row, on average, up to which summing each frame afresh beats the general path. */
const IN_ORDER_ROWS_PER_RESULT = 256;

/**
 * Whether the frames of rows [ps, pe) are short enough to sum each from its start (floatInOrder): the
 * rows it would add, counting the piece before the excluded rows as free when every frame starts at the
 * same row (it comes from a prefix array then).
 */
function shortFrames(b: WindowBlock, f: FrameBounds, ps: number, pe: number): boolean {
  const fs = f.fs;
  const fe = f.fe;
  const ex = f.exclude;
  const fixed = ex !== 'no-others' && fs[ps] === fs[pe - 1];
  let work = 0;
  for (let i = ps; i < pe; i++) {
    const s = fs[i]!;
    const e = fe[i]!;
    if (s >= e) continue;
    if (ex === 'no-others') {
      work += e - s;
      continue;
    }
    const x = ex === 'current-row' ? i : b.peerStart[i]!;
    const y = ex === 'current-row' ? i + 1 : b.peerEnd[i]!;
    if (!fixed && x > s) work += (x < e ? x : e) - s;
    if (y < e) work += e - (y > s ? y : s);
  }
  return work <= IN_ORDER_ROWS_PER_RESULT * (pe - ps);
}

/**
 * floatInOrder without EXCLUDE. Each row's sum is one chain of dependent additions; four rows whose
 * frames have the same length are summed side by side, so the chains overlap in the CPU while each
 * still adds its own frame left to right.
 */
function floatFramesInOrder(fs: Int32Array, fe: Int32Array, cnt: Float64Array, z: Float64Array, ps: number, pe: number, zero: number, avg: boolean, out: ResultColumn): void {
  const od = out.data as Float64Array;
  let prevS = -1;
  let prevE = -1;
  let i = ps;
  while (i < pe) {
    const s = fs[i]! - ps;
    const e = fe[i]! - ps;
    const len = e - s;
    if (i + 3 < pe && len > 1 && !(s === prevS && e === prevE) && fe[i + 1]! - fs[i + 1]! === len && fe[i + 2]! - fs[i + 2]! === len && fe[i + 3]! - fs[i + 3]! === len) {
      const s1 = fs[i + 1]! - ps;
      const s2 = fs[i + 2]! - ps;
      const s3 = fs[i + 3]! - ps;
      let v0 = zero;
      let v1 = zero;
      let v2 = zero;
      let v3 = zero;
      for (let t = 0; t < len; t++) {
        v0 += z[s + t]!;
        v1 += z[s1 + t]!;
        v2 += z[s2 + t]!;
        v3 += z[s3 + t]!;
      }
      putSum(out, od, cnt, i, s, len, v0, avg);
      putSum(out, od, cnt, i + 1, s1, len, v1, avg);
      putSum(out, od, cnt, i + 2, s2, len, v2, avg);
      putSum(out, od, cnt, i + 3, s3, len, v3, avg);
      prevS = s3;
      prevE = s3 + len;
      i += 4;
      continue;
    }
    // Peers under RANGE / GROUPS share their frame and so their result.
    if (s === prevS && e === prevE) {
      if (out.nulls !== null && out.nulls[i - 1] === 1) out.setNull(i);
      else od[i] = od[i - 1]!;
      i++;
      continue;
    }
    prevS = s;
    prevE = e;
    let v = zero;
    for (let j = s; j < e; j++) v += z[j]!;
    if (len > 0) putSum(out, od, cnt, i, s, len, v, avg);
    else out.setNull(i);
    i++;
  }
}

/** Row i's sum (or average) of the frame [s, s + len) relative to the partition; NULL when no row counted. */
function putSum(out: ResultColumn, od: Float64Array, cnt: Float64Array, i: number, s: number, len: number, v: number, avg: boolean): void {
  const c = cnt[s + len]! - cnt[s]!;
  if (c === 0) out.setNull(i);
  else od[i] = avg ? v / c : v;
}

/** `cand` (a later row) unless `cur` is strictly better. */
function later(d: Float64Array | Int32Array, cur: number, cand: number, isMax: boolean): number {
  if (cur < 0) return cand;
  const w = d[cur]!;
  const v = d[cand]!;
  const keep = isMax ? w > v || (w !== w && v === v) : v > w || (v !== v && w === w);
  return keep ? cur : cand;
}

/** Row i's excluded rows (its peer group, or itself for CURRENT ROW) clamped to [s, e), relative to ps. */
function excludedRange(b: WindowBlock, ex: FrameBounds['exclude'], i: number, ps: number, s: number, e: number, out: Int32Array): void {
  let xs = ex === 'current-row' ? i - ps : b.peerStart[i]! - ps;
  let xe = ex === 'current-row' ? xs + 1 : b.peerEnd[i]! - ps;
  if (xs < s) xs = s;
  if (xe > e) xe = e;
  if (xe < xs) xe = xs;
  out[0] = xs;
  out[1] = xe;
}
