/**
 * Row identity across rewrites, for WHERE CURRENT OF, row locks and the row-level merge of
 * concurrent rewrites at COMMIT (row-merge.ts).
 *
 * A table is a list of immutable batches, so a row is identified by its batch and its index there.
 * UPDATE and DELETE replace the batches they touch; they record here where each row of a replaced
 * batch went (or that it was deleted), which lets a cursor's row be found again after its own
 * transaction updated it, as PostgreSQL follows a tuple's update chain. A batch may have several
 * successors (two transactions rewriting it; one of them will fail at COMMIT or roll back): the
 * one that leads into the snapshot being searched is the right one.
 */
import type { Batch } from '../common/column.js';
import { carryLocks, hasLocks } from './row-locks.js';
import { rowIdentity } from '../storage/memory-table.js';

export interface RowRef {
  readonly batch: Batch;
  readonly index: number;
}

interface Successor {
  /**
   * Batches the rows went to. Weak: a rolled-back rewrite's batches must not live on through the
   * batch they replaced (which stays in the table).
   */
  readonly to: readonly WeakRef<Batch>[];
  /** Per row of the replaced batch: index into `to`, or -1 when the row was deleted. */
  readonly which: Int32Array;
  /** Per row: its index in that batch. */
  readonly index: Int32Array;
  /** Per row: 1 when it went as a new version (UPDATE), 0 when it only moved with its batch. */
  readonly changed: Uint8Array;
}

/**
 * Keyed by the replaced batch's row identity (memory-table.ts): a commit that filled an open last
 * batch published a longer copy of it, and a row named through the shorter copy must find the moves
 * a rewrite of the longer one recorded.
 */
const successors = new WeakMap<object, Successor[]>();

/** The recorded moves of the batch a row `index` of `b` is in (those that cover that row). */
function movesOf(b: Batch, index: number): Successor[] {
  const list = successors.get(rowIdentity(b));
  if (list === undefined) return [];
  return list.filter((s) => index < s.which.length);
}

/** Records that the rows of `from` moved: row i to `to[which[i]]` at `index[i]`, or nowhere when which[i] is -1. */
function recordMoves(from: Batch, s: Successor): void {
  const key = rowIdentity(from);
  let list = successors.get(key);
  if (list === undefined) successors.set(key, (list = []));
  // Rewrites whose batches are all gone (rolled back, or replaced since) lead nowhere.
  const live = list.filter((x) => x.to.some((r) => r.deref() !== undefined));
  if (live.length !== list.length) successors.set(key, (list = live));
  list.push(s);
}

/**
 * Collects row moves while a statement rebuilds a table's batches: `moved` for a row that goes to
 * a new place, `deleted` for one that goes; batches no row of which was touched need no record.
 */
export class MoveLog {
  /** Per touched batch: each row's output slot (-1: deleted), index there, and whether it is a new version. */
  private readonly moves = new Map<Batch, { slot: Int32Array; index: Int32Array; changed: Uint8Array }>();
  private readonly pending: (Batch | null)[] = [];

  /** A placeholder for an output batch not built yet; returns its slot. */
  slot(): number {
    this.pending.push(null);
    return this.pending.length - 1;
  }

  fill(slot: number, b: Batch): void {
    this.pending[slot] = b;
  }

  private entry(from: Batch): { slot: Int32Array; index: Int32Array; changed: Uint8Array } {
    let e = this.moves.get(from);
    if (e === undefined) {
      e = { slot: new Int32Array(from.length).fill(-1), index: new Int32Array(from.length), changed: new Uint8Array(from.length) };
      this.moves.set(from, e);
    }
    return e;
  }

  /** `changed`: the row moved as its new version (UPDATE), not only with its batch. */
  moved(from: Batch, row: number, slot: number, index: number, changed = false): void {
    const e = this.entry(from);
    e.slot[row] = slot;
    e.index[row] = index;
    e.changed[row] = changed ? 1 : 0;
  }

  /** The row goes (DELETE); rows of a touched batch not moved are deleted anyway. */
  deleted(from: Batch): void {
    this.entry(from);
  }

