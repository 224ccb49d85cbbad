/**
 * Row-level merge of a transaction's rewrite of a table with rewrites others committed meanwhile.
 *
 * A transaction that ran UPDATE or DELETE holds a batch list (`mine`) derived from the list it
 * started from (`base`); another transaction rewrote the same table and committed (`current`). As in
 * PostgreSQL, that is a conflict only when both changed or deleted the same row: the rows this
 * transaction changed (found through the row lineage UPDATE and DELETE record, row-lineage.ts) are
 * taken out of `current`, where they must still be as they were, and its new rows (new versions and
 * inserts) are appended. Rows it kept are `current`'s, with whatever others did to them.
 *
 * A row whose way into `current` (or into `mine`) cannot be followed counts as changed by the other
 * side: the merge refuses (the caller's 40001) rather than guess, so a merge is never wrong, only
 * sometimes refused where PostgreSQL would have gone on.
 */
import type { Batch } from '../common/column.js';
import { ColumnBuilder } from '../common/column.js';
import { byIdentity, followRow, MoveLog, type RowRef } from './row-lineage.js';
import { rowIdentity } from '../storage/memory-table.js';

/** Builds a batch of rows `keep` of `b` (encoded as the table stores rewritten batches). */
export type RowPicker = (b: Batch, keep: readonly number[]) => Batch;

/** Marks row `index` of `batch` in a per-batch byte mask. */
function mark(masks: Map<Batch, Uint8Array>, batch: Batch, index: number): void {
  let m = masks.get(batch);
  if (m === undefined) masks.set(batch, (m = new Uint8Array(batch.length)));
  m[index] = 1;
}

/** `mine`'s changes since `base` applied over `current`; null when a row both changed (a conflict). */
export function mergeRewrite(base: readonly Batch[], mine: readonly Batch[], current: readonly Batch[], pick: RowPicker): Batch[] | null {
  const mineIds = byIdentity(mine);
  const currentIds = byIdentity(current);
  const baseIds = byIdentity(base);
  // Rows of `mine` that are unchanged copies of base rows (its rewrites moved them): not new.
  const copies = new Map<Batch, Uint8Array>();
  // Rows of `current` this transaction changed or deleted.
  const gone = new Map<Batch, Uint8Array>();
  for (const b of base) {
    const kept = mineIds.get(rowIdentity(b));
    if (kept !== undefined && kept.length >= b.length) continue;
    for (let i = 0; i < b.length; i++) {
      const ref = { batch: b, index: i };
      const copy = followRow(mineIds, ref, true);
      if (copy !== null) {
        mark(copies, copy.batch, copy.index);
        continue;
      }
      const there = followRow(currentIds, ref, true);
      if (there === null) return null;
      mark(gone, there.batch, there.index);
    }
  }
  const log = new MoveLog();
  const out: Batch[] = [];
  for (const c of current) {
    const g = gone.get(c);
    if (g === undefined) {
      out.push(c);
      continue;
    }
    const keep: number[] = [];
    for (let i = 0; i < c.length; i++) if (g[i] !== 1) keep.push(i);
    if (keep.length === 0) {
      log.deleted(c);
      continue;
    }
    const slot = log.slot();
    keep.forEach((i, k) => log.moved(c, i, slot, k));
    const b = pick(c, keep);
    log.fill(slot, b);
    out.push(b);
  }
  for (const m of mine) {
    const from = baseIds.get(rowIdentity(m));
    // A base batch this transaction extended (its own inserts filled it): only the rows past base's.
    const first = from !== undefined ? from.length : 0;
    const cp = copies.get(m);
    if (first === 0 && cp === undefined) {
      out.push(m);
      continue;
    }
    const keep: number[] = [];
    for (let i = first; i < m.length; i++) if (cp === undefined || cp[i] !== 1) keep.push(i);
    if (keep.length === 0) continue;
    const slot = log.slot();
    keep.forEach((i, k) => log.moved(m, i, slot, k));
    const b = pick(m, keep);
    log.fill(slot, b);
    out.push(b);
  }
  log.commit();
  return out;
}

/** A RowPicker for a table's column types (`encode`: how the table stores a rewritten batch). */
export function rowPicker(encode: (b: Batch) => Batch): RowPicker {
  return (b, keep) => {
    const builders = b.columns.map((c) => new ColumnBuilder(c.type, keep.length));
    for (const i of keep) for (let c = 0; c < builders.length; c++) builders[c]!.pushFrom(b.columns[c]!, i);
    return encode({ columns: builders.map((x) => x.finish()), length: keep.length });
  };
}

/**
 * Whether none of the rows at `positions` (ascending) of `snapshot` that come from `base` (where they
 * were, or moved there unchanged by the transaction's own rewrites) was changed or deleted on the way
 * to `current`. The transaction's new rows are not looked at: nobody else can have changed them.
 */
export function rowsUnchangedSince(base: readonly Batch[], current: readonly Batch[], snapshot: readonly Batch[], positions: readonly number[]): boolean {
  const baseIds = byIdentity(base);
  const currentIds = byIdentity(current);
  // Where the base rows the transaction's rewrites moved are in `snapshot`, built on first need.
  let moved: Map<Batch, Map<number, RowRef>> | null = null;
  const movedFrom = (b: Batch, index: number): RowRef | null => {
    if (moved === null) {
      moved = new Map();
      const snapIds = byIdentity(snapshot);
      for (const bb of base) {
        const kept = snapIds.get(rowIdentity(bb));
        if (kept !== undefined && kept.length >= bb.length) continue;
        for (let i = 0; i < bb.length; i++) {
          const at = followRow(snapIds, { batch: bb, index: i }, true);
          if (at === null) continue;
          let m = moved.get(at.batch);
          if (m === undefined) moved.set(at.batch, (m = new Map()));
          m.set(at.index, { batch: bb, index: i });
        }
      }
    }
    return moved.get(b)?.get(index) ?? null;
  };
  let bi = 0;
  let start = 0;
  for (const p of positions) {
    while (bi < snapshot.length && p >= start + snapshot[bi]!.length) start += snapshot[bi++]!.length;
    const b = snapshot[bi];
    if (b === undefined) break;
    const index = p - start;
    const from = baseIds.get(rowIdentity(b));
    const ref = from !== undefined ? (index < from.length ? { batch: from, index } : null) : movedFrom(b, index);
    if (ref !== null && followRow(currentIds, ref, true) === null) return false;
  }
  return true;
}
