/**
 * Any aggregate used with OVER. Strategy per partition (chosen per row where it matters):
 *
 *   - count: prefix counts of qualifying rows answer every frame (EXCLUDE included) in O(1).
 *   - A row whose frame equals the previous row's frame (peers under RANGE/GROUPS, whole-partition
 *     frames, no EXCLUDE) reuses the previous result.
 *   - Invertible aggregates (count, exact sums/averages, bool_and/or, ...): the frame slides; rows
 *     entering are add()ed and rows leaving are remove()d, O(1) amortised per row.
 *   - Others (min/max, string_agg, float sum/avg): while the frame start stays put the state only grows;
 *     when it moves, a short frame (<= NAIVE_MAX rows) is re-aggregated from scratch, which is exactly what
 *     PostgreSQL does (same rows, same order, so float sums round identically), and a longer one is
 *     answered by a segment tree (segment-tree.ts).
 *   - EXCLUDE: frames become up to three ranges; short ones are re-aggregated, long ones use the tree.
 *
 * sum/avg/min/max over typed storage without FILTER take typed-frame-aggregate.ts instead: O(1)
 * amortised per row for every frame, EXCLUDE included, without per-row calls or boxing.
 *
 * FILTER (WHERE ...) rows that are not true are skipped by every path.
 */
import type { ResolvedAggregate, SlidingAccumulator } from '../aggregate/aggregate-function.js';
import type { Value } from '../../common/types.js';
import { floatOverflow as floatOverflowError } from '../scalar/support/float.js';
import type { Column } from '../../common/column.js';
import { SegmentTree } from './segment-tree.js';
import { TypedFrameAggregate, typedAggregateKind } from './typed-frame-aggregate.js';
import { frameParts, valueAt, type FrameBounds, type ResultColumn, type WindowBlock, type WindowEvaluator } from './window-function.js';

export const NAIVE_MAX = 32;

export class AggregateWindow implements WindowEvaluator {
  readonly usesFrame = true;
  private readonly acc: SlidingAccumulator;
  private readonly scratch: SlidingAccumulator;
  private readonly args: Value[];
  private readonly parts = new Int32Array(6);
  private cols: Column[] = [];
  private filter: Column | null = null;

  constructor(
    private readonly agg: ResolvedAggregate,
    private readonly argCols: readonly number[],
    private readonly filterCol: number | null,
  ) {
    this.acc = agg.sliding();
    this.scratch = agg.sliding();
    this.args = new Array<Value>(argCols.length).fill(null);
    this.floatSum = agg.name === 'sum' && agg.returnType.name === 'float8';
    const kind = filterCol === null && argCols.length === 1 ? typedAggregateKind(agg, agg.argTypes) : null;
    this.typed = kind === null ? null : new TypedFrameAggregate(kind);
  }

  /** The aggregate this evaluator runs (the chunked window path runs it the same way). */
  get aggregate(): ResolvedAggregate {
    return this.agg;
  }

  /** sum/avg/min/max over typed storage without FILTER (typed-frame-aggregate.ts), when it applies. */
  private readonly typed: TypedFrameAggregate | null;

  private readonly floatSum: boolean;

  /** FILTER: the row counts only when the filter is true (not false, not NULL). */
  private included(i: number): boolean {
    const f = this.filter;
    if (f === null) return true;
    return (f.nulls === null || f.nulls[i] !== 1) && (f.data as Uint8Array)[i] === 1;
  }

  private readonly addRow = (acc: SlidingAccumulator, i: number): void => {
    if (!this.included(i)) return;
    const a = this.args;
    for (let k = 0; k < a.length; k++) a[k] = valueAt(this.cols[k]!, i);
    acc.add(a);
  };

  /** False when the state could not take the row out (see SlidingAccumulator.remove). */
  private removeRow(acc: SlidingAccumulator, i: number): boolean {
    if (!this.included(i)) return true;
    const a = this.args;
    for (let k = 0; k < a.length; k++) a[k] = valueAt(this.cols[k]!, i);
    return acc.remove!(a) !== false;
  }

  evaluate(b: WindowBlock, ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    this.cols = this.argCols.map((c) => b.columns[c]!);
    this.filter = this.filterCol === null ? null : b.columns[this.filterCol]!;
    if (this.agg.name === 'count') {
      this.count(b, ps, pe, f, out);
      return;
    }
    if (this.typed !== null && this.typed.evaluate(b, this.cols[0]!, ps, pe, f, out)) return;
    if (f.exclude === 'no-others') {
      if (this.floatSum && this.filter === null && this.cols[0]!.data instanceof Float64Array && this.shortFrames(ps, pe, f)) this.floatSumFrames(ps, pe, f, out);
      else this.slide(ps, pe, f, out);
    } else this.excluding(b, ps, pe, f, out);
  }

  /** True when every frame either keeps the partition start or is at most NAIVE_MAX rows long. */
  private shortFrames(ps: number, pe: number, f: FrameBounds): boolean {
    for (let i = ps; i < pe; i++) if (f.fs[i] !== ps && f.fe[i]! - f.fs[i]! > NAIVE_MAX) return false;
    return true;
  }

