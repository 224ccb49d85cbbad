/**
 * Arrays made ready before a grouped accumulator doubles into them.
 *
 * Per-group state lives in typed arrays that double when the group count passes their length. Doubling
 * an array of millions of groups copies it into fresh memory in one synchronous piece, and where the
 * first write to a page is slow (virtual machines: a few milliseconds per megabyte) that one step held
 * the event loop for 75 ms at 2M groups and 150 ms at 4M, stalling every other session of a server.
 *
 * The aggregate operator installs a reserve around each batch it feeds. Every large doubling is
 * recorded; between batches the operator calls prepare(), which allocates the array the next doubling
 * will ask for and writes the pages its copy will write, a slice at a time. Groups arrive at most one
 * per input row, so slices sized by the batch length finish before the groups reach the doubling, which
 * then copies into memory that is already mapped. A reserve that is never used is dropped with its
 * operator, having cost the writes of one array half.
 */
import { anchorShape } from '../../common/shape-anchor.js';

type Kind = 'f64' | 'i32' | 'u8';
type Typed = Float64Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

/** Below this many bytes a doubling costs well under a millisecond: not worth preparing. */
const MIN_BYTES = 1 << 21;
/** Bytes of pages written per prepared array per prepare() call. */
const SLICE_BYTES = 1 << 20;
const PAGE_BYTES = 4096;

interface Pending {
  readonly kind: Kind;
  /** Length of the array the next doubling asks for. */
  readonly length: number;
  /** Groups at which preparing starts: seven eighths of the way to the doubling. */
  readonly startAt: number;
  array: Typed | null;
  /** Bytes of the array whose pages have been written. */
  touched: number;
  /**
   * Bytes to write ahead: the part the doubling writes in one piece. The rest is written by later
   * updates, a group at a time, so a doubling that never comes costs only this much.
   */
  readonly touch: number;
}

const BYTES: Record<Kind, number> = { f64: 8, i32: 4, u8: 1 };

function allocate(kind: Kind, length: number): Typed {
  return kind === 'f64' ? new Float64Array(length) : kind === 'i32' ? new Int32Array(length) : new Uint8Array(length);
}

export class GrowthReserve {
  private pending: Pending[] = [];

  /**
   * Called by a doubling that produced an array of `length`: the next one will ask for twice that and
   * copy `length` elements into its lower half; a non-zero `fill` writes the upper half as well.
   */
  expect(kind: Kind, length: number, fill: boolean): void {
    if (length * BYTES[kind] < MIN_BYTES) return;
    const touch = (fill ? 2 * length : length) * BYTES[kind];
    this.pending.push({ kind, length: length * 2, startAt: length - length / 8, array: null, touched: 0, touch });
  }

  /** A prepared array of exactly this kind and length, all zeros, or null. */
  take(kind: Kind, length: number): Typed | null {
    const i = this.pending.findIndex((p) => p.kind === kind && p.length === length && p.array !== null);
    if (i < 0) return null;
    const p = this.pending[i]!;
    this.pending.splice(i, 1);
    return p.array;
  }

  /**
   * Advances preparation for the arrays whose doubling is near at `groups` groups, when batches add at
   * most `rows` groups each: the slice is sized so the array is ready before the groups can reach it.
   */
  prepare(groups: number, rows: number): void {
    for (const p of this.pending) {
      if (groups < p.startAt) continue;
      const bytes = p.touch;
      if (p.touched >= bytes) continue;
      p.array ??= allocate(p.kind, p.length);
      // From startAt to the doubling are length / 16 groups: at least that many / rows batches.
      const calls = Math.max(1, Math.floor(p.length / 16 / Math.max(1, rows)));
      const slice = Math.max(SLICE_BYTES, Math.ceil((2 * bytes) / calls));
      // Writing a zero maps the page; the array's contents stay all zeros.
      const bytesView = new Uint8Array(p.array.buffer);
      const end = Math.min(bytes, p.touched + slice);
      for (let b = p.touched; b < end; b += PAGE_BYTES) bytesView[b] = 0;
      p.touched = end;
    }
  }
}

let active: GrowthReserve | null = null;

/** Runs `fn` with `reserve` receiving and serving the doublings it causes. */
export function withGrowthReserve<T>(reserve: GrowthReserve, fn: () => T): T {
  const outer = active;
  active = reserve;
  try {
    return fn();
  } finally {
    active = outer;
  }
}

/** A zeroed array of `length` for a doubling: a prepared one when the active reserve has it. */
export function allocateForGrowth(kind: 'f64', length: number, fill: boolean): Float64Array<ArrayBuffer>;
export function allocateForGrowth(kind: 'i32', length: number, fill: boolean): Int32Array<ArrayBuffer>;
export function allocateForGrowth(kind: 'u8', length: number, fill: boolean): Uint8Array<ArrayBuffer>;
export function allocateForGrowth(kind: Kind, length: number, fill: boolean): Typed {
  const r = active;
  if (r === null) return allocate(kind, length);
  const a = r.take(kind, length) ?? allocate(kind, length);
  r.expect(kind, length, fill);
  return a;
}

// One reserve per aggregate operator and statement: a lasting instance keeps its shape, and so the
// optimized aggregate loops that check it, alive across full GCs (see shape-anchor.ts).
anchorShape(new GrowthReserve());
