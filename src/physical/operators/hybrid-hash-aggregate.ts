/**
 * HybridHashAggregate: GROUP BY under a memory budget (chosen when the session set memory_limit).
 *
 * When every aggregate keeps a bounded state per group (count, sum, avg, min, max, …), the input streams
 * into a group table as in HashAggregate, batch by batch, and the table's groups and states are reserved
 * from the statement's pool. When the reservation cannot grow, the table is frozen: rows whose group is
 * already in it keep aggregating, and rows of any other group are written out, split into PARTS
 * partitions by a hash of their key (key-partition.ts). When the input ends the table's groups are
 * emitted and the table is dropped; then each partition is aggregated the same way, with another hash
 * seed, so a partition that is still too large splits again. A group never spans the table and a
 * partition, and never two partitions, so every group is emitted exactly once and complete.
 *
 * Aggregates whose state grows with their input (DISTINCT or ORDER BY inside the call, which buffer
 * their rows; string_agg, array_agg and user-defined aggregates, which retain them) cannot be frozen:
 * rows of groups already in the table would keep growing it. Their pass buffers the input (reserved)
 * and aggregates it when it ends; under pressure every row, the buffered ones first, goes to the hash
 * partitions instead, and each partition is aggregated by a pass of its own.
 *
 * Last resort, for a partition that splitting does not shrink (all its rows share their hash at every
 * level: one huge group, or too many levels): ExternalSort on the group keys, cut into chunks at group
 * boundaries, each chunk aggregated by a HashAggregate (PostgreSQL's GroupAggregate over Sort, chunk by
 * chunk). Only one group at a time needs to fit in memory there.
 *
 * Without pressure the result, including group order, is HashAggregate's. Aggregates without GROUP BY
 * keep O(1) state (except DISTINCT / ORDER BY inputs) and are delegated to HashAggregate directly.
 */
import type { Field, Schema } from '../../common/types.js';
import { concatBatches, sliceBatch, takeColumn, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, columnBytes, queryMemory } from '../../execution/memory-pool.js';
import { HashPartitions } from '../../execution/spill/hash-partitions.js';
import { readRun, type SpillRun } from '../../execution/spill/run-file.js';
import { SpillManager } from '../../execution/spill/spill-manager.js';
import { GrowthReserve, withGrowthReserve } from '../../functions/aggregate/growth-reserve.js';
import { keyPartitions } from '../key-partition.js';
import { PhysicalOperator, type ExplainInputs, type ExplainNode } from '../operator.js';
import { compileComparator, equalityKeys, type Comparator } from '../sort-key.js';
import { ExternalSort } from './external-sort.js';
import type { SelectedBatch } from './filter.js';
import { Replay } from './replay.js';
import {
  aggregateInput,
  consume,
  consumeSel,
  emitGroups,
  GROUP_BYTES,
  HashAggregate,
  hashAggregateNode,
  makeGrouper,
  STATE_BYTES,
  type ConsumeState,
  type HashAggregateConfig,
} from './hash-aggregate.js';
import { packedMap } from '../../common/packed-map.js';

/** Partitions per split (a power of two, at most 128: partition ids are bytes). */
const PARTS = 16;
/** Splits before a partition goes to the sort-based last resort (PARTS^4 = 65,536 ways). */
const MAX_LEVEL = 4;
/** Per group and key column, what the grouper holds besides the key value itself. */
const KEY_BYTES = 32;
/** Groups' worth of memory that must be free before a batch may add groups to the table. */
const PROBE_GROUPS = 16;
/** Rows per chunk handed to one HashAggregate on the sort path (a chunk ends at a group boundary). */
const CHUNK_ROWS = 65536;

/**
 * Partitions per split, splits before the last resort, rows of a sort-path chunk (and of a partition
 * aggregated whole); tests lower them to reach every path at modest sizes.
 */
export interface HybridAggregateTuning {
  parts: number;
  maxLevel: number;
  chunkRows: number;
}

interface SpillStats {
  spilledRows: number;
  partitions: number;
  passes: number;
  depth: number;
  sorted: number;
}

