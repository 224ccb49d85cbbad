/**
 * Row locks taken by SELECT … FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE (and by cursors over
 * such queries), held until the transaction ends, with PostgreSQL's conflict table between the four
 * strengths.
 *
 * A row is its batch and its index there (row-lineage.ts); batches are shared by every transaction
 * that has not rewritten them, so a lock taken through one transaction's view of a table is found
 * through another's. UPDATE and DELETE check the rows they are about to change: a row another open
 * transaction has locked in a conflicting strength makes the statement wait for that transaction to
 * end and then run again on a fresh snapshot (or fail at once under NOWAIT, 55P03). UPDATE and DELETE
 * lock the rows they change too (FOR NO KEY UPDATE's or FOR UPDATE's strength, as PostgreSQL's do),
 * so a second writer of a row waits for the first instead of both computing from the same version.
 *
 * Holds are keyed by the batch's row identity (memory-table.ts): a commit that fills the open last
 * batch publishes a longer batch over the same rows, and a lock taken through the shorter one must
 * be found through it. A statement that locks many rows of one batch records them as one hold with
 * a row mask (index ALL): a byte per row of the batch instead of an entry per row.
 */
import { QuireError } from '../common/errors.js';
import type { Batch } from '../common/column.js';
import type { LockStrength, LockWait } from '../sql/locking-clause.js';
import type { RowRef } from './row-lineage.js';
import { rowIdentity } from '../storage/memory-table.js';

interface Hold {
  readonly owner: LockOwner;
  strength: LockStrength;
  /** Under index ALL: the rows held (1 per row of the batch). */
  mask?: Uint8Array;
}

/** Whether `h` (a hold under index ALL when it has a mask) covers row `index`. */
function covers(h: Hold, index: number): boolean {
  return h.mask === undefined || (index < h.mask.length && h.mask[index] === 1);
}

/** Which held strengths a requested one conflicts with (PostgreSQL's row-level lock table). */
const CONFLICTS: Record<LockStrength, readonly LockStrength[]> = {
  'key share': ['update'],
  share: ['no key update', 'update'],
  'no key update': ['share', 'no key update', 'update'],
  update: ['key share', 'share', 'no key update', 'update'],
};

const RANK: Record<LockStrength, number> = { 'key share': 0, share: 1, 'no key update': 2, update: 3 };

const holds = new WeakMap<object, Map<number, Hold[]>>();

/** The index of the holds with a row mask. */
const ALL = -1;

/** Rows of one batch a statement locks one by one; from this many up it records a row mask. */
const MASK_FROM = 64;

/** The locks of one transaction; released (and its waiters woken) when it ends. */
export class LockOwner {
  private readonly rows: RowRef[] = [];
  private done = false;
  private readonly waiters: (() => void)[] = [];
  /** What else the transaction holds until it ends (pending-keys.ts: its uncommitted unique keys). */
  private readonly releases: (() => void)[] = [];
  /** The owner this one is waiting for, for deadlock detection. */
  waitingFor: LockOwner | null = null;

  get ended(): boolean {
    return this.done;
  }

