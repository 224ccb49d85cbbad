/**
 * The arrays one read_parquet scan decodes its row groups' values into, when its consumer is done with
 * each batch before it pulls the next (TableFunctionImpl.execute's dropsBatches: an aggregate that keeps
 * nothing of its input). A row group's values are hundreds of kilobytes per column; allocated afresh
 * for each, they were memory the system mapped (and faulted in page by page) in each of a process's
 * first queries, until garbage collection began returning earlier groups' arrays.
 *
 * An array taken for a row group stays taken while that group is read and while the group after it is
 * decoded ahead (read-parquet.ts prefetches one group): the scan frees all but the current group's
 * arrays when it starts a group, by which time every batch cut from the earlier ones has been handed
 * out and, by the contract, dropped. New arrays come from the process-wide scratch pool the sorts
 * borrow from (execution/scratch.ts: bounded, emptied when idle), and go back to it when the scan ends,
 * so the next query's scan takes them instead of fresh memory.
 */
import { give, takeF64, takeU32 } from '../../execution/scratch.js';

type Values = Int32Array | Float64Array;

interface Slot {
  readonly i32: boolean;
  readonly buf: Values;
  /** The row group (scan-wide number) it holds values of; -1 when free. */
  group: number;
}

export class ParquetValuePool {
  private readonly slots: Slot[] = [];

  /**
   * A zeroed array of n values (Int32Array when i32, else Float64Array) for row group `group`;
   * `capacity` (at least n) is what a new array is sized for, so the group's other columns and later
   * groups of that size reuse it.
   */
  take(i32: boolean, n: number, capacity: number, group: number): Values {
    let slot: Slot | null = null;
    for (const s of this.slots) {
      if (s.group < 0 && s.i32 === i32 && s.buf.length >= n && (slot === null || s.buf.length < slot.buf.length)) slot = s;
    }
    if (slot === null) {
      const size = Math.max(n, capacity);
      const buf = i32 ? new Int32Array(takeU32(size).buffer, 0, size) : takeF64(size);
      slot = { i32, buf, group: -1 };
      this.slots.push(slot);
    }
    slot.group = group;
    const a = slot.buf.subarray(0, n);
    // Zeroed like a fresh array: NULL rows' slots hold 0, as without the pool.
    a.fill(0);
    return a;
  }

  /** Frees every array not taken for `group`: the batches cut from them have all been handed on and dropped. */
  releaseExcept(group: number): void {
    for (const s of this.slots) if (s.group !== group) s.group = -1;
  }

  /** The scan is over (every batch handed on and dropped): its arrays go back to the scratch pool. */
  finish(): void {
    for (const s of this.slots) give(s.buf instanceof Float64Array ? s.buf : new Uint32Array(s.buf.buffer, 0, s.buf.length));
    this.slots.length = 0;
  }
}