export class HybridHashAggregate extends PhysicalOperator {
  readonly name = 'HashAggregate';
  private readonly inner: HashAggregate;
  private readonly groupCmp: Comparator;
  /** Every aggregate's state per group is bounded, so the table can be frozen (see the header). */
  private readonly freezable: boolean;

  constructor(
    readonly input: PhysicalOperator,
    readonly config: HashAggregateConfig,
    schema?: Schema,
    private readonly tuning: HybridAggregateTuning = { parts: PARTS, maxLevel: MAX_LEVEL, chunkRows: CHUNK_ROWS },
  ) {
    const inner = new HashAggregate(input, config, schema);
    super(inner.schema);
    this.inner = inner;
    const cols = config.keyTypes.map((_, i) => i);
    this.groupCmp = compileComparator(equalityKeys(cols, config.keyTypes));
    this.freezable = config.aggs.every((a) => !a.distinct && a.orderBy.length === 0 && a.impl.retainsInput !== true);
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    return this.inner.describe();
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    return hashAggregateNode(this.config, inputs[0] ?? []);
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    if (this.config.keyCount === 0) {
      yield* this.inner.execute(ctx);
      return;
    }
    const spill = new SpillManager(queryMemory(ctx), 'aggregate');
    const stats: SpillStats = { spilledRows: 0, partitions: 0, passes: 1, depth: 0, sorted: 0 };
    const it = this.freezable ? null : this.input.execute(ctx);
    try {
      const runs =
        it === null
          ? yield* this.hybridPass(aggregateInput(this.input, this.config, ctx), 0, ctx, spill, stats)
          : yield* this.bufferedPass(it, 0, 'split', ctx, spill, stats);
      yield* this.partitions(runs, Infinity, 1, ctx, spill, stats);
    } finally {
      await it?.return(undefined);
      await spill.close();
      const x = this.metrics.extra;
      if (stats.partitions === 0 && stats.sorted === 0) x['spilled'] = 'none';
      else {
        x['spilled rows'] = stats.spilledRows;
        x['partitions'] = stats.partitions;
        x['passes'] = stats.passes;
        x['depth'] = stats.depth;
        if (stats.sorted > 0) x['sorted partitions'] = stats.sorted;
        x['spill bytes'] = spill.metrics.bytesWritten;
      }
    }
  }

