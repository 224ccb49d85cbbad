/**
 * Partition index = the key's own value, for the row-reference store (topn-ranking-refs.ts) under a
 * single int2/int4 partition key whose values are small and non-negative (a group or bucket number).
 *
 * Why: with ~100,000 partitions, mapping each row's key to a dense id reads a direct-address table at a
 * random position per row and writes the id, about a fifth of the operator's time; the key column
 * itself can serve as the ids, and the partitions in key order are the non-empty entries read in index
 * order (no sort). The price is one table entry per value up to the largest, so values must stay below
 * a limit set by the entry size; a batch outside it (a negative, large or NULL key, or a key column not
 * stored as int32) ends this mode for the rest of the run: the partitions seen so far are renumbered to
 * dense ids (PartitionIds) and the operator goes on as without it.
 */
import type { Batch } from '../../common/column.js';
import { intRange } from '../../execution/column-stats.js';
import { anchorShape } from '../../common/shape-anchor.js';

/** Bytes of entry tables this mode may address before the dense ids are cheaper in memory. */
const MAX_TABLE_BYTES = 32 << 20;
/** Never more values than the direct-address table of dense ids would cover. */
const MAX_VALUES = 1 << 20;

export class PartitionIndex {
  /** Key values are below this. */
  readonly limit: number;
  active = true;

  constructor(
    private readonly col: number,
    /** Bytes of table per partition index (entries and bookkeeping). */
    bytesPerPartition: number,
    /** Estimated input rows (0: unknown): more values than a few per row would be mostly empty entries. */
    expectedRows: number,
  ) {
    let limit = Math.min(MAX_VALUES, Math.floor(MAX_TABLE_BYTES / bytesPerPartition));
    if (expectedRows > 0) limit = Math.min(limit, Math.max(1 << 16, 4 * expectedRows));
    // The tables grow to powers of two: a limit that is one keeps them within the bytes above.
    let pow = 1;
    while (pow * 2 <= limit) pow *= 2;
    this.limit = pow;
  }

  /**
   * The batch's key column as partition indexes, and the largest of them; null (nothing to do here) when
   * a key is NULL, negative or at the limit, or the column is not int32 storage.
   */
  indexes(b: Batch): { ids: Int32Array; max: number } | null {
    const c = b.columns[this.col]!;
    const d = c.data;
    const n = b.length;
    if (!(d instanceof Int32Array) || d.length < n) return null;
    if (c.nulls !== null) {
      const nulls = c.nulls;
      for (let i = 0; i < n; i++) if (nulls[i] === 1) return null;
    }
    const r = intRange(c);
    let lo: number;
    let hi: number;
    if (r !== undefined) {
      lo = r.min;
      hi = r.max;
    } else {
      lo = 0;
      hi = -1;
      if (n > 0) {
        lo = hi = d[0]!;
        for (let i = 1; i < n; i++) {
          const v = d[i]!;
          if (v < lo) lo = v;
          else if (v > hi) hi = v;
        }
      }
    }
    if (n > 0 && (lo < 0 || hi >= this.limit)) return null;
    return { ids: d, max: hi };
  }
}

// A per-query object the row-reference path checks once per batch (see shape-anchor.ts).
anchorShape(new PartitionIndex(0, 16, 0));
