/**
 * Row locks taken by SELECT … FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE (and by cursors over
 * such queries), held until the transaction ends, with PostgreSQL's conflict table between the four
 * strengths.
 *
 * A row is its batch and its index there (row-lineage.ts); batches are shared by every transaction
 * that has not rewritten them, so a lock taken through one transaction's view of a table is found
 * through another's. UPDATE and DELETE check the rows they are about to change: a row another open
 * transaction has locked in a conflicting strength makes the statement wait for that transaction to
 * end and then run again on a fresh snapshot (or fail at once under NOWAIT, 55P03). Plain UPDATE and
 * DELETE take no row locks themselves: two transactions rewriting one table still meet at COMMIT,
 * where the second fails with 40001 (transaction.ts).
 */
import { QuireError } from '../common/errors.js';
import type { Batch } from '../common/column.js';
import type { LockStrength, LockWait } from '../sql/locking-clause.js';
import type { RowRef } from './row-lineage.js';

interface Hold {
  readonly owner: LockOwner;
  strength: LockStrength;
}

/** Which held strengths a requested one conflicts with (PostgreSQL's row-level lock table). */
const CONFLICTS: Record<LockStrength, readonly LockStrength[]> = {
  'key share': ['update'],
  share: ['no key update', 'update'],
  'no key update': ['share', 'no key update', 'update'],
  update: ['key share', 'share', 'no key update', 'update'],
};

const RANK: Record<LockStrength, number> = { 'key share': 0, share: 1, 'no key update': 2, update: 3 };

const holds = new WeakMap<Batch, Map<number, Hold[]>>();

/** The locks of one transaction; released (and its waiters woken) when it ends. */
export class LockOwner {
  private readonly rows: RowRef[] = [];
  private done = false;
  private readonly waiters: (() => void)[] = [];
  /** The owner this one is waiting for, for deadlock detection. */
  waitingFor: LockOwner | null = null;

  get ended(): boolean {
    return this.done;
  }

  /** Records a lock (the caller checked for conflicts). */
  add(ref: RowRef, strength: LockStrength): void {
    let m = holds.get(ref.batch);
    if (m === undefined) holds.set(ref.batch, (m = new Map()));
    let list = m.get(ref.index);
    if (list === undefined) m.set(ref.index, (list = []));
    const mine = list.find((h) => h.owner === this);
    if (mine !== undefined) {
      if (RANK[strength] > RANK[mine.strength]) mine.strength = strength;
      return;
    }
    list.push({ owner: this, strength });
    this.rows.push(ref);
  }

  /** Drops every lock and wakes the statements waiting for them. */
  release(): void {
    if (this.done) return;
    this.done = true;
    for (const r of this.rows) {
      const m = holds.get(r.batch);
      const list = m?.get(r.index);
      if (list === undefined) continue;
      const rest = list.filter((h) => h.owner !== this);
      if (rest.length === 0) m!.delete(r.index);
      else m!.set(r.index, rest);
    }
    this.rows.length = 0;
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when this owner's transaction ends. */
  whenEnded(): Promise<void> {
    if (this.done) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** Whether any row of `batch` is locked (by anyone, ended or not). */
export function hasLocks(batch: Batch): boolean {
  const m = holds.get(batch);
  return m !== undefined && m.size > 0;
}

/**
 * The first open transaction other than `me` holding, in a strength that conflicts with
 * `strength`, a row of `snapshot` whose position `hit` accepts. Looks only at batches with locks.
 */
export function holderAmong(snapshot: readonly Batch[], hit: (position: number) => boolean, strength: LockStrength, me: LockOwner): LockOwner | null {
  let base = 0;
  for (const batch of snapshot) {
    const m = holds.get(batch);
    if (m !== undefined) {
      for (const [index, list] of m) {
        if (!hit(base + index)) continue;
        for (const h of list) if (h.owner !== me && !h.owner.ended && CONFLICTS[strength].includes(h.strength)) return h.owner;
      }
    }
    base += batch.length;
  }
  return null;
}

/**
 * A row moved to a new batch (its batch was rewritten, or it was updated): the locks on it go with
 * it, so rewriting a batch does not free the other rows locked in it.
 */
export function carryLocks(from: RowRef, to: RowRef): void {
  const list = holds.get(from.batch)?.get(from.index);
  if (list === undefined) return;
  for (const h of list) if (!h.owner.ended) h.owner.add(to, h.strength);
}

/** An open transaction other than `me` holding `ref` in a strength that conflicts with `strength`. */
export function conflictingHolder(ref: RowRef, strength: LockStrength, me: LockOwner): LockOwner | null {
  const list = holds.get(ref.batch)?.get(ref.index);
  if (list === undefined) return null;
  for (const h of list) {
    if (h.owner !== me && !h.owner.ended && CONFLICTS[strength].includes(h.strength)) return h.owner;
  }
  return null;
}

export function lockNotAvailable(table: string): QuireError {
  return new QuireError('55P03', `could not obtain lock on row in relation "${table}"`);
}

/**
 * Waits for `holder` to end, as `me`. Refuses with 40P01 when `holder` is (through others) waiting
 * for `me`; `check` runs every few milliseconds so cancel and statement_timeout still apply.
 */
export async function waitFor(me: LockOwner, holder: LockOwner, check: () => void): Promise<void> {
  for (let o: LockOwner | null = holder; o !== null; o = o.waitingFor) {
    if (o === me) {
      throw new QuireError('40P01', 'deadlock detected', {
        detail: 'Two transactions each wait for a row the other has locked.',
        hint: 'Retry the transaction.',
      });
    }
  }
  me.waitingFor = holder;
  try {
    const ended = holder.whenEnded();
    let finished = false;
    void ended.then(() => (finished = true));
    while (!finished) {
      check();
      await Promise.race([ended, new Promise((r) => setTimeout(r, 10))]);
    }
  } finally {
    me.waitingFor = null;
  }
}

/**
 * Locks `refs` (rows of table `table`) for `me`. Rows others hold in a conflicting strength are
 * refused (NOWAIT: 55P03) or left out (SKIP LOCKED); under the default policy the first such holder
 * is returned instead, for the caller to wait for and run its statement again on a fresh snapshot
 * (the row it found may since have been changed), as PostgreSQL re-reads a row it waited for.
 */
export function tryLockRows(me: LockOwner, table: string, refs: readonly RowRef[], strength: LockStrength, wait: LockWait): { locked: boolean[] } | { holder: LockOwner } {
  const locked: boolean[] = [];
  for (const ref of refs) {
    const holder = conflictingHolder(ref, strength, me);
    if (holder !== null) {
      if (wait === 'nowait') throw lockNotAvailable(table);
      if (wait === 'wait') return { holder };
      locked.push(false);
      continue;
    }
    locked.push(true);
  }
  refs.forEach((r, i) => {
    if (locked[i]) me.add(r, strength);
  });
  return { locked };
}
