/**
 * HashPartitions: rows written out to a fixed number of spill runs, each row to the run its caller
 * picked (a hash of its group key), to be read back one partition at a time (hybrid hash aggregation).
 *
 * Rows are gathered per partition into frames of FRAME_ROWS before they are encoded, so that a batch
 * spread over many partitions does not become many tiny frames; the gathered rows are reserved from the
 * statement's pool (forced: they exist already, and at most FRAME_ROWS per partition are held).
 */
import type { DataType } from '../../common/types.js';
import { batchBytes, queryMemory, type MemoryReservation } from '../memory-pool.js';
import { concatBatches, takeColumn, type Batch } from '../../common/column.js';
import type { ExecContext } from '../context.js';
import type { RunWriter, SpillRun } from './run-file.js';
import type { SpillManager } from './spill-manager.js';

const FRAME_ROWS = 4096;

export class HashPartitions {
  private readonly writers: (RunWriter | null)[];
  private readonly pending: Batch[][];
  private readonly pendingRows: number[];
  private readonly pendingBytes: number[];
  private readonly res: MemoryReservation;
  private readonly sel: Uint32Array[];
  /** Rows written per partition. */
  readonly rows: number[];

  constructor(
    private readonly spill: SpillManager,
    readonly types: readonly DataType[],
    readonly parts: number,
    ctx: ExecContext,
  ) {
    this.writers = new Array<RunWriter | null>(parts).fill(null);
    this.pending = Array.from({ length: parts }, () => []);
    this.pendingRows = new Array<number>(parts).fill(0);
    this.pendingBytes = new Array<number>(parts).fill(0);
    this.rows = new Array<number>(parts).fill(0);
    this.sel = Array.from({ length: parts }, () => new Uint32Array(0));
    this.res = queryMemory(ctx).pool.register('hash partitions', true);
  }

  /**
   * Writes the rows of `batch` whose entry in `part` is not negative to that partition (rows with a
   * negative entry are not written); `part` holds one entry per row.
   */
  async add(batch: Batch, part: Int8Array | Uint8Array): Promise<void> {
    const n = batch.length;
    const counts = new Uint32Array(this.parts);
    for (let i = 0; i < n; i++) {
      const p = part[i]!;
      if (p >= 0) counts[p]!++;
    }
    for (let p = 0; p < this.parts; p++) if (this.sel[p]!.length < counts[p]!) this.sel[p] = new Uint32Array(Math.max(counts[p]!, 1024));
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const p = part[i]!;
      if (p >= 0) this.sel[p]![counts[p]!++] = i;
    }
    for (let p = 0; p < this.parts; p++) {
      const m = counts[p]!;
      if (m === 0) continue;
      const rows: Batch = m === n ? batch : { columns: batch.columns.map((c) => takeColumn(c, this.sel[p]!, m)), length: m };
      await this.push(p, rows);
    }
  }

  private async push(p: number, b: Batch): Promise<void> {
    const bytes = batchBytes(b);
    this.res.forceGrow(bytes);
    this.pending[p]!.push(b);
    this.pendingRows[p]! += b.length;
    this.pendingBytes[p]! += bytes;
    this.rows[p]! += b.length;
    if (this.pendingRows[p]! >= FRAME_ROWS) await this.flush(p);
  }

  private async flush(p: number): Promise<void> {
    const list = this.pending[p]!;
    if (list.length === 0) return;
    const frame = list.length === 1 ? list[0]! : concatBatches(this.types, list);
    const w = (this.writers[p] ??= await this.spill.createRun(this.types));
    this.pending[p] = [];
    this.pendingRows[p] = 0;
    this.res.shrink(this.pendingBytes[p]!);
    this.pendingBytes[p] = 0;
    await w.append(frame);
  }

  /** Finishes every partition: the runs, by partition (null where no row went). */
  async finish(): Promise<(SpillRun | null)[]> {
    const out: (SpillRun | null)[] = [];
    for (let p = 0; p < this.parts; p++) {
      await this.flush(p);
      const w = this.writers[p]!;
      out.push(w === null ? null : await this.spill.finishRun(w));
      this.writers[p] = null;
    }
    this.res.free();
    return out;
  }

  /** Drops gathered rows and their reservation (error paths; the SpillManager deletes the files). */
  release(): void {
    for (let p = 0; p < this.parts; p++) this.pending[p] = [];
    this.res.free();
  }
}