  /** Writes the collected moves (call once every slot is filled). */
  commit(): void {
    for (const [from, e] of this.moves) {
      const slots: number[] = [];
      const which = new Int32Array(from.length);
      for (let i = 0; i < from.length; i++) {
        const sl = e.slot[i]!;
        if (sl < 0) {
          which[i] = -1;
          continue;
        }
        let w = slots.indexOf(sl);
        if (w < 0) w = slots.push(sl) - 1;
        which[i] = w;
      }
      const to = slots.map((sl) => this.pending[sl]!);
      const locked = hasLocks(from);
      if (locked) {
        carryLocks(from, to, which, e.index);
      }
      recordMoves(from, { to: to.map((b) => new WeakRef(b)), which, index: e.index, changed: e.changed });
    }
  }
}

/**
 * The position (0-based, in batch order) of `ref` in `snapshot` after the moves recorded since, or
 * null when the row was deleted or is not in that snapshot.
 */
export function locateRow(snapshot: readonly Batch[], ref: RowRef): number | null {
  const base = new Map<Batch, number>();
  let n = 0;
  for (const b of snapshot) {
    base.set(b, n);
    n += b.length;
  }
  // Successors are always new batches, so the walk has no cycles.
  const find = (batch: Batch, index: number): number | null => {
    const at = base.get(batch);
    if (at !== undefined) return at + index;
    for (const s of movesOf(batch, index)) {
      const w = s.which[index]!;
      const next = w < 0 ? undefined : s.to[w]!.deref();
      if (next === undefined) continue;
      const r = find(next, s.index[index]!);
      if (r !== null) return r;
    }
    return null;
  };
  return find(ref.batch, ref.index);
}

/**
 * Whether the row `ref` was updated or deleted on its way into `snapshot` (or is not there at all),
 * rather than found as it was.
 */
export function rowChanged(snapshot: readonly Batch[], ref: RowRef): boolean {
  const present = new Set(snapshot);
  const unchanged = (batch: Batch, index: number): boolean => {
    if (present.has(batch)) return true;
    for (const s of movesOf(batch, index)) {
      const w = s.which[index]!;
      const next = w < 0 ? undefined : s.to[w]!.deref();
      if (next !== undefined && s.changed[index] === 0 && unchanged(next, s.index[index]!)) return true;
    }
    return false;
  };
  return !unchanged(ref.batch, ref.index);
}

/**
 * Where row `ref` is now among `present` (batches by their row identity, memory-table.ts, so a batch
 * later commits extended still holds its rows), following recorded moves; null when it was deleted,
 * is not there, or (`unchangedOnly`) got there only as a new version. Moves whose record is gone (no
 * lock or cursor asked for one, or their batches were collected) lead nowhere: callers treat that
 * as a change, which can only make them refuse, never merge wrongly.
 */
export function followRow(present: ReadonlyMap<object, Batch>, ref: RowRef, unchangedOnly: boolean): RowRef | null {
  const find = (batch: Batch, index: number): RowRef | null => {
    const here = present.get(rowIdentity(batch));
    if (here !== undefined && index < here.length) return { batch: here, index };
    for (const s of movesOf(batch, index)) {
      const w = s.which[index]!;
      const next = w < 0 ? undefined : s.to[w]!.deref();
      if (next === undefined || (unchangedOnly && s.changed[index] === 1)) continue;
      const r = find(next, s.index[index]!);
      if (r !== null) return r;
    }
    return null;
  };
  return find(ref.batch, ref.index);
}

/** Batches by their row identity, for followRow. */
export function byIdentity(batches: readonly Batch[]): Map<object, Batch> {
  const m = new Map<object, Batch>();
  for (const b of batches) m.set(rowIdentity(b), b);
  return m;
}

/** The row at 0-based `position` of `snapshot`. */
export function rowAt(snapshot: readonly Batch[], position: number): RowRef {
  let p = position;
  for (const b of snapshot) {
    if (p < b.length) return { batch: b, index: p };
    p -= b.length;
  }
  throw new RangeError(`row ${position} is past the snapshot's end`);
}

