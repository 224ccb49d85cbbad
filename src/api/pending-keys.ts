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
 * transaction, into a key set of the transaction's own (key-set.ts, the unique index's compact set: a few tens of
 * nanoseconds and about 16-32 bytes an integer key, no object per key), dropped when the transaction
 * ends. A statement that commits as it ends (autocommit) only looks: it registers nothing, as nothing
 * of it stays uncommitted past it. A bulk INSERT … SELECT inside a block registers its batches
 * themselves (the table holds them anyway) and their keys join the set only when another session
 * first asks about that table and key, so a bulk load nobody contends with builds no second index of
 * its rows. There is no limit on how many keys a transaction holds.
 */
import type { Batch } from '../common/column.js';
import type { Value } from '../common/types.js';
import type { MemoryTable } from '../storage/memory-table.js';
import { KeySet } from '../storage/key-set.js';
import { batchRowKey, indexKey } from '../storage/unique-index.js';
import type { LockOwner } from './row-locks.js';

type KeyValue = number | string;

/** One open transaction's uncommitted keys on one unique key of a table. */
interface Hold {
  readonly owner: LockOwner;
  readonly keys: KeySet;
  /** Batches whose keys join `keys` when another session first asks (a bulk INSERT's, read then). */
  lazy: Batch[];
  /** The table (a transaction's copy) the batches are rows of, for their keys. */
  readonly table: MemoryTable;
  readonly key: readonly number[];
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

function eachKey(t: MemoryTable, key: readonly number[], src: KeyRows | RowsAt, fn: (k: KeyValue) => boolean): void {
  if ('positions' in src) {
    const { snapshot, positions } = src;
    let base = 0;
    let bi = 0;
    for (const p of positions) {
      while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
      const k = batchRowKey(t, key, snapshot[bi]!, p - base);
      if (k !== null && fn(k)) return;
    }
    return;
  }
  if ('rows' in src) {
    for (const r of src.rows) {
      const k = indexKey(t, key, key.map((c) => r[c]!));
      if (k !== null && fn(k)) return;
    }
    return;
  }
  for (const b of src.batches) {
    for (let i = 0; i < b.length; i++) {
      const k = batchRowKey(t, key, b, i);
      if (k !== null && fn(k)) return;
    }
  }
}

/** The keys of `h`, its lazily registered batches added first. */
function heldKeys(h: Hold): KeySet {
  if (h.lazy.length > 0) {
    const batches = h.lazy;
    h.lazy = [];
    let n = 0;
    for (const b of batches) n += b.length;
    h.keys.reserve(n);
    eachKey(h.table, h.key, { batches }, (k) => {
      h.keys.add(k);
      return false;
    });
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
    eachKey(t, key, src, (k) => {
      for (let i = 0; i < sets.length; i++) {
        if (sets[i]!.has(k)) {
          found = holds[i]!.owner;
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
      const hold: Hold = { owner: me, keys: new KeySet(), lazy: [], table: t, key };
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
    eachKey(t, key, src, (k) => {
      into.keys.add(k);
      return false;
    });
  }
}
