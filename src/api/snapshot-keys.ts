/**
 * Unique keys under REPEATABLE READ: a key another transaction committed after this transaction's
 * snapshot is taken, although the snapshot never shows its row. PostgreSQL's unique index sees every
 * committed row, so the INSERT (or the UPDATE giving a row that key) fails at once with 23505, and
 * an INSERT … ON CONFLICT, which cannot skip or update a row its snapshot does not show, with 40001.
 * Without this check the statement succeeded and the transaction failed only at its COMMIT.
 *
 * READ COMMITTED needs none of it: each statement starts from the latest committed rows, and a key
 * committed while one runs is caught by the pending-key wait (pending-keys.ts) or at COMMIT.
 */
import { QuireError } from '../common/errors.js';
import { getValue } from '../common/column.js';
import type { Value } from '../common/types.js';
import type { MemoryTable } from '../storage/memory-table.js';
import { duplicateKey, indexKey, keysCommittedSince } from '../storage/unique-index.js';
import type { KeyRows } from './pending-keys.js';
import type { UtilityHost } from './utility.js';

/**
 * Throws when a row of `src` (rows the statement is about to write into `t`) has a key on one of
 * `keys` that a transaction committed after this one's snapshot: 23505 naming the key, or 40001 for
 * an ON CONFLICT statement (`onConflict`).
 */
export function checkKeysCommittedSince(host: UtilityHost, t: MemoryTable, src: KeyRows, onConflict: boolean, keys: readonly (readonly number[])[] = t.uniqueKeys): void {
  if (keys.length === 0) return;
  const base = host.snapshotBase(t);
  if (base === null) return;
  for (const key of keys) {
    const taken = keysCommittedSince(t, key, base);
    if (taken === null) continue;
    const check = (vals: readonly Value[]): void => {
      const k = indexKey(t, key, vals);
      if (k === null || !taken(k)) return;
      if (onConflict) {
        throw new QuireError('40001', 'could not serialize access due to concurrent update', {
          detail: `Another transaction committed the key of table "${t.name}" after this transaction's snapshot.`,
        });
      }
      throw duplicateKey(t, key, vals);
    };
    if ('rows' in src) {
      for (const r of src.rows) check(key.map((c) => r[c]!));
    } else {
      for (const b of src.batches) for (let i = 0; i < b.length; i++) check(key.map((c) => getValue(b.columns[c]!, i)));
    }
  }
}
