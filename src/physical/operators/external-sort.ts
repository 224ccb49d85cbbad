/**
 * ExternalSort: the Sort operator under a memory budget (an external merge sort).
 *
 * Input batches are buffered while the operator's reservation can grow. When it cannot, the buffered
 * rows are sorted (sortRunAsync: radix on numeric keys or on normalized keys, in slices) and
 * written as one sorted run to a spill file, the reservation is freed, and buffering starts again.
 * At the end of the input:
 *   - nothing was spilled: exactly the in-memory Sort (same permutation, same output batches), so the
 *     operator costs nothing when there is no memory pressure;
 *   - otherwise the last buffer becomes a run too, the merge memory (one decoded frame and one read
 *     block per input run, plus the output batch) is reserved up front for the largest fan-in the
 *     budget allows (at least 2, else 53200), intermediate passes merge groups of runs into new runs,
 *     and the final pass streams merged batches to the consumer.
 *
 * Stable like Sort: runs are cut from the input in order, and the merge gives ties to the earlier run.
 * Spill files are deleted in `finally`: on success, on error and when the consumer stops early or the
 * statement is cancelled.
 *
 * It is a subclass of Sort (same name in EXPLAIN, and `instanceof Sort` planning checks such as
 * plan-window's sort reuse keep working). EXPLAIN ANALYZE shows, after a spill: sort method=external
 * merge, spill runs, spill files, spilled bytes, merge passes, merge fan-in.
 */
import type { DataType } from '../../common/types.js';
import { sliceBatch, takeBatch, BATCH_SIZE, type Batch } from '../../common/column.js';
import { concatBatchesAsync } from '../../execution/concat-batches-async.js';
import { give, poolCanHold, pooledAlloc } from '../../execution/scratch.js';
import { checkCancel, yieldIfDue, type ExecContext } from '../../execution/context.js';
import { reduceRuns, streamRuns } from '../../execution/merge/multi-pass.js';
import { batchBytes, queryMemory, type MemoryReservation } from '../../execution/memory-pool.js';
import { READ_CHUNK, type SpillRun } from '../../execution/spill/run-file.js';
import { SpillManager } from '../../execution/spill/spill-manager.js';
import type { PhysicalOperator } from '../operator.js';
import { compileComparator, type Comparator, type SortKey } from '../sort-key.js';
import { intRange } from '../../execution/column-stats.js';
import type { KeyBounds } from '../packed-key-sort.js';
import { PG_TIE_ORDER_MAX_ROWS } from '../pg-tie-order.js';
import { emitRuns, holdUtf8, normalizedSortRowBytes, restoreStrings, Sort, sortMethod, sortRunAsync, sortWholeInput, utf8KeyColumns } from './sort.js';
import type { Utf8TextColumn } from '../utf8-text-column.js';

/** Scratch bytes per buffered row while sorting (permutation, radix images, text prefixes). */
const SORT_ROW_OVERHEAD = 32;
const MAX_FAN_IN = 64;

/** Frame and read-block sizes scale with the limit so that a tiny limit still allows a fan-in > 2. */
function spillSizes(limit: number): { frameBytes: number; readChunk: number } {
  const l = Number.isFinite(limit) ? limit : 1 << 30;
  return {
    frameBytes: Math.min(2 << 20, Math.max(16 << 10, Math.floor(l / 64))),
    readChunk: Math.min(READ_CHUNK * 4, Math.max(16 << 10, Math.floor(l / 64))),
  };
}

/**
 * Bounds of the int4 key columns whose every batch is a stored one with a zone map (column-stats.ts):
 * the packed sort then plans those keys without reading them.
 */
function keyBounds(batches: readonly Batch[], keys: readonly SortKey[]): KeyBounds | undefined {
  let out: Map<number, { min: number; max: number }> | undefined;
  for (const k of keys) {
    let min = Infinity;
    let max = -Infinity;
    let all = true;
    for (const b of batches) {
      const r = intRange(b.columns[k.col]!);
      if (r === undefined) {
        all = false;
        break;
      }
      if (r.min > r.max) continue;
      if (r.min < min) min = r.min;
      if (r.max > max) max = r.max;
    }
    if (!all) continue;
    out ??= new Map();
    out.set(k.col, min > max ? { min: 1, max: 0 } : { min, max });
  }
  return out;
}

