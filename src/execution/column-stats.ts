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
  /** Smallest and largest non-NULL value; min > max when every value is NULL. */
  readonly min: number;
  readonly max: number;
}

const ranges = new WeakMap<Column, IntRange>();

function rangeOf(d: Int32Array, nulls: Uint8Array | null, n: number): IntRange {
  let min = 2147483647;
  let max = -2147483648;
  if (nulls === null) {
    for (let i = 0; i < n; i++) {
      const x = d[i]!;
      if (x < min) min = x;
      if (x > max) max = x;
    }
  } else {
    for (let i = 0; i < n; i++) {
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

/** The recorded range of a stored integer column, or undefined when none was recorded. */
export function intRange(c: Column): IntRange | undefined {
  return ranges.get(c);
}
