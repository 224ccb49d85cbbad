/**
 * Where a batch rebuilt by UPDATE or DELETE came from: the batch whose other rows it copies, in
 * order, and which rows of it were left out. A secondary index over the table before the write can
 * then carry its entries over by renumbering them instead of sorting the table again.
 *
 * The source is held weakly: the record only has to recognise it while an index still refers to it,
 * and must not keep the old rows alive for as long as the new batch lives.
 */
import type { Batch } from './column.js';

interface Rebuilt {
  readonly source: WeakRef<Batch>;
  /** Rows of the source left out, ascending. */
  readonly removed: Int32Array;
}

const rebuilt = new WeakMap<Batch, Rebuilt>();

/** Records that `batch` holds the rows of `source` except `removed` (ascending), in their order. */
export function noteRebuiltBatch(batch: Batch, source: Batch, removed: Int32Array): void {
  rebuilt.set(batch, { source: new WeakRef(source), removed });
}

/** The rows of `source` that `batch` left out, when `batch` was rebuilt from it; null otherwise. */
export function rowsLeftOut(batch: Batch, source: Batch): Int32Array | null {
  const r = rebuilt.get(batch);
  return r !== undefined && r.source.deref() === source ? r.removed : null;
}
