/**
 * Value ranges of integer columns that will never change (zone maps, one per stored batch).
 *
 * Stored tables hold immutable batches, so the range of each int2/int4 column can be computed once when
 * the batch is stored and trusted for as long as the column object lives. Operators use it to decide a
 * test for a whole batch without reading the column: the per-partition Top-N skips the partition-key
 * column of a batch when every key its range allows already has a boundary.
 *
 * Only storage registers columns: an operator's output column may reuse its buffers between batches, so
 * a range computed from it could go stale. An unregistered column has no range.
 *
 * Block bounds (blockBounds) are finer: the min and max of every BLOCK_ROWS rows of a stored int4 or
 * float8 column, so a Top-N whose boundary sits in the top ten-thousandth of a batch's values reads
 * only the few blocks that reach past it. They are computed on first use, not when rows are stored:
 * most columns never lead a Top-N, and a store of many small commits should not pay for them.
 */
import { columnStats, setColumnStats, unbuiltPrefix, type Batch, type Column } from '../common/column.js';

export interface IntRange {
  /**
   * Bounds of the non-NULL values (min > max when every value is NULL): exact for a batch stored whole;
   * the versions of an open batch share one range, which bounds the earlier ones loosely.
   */
  readonly min: number;
  readonly max: number;
}

/**
 * What is recorded of a stored int4 / float8 column: its range (int4 only) and its block bounds once
 * computed. The versions of a table's open batch share one object: their first rows are the same rows,
 * so a range widened in place and bounds cached for n rows hold for each of them.
 */
interface Facts {
  range: { min: number; max: number } | null;
  bounds: { n: number; b: BlockBounds } | null;
}

/** Facts of columns without a slot of their own (columnStats undefined). */
const elsewhere = new WeakMap<Column, Facts>();

function factsOf(c: Column): Facts | undefined {
  const s = columnStats(c);
  if (s === undefined) return elsewhere.get(c);
  return s === null ? undefined : (s as Facts);
}

function setFacts(c: Column, f: Facts): void {
  if (!setColumnStats(c, f)) elsewhere.set(c, f);
}

function rangeOf(d: Int32Array, nulls: Uint8Array | null, n: number, from: number, into: { min: number; max: number }): void {
  let min = into.min;
  let max = into.max;
  if (nulls === null) {
    for (let i = from; i < n; i++) {
      const x = d[i]!;
      if (x < min) min = x;
      if (x > max) max = x;
    }
  } else {
    for (let i = from; i < n; i++) {
      if (nulls[i] === 1) continue;
      const x = d[i]!;
      if (x < min) min = x;
      if (x > max) max = x;
    }
  }
  into.min = min;
  into.max = max;
}

function newFacts(d: Int32Array | Float64Array, nulls: Uint8Array | null, n: number): Facts {
  let range: { min: number; max: number } | null = null;
  if (d instanceof Int32Array) {
    range = { min: 2147483647, max: -2147483648 };
    rangeOf(d, nulls, n, 0, range);
  }
  return { range, bounds: null };
}

/** Records the ranges of the integer columns of a batch that storage keeps unchanged from now on. */
export function recordImmutableBatch(b: Batch): void {
  for (const c of b.columns) {
    // Plain values not copied out yet: nothing to record, and reading them would copy them.
    if (unbuiltPrefix(c)) continue;
    const d = c.data;
    if ((d instanceof Int32Array || d instanceof Float64Array) && factsOf(c) === undefined) setFacts(c, newFacts(d, c.nulls, b.length));
  }
}

/**
 * Records the ranges of a stored batch holding `earlier`'s rows and more after them (a small commit
 * into the table's open batch): the earlier column's facts widen by the new rows only and serve the
 * new column too, so the commit costs its rows, not the batch, and allocates nothing.
 */
export function recordExtendedBatch(b: Batch, earlier: Batch): void {
  for (let ci = 0; ci < b.columns.length; ci++) {
    const c = b.columns[ci]!;
    if (unbuiltPrefix(c)) continue;
    const d = c.data;
    if (!(d instanceof Int32Array || d instanceof Float64Array) || factsOf(c) !== undefined) continue;
    const prev = factsOf(earlier.columns[ci]!);
    if (prev === undefined) {
      setFacts(c, newFacts(d, c.nulls, b.length));
      continue;
    }
    // A range may cover more rows than a column holds and still bounds its values.
    if (prev.range !== null && d instanceof Int32Array) rangeOf(d, c.nulls, b.length, earlier.length, prev.range);
    setFacts(c, prev);
  }
}

/** The recorded range of a stored integer column, or undefined when none was recorded. */
export function intRange(c: Column): IntRange | undefined {
  return factsOf(c)?.range ?? undefined;
}

/** Rows per block of blockBounds: a block test costs about one row's, and a block skipped saves 128. */
export const BLOCK_SHIFT = 7;
export const BLOCK_ROWS = 1 << BLOCK_SHIFT;

/**
 * Per block of BLOCK_ROWS rows, the least and greatest value. A block holding a NULL or a NaN has NaN
 * for both: every comparison with NaN is false, so a test "max < x" or "min > x" never skips such a
 * block, and its NULLs and NaNs (which sort above or below every number) reach the caller's own checks.
 */
export interface BlockBounds {
  readonly min: Float64Array;
  readonly max: Float64Array;
}

/**
 * Block bounds of the first n rows of a stored int4 / float8 column, or null for any other column
 * (an operator's output may reuse its buffers, so bounds computed from it could go stale).
 */
export function blockBounds(c: Column, n: number): BlockBounds | null {
  const f = factsOf(c);
  if (f === undefined) return null;
  const have = f.bounds;
  if (have !== null && have.n === n) return have.b;
  const d = c.data;
  if (!(d instanceof Float64Array || d instanceof Int32Array) || d.length < n) return null;
  const b = computeBounds(d, c.nulls, n);
  f.bounds = { n, b };
  return b;
}

function computeBounds(d: Float64Array | Int32Array, nulls: Uint8Array | null, n: number): BlockBounds {
  const blocks = (n + BLOCK_ROWS - 1) >> BLOCK_SHIFT;
  const min = new Float64Array(blocks);
  const max = new Float64Array(blocks);
  for (let k = 0; k < blocks; k++) {
    const s = k << BLOCK_SHIFT;
    const e = Math.min(n, s + BLOCK_ROWS);
    let lo = Infinity;
    let hi = -Infinity;
    let unknown = false;
    for (let i = s; i < e; i++) {
      if (nulls !== null && nulls[i] === 1) {
        unknown = true;
        break;
      }
      const x = d[i]!;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
      // NaN fails both tests above; x !== x catches it.
      if (x !== x) {
        unknown = true;
        break;
      }
    }
    min[k] = unknown ? NaN : lo;
    max[k] = unknown ? NaN : hi;
  }
  return { min, max };
}
