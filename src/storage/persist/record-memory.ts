import type { Batch } from '../../common/column.js';
import { columnBytes } from '../../execution/memory-pool.js';

/**
 * Memory a record of these batches takes beyond the batches themselves: the text forms of object
 * columns (typed columns are written from their own buffers).
 */
export function recordMemory(batches: readonly Batch[]): number {
  let bytes = 0;
  for (const b of batches) for (const c of b.columns) if (Array.isArray(c.data)) bytes += columnBytes(c, b.length);
  return bytes;
}