  /** Aggregates each partition (and what it splits into), deleting its file once it has been read. */
  private async *partitions(
    runs: (SpillRun | null)[] | null,
    parentRows: number,
    level: number,
    ctx: ExecContext,
    spill: SpillManager,
    stats: SpillStats,
  ): AsyncGenerator<Batch> {
    if (runs === null) return;
    for (const run of runs) if (run !== null) stats.partitions++;
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      if (run === null) continue;
      runs[i] = null;
      stats.passes++;
      if (level > stats.depth) stats.depth = level;
      // A partition that holds every row its parent held did not shrink: splitting it again by another
      // hash would not either (one group, or keys colliding at every seed), so it is sorted.
      const split = level < this.tuning.maxLevel && run.rows < parentRows;
      let sub: (SpillRun | null)[] | null;
      if (this.freezable && split) sub = yield* this.hybridPass(selected(readRun(run)), level, ctx, spill, stats);
      else sub = yield* this.bufferedPass(readRun(run), level, run.rows <= this.tuning.chunkRows ? 'force' : split ? 'split' : 'sort', ctx, spill, stats);
      await spill.delete(run);
      yield* this.partitions(sub, this.freezable ? Infinity : run.rows, level + 1, ctx, spill, stats);
    }
  }

  /**
   * One streaming pass (bounded states): aggregates what fits, emits it, and returns the partitions the
   * other rows went to (null when none did).
   */
  private async *hybridPass(
    source: AsyncIterable<SelectedBatch>,
    level: number,
    ctx: ExecContext,
    spill: SpillManager,
    stats: SpillStats,
  ): AsyncGenerator<Batch, (SpillRun | null)[] | null> {
    const { keyCount, keyTypes, aggs } = this.config;
    const grouper = makeGrouper(keyTypes);
    const state: ConsumeState = {
      grouper,
      accs: packedMap(aggs, (a) => a.impl.grouped()),
      ordered: packedMap(aggs, () => null),
      aggs,
      keyCount,
      filtered: new Int32Array(0),
      perGroup: new Float64Array(0),
      grown: 0,
      reserve: new GrowthReserve(),
      inline: undefined,
    };
    const res = queryMemory(ctx).pool.register('HashAggregate', true);
    // Besides HashAggregate's per-group estimate, each key costs the grouper a map entry or key words
    // and table slots, and a slot in its key column (measured: 110-220 bytes per group in all).
    const perGroup = GROUP_BYTES + STATE_BYTES * aggs.length + KEY_BYTES * keyCount;
    const types = this.input.schema.map((f) => f.type);
    let parts: HashPartitions | null = null;
    let frozen = false;
    try {
      for await (const { batch, sel, n } of source) {
        await yieldIfDue(ctx);
        if (n === 0) continue;
        // A table that is already at the limit (its last batch was forced in) takes no further batch.
        if (!frozen && grouper.count > 0) {
          if (res.tryGrow(perGroup * PROBE_GROUPS)) res.shrink(perGroup * PROBE_GROUPS);
          else frozen = true;
        }
        if (!frozen) {
          const before = grouper.count;
          withGrowthReserve(state.reserve, () => (sel === null ? consume(state, batch) : consumeSel(state, batch, sel, n)));
          state.reserve.prepare(grouper.count, n);
          const added = grouper.count - before;
          if (added === 0) continue;
          let keyBytes = 0;
          for (let i = 0; i < keyCount; i++) keyBytes += columnBytes(batch.columns[i]!, batch.length);
          const bytes = Math.ceil(added * perGroup + (keyBytes * added) / batch.length);
          if (!res.tryGrow(bytes)) {
            // These groups exist already (at most one batch past the limit): counted, and the table
            // takes no new group from here on.
            res.forceGrow(bytes);
            frozen = true;
          }
          continue;
        }
        const rest: Batch = sel === null ? batch : { columns: batch.columns.map((c) => takeColumn(c, sel, n)), length: n };
        parts ??= new HashPartitions(spill, types, this.tuning.parts, ctx);
        stats.spilledRows += await this.frozenBatch(rest, level, state, parts);
      }
      const runs = parts === null ? null : await parts.finish();
      parts = null;
      yield* emitGroups(ctx, this.schema, this.config, grouper, state.accs, state.ordered);
      return runs;
    } finally {
      parts?.release();
      res.free();
    }
  }

  private part = new Int8Array(0);
  private found = new Uint32Array(0);

  /**
   * A batch once the table is frozen: rows of groups in the table are aggregated, the others written to
   * their partition. Returns the rows written.
   */
  private async frozenBatch(rows: Batch, level: number, state: ConsumeState, parts: HashPartitions): Promise<number> {
    const n = rows.length;
    const { keyCount, keyTypes } = this.config;
    const gids = state.grouper.find({ columns: rows.columns.slice(0, keyCount), length: n }, n);
    if (this.part.length < n) {
      this.part = new Int8Array(Math.max(n, 4096));
      this.found = new Uint32Array(Math.max(n, 4096));
    }
    const found = this.found;
    let hits = 0;
    for (let i = 0; i < n; i++) if (gids[i]! >= 0) found[hits++] = i;
    if (hits === n) {
      withGrowthReserve(state.reserve, () => consume(state, rows));
      return 0;
    }
    const part = this.part.subarray(0, n);
    keyPartitions(rows.columns.slice(0, keyCount), keyTypes, n, level, this.tuning.parts, new Uint8Array(part.buffer, 0, n));
    for (let k = 0; k < hits; k++) part[found[k]!] = -1;
    await parts.add(rows, part);
    if (hits > 0) {
      const kept: Batch = { columns: rows.columns.map((c) => takeColumn(c, found, hits)), length: hits };
      withGrowthReserve(state.reserve, () => consume(state, kept));
    }
    return n - hits;
  }

  /**
   * One buffering pass (states that grow with the input, or a partition that did not shrink): the
   * input is held (reserved) and aggregated at its end. Under pressure the rows go to hash partitions,
   * which are returned ('split'), or to the sort-based last resort ('sort'), or, for a partition of at
   * most CHUNK_ROWS rows, stay and are aggregated ('force').
   */
  private async *bufferedPass(
    it: AsyncIterator<Batch>,
    level: number,
    mode: 'split' | 'sort' | 'force',
    ctx: ExecContext,
    spill: SpillManager,
    stats: SpillStats,
  ): AsyncGenerator<Batch, (SpillRun | null)[] | null> {
    const { keyCount, keyTypes } = this.config;
    const res = queryMemory(ctx).pool.register('HashAggregate', true);
    let parts: HashPartitions | null = null;
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
          res.forceGrow(batchBytes(b) * 2);
          pressure = true;
          break;
        }
      }
      if (!pressure || mode === 'force') {
        if (pressure) {
          // A partition no larger than a sort chunk: aggregated whole, as the sort path would aggregate
          // its chunk; what it holds is counted past the limit, so other operators spill sooner.
          for (;;) {
            const r = await it.next();
            if (r.done) break;
            await yieldIfDue(ctx);
            if (r.value.length === 0) continue;
            buffered.push(r.value);
            res.forceGrow(batchBytes(r.value) * 2);
          }
        }
        yield* this.aggregate(buffered, ctx);
        return null;
      }
      if (mode === 'sort') {
        res.free();
        stats.sorted++;
        const keys = equalityKeys(
          keyTypes.map((_, i) => i),
          keyTypes,
        );
        // splice: the Replay takes the batches over, this frame keeps no reference to them.
        const sorted = new ExternalSort(new Replay([...this.input.schema], buffered.splice(0), it), keys);
        yield* this.sortedGroups(sorted, ctx);
        for (const [k, v] of Object.entries(sorted.metrics.extra)) if (k !== 'sort method' && k !== 'sort ms') this.metrics.extra[`sort ${k}`] = v;
        return null;
      }
      parts = new HashPartitions(spill, this.input.schema.map((f) => f.type), this.tuning.parts, ctx);
      const write = async (b: Batch): Promise<void> => {
        const part = new Uint8Array(b.length);
        keyPartitions(b.columns.slice(0, keyCount), keyTypes, b.length, level, this.tuning.parts, part);
        stats.spilledRows += b.length;
        await parts!.add(b, part);
      };
      for (const b of buffered.splice(0)) {
        await yieldIfDue(ctx);
        await write(b);
      }
      res.free();
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        await yieldIfDue(ctx);
        if (r.value.length > 0) await write(r.value);
      }
      const runs = await parts.finish();
      parts = null;
      return runs;
    } finally {
      parts?.release();
      res.free();
    }
  }

  private aggregate(batches: Batch[], ctx: ExecContext): AsyncGenerator<Batch> {
    const fields: Field[] = [...this.input.schema];
    const agg = new HashAggregate(new Replay(fields, batches, null), this.config, this.schema);
    // The buffering pass reserved twice the buffered input for the aggregation; a sort-path chunk is
    // bounded in rows.
    agg.reservesMemory = false;
    return agg.execute(ctx);
  }

  /** Cuts the sorted stream into chunks of complete groups and aggregates each chunk. */
  private async *sortedGroups(sorted: ExternalSort, ctx: ExecContext): AsyncGenerator<Batch> {
    const types = this.input.schema.map((f) => f.type);
    let pending: Batch[] = [];
    let pendingRows = 0;
    // Rows at which to look for a group boundary again; doubled while one group fills the chunk, so a
    // huge group costs O(n log n) copying, not O(n^2).
    let threshold = this.tuning.chunkRows;
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
      threshold = this.tuning.chunkRows;
      pending = [sliceBatch(chunk, cut, chunk.length)];
      pendingRows = chunk.length - cut;
      yield* this.aggregate([sliceBatch(chunk, 0, cut)], ctx);
    }
    if (pendingRows > 0) yield* this.aggregate(pending, ctx);
  }
}

/** Spilled batches as HashAggregate input (whole batches, no selection). */
async function* selected(batches: AsyncIterable<Batch>): AsyncGenerator<SelectedBatch> {
  for await (const b of batches) yield { batch: b, sel: null, n: b.length };
}