  /** Records a lock (the caller checked for conflicts). */
  add(ref: RowRef, strength: LockStrength): void {
    const key = rowIdentity(ref.batch);
    let m = holds.get(key);
    if (m === undefined) holds.set(key, (m = new Map()));
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

  /** Records locks on the rows of `batch` that `mask` marks (the caller checked for conflicts). */
  addMask(batch: Batch, mask: Uint8Array, strength: LockStrength): void {
    const key = rowIdentity(batch);
    let m = holds.get(key);
    if (m === undefined) holds.set(key, (m = new Map()));
    let list = m.get(ALL);
    if (list === undefined) m.set(ALL, (list = []));
    const mine = list.find((h) => h.owner === this);
    if (mine === undefined) {
      list.push({ owner: this, strength, mask });
      this.rows.push({ batch, index: ALL });
      return;
    }
    // One mask per owner and batch: the stronger strength covers both sets of rows.
    if (RANK[strength] > RANK[mine.strength]) mine.strength = strength;
    const old = mine.mask!;
    const merged = new Uint8Array(Math.max(old.length, mask.length));
    merged.set(old);
    for (let i = 0; i < mask.length; i++) merged[i]! |= mask[i]!;
    mine.mask = merged;
  }

  /** Drops every lock and wakes the statements waiting for them. */
  release(): void {
    if (this.done) return;
    this.done = true;
    for (const r of this.rows) {
      const m = holds.get(rowIdentity(r.batch));
      const list = m?.get(r.index);
      if (list === undefined) continue;
      const rest = list.filter((h) => h.owner !== this);
      if (rest.length === 0) m!.delete(r.index);
      else m!.set(r.index, rest);
    }
    this.rows.length = 0;
    for (const r of this.releases.splice(0)) r();
    for (const w of this.waiters.splice(0)) w();
  }

  /** Runs `release` when the transaction ends, before its waiters wake. */
  onRelease(release: () => void): void {
    if (this.done) release();
    else this.releases.push(release);
  }

  /** Resolves when this owner's transaction ends. */
  whenEnded(): Promise<void> {
    if (this.done) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** Whether any row of `batch` is locked (by anyone, ended or not). */
export function hasLocks(batch: Batch): boolean {
  const m = holds.get(rowIdentity(batch));
  return m !== undefined && m.size > 0;
}

/**
 * The first open transaction other than `me` holding, in a strength that conflicts with
 * `strength`, a row of `snapshot` whose position `hit` accepts. Looks only at batches with locks.
 */
export function holderAmong(snapshot: readonly Batch[], hit: (position: number) => boolean, strength: LockStrength, me: LockOwner): LockOwner | null {
  let base = 0;
  for (const batch of snapshot) {
    const m = holds.get(rowIdentity(batch));
    if (m !== undefined) {
      for (const [index, list] of m) {
        // A longer batch over the same rows may hold locks on rows this one does not have.
        if (index >= batch.length) continue;
        const one = index !== ALL;
        if (one && !hit(base + index)) continue;
        for (const h of list) {
          if (h.owner === me || h.owner.ended || !CONFLICTS[strength].includes(h.strength)) continue;
          if (one) return h.owner;
          const n = Math.min(batch.length, h.mask!.length);
          for (let i = 0; i < n; i++) if (h.mask![i] === 1 && hit(base + i)) return h.owner;
        }
      }
    }
    base += batch.length;
  }
  return null;
}

/**
 * Locks, for `me`, the rows at `positions` (ascending) of `snapshot`, in `strength`: the rows an
 * UPDATE or DELETE changes, after holderAmong found no one in the way.
 */
export function lockPositions(me: LockOwner, snapshot: readonly Batch[], positions: readonly number[], strength: LockStrength): void {
  let base = 0;
  let bi = 0;
  for (let k = 0; k < positions.length; ) {
    while (positions[k]! >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
    const batch = snapshot[bi]!;
    const end = base + batch.length;
    let j = k;
    while (j < positions.length && positions[j]! < end) j++;
    if (j - k >= MASK_FROM) {
      const mask = new Uint8Array(batch.length);
      for (let x = k; x < j; x++) mask[positions[x]! - base] = 1;
      me.addMask(batch, mask, strength);
    } else for (let x = k; x < j; x++) me.add({ batch, index: positions[x]! - base }, strength);
    k = j;
  }
}

/**
 * The rows of `from` moved to new batches (their batch was rewritten, or they were updated): row i
 * to `to[which[i]]` at `index[i]` (which[i] -1: deleted). The locks on them go with them, so
 * rewriting a batch does not free the other rows locked in it.
 */
export function carryLocks(from: Batch, to: readonly Batch[], which: Int32Array, index: Int32Array): void {
  const m = holds.get(rowIdentity(from));
  if (m === undefined) return;
  for (const [i, list] of [...m]) {
    if (i === ALL) {
      for (const h of list) {
        if (h.owner.ended) continue;
        const masks = to.map((b) => new Uint8Array(b.length));
        const n = Math.min(from.length, h.mask!.length);
        for (let r = 0; r < n; r++) if (h.mask![r] === 1 && which[r]! >= 0) masks[which[r]!]![index[r]!] = 1;
        masks.forEach((mask, w) => {
          if (mask.includes(1)) h.owner.addMask(to[w]!, mask, h.strength);
        });
      }
      continue;
    }
    if (i >= from.length || which[i]! < 0) continue;
    for (const h of list) if (!h.owner.ended) h.owner.add({ batch: to[which[i]!]!, index: index[i]! }, h.strength);
  }
}

/** An open transaction other than `me` holding `ref` in a strength that conflicts with `strength`. */
export function conflictingHolder(ref: RowRef, strength: LockStrength, me: LockOwner): LockOwner | null {
  const m = holds.get(rowIdentity(ref.batch));
  if (m === undefined) return null;
  for (const list of [m.get(ref.index), m.get(ALL)]) {
    if (list === undefined) continue;
    for (const h of list) {
      if (h.owner !== me && !h.owner.ended && CONFLICTS[strength].includes(h.strength) && covers(h, ref.index)) return h.owner;
    }
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
