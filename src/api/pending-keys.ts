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
 * Keys are registered per committed table (transaction copies share it) and per unique key, and
 * dropped when their transaction ends. A statement that commits as it ends (autocommit) only looks:
 * it registers nothing, as nothing of it stays uncommitted past it. A transaction registers at most
 * MAX_HELD keys: a bulk load inside a block does not build a second index of its rows, and a key past
 * that is caught when the second of two writers commits (23505 at its COMMIT), as before.
 */
import { getValue, type Batch } from '../common/column.js';
import type { Value } from '../common/types.js';
import type { MemoryTable } from '../storage/memory-table.js';
import { batchRowKey, indexKey } from '../storage/unique-index.js';
import type { LockOwner } from './row-locks.js';

type KeyValue = number | string;

/** Per committed table, per unique key (its columns joined by commas), who wrote each uncommitted key. */
const pending = new WeakMap<MemoryTable, Map<string, Map<KeyValue, LockOwner>>>();

const MAX_HELD = 100_000;

/** How many keys each open transaction registered. */
const heldBy = new WeakMap<LockOwner, number>();

/** The rows of a statement: as value rows or as batches. */
export type KeyRows = { readonly rows: readonly (readonly Value[])[] } | { readonly batches: readonly Batch[] };

/**
 * The rows at `positions` (ascending) of `snapshot`, as rows holding the columns of `t`'s unique keys
 * (others left empty), for holdPendingKeys: the keys a DELETE, or an UPDATE of key columns, gives
 * up. At most MAX_HELD rows, as no more keys are held.
 */
export function rowsAt(t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[]): KeyRows {
  const cols = [...new Set(t.uniqueKeys.flat())];
  const rows: Value[][] = [];
  let base = 0;
  let bi = 0;
  for (const p of positions) {
    if (rows.length >= MAX_HELD) break;
    while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
    const b = snapshot[bi]!;
    const row: Value[] = new Array<Value>(t.schema.length).fill(null);
    for (const c of cols) row[c] = getValue(b.columns[c]!, p - base);
    rows.push(row);
  }
  return { rows };
}

function eachKey(t: MemoryTable, key: readonly number[], src: KeyRows, fn: (k: KeyValue) => boolean): void {
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

/** The open transaction other than `me` that wrote, uncommitted, a key of `src` on one of `keys` (all of `t`'s when omitted). */
export function pendingKeyHolder(t: MemoryTable, src: KeyRows, me: LockOwner | null, keys: readonly (readonly number[])[] = t.uniqueKeys): LockOwner | null {
  const byKey = pending.get(t.committedTable);
  if (byKey === undefined) return null;
  for (const key of keys) {
    const owners = byKey.get(key.join(','));
    if (owners === undefined) continue;
    let found: LockOwner | null = null;
    eachKey(t, key, src, (k) => {
      const o = owners.get(k);
      if (o !== undefined && o !== me && !o.ended) found = o;
      return found !== null;
    });
    if (found !== null) return found;
  }
  return null;
}

/** Records `me` as the writer of the keys of `src` on `keys` until its transaction ends. */
export function holdPendingKeys(t: MemoryTable, src: KeyRows, me: LockOwner, keys: readonly (readonly number[])[] = t.uniqueKeys): void {
  let count = heldBy.get(me) ?? 0;
  if (keys.length === 0 || count >= MAX_HELD) return;
  const shared = t.committedTable;
  let byKey = pending.get(shared);
  if (byKey === undefined) pending.set(shared, (byKey = new Map()));
  const held: [Map<KeyValue, LockOwner>, KeyValue][] = [];
  for (const key of keys) {
    const id = key.join(',');
    let owners = byKey.get(id);
    if (owners === undefined) byKey.set(id, (owners = new Map()));
    const m = owners;
    eachKey(t, key, src, (k) => {
      if (m.get(k) !== me) {
        m.set(k, me);
        held.push([m, k]);
      }
      return ++count >= MAX_HELD;
    });
  }
  heldBy.set(me, count);
  if (held.length === 0) return;
  const table = byKey;
  me.onRelease(() => {
    for (const [m, k] of held) if (m.get(k) === me) m.delete(k);
    for (const [id, m] of table) if (m.size === 0) table.delete(id);
    if (table.size === 0 && pending.get(shared) === table) pending.delete(shared);
  });
}
