/**
 * Unique keys under REPEATABLE READ, where the transaction's snapshot and the committed rows part
 * ways. PostgreSQL's unique index sees every committed row whatever the snapshot:
 * - a key another transaction committed after this one's snapshot is taken, although the snapshot
 *   never shows its row: the INSERT (or the UPDATE giving a row that key) fails at once with 23505,
 *   and an INSERT … ON CONFLICT, which cannot skip or update a row its snapshot does not show, with
 *   40001 (without this check the statement succeeded and the transaction failed only at COMMIT);
 * - a key whose row another transaction deleted (or moved to another key) and committed after the
 *   snapshot is free, although the snapshot still shows the row: the INSERT goes in, and a later
 *   SELECT shows the old row next to the new one. Such rows (staleRows) are left out of the rows
 *   this transaction's writes are checked against. A row another transaction only updated is stale
 *   too, but its new version holds the key: taken, by a row the snapshot does not show.
 *
 * READ COMMITTED needs none of it: each statement starts from the latest committed rows, and a key
 * committed while one runs is caught by the pending-key wait (pending-keys.ts) or at COMMIT.
 */
import { QuireError } from '../common/errors.js';
import { getValue, type Batch } from '../common/column.js';
import type { Value } from '../common/types.js';
import { rowIdentity, type MemoryTable } from '../storage/memory-table.js';
import { checkUniqueKeys, checkUpdatedKeys, duplicateKey, keysCommittedSince } from '../storage/unique-index.js';
import type { KeyRows } from './pending-keys.js';
import { byIdentity, followRow, type RowRef } from './row-lineage.js';
import { rowPicker } from './row-merge.js';
import type { UtilityHost } from './utility.js';

/** Rows of a REPEATABLE READ snapshot that others' commits since changed or deleted. */
export interface StaleRows {
  /** Where they are in the transaction's rows (its snapshot with its own changes). */
  readonly positions: ReadonlySet<number>;
  /** Each one as the snapshot holds it. */
  readonly rows: readonly RowRef[];
}

/** The last answer per transaction copy of a table: statements ask for it several times. */
const lastStale = new WeakMap<MemoryTable, { base: readonly Batch[]; current: readonly Batch[]; snapshot: readonly Batch[]; stale: StaleRows | null }>();

/**
 * The rows of this transaction's REPEATABLE READ snapshot of `t` that transactions committed since
 * changed or deleted, located in `snapshot` (the transaction's rows of `t`); null when there are none
 * (READ COMMITTED, nothing committed since, or rows only appended). A row whose way into the committed
 * rows cannot be followed (row-lineage.ts) counts as changed: its key is then taken only if a
 * committed row holds it, which refuses where PostgreSQL might not, never the other way.
 */
export function staleRows(host: UtilityHost, t: MemoryTable, snapshot: readonly Batch[] = t.snapshot()): StaleRows | null {
  if (t.uniqueKeys.length === 0) return null;
  const base = host.snapshotBase(t);
  if (base === null) return null;
  const current = t.committedSnapshot();
  if (t.grewFrom(current, base)) return null;
  const last = lastStale.get(t);
  if (last !== undefined && last.base === base && last.current === current && last.snapshot === snapshot) return last.stale;
  const currentIds = byIdentity(current);
  let snapIds: Map<object, Batch> | null = null;
  let starts: Map<Batch, number> | null = null;
  const positions = new Set<number>();
  const rows: RowRef[] = [];
  for (const b of base) {
    // A batch still committed whole (perhaps extended by later appends) kept every row unchanged.
    const kept = currentIds.get(rowIdentity(b));
    if (kept !== undefined && kept.length >= b.length) continue;
    for (let i = 0; i < b.length; i++) {
      const ref = { batch: b, index: i };
      if (followRow(currentIds, ref, true) !== null) continue;
      rows.push(ref);
      if (snapIds === null || starts === null) {
        snapIds = byIdentity(snapshot);
        starts = new Map();
        let n = 0;
        for (const sb of snapshot) {
          starts.set(sb, n);
          n += sb.length;
        }
      }
      // Not found: this transaction deleted the row itself (or its own rewrite lost the way).
      const at = followRow(snapIds, ref, true);
      if (at !== null) positions.add(starts.get(at.batch)! + at.index);
    }
  }
  const stale = rows.length === 0 ? null : { positions, rows };
  lastStale.set(t, { base, current, snapshot, stale });
  return stale;
}

const pick = rowPicker((b) => b);

/** `snapshot` without the rows at `skip` and at `also`: the rows a write is checked against. */
export function liveRows(snapshot: readonly Batch[], skip: ReadonlySet<number>, also: readonly number[] = []): Batch[] {
  const gone = also.length === 0 ? skip : new Set([...skip, ...also]);
  const out: Batch[] = [];
  let start = 0;
  for (const b of snapshot) {
    const keep: number[] = [];
    for (let i = 0; i < b.length; i++) if (!gone.has(start + i)) keep.push(i);
    start += b.length;
    if (keep.length === b.length) out.push(b);
    else if (keep.length > 0) out.push(pick(b, keep));
  }
  return out;
}

/**
 * The rows of `t` this transaction's writes are checked against: its own, without the stale ones
 * of its snapshot (staleRows).
 */
export function keyCheckRows(host: UtilityHost, t: MemoryTable, snapshot: readonly Batch[] = t.snapshot()): readonly Batch[] {
  const stale = staleRows(host, t, snapshot);
  return stale === null ? snapshot : liveRows(snapshot, stale.positions);
}

/**
 * checkUpdatedKeys (unique-index.ts) of an UPDATE of rows `positions` of `snapshot` to `newRows`
 * (`gone`: rows it deletes besides, for a referential action): with stale rows in the snapshot, the
 * new versions are checked against the other rows minus the stale ones, without the index.
 */
export function checkRewrittenKeys(host: UtilityHost, t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[], newRows: readonly (readonly Value[])[], assigned: readonly number[], out: readonly Batch[], gone: readonly number[] = positions): void {
  const stale = staleRows(host, t, snapshot);
  if (stale === null) return checkUpdatedKeys(t, snapshot, positions, newRows, assigned, out);
  checkUniqueKeys(t, newRows, liveRows(snapshot, stale.positions, gone));
}

/**
 * Throws when a row of `src` (rows the statement is about to write into `t`) has a key on one of
 * `keys` that a transaction committed after this one's snapshot: 23505 naming the key, or 40001 for
 * an ON CONFLICT statement (`onConflict`).
 */
export function checkKeysCommittedSince(host: UtilityHost, t: MemoryTable, src: KeyRows, onConflict: boolean, keys: readonly (readonly number[])[] = t.uniqueKeys): void {
  if (keys.length === 0) return;
  const base = host.snapshotBase(t);
  if (base === null) return;
  const stale = staleRows(host, t)?.rows ?? [];
  for (const key of keys) {
    const taken = keysCommittedSince(t, key, base, stale);
    if (taken === null) continue;
    const check = (vals: readonly Value[]): void => {
      if (!taken(vals)) return;
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
