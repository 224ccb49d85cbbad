/**
 * PartitionBuffer: the hook for operators that must hold a group of rows which may exceed memory — a
 * window partition, the build side of a join — and read it back, possibly several times.
 *
 * push() buffers batches under a reservation; when the reservation cannot grow, everything buffered so
 * far is appended to one spill file (in arrival order, unsorted) and memory is freed. Reading is always
 * in arrival order: the spilled prefix from disk, then the in-memory tail. The buffer can be scanned any
 * number of times (two-pass window evaluation: a first pass for partition-wide values such as the row
 * count, a second pass emitting rows), and clear() makes it ready for the next partition, deleting files.
 *
 * The Window operator (window.ts) holds its current partition here: an unspilled partition is evaluated
 * in place from `memoryBatches`; a spilled one is read back in chunks by window-chunked.ts (running
 * state carried across chunks, `rows` known before the scan, overlaps for bounded frames, a first pass
 * for whole-partition values). The build side of a join can use it the same way.
 */
import type { DataType } from '../../common/types.js';
import { concatBatches, type Batch } from '../../common/column.js';
import type { ExecContext } from '../context.js';
import { batchBytes, queryMemory, type MemoryReservation } from '../memory-pool.js';
import { readRun, type RunWriter, type SpillRun } from './run-file.js';
import { SpillManager } from './spill-manager.js';

export class PartitionBuffer {
  private readonly res: MemoryReservation;
  private spill: SpillManager | null = null;
  private writer: RunWriter | null = null;
  private run: SpillRun | null = null;
  private mem: Batch[] = [];
  private memBytes = 0;
  /** Rows pushed since the last clear(). */
  rows = 0;
  /** Estimated bytes pushed since the last clear() (in memory or on disk): sizes chunks of a scan. */
  bytes = 0;
  /** Largest batch pushed since the last clear(), in estimated bytes. */
  maxBatchBytes = 0;
  /** Bytes written to disk over the buffer's life (EXPLAIN ANALYZE). */
  spilledBytes = 0;
  spills = 0;

  constructor(
    private readonly ctx: ExecContext,
    readonly types: readonly DataType[],
    private readonly label = 'partition',
  ) {
    this.res = queryMemory(ctx).pool.register(label, true);
  }

  get spilled(): boolean {
    return this.writer !== null || this.run !== null;
  }

  async push(b: Batch): Promise<void> {
    if (b.length === 0) return;
    const size = batchBytes(b);
    if (!this.res.tryGrow(size)) {
      await this.flush();
      if (!this.res.tryGrow(size)) this.res.forceGrow(size);
    }
    this.mem.push(b);
    this.memBytes += size;
    this.rows += b.length;
    this.bytes += size;
    if (size > this.maxBatchBytes) this.maxBatchBytes = size;
  }

  /** The buffered batches while nothing is spilled (the caller evaluates them in place). */
  get memoryBatches(): readonly Batch[] {
    if (this.spilled) throw new Error('PartitionBuffer: memoryBatches of a spilled partition');
    return this.mem;
  }

  /** Spill files created over the buffer's life (EXPLAIN ANALYZE). */
  get files(): number {
    return this.spill?.metrics.files ?? 0;
  }

  /** Appends the in-memory batches to the spill file. */
  private async flush(): Promise<void> {
    if (this.mem.length === 0) return;
    if (this.run !== null) throw new Error('PartitionBuffer: push after scan() of a spilled partition');
    this.spill ??= new SpillManager(queryMemory(this.ctx), this.label);
    this.writer ??= await this.spill.createRun(this.types);
    for (const b of this.mem) await this.writer.append(b);
    this.mem = [];
    this.memBytes = 0;
    this.res.free();
    this.spills++;
  }

  /** Every row in arrival order, as batches. Repeatable. */
  async *scan(): AsyncGenerator<Batch> {
    if (this.writer !== null) {
      this.run = await this.spill!.finishRun(this.writer);
      this.spilledBytes += this.run.bytes;
      this.writer = null;
    }
    if (this.run !== null) yield* readRun(this.run);
    yield* this.mem;
  }

  /** The whole buffer as one batch (needs it to fit: raises 53200 when a spilled partition does not). */
  async materialize(): Promise<Batch> {
    if (!this.spilled) return concatBatches(this.types, this.mem);
    const all: Batch[] = [];
    for await (const b of this.scan()) {
      this.res.grow(batchBytes(b), `materializing a spilled ${this.label}`);
      all.push(b);
    }
    return concatBatches(this.types, all);
  }

  /** Empties the buffer for the next partition; deletes its spill file. */
  async clear(): Promise<void> {
    if (this.writer !== null) {
      this.run = await this.spill!.finishRun(this.writer);
      this.spilledBytes += this.run.bytes;
      this.writer = null;
    }
    if (this.run !== null) await this.spill!.delete(this.run);
    this.run = null;
    this.mem = [];
    this.memBytes = 0;
    this.rows = 0;
    this.bytes = 0;
    this.maxBatchBytes = 0;
    this.res.free();
  }

  /** Frees memory and removes every file. Call in `finally`. */
  async close(): Promise<void> {
    this.mem = [];
    this.res.free();
    await this.spill?.close();
    this.spill = null;
    this.writer = null;
    this.run = null;
  }
}
