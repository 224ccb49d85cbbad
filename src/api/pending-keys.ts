/**
 * Unique keys written by transactions still open: an INSERT (or an UPDATE giving a row a new key) of
 * a key another open transaction wrote waits for that transaction to end, as PostgreSQL's unique
 * check waits for the inserting transaction, then runs again: on the newer snapshot the key is
 * taken (the other committed: 23505) or free (it rolled back). Without this the second writer's
 * autocommit would win and the first, already told its INSERT succeeded, would fail at COMMIT.
 *
 * A key a transaction gave up (a DELETE of its row, an UPDATE of its columns) is held the same way:
 * PostgreSQL's writer of that key waits to see whether the row's deleter commits (the key is free)
 * or rolls back (it is taken), where the committed row alone would refuse it at once.
 *
 * Keys are registered per committed table (transaction copies share it), per unique key and per
 * transaction, into a key set of the transaction's own (unique-key-set.ts, the unique index's compact
 * set: a few tens of nanoseconds and about 16-32 bytes an integer key, no object per key; a key of
 * several columns made of the rows' own values, no string joined per row), dropped when the
 * transaction ends. A statement that commits as it ends (autocommit) only looks: it registers
 * nothing, as nothing of it stays uncommitted past it. A bulk INSERT … SELECT inside a block registers its batches
 * themselves (the table holds them anyway) and their keys join the set only when another session
 * first asks about that table and key, so a bulk load nobody contends with builds no second index of
 * its rows. There is no limit on how many keys a transaction holds.
 */
import type { Batch } from '../common/column.js';
import type { Value } from '../common/types.js';
import type { MemoryTable } from '../storage/memory-table.js';
import { uniqueKeySet } from '../storage/unique-index.js';
import type { UniqueKeySet } from '../storage/unique-key-set.js';
import type { LockOwner } from './row-locks.js';

/** One open transaction's uncommitted keys on one unique key of a table. */
interface Hold {
  readonly owner: LockOwner;
  readonly keys: UniqueKeySet;
  /** Batches whose keys join `keys` when another session first asks (a bulk INSERT's, read then). */
  lazy: Batch[];
}

/** Per committed table, per unique key (its columns joined by commas), the transactions holding keys on it. */
const pending = new WeakMap<MemoryTable, Map<string, Hold[]>>();

/** Batches of at least this many rows are registered by reference (Hold.lazy) rather than key by key. */
const LAZY_ROWS = 1024;

/** The rows of a statement: as value rows or as batches. */
export type KeyRows = { readonly rows: readonly (readonly Value[])[] } | { readonly batches: readonly Batch[] };

/** Rows at `positions` (ascending) of `snapshot`: the rows whose keys a DELETE, or an UPDATE of key columns, gives up. */
export interface RowsAt {
  readonly snapshot: readonly Batch[];
  readonly positions: readonly number[];
}

/** The rows at `positions` (ascending) of `snapshot`, for holdPendingKeys, which reads their keys where they are. */
export function rowsAt(snapshot: readonly Batch[], positions: readonly number[]): RowsAt {
  return { snapshot, positions };
}

/**
 * Calls `fn(b, i, null)` for each row of `src` held in a batch, `fn(null, 0, r)` for each value row
 * `r`, until it returns true.
 */
function eachRow(src: KeyRows | RowsAt, fn: (b: Batch | null, i: number, r: readonly Value[] | null) => boolean): void {
  if ('positions' in src) {
    const { snapshot, positions } = src;
    let base = 0;
    let bi = 0;
    for (const p of positions) {
      while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
      if (fn(snapshot[bi]!, p - base, null)) return;
    }
    return;
  }
  if ('rows' in src) {
    for (const r of src.rows) if (fn(null, 0, r)) return;
    return;
  }
  for (const b of src.batches) for (let i = 0; i < b.length; i++) if (fn(b, i, null)) return;
}

/** The key on `key` of a row eachRow gives, added to `set`. */
function addKey(set: UniqueKeySet, key: readonly number[], b: Batch | null, i: number, r: readonly Value[] | null): void {
  if (b !== null) set.insertRow(b, i);
  else set.insertVals(key.map((c) => r![c]!));
}

/** The keys of `h`, its lazily registered batches added first. */
function heldKeys(h: Hold): UniqueKeySet {
  if (h.lazy.length > 0) {
    const batches = h.lazy;
    h.lazy = [];
    let n = 0;
    for (const b of batches) n += b.length;
    h.keys.reserve(n);
    // addRows stops at a key the set holds (one this transaction gave up, then wrote again): on past it.
    for (const b of batches) {
      let from = 0;
      while (from < b.length) {
        const at = h.keys.addRows(b, from);
        from = at < 0 ? b.length : at + 1;
      }
    }
  }
  return h.keys;
}

/** The open transaction other than `me` that wrote, uncommitted, a key of `src` on one of `keys` (all of `t`'s when omitted). */
export function pendingKeyHolder(t: MemoryTable, src: KeyRows, me: LockOwner | null, keys: readonly (readonly number[])[] = t.uniqueKeys): LockOwner | null {
  const byKey = pending.get(t.committedTable);
  if (byKey === undefined) return null;
  for (const key of keys) {
    const holds = byKey.get(key.join(','))?.filter((h) => h.owner !== me && !h.owner.ended);
    if (holds === undefined || holds.length === 0) continue;
    const sets = holds.map(heldKeys);
    let found: LockOwner | null = null;
    eachRow(src, (b, i, r) => {
      const vals = b === null ? key.map((c) => r![c]!) : null;
      for (let s = 0; s < sets.length; s++) {
        if (vals !== null ? sets[s]!.hasVals(vals) : sets[s]!.hasRow(b!, i)) {
          found = holds[s]!.owner;
          return true;
        }
      }
      return false;
    });
    if (found !== null) return found;
  }
  return null;
}

function rowCount(src: KeyRows | RowsAt): number {
  if ('positions' in src) return src.positions.length;
  if ('rows' in src) return src.rows.length;
  let n = 0;
  for (const b of src.batches) n += b.length;
  return n;
}

/** Records `me` as the writer of the keys of `src` on `keys` until its transaction ends. */
export function holdPendingKeys(t: MemoryTable, src: KeyRows | RowsAt, me: LockOwner, keys: readonly (readonly number[])[] = t.uniqueKeys): void {
  if (keys.length === 0 || rowCount(src) === 0) return;
  const shared = t.committedTable;
  let byKey = pending.get(shared);
  if (byKey === undefined) pending.set(shared, (byKey = new Map()));
  const table = byKey;
  for (const key of keys) {
    const id = key.join(',');
    let list = table.get(id);
    if (list === undefined) table.set(id, (list = []));
    let h = list.find((x) => x.owner === me);
    if (h === undefined) {
      const hold: Hold = { owner: me, keys: uniqueKeySet(t, key), lazy: [] };
      h = hold;
      list.push(hold);
      me.onRelease(() => {
        const now = table.get(id);
        if (now === undefined) return;
        const rest = now.filter((x) => x !== hold);
        if (rest.length > 0) table.set(id, rest);
        else table.delete(id);
        if (table.size === 0 && pending.get(shared) === table) pending.delete(shared);
      });
    }
    const into = h;
    if ('batches' in src && rowCount(src) >= LAZY_ROWS) {
      for (const b of src.batches) into.lazy.push(b);
      continue;
    }
    eachRow(src, (b, i, r) => {
      addKey(into.keys, key, b, i, r);
      return false;
    });
  }
}
