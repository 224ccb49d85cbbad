/**
 * Replay: batches an operator already pulled, then (optionally) the rest of a running input, as an
 * operator again. Operators that start in memory and fall back to a spilling plan under memory
 * pressure (HybridHashAggregate, TopN) hand their buffer and their input over to it.
 */
import type { Schema } from '../../common/types.js';
import type { Batch } from '../../common/column.js';
import { PhysicalOperator } from '../operator.js';

/** Replays batches that were already pulled, then (optionally) the rest of a running input. */
export class Replay extends PhysicalOperator {
  readonly name = 'Replay';
  constructor(
    schema: Schema,
    private batches: Batch[],
    private rest: AsyncIterator<Batch> | null = null,
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    return '';
  }
  protected async *run(): AsyncGenerator<Batch> {
    const bs = this.batches;
    this.batches = [];
    // Hand each batch over and drop our reference, so the consumer's buffer is the only one.
    for (let i = 0; i < bs.length; i++) {
      const b = bs[i]!;
      (bs as (Batch | null)[])[i] = null;
      yield b;
    }
    const rest = this.rest;
    this.rest = null;
    if (rest === null) return;
    try {
      for (;;) {
        const r = await rest.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await rest.return?.(undefined);
    }
  }
}

