/** Concatenating a statement's batches without holding the event loop (see concatSteps). */
import type { DataType } from '../common/types.js';
import { concatSteps, type Batch, type TypedAlloc } from '../common/column.js';
import { yieldIfDue, type ExecContext } from './context.js';

/**
 * concatBatches for a statement: a million-row input takes tens of milliseconds to gather (its text
 * columns a value at a time), so the copy is done in pieces with a chance to yield between them.
 */
export async function concatBatchesAsync(types: readonly DataType[], batches: readonly Batch[], ctx: ExecContext, alloc?: TypedAlloc): Promise<Batch> {
  const steps = concatSteps(types, batches, alloc);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
    await yieldIfDue(ctx);
  }
}

