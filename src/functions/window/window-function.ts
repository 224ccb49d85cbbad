/**
 * The contract between the Window operator and the per-function evaluators.
 *
 * The operator buffers rows in columnar blocks (one or more complete partitions, sorted by partition
 * keys then ORDER BY keys) and describes them with a WindowBlock: the block's columns plus per-row
 * peer-group information. Each evaluator is called once per partition with the partition's row range
 * and, for frame-aware functions, the frame bounds of every row; it writes one result per row into a
 * ResultColumn. Nothing is materialised as row objects: evaluators read typed column storage directly.
 *
 * All row indexes here are block-absolute.
 */
import { T, type DataType, type Value } from '../../common/types.js';
import { anchorShape } from '../../common/shape-anchor.js';
import { allocData, makeColumn, type Column, type ColumnData } from '../../common/column.js';
import type { EvalContext } from '../eval-context.js';

export interface WindowBlock {
  readonly columns: readonly Column[];
  readonly length: number;
  /** First row of each row's peer group (rows equal on every ORDER BY key; the whole partition without ORDER BY). */
  readonly peerStart: Int32Array;
  /** One past the last row of each row's peer group. */
  readonly peerEnd: Int32Array;
  /** 0-based ordinal of each row's peer group within its partition. */
  readonly group: Int32Array;
  /** The running statement (the execution layer's context, which has more than evaluators may read). */
  readonly ctx: { readonly eval: EvalContext };
}

export type ExcludeMode = 'no-others' | 'current-row' | 'group' | 'ties';

/** Frame of every row of one partition: [fs[i], fe[i]) before exclusion, never inverted (fe >= fs). */
export interface FrameBounds {
  readonly fs: Int32Array;
  readonly fe: Int32Array;
  readonly exclude: ExcludeMode;
}

export interface WindowEvaluator {
  /** True when the function reads the frame (aggregates, first/last/nth_value). */
  readonly usesFrame: boolean;
  evaluate(b: WindowBlock, ps: number, pe: number, frame: FrameBounds | null, out: ResultColumn): void;
}

/**
 * The frame of row i after EXCLUDE as up to three disjoint ranges in row order, written as
 * [s0, e0, s1, e1, s2, e2] into `out`; returns how many ranges are non-empty.
 */
export function frameParts(f: FrameBounds, b: WindowBlock, i: number, out: Int32Array): number {
  const s = f.fs[i]!;
  const e = f.fe[i]!;
  if (s >= e) return 0;
  // No closure here: this runs once per row, and a nested function would be created on every call.
  switch (f.exclude) {
    case 'no-others':
      out[0] = s;
      out[1] = e;
      return 1;
    case 'current-row': {
      const k = pushPart(out, 0, s, i, s, e);
      return pushPart(out, k, i + 1, e, s, e);
    }
    case 'group': {
      const k = pushPart(out, 0, s, b.peerStart[i]!, s, e);
      return pushPart(out, k, b.peerEnd[i]!, e, s, e);
    }
    case 'ties': {
      let k = pushPart(out, 0, s, b.peerStart[i]!, s, e);
      k = pushPart(out, k, i, i + 1, s, e);
      return pushPart(out, k, b.peerEnd[i]!, e, s, e);
    }
  }
}

/** Writes [a, z) clamped to [s, e) as range k of `out` when non-empty; returns the next range count. */
function pushPart(out: Int32Array, k: number, a: number, z: number, s: number, e: number): number {
  if (a < s) a = s;
  if (z > e) z = e;
  if (a >= z) return k;
  out[2 * k] = a;
  out[2 * k + 1] = z;
  return k + 1;
}

/** Output of one window call for one block: typed storage where the type allows, nulls as a byte map. */
export class ResultColumn {
  data: ColumnData;
  nulls: Uint8Array | null = null;
  constructor(
    readonly type: DataType,
    readonly length: number,
  ) {
    this.data = allocData(type, length);
  }

  setNull(i: number): void {
    if (this.nulls === null) this.nulls = new Uint8Array(this.length);
    this.nulls[i] = 1;
    if (Array.isArray(this.data)) this.data[i] = null;
  }

  set(i: number, v: Value): void {
    if (v === null) {
      this.setNull(i);
      return;
    }
    const d = this.data;
    if (Array.isArray(d)) {
      d[i] = v;
    } else if (d instanceof Uint8Array) {
      d[i] = v === true ? 1 : 0;
    } else if (typeof v === 'bigint') {
      // int8 beyond ±2^53: the whole column switches to plain values, as ColumnBuilder does.
      const o: Value[] = new Array(this.length);
      for (let k = 0; k < this.length; k++) o[k] = d[k]!;
      o[i] = v;
      this.data = o;
    } else {
      d[i] = v as number;
    }
  }

  finish(): Column {
    if (Array.isArray(this.data) && this.nulls !== null) {
      for (let i = 0; i < this.length; i++) if (this.nulls[i] === 1) this.data[i] = null;
    }
    return makeColumn(this.type, this.data, this.nulls);
  }
}

/** Reads row i of a column as an engine value (no allocation for typed storage). */
export function valueAt(c: Column, i: number): Value {
  if (c.nulls !== null && c.nulls[i] === 1) return null;
  const d = c.data;
  if (d instanceof Uint8Array) return d[i] === 1;
  return d[i] as Value;
}

export function isNullAt(c: Column, i: number): boolean {
  if (c.nulls !== null && c.nulls[i] === 1) return true;
  const d = c.data;
  return Array.isArray(d) && d[i] === null;
}

// A long-lived instance keeps the shape the evaluators' optimized code checks (see shape-anchor.ts).
anchorShape(new ResultColumn(T.int8, 1));
