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
 * out and, by the contract, dropped. When the scan ends its arrays go to a process-wide store of
 * spares (bounded), from which the next scan takes before allocating.
 */

type Values = Int32Array | Float64Array;

interface Slot {
  readonly i32: boolean;
  readonly buf: Values;
  /** The row group (scan-wide number) it holds values of; -1 when free. */
  group: number;
}

/** Spares of finished scans, by storage kind; at most SPARE_BYTES_MAX bytes in all. */
const spares: Values[] = [];
let spareBytes = 0;
const SPARE_BYTES_MAX = 64 << 20;

function takeSpare(i32: boolean, n: number): Values | null {
  let best = -1;
  for (let i = 0; i < spares.length; i++) {
    const s = spares[i]!;
    if (s instanceof Int32Array === i32 && s.length >= n && (best < 0 || s.length < spares[best]!.length)) best = i;
  }
  if (best < 0) return null;
  const s = spares[best]!;
  spares.splice(best, 1);
  spareBytes -= s.byteLength;
  return s;
}

function giveSpare(buf: Values): void {
  if (spareBytes + buf.byteLength > SPARE_BYTES_MAX) return;
  spares.push(buf);
  spareBytes += buf.byteLength;
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
      const buf = takeSpare(i32, n) ?? (i32 ? new Int32Array(size) : new Float64Array(size));
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

  /** The scan is over: its arrays become spares for the next scan. */
  finish(): void {
    for (const s of this.slots) giveSpare(s.buf);
    this.slots.length = 0;
  }
}
