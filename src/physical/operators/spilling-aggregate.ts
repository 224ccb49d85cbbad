/**
 * SpillingAggregate: GROUP BY under a memory budget, with a sort-based fallback.
 *
 * Phase 1 (no pressure): input batches are buffered while the reservation can grow; when the input
 * ends, the existing HashAggregate runs over the buffer, so results (and group order) are exactly
 * HashAggregate's.
 *
 * Phase 2 (the reservation cannot grow): the buffered batches and the rest of the input go through an
 * ExternalSort on the group keys (which spills sorted runs and merges them), and the sorted stream is
 * cut into chunks at group boundaries. Each chunk holds complete groups only, so a fresh HashAggregate
 * over the chunk produces final results for those groups: every aggregate works unchanged, including
 * DISTINCT, ORDER BY inside the call and FILTER, because the same operator runs them. This is
 * PostgreSQL's GroupAggregate-over-Sort strategy applied chunk-wise; output then comes in group-key
 * order.
 *
 * Why not spill hash partitions of partial states: the grouped accumulators
 * (src/functions/aggregate) have no serialise/merge, so partial states cannot be written out. Groups
 * are therefore never split, and one group's rows must fit in memory (a chunk grows until the group
 * ends).
 *
 * Aggregates without GROUP BY keep O(1) state (except DISTINCT / ORDER BY inputs) and are delegated
 * to HashAggregate directly.
 */
import type { Field, Schema } from '../../common/types.js';
import { concatBatches, sliceBatch, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, queryMemory } from '../../execution/memory-pool.js';
import { PhysicalOperator } from '../operator.js';
import { compileComparator, equalityKeys, type Comparator } from '../sort-key.js';
import { ExternalSort } from './external-sort.js';
import { Replay } from './replay.js';
import { HashAggregate, type HashAggregateConfig } from './hash-aggregate.js';

/** Rows per chunk handed to one HashAggregate in phase 2 (a chunk ends at a group boundary). */
const CHUNK_ROWS = 65536;

export class SpillingAggregate extends PhysicalOperator {
  readonly name = 'HashAggregate';
  private readonly inner: HashAggregate;
  private readonly groupCmp: Comparator;

  constructor(
    readonly input: PhysicalOperator,
    readonly config: HashAggregateConfig,
    schema?: Schema,
  ) {
    const inner = new HashAggregate(input, config, schema);
    super(inner.schema);
    this.inner = inner;
    const cols = config.keyTypes.map((_, i) => i);
    this.groupCmp = compileComparator(equalityKeys(cols, config.keyTypes));
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    return this.inner.describe();
  }

  private aggregate(batches: Batch[], rest: AsyncIterator<Batch> | null, ctx: ExecContext): AsyncGenerator<Batch> {
    const fields: Field[] = [...this.input.schema];
    const agg = new HashAggregate(new Replay(fields, batches, rest), this.config, this.schema);
    // Phase 1 reserved twice the buffered input for the aggregation; a phase 2 chunk is bounded in rows.
    agg.reservesMemory = false;
    return agg.execute(ctx);
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    if (this.config.keyCount === 0) {
      yield* this.inner.execute(ctx);
      return;
    }
    const mem = queryMemory(ctx);
    const res = mem.pool.register('HashAggregate', true);
    const it = this.input.execute(ctx);
    let handedOff = false;
    try {
      const buffered: Batch[] = [];
      let pressure = false;
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        const b = r.value;
        if (b.length === 0) continue;
        await yieldIfDue(ctx);
        buffered.push(b);
        // The buffered input plus hash table and accumulator state, which is at most about as large.
        if (!res.tryGrow(batchBytes(b) * 2)) {
          pressure = true;
          break;
        }
      }
      if (!pressure) {
        yield* this.aggregate(buffered, null, ctx);
        return;
      }
      // Phase 2: the sort owns the buffered rows (and the input) from here; give back our share first.
      res.free();
      handedOff = true;
      this.metrics.extra['strategy'] = 'sort (spilled)';
      const keys = equalityKeys(
        this.config.keyTypes.map((_, i) => i),
        this.config.keyTypes,
      );
      // splice: the Replay takes the batches over, this frame keeps no reference to them.
      const sorted = new ExternalSort(new Replay([...this.input.schema], buffered.splice(0), it), keys);
      yield* this.sortedGroups(sorted, ctx);
      for (const [k, v] of Object.entries(sorted.metrics.extra)) if (k !== 'sort method') this.metrics.extra[k] = v;
    } finally {
      res.free();
      if (!handedOff) await it.return(undefined);
    }
  }

  /** Cuts the sorted stream into chunks of complete groups and aggregates each chunk. */
  private async *sortedGroups(sorted: ExternalSort, ctx: ExecContext): AsyncGenerator<Batch> {
    const types = this.input.schema.map((f) => f.type);
    let pending: Batch[] = [];
    let pendingRows = 0;
    // Rows at which to look for a group boundary again; doubled while one group fills the chunk, so a
    // huge group costs O(n log n) copying, not O(n^2).
    let threshold = CHUNK_ROWS;
    for await (const b of sorted.execute(ctx)) {
      if (b.length === 0) continue;
      pending.push(b);
      pendingRows += b.length;
      if (pendingRows < threshold) continue;
      const chunk = concatBatches(types, pending);
      // Last group start in the chunk: rows from there on may continue in the next batch.
      const rc = this.groupCmp.rows(this.groupCmp.view(chunk));
      let cut = chunk.length - 1;
      while (cut > 0 && rc(cut - 1, cut) === 0) cut--;
      if (cut === 0) {
        // One group so far: keep collecting until it ends.
        pending = [chunk];
        threshold = pendingRows * 2;
        continue;
      }
      threshold = CHUNK_ROWS;
      pending = [sliceBatch(chunk, cut, chunk.length)];
      pendingRows = chunk.length - cut;
      yield* this.aggregate([sliceBatch(chunk, 0, cut)], null, ctx);
    }
    if (pendingRows > 0) yield* this.aggregate(pending, null, ctx);
  }
}
