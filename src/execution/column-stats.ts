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
 */
import type { Batch, Column } from '../common/column.js';

export interface IntRange {
  /**
   * Bounds of the non-NULL values (min > max when every value is NULL): exact for a batch stored whole;
   * the versions of an open batch share one range, which bounds the earlier ones loosely.
   */
  readonly min: number;
  readonly max: number;
}

const ranges = new WeakMap<Column, IntRange>();

function rangeOf(d: Int32Array, nulls: Uint8Array | null, n: number, from = 0): IntRange {
  let min = 2147483647;
  let max = -2147483648;
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
  return { min, max };
}

/** Records the ranges of the integer columns of a batch that storage keeps unchanged from now on. */
export function recordImmutableBatch(b: Batch): void {
  for (const c of b.columns) {
    const d = c.data;
    if (d instanceof Int32Array && !ranges.has(c)) ranges.set(c, rangeOf(d, c.nulls, b.length));
  }
}

/**
 * Records the ranges of a stored batch holding `earlier`'s rows and more after them (a small commit
 * into the table's open batch): a recorded range of the earlier column widens by the new rows only,
 * so the commit costs its rows, not the batch.
 */
export function recordExtendedBatch(b: Batch, earlier: Batch): void {
  for (let ci = 0; ci < b.columns.length; ci++) {
    const c = b.columns[ci]!;
    const d = c.data;
    if (!(d instanceof Int32Array) || ranges.has(c)) continue;
    const prev = ranges.get(earlier.columns[ci]!);
    if (prev === undefined) {
      ranges.set(c, rangeOf(d, c.nulls, b.length));
      continue;
    }
    // The earlier column's range object widens in place and serves both: a range may cover more rows
    // than a column holds and still bounds its values. A fresh object per commit would be a young
    // WeakMap value, which the young generation's collector keeps until a full collection.
    const more = rangeOf(d, c.nulls, b.length, earlier.length);
    const shared = prev as { min: number; max: number };
    if (more.min < shared.min) shared.min = more.min;
    if (more.max > shared.max) shared.max = more.max;
    ranges.set(c, prev);
  }
}

/** The recorded range of a stored integer column, or undefined when none was recorded. */
export function intRange(c: Column): IntRange | undefined {
  return ranges.get(c);
}