export class ExternalSort extends Sort {
  private readonly xcmp: Comparator;

  constructor(input: PhysicalOperator, keys: readonly SortKey[], offset = 0, groupPrefix = 0) {
    super(input, keys, offset, groupPrefix);
    this.xcmp = compileComparator(keys);
    this.keyBytes = normalizedSortRowBytes(keys);
  }

  /** Per-row bytes of the normalized-key sort's keys and scratch (0 when it does not apply). */
  private readonly keyBytes: number;

  protected override async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const mem = queryMemory(ctx);
    const res = mem.pool.register('Sort', true);
    const types = this.schema.map((f) => f.type);
    const { frameBytes, readChunk } = spillSizes(mem.pool.limit);
    let spill: SpillManager | null = null;
    const runs: SpillRun[] = [];
    let buffered: Batch[] = [];
    let rows = 0;
    let bytes = 0;
    /** Pooled arrays under the in-memory sort's concatenated input, given back when its output ends. */
    const pooled: (Uint32Array | Float64Array)[] = [];
    // Mostly distinct computed text keys held as UTF-8 while nothing spills (Sort.emitUtf8); undefined
    // until the first batch decides, null when not held.
    let utf8: Map<number, Utf8TextColumn> | null | undefined;
    try {
      for await (const input of this.input.execute(ctx)) {
        if (input.length === 0) continue;
        await yieldIfDue(ctx);
        let b = input;
        const size = batchBytes(b);
        // The buffer, the concatenated copy made for sorting, and the permutation scratch.
        const need = size * 2 + b.length * (SORT_ROW_OVERHEAD + this.keyBytes);
        if (!res.tryGrow(need)) {
          // Runs are written with their strings: the text held so far is decoded back.
          if (utf8 != null) {
            buffered = restoreStrings(buffered, utf8);
            utf8 = null;
          }
          if (buffered.length > 0) {
            spill ??= new SpillManager(mem, 'sort');
            const taken = buffered;
            buffered = [];
            runs.push(await this.writeRun(spill, taken, types, rows, bytes, frameBytes, ctx));
            rows = 0;
            bytes = 0;
            res.free();
          }
          // One batch larger than the whole budget is already in memory: account for it and go on.
          if (!res.tryGrow(need)) res.forceGrow(need);
        }
        if (utf8 === undefined) utf8 = spill === null ? utf8KeyColumns(b, this.keys) : null;
        if (utf8 !== null) {
          const held = holdUtf8(b, utf8);
          if (held !== null) b = held;
          else {
            buffered = restoreStrings(buffered, utf8);
            utf8 = null;
          }
        }
        buffered.push(b);
        rows += b.length;
        bytes += size;
      }
      await yieldIfDue(ctx);
      if (spill === null) {
        if (buffered.length === 0) return;
        // A small sort orders ties as PostgreSQL does, by comparing the values: strings again.
        if (utf8 != null && rows <= PG_TIE_ORDER_MAX_ROWS) {
          buffered = restoreStrings(buffered, utf8);
          utf8 = null;
        }
        // Several batches are concatenated into arrays this operator owns; a single one is the input's.
        // The arrays are pooled memory (a million rows of fresh pages cost more than the sort): the
        // output copies every column out of them, and they go back to the pool when the output ends.
        // Beyond what the pool can hold, the arrays are fresh: the output then slices the sorted key
        // columns instead of copying every batch out of arrays that would go back to the pool.
        const owned = buffered.length > 1;
        const bounds = keyBounds(buffered, this.keys);
        const all = await concatBatchesAsync(types, buffered, ctx, owned && poolCanHold(bytes) ? pooledAlloc(pooled) : undefined);
        buffered = [];
        if (utf8 != null) {
          const held = utf8;
          utf8 = null;
          yield* this.emitUtf8(all, held, ctx);
          return;
        }
        const t0 = ctx.analyze ? performance.now() : 0;
        const run = await sortWholeInput(all, this.keys, this.xcmp, ctx, owned, bounds);
        if (ctx.analyze) {
          this.metrics.extra['sort ms'] = Math.round((performance.now() - t0) * 100) / 100;
          this.metrics.extra['sort method'] = sortMethod(all, this.keys, run);
        }
        yield* emitRuns([run], this.xcmp, this.offset, pooled.length > 0, this.align);
        // Every row went out through copies: the permutation can serve the next sort's scratch.
        give(run.order);
        return;
      }
      if (buffered.length > 0) {
        const taken = buffered;
        buffered = [];
        runs.push(await this.writeRun(spill, taken, types, rows, bytes, frameBytes, ctx));
      }
      res.free();
      yield* this.merge(ctx, spill, runs, types, res, frameBytes, readChunk);
    } finally {
      buffered = [];
      if (utf8 != null) for (const text of utf8.values()) text.release();
      give(...pooled.splice(0));
      res.free();
      await spill?.close();
    }
  }

  /** Sorts the buffered batches and writes them as one run of frames of about `frameBytes`. */
  private async writeRun(
    spill: SpillManager,
    batches: Batch[],
    types: readonly DataType[],
    rows: number,
    bytes: number,
    frameBytes: number,
    ctx: ExecContext,
  ): Promise<SpillRun> {
    let all: Batch | null = await concatBatchesAsync(types, batches, ctx);
    batches.length = 0;
    const order = (await sortRunAsync(all, this.keys, this.xcmp, ctx, false)).order;
    checkCancel(ctx);
    const rowBytes = Math.max(1, bytes / Math.max(1, rows));
    const frameRows = Math.max(1, Math.min(BATCH_SIZE * 2, Math.floor(frameBytes / rowBytes)));
    const w = await spill.createRun(types);
    for (let s = 0; s < order.length; s += frameRows) {
      await yieldIfDue(ctx);
      const e = Math.min(order.length, s + frameRows);
      await w.append(takeBatch(all, order.subarray(s, e), e - s), Math.ceil((e - s) * rowBytes));
    }
    all = null;
    return spill.finishRun(w);
  }

  private async *merge(
    ctx: ExecContext,
    spill: SpillManager,
    runs: SpillRun[],
    types: readonly DataType[],
    res: MemoryReservation,
    frameBytes: number,
    readChunk: number,
  ): AsyncGenerator<Batch> {
    let frameMem = 0;
    let rowsTotal = 0;
    for (const r of runs) {
      frameMem = Math.max(frameMem, r.maxFrameMemory);
      rowsTotal += r.rows;
    }
    // Per input run: its decoded frame, the next one being decoded, and the read block.
    const perRun = frameMem * 2 + readChunk;
    const rowBytes = Math.max(1, frameMem / Math.max(1, Math.min(rowsTotal, BATCH_SIZE * 2)));
    const outRows = Math.max(1, Math.min(BATCH_SIZE, Math.floor(frameBytes / rowBytes)));
    const outMem = Math.ceil(outRows * rowBytes * 2);
    let fanIn = Math.min(runs.length, MAX_FAN_IN);
    while (fanIn >= 2 && !res.tryGrow(fanIn * perRun + outMem)) fanIn--;
    if (fanIn < 2) throw res.outOfMemory(2 * perRun + outMem, `merge buffers for ${runs.length} sorted runs`);
    const opts = { outRows, readChunk, check: () => checkCancel(ctx) };
    const { runs: last, passes } = await reduceRuns(spill, runs, this.xcmp, types, fanIn, opts);
    const m = spill.metrics;
    const x = this.metrics.extra;
    x['sort method'] = 'external merge';
    x['spill runs'] = m.runs;
    x['spill files'] = m.files;
    x['spilled bytes'] = m.bytesWritten;
    x['merge passes'] = passes + 1;
    x['merge fan-in'] = fanIn;
    let skip = this.offset;
    for await (const b of streamRuns(spill, last, this.xcmp, types, opts)) {
      if (skip >= b.length) {
        skip -= b.length;
        continue;
      }
      yield skip > 0 ? sliceBatch(b, skip, b.length) : b;
      skip = 0;
    }
  }
}