  /**
   * sum(float8) over typed storage without FILTER, for short or running frames: the generic path's
   * arithmetic (left-to-right float8pl from the frame start, PostgreSQL's order) without per-row calls.
   */
  private floatSumFrames(ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    const c = this.cols[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    const od = out.data as Float64Array;
    let a = ps;
    let z = ps;
    let sum = -0;
    let seen = false;
    const addOne = (j: number): void => {
      if (nulls !== null && nulls[j] === 1) return;
      const v = d[j]!;
      const r = sum + v;
      // float8pl: an infinite result from finite inputs is an overflow (error), as in the accumulator.
      if (r - r !== 0 && r === r && Number.isFinite(sum) && Number.isFinite(v)) floatOverflowError();
      sum = r;
      seen = true;
    };
    for (let i = ps; i < pe; i++) {
      const s = f.fs[i]!;
      const e = f.fe[i]!;
      if (s !== a || e < z) {
        a = s;
        z = s;
        sum = -0;
        seen = false;
      }
      while (z < e) addOne(z++);
      if (seen) od[i] = sum;
      else out.setNull(i);
    }
  }

  /** count(*) / count(x) through prefix sums of qualifying rows. */
  private count(b: WindowBlock, ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    const n = pe - ps;
    const pre = new Float64Array(n + 1);
    const arg = this.cols.length > 0 ? this.cols[0]! : null;
    const argNulls = arg === null ? null : arg.nulls;
    const objArg = arg !== null && Array.isArray(arg.data) ? (arg.data as Value[]) : null;
    let c = 0;
    for (let i = ps; i < pe; i++) {
      if (this.included(i) && (argNulls === null || argNulls[i] !== 1) && (objArg === null || objArg[i] !== null)) c++;
      pre[i - ps + 1] = c;
    }
    const d = out.data as Float64Array;
    if (f.exclude === 'no-others') {
      for (let i = ps; i < pe; i++) d[i] = pre[f.fe[i]! - ps]! - pre[f.fs[i]! - ps]!;
      return;
    }
    const parts = this.parts;
    for (let i = ps; i < pe; i++) {
      const k = frameParts(f, b, i, parts);
      let s = 0;
      for (let r = 0; r < k; r++) s += pre[parts[2 * r + 1]! - ps]! - pre[parts[2 * r]! - ps]!;
      d[i] = s;
    }
  }

  /** Frames without EXCLUDE: both ends only move forward. */
  private slide(ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    const acc = this.acc;
    acc.reset();
    const invertible = this.agg.invertible;
    let a = ps;
    let z = ps;
    let tree: SegmentTree | null = null;
    let prevS = -1;
    let prevE = -1;
    let prevV: Value = null;
    const fs = f.fs;
    const fe = f.fe;
    for (let i = ps; i < pe; i++) {
      const s = fs[i]!;
      const e = fe[i]!;
      if (s === prevS && e === prevE) {
        out.set(i, prevV);
        continue;
      }
      let v: Value;
      if (s >= e) {
        // Empty frame: the aggregate of no rows (NULL; count is handled elsewhere).
        this.scratch.reset();
        v = this.scratch.value();
      } else if (invertible) {
        if (s >= z || e < z) {
          acc.reset();
          a = s;
          z = s;
        }
        // Leaving rows first, as PostgreSQL does: a state holding both would overflow where its never
        // does (an interval sum beside an extreme value).
        while (a < s) {
          if (!this.removeRow(acc, a++)) {
            // The inverse transition gave up: the state is built again from the frame's rows.
            acc.reset();
            a = s;
            z = s;
          }
        }
        while (z < e) this.addRow(acc, z++);
        v = acc.value();
      } else if (s === a && e >= z) {
        while (z < e) this.addRow(acc, z++);
        v = acc.value();
      } else if (e - s <= NAIVE_MAX || this.agg.noMerge === true) {
        acc.reset();
        a = s;
        z = s;
        while (z < e) this.addRow(acc, z++);
        v = acc.value();
      } else {
        tree ??= new SegmentTree(() => this.agg.sliding(), this.addRow, ps, pe);
        // The tree answers this frame; the running state restarts from it so a following row whose start
        // stays put can keep growing it.
        acc.reset();
        tree.query(acc, s, e);
        a = s;
        z = e;
        v = acc.value();
      }
      out.set(i, v);
      prevS = s;
      prevE = e;
      prevV = v;
    }
  }

  /** EXCLUDE CURRENT ROW / GROUP / TIES: up to three ranges per row. */
  private excluding(b: WindowBlock, ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    const parts = this.parts;
    const acc = this.scratch;
    let tree: SegmentTree | null = null;
    for (let i = ps; i < pe; i++) {
      const k = frameParts(f, b, i, parts);
      let len = 0;
      for (let r = 0; r < k; r++) len += parts[2 * r + 1]! - parts[2 * r]!;
      acc.reset();
      if (len <= NAIVE_MAX || this.agg.noMerge === true) {
        for (let r = 0; r < k; r++) for (let j = parts[2 * r]!; j < parts[2 * r + 1]!; j++) this.addRow(acc, j);
      } else {
        tree ??= new SegmentTree(() => this.agg.sliding(), this.addRow, ps, pe);
        for (let r = 0; r < k; r++) tree.query(acc, parts[2 * r]!, parts[2 * r + 1]!);
      }
      out.set(i, acc.value());
    }
  }
}
