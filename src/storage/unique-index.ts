/**
 * Unique-key indexes: per table and unique key, the set of key values of the committed rows, so a
 * one-row INSERT checks its key against a hash set instead of reading every row of the table.
 *
 * The index follows the table's batch list rather than being told about each write: it remembers the
 * list it covers, and the next check that finds the committed list only grown since (new batches, or
 * the open last batch extended by small commits) adds just the rows gained. An UPDATE of the committed
 * rows leaves with the index what it would change (keys given up and taken, and the list it leaves),
 * applied once that list is committed; a DELETE leaves the keys it gives up the same way. Any other
 * change (TRUNCATE, a reopened directory, a replayed log) leaves a list the index does not extend, and the index is built again from the
 * committed rows, once. Uncommitted rows (a transaction's own, or
 * those a COMMIT is about to merge) are checked against the index plus a set of their own and never
 * enter it, so a failed or rolled-back statement leaves nothing behind.
 *
 * A check over a batch list that does not extend what the index covers (a REPEATABLE READ snapshot
 * older than rows others committed and then rewrote) reads the whole list, as a check without an index.
 *
 * How a key's values are held and compared (one column's value, or several columns' as a pair of
 * parts with no string joined per row): unique-key-set.ts.
 */
import { QuireError } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import { quoteIdent } from '../functions/scalar/support/quote.js';
import type { Batch } from '../common/column.js';
import type { Value } from '../common/types.js';
import { storesColumn, type MemoryTable } from './memory-table.js';
import { cell, keyValue, UniqueKeySet, type KeyPart } from './unique-key-set.js';

export interface UniqueIndex {
  /** The committed batch list the set covers. */
  list: readonly Batch[];
  keys: UniqueKeySet;
  /** UPDATEs of exactly `list` not yet committed: what each changes in the set should it commit. */
  rewrites: Rewrite[];
  /** The keys of a bulk INSERT's batches into an empty set, should they commit after `list`. */
  offer: Offer | null;
}

/**
 * A bulk INSERT … SELECT checked its batches' keys into a set of its own while the index held no
 * key: if the committed list becomes `base` plus those batches, that set is the index. Without it
 * the first commit after a bulk load into an empty table added every row's key again: 16-26 ms for
 * 100,000 rows on the test VM, paid by a one-row INSERT, and growing with the table.
 */
interface Offer {
  readonly base: readonly Batch[];
  readonly batches: readonly Batch[];
  readonly keys: UniqueKeySet;
}

/**
 * An UPDATE's effect on one key's set: the batch list it leaves (`to`), the keys its rows gave up
 * and those they took. When the committed list becomes `to` (plus rows appended since), the set is
 * brought there by these changes instead of being built again from every row.
 */
interface Rewrite {
  readonly to: readonly Batch[];
  /** As UniqueKeySet.pushRow appends them. */
  readonly removed: readonly KeyPart[];
  readonly added: readonly KeyPart[];
}

/** Uncommitted UPDATEs remembered per index (rolled-back ones are only forgotten when others come). */
const MAX_REWRITES = 8;

/** Brings `idx` to a rewrite of its list that `committed` grew from; false when none did. */
function applyRewrite(t: MemoryTable, idx: UniqueIndex, committed: readonly Batch[]): boolean {
  const r = idx.rewrites.find((x) => t.grewFrom(committed, x.to));
  if (r === undefined) return false;
  idx.keys.deleteAll(r.removed);
  idx.keys.addAll(r.added);
  idx.list = r.to;
  idx.rewrites = [];
  return true;
}

/** Tables (by their shared index holder) and their keys' indexes. */
type IndexHolder = WeakMap<readonly number[], UniqueIndex>;

/** Calls `each(batch, from)` for every batch of `current` with rows past those of `base` (current grewFrom base). */
function forGainedBatches(current: readonly Batch[], base: readonly Batch[], each: (b: Batch, from: number) => void): void {
  const n = base.length;
  if (n > 0) {
    const b = current[n - 1]!;
    if (base[n - 1]!.length < b.length) each(b, base[n - 1]!.length);
  }
  for (let k = n; k < current.length; k++) each(current[k]!, 0);
}

/** Calls `each(batch, row)` for every row of `current` past those of `base` (current grewFrom base). */
function forGained(current: readonly Batch[], base: readonly Batch[], each: (b: Batch, i: number) => void): void {
  forGainedBatches(current, base, (b, from) => {
    for (let i = from; i < b.length; i++) each(b, i);
  });
}

/** Rows of `current` past those of `base` (current grewFrom base). */
function gainedRows(current: readonly Batch[], base: readonly Batch[]): number {
  let n = 0;
  for (let bi = Math.max(0, base.length - 1); bi < current.length; bi++) n += current[bi]!.length - gainedFrom(base, bi);
  return n;
}

/**
 * The first row of batch `bi` of a list that grew from `base` that `base` does not hold: the loops
 * over gained rows on every commit's path use it instead of forGainedBatches, whose callback is a
 * closure made per call.
 */
function gainedFrom(base: readonly Batch[], bi: number): number {
  return bi === base.length - 1 ? base[bi]!.length : 0;
}

/**
 * Adds the keys of rows from..b.length-1 of `b` to `keys`, throwing 23505 at the first one already
 * there.
 */
function addBatchKeys(t: MemoryTable, key: readonly number[], keys: UniqueKeySet, b: Batch, from: number): void {
  const at = keys.addRows(b, from);
  if (at >= 0) throw duplicateKey(t, key, rowVals(key, b, at));
}

/** A set for the keys on `key` of `t`, room made for `expected` of them. */
function keySet(t: MemoryTable, key: readonly number[], expected = 8): UniqueKeySet {
  return new UniqueKeySet(key.map((c) => t.schema[c]!.type), key, expected);
}

/** The constraint name of key `key` of `t` (tables saved before keys had names: `<table>_pkey`). */
export function uniqueKeyName(t: MemoryTable, key: readonly number[]): string {
  return t.uniqueNames[t.uniqueKeys.indexOf(key as number[])] ?? `${t.name}_pkey`;
}

/** 23505 for values `vals` of key `key` of `t`, worded as PostgreSQL's unique index words it. */
export function duplicateKey(t: MemoryTable, key: readonly number[], vals: readonly Value[]): QuireError {
  // Column names as PostgreSQL prints them in the DETAIL: quoted when they need it.
  const cols = key.map((c) => quoteIdent(t.schema[c]!.name)).join(', ');
  const shown = vals.map((v, i) => formatValue(v, t.schema[key[i]!]!.type)).join(', ');
  return new QuireError('23505', `duplicate key value violates unique constraint "${uniqueKeyName(t, key)}"`, { detail: `Key (${cols})=(${shown}) already exists.` });
}

function rowVals(key: readonly number[], b: Batch, i: number): Value[] {
  return key.map((c) => cell(b, c, i));
}

/**
 * The index of `key` over the committed rows of `t` (for a transaction's copy: of the table it was
 * copied from), brought up to date: extended by the rows committed since, or built again.
 */
function committedIndex(t: MemoryTable, key: readonly number[]): UniqueIndex {
  const holder = t.uniqueIndexes as IndexHolder;
  const committed = t.committedSnapshot();
  let idx = holder.get(key);
  if (idx !== undefined && (t.grewFrom(committed, idx.list) || applyRewrite(t, idx, committed))) {
    if (committed !== idx.list) {
      // Pending rewrites were of the list before these rows: they no longer describe it.
      idx.rewrites = [];
      const offer = idx.offer;
      idx.offer = null;
      if (offer !== null && offer.base === idx.list && idx.keys.size === 0 && committedAsOffered(committed, offer, key)) {
        idx.keys = offer.keys;
        idx.list = committed;
        return idx;
      }
      const keys = idx.keys;
      const base = idx.list;
      const gained = gainedRows(committed, base);
      keys.reserve(gained);
      for (let bi = Math.max(0, base.length - 1); bi < committed.length; bi++) addBatchKeys(t, key, keys, committed[bi]!, gainedFrom(base, bi));
      idx.list = committed;
    }
    return idx;
  }
  let rows = 0;
  for (const b of committed) rows += b.length;
  const keys = keySet(t, key, rows);
  for (const b of committed) addBatchKeys(t, key, keys, b, 0);
  idx = { list: committed, keys, rewrites: [], offer: null };
  holder.set(key, idx);
  return idx;
}

/**
 * Whether `committed` is the offer's base followed by exactly its batches: the same number of rows
 * each, holding the very column objects of the key or their dictionary-coded copies (columns are
 * never written in place below their length, so the same values over the same lengths hold the same
 * keys). A batch merged into an open one, or anything else committed between, and the set is not
 * taken.
 */
function committedAsOffered(committed: readonly Batch[], offer: Offer, key: readonly number[]): boolean {
  const n = offer.base.length;
  if (committed.length !== n + offer.batches.length) return false;
  if (n > 0 && committed[n - 1]!.length !== offer.base[n - 1]!.length) return false;
  for (let j = 0; j < offer.batches.length; j++) {
    const b = committed[n + j]!;
    const o = offer.batches[j]!;
    if (b.length !== o.length) return false;
    for (const c of key) if (!storesColumn(b.columns[c]!, o.columns[c]!)) return false;
  }
  return true;
}

/**
 * Every unique key of `t` holds over the rows of `existing` plus `newRows` (UPDATE and a merging
 * COMMIT check all rows): 23505 for the first row, in that order, whose key an earlier row holds,
 * naming the first of its keys that does, as PostgreSQL checks each row's indexes before the next row.
 */
export function checkUniqueKeys(t: MemoryTable, newRows: readonly (readonly Value[])[], existing: readonly Batch[]): void {
  checkKeys(t, existing, [], newRows);
}

/** As checkUniqueKeys, for new rows given as batches of the table's columns (INSERT … SELECT). */
export function checkUniqueBatches(t: MemoryTable, added: readonly Batch[], existing: readonly Batch[]): void {
  checkKeys(t, existing, added, []);
}

/**
 * checkUniqueBatches(t, [b], t.snapshot()). A one-row `b` under a table's one key, when the index
 * covers exactly the rows `t` holds (an autocommit INSERT, or a block that has written nothing to
 * `t` yet), is only looked up in the index: none of the general check's lists and sets of its own.
 */
export function checkNewBatch(t: MemoryTable, b: Batch): void {
  const keys = t.uniqueKeys;
  if (keys.length !== 1 || b.length !== 1) return checkKeys(t, t.snapshot(), [b], []);
  const key = keys[0]!;
  const idx = committedIndex(t, key);
  if (idx.list !== t.snapshot()) return checkKeys(t, t.snapshot(), [b], []);
  if (idx.keys.hasRow(b, 0)) throw duplicateKey(t, key, rowVals(key, b, 0));
}

function checkKeys(t: MemoryTable, existing: readonly Batch[], added: readonly Batch[], newRows: readonly (readonly Value[])[]): void {
  const keys = t.uniqueKeys;
  if (keys.length === 0) return;
  const all: UniqueIndex[] = new Array(keys.length);
  for (let ki = 0; ki < keys.length; ki++) all[ki] = committedIndex(t, keys[ki]!);
  // committedIndex leaves every index over the same committed list.
  const covered = all[0]!.list;
  const indexed = t.grewFrom(existing, covered);
  const indexes = indexed ? all : null;
  // Rows checked besides the index's: the statement's and the transaction's own (or, when `existing`
  // does not extend the committed rows, all of them, without the index).
  let gained = newRows.length;
  for (const b of added) gained += b.length;
  let others = 0;
  if (indexed) others = gainedRows(existing, covered);
  else for (const b of existing) others += b.length;
  // A single row to check (a one-row INSERT) has only the index to collide with: no set of its own.
  let seen: UniqueKeySet[] | null = null;
  if (gained + others > 1) {
    seen = new Array(keys.length);
    for (let ki = 0; ki < keys.length; ki++) seen[ki] = keySet(t, keys[ki]!, gained);
  }
  if (indexed) {
    for (let bi = Math.max(0, covered.length - 1); bi < existing.length; bi++) {
      const b = existing[bi]!;
      for (let i = gainedFrom(covered, bi); i < b.length; i++) checkBatchRow(t, indexes, seen, b, i);
    }
  } else for (const b of existing) for (let i = 0; i < b.length; i++) checkBatchRow(t, null, seen, b, i);
  for (const b of added) {
    if (keys.length === 1 && seen !== null) {
      // The table's only key: the set reads the batch's key columns a whole batch at a time (addRows).
      const at = seen[0]!.addRows(b, 0, indexes?.[0]!.keys ?? null);
      if (at >= 0) throw duplicateKey(t, keys[0]!, rowVals(keys[0]!, b, at));
      continue;
    }
    for (let i = 0; i < b.length; i++) checkBatchRow(t, indexes, seen, b, i);
  }
  for (const r of newRows) {
    for (let ki = 0; ki < keys.length; ki++) {
      const key = keys[ki]!;
      const vals: Value[] = new Array(key.length);
      for (let j = 0; j < key.length; j++) vals[j] = r[key[j]!]!;
      if ((indexes !== null && indexes[ki]!.keys.hasVals(vals)) || (seen !== null && !seen[ki]!.insertVals(vals))) throw duplicateKey(t, key, vals);
    }
  }
  // Only the statement's batches were checked, into sets of their own (the index covers everything
  // else): an index with no key yet can take such a set whole once these batches commit.
  if (indexes !== null && seen !== null && others === 0 && newRows.length === 0 && added.length > 0) {
    for (let ki = 0; ki < keys.length; ki++) {
      const idx = indexes[ki]!;
      if (idx.keys.size === 0) idx.offer = { base: covered, batches: added, keys: seen[ki]! };
    }
  }
}

/** Row `i` of `b` against every key of `t`, in order: 23505 naming the first key whose value is taken, by a committed row (`indexes`, when they cover the rows checked) or by a row checked before (added to `seen` now). */
function checkBatchRow(t: MemoryTable, indexes: readonly UniqueIndex[] | null, seen: readonly UniqueKeySet[] | null, b: Batch, i: number): void {
  const keys = t.uniqueKeys;
  for (let ki = 0; ki < keys.length; ki++) {
    if ((indexes !== null && indexes[ki]!.keys.hasRow(b, i)) || (seen !== null && !seen[ki]!.insertRow(b, i))) throw duplicateKey(t, keys[ki]!, rowVals(keys[ki]!, b, i));
  }
}

/**
 * UPDATE: the unique keys still hold once the rows at `positions` (ascending) of `snapshot` take the
 * values `newRows` (in the same order), the SET list assigning columns `assigned`. Keys without an
 * assigned column cannot change. The others are checked through the index: a new key is a
 * duplicate when another changed row takes it too, or when a row of the snapshot holds it and that
 * row is not one of those changed (whose old keys go). Only the changed rows and the rows the
 * index does not cover (the transaction's own) are read, not the table; a snapshot the index does
 * not extend is checked whole, as before. Like the whole-table check, this judges the rows as the
 * statement leaves them.
 */
export function checkUpdatedKeys(t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[], newRows: readonly (readonly Value[])[], assigned: readonly number[], rewritten: readonly Batch[]): void {
  if (t.uniqueKeys.length === 0 || positions.length === 0) return;
  const all = t.uniqueKeys.map((key) => committedIndex(t, key));
  const covered = all[0]!.list;
  if (!t.grewFrom(snapshot, covered)) {
    checkUniqueKeys(t, [], rewritten);
    return;
  }
  const touched = t.uniqueKeys.map((key) => key.some((c) => assigned.includes(c)));
  const keys = t.uniqueKeys.filter((_, ki) => touched[ki]);
  const indexes = all.filter((_, ki) => touched[ki]);
  const changes = keys.map(() => ({ removed: [] as KeyPart[], added: [] as KeyPart[] }));
  // Old keys of the changed rows, read at their positions.
  const old = keys.map((key) => keySet(t, key, positions.length));
  let base = 0;
  let bi = 0;
  for (const p of positions) {
    while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
    const b = snapshot[bi]!;
    for (let ki = 0; ki < keys.length; ki++) {
      if (old[ki]!.pushRow(changes[ki]!.removed, b, p - base)) old[ki]!.insertRow(b, p - base);
    }
  }
  keys.forEach((key, ki) => {
    const own = keySet(t, key);
    forGained(snapshot, covered, (b, i) => void own.insertRow(b, i));
    const taken = keySet(t, key, newRows.length);
    for (const r of newRows) {
      const vals = key.map((c) => r[c]!);
      // A key with a NULL part is neither held nor taken (hasVals false, insertVals true) and not pushed.
      const heldByOther = (indexes[ki]!.keys.hasVals(vals) || own.hasVals(vals)) && !old[ki]!.hasVals(vals);
      if (heldByOther || !taken.insertVals(vals)) throw duplicateKey(t, key, vals);
      taken.pushVals(changes[ki]!.added, vals);
    }
  });
  // An UPDATE of exactly the committed rows: should it commit, each index follows it by its changes.
  if (snapshot.length === covered.length && snapshot.every((b, i) => b === covered[i])) {
    const to = rewritten.filter((b) => b.length > 0);
    all.forEach((idx, ki) => {
      const c = touched[ki] ? changes[keys.indexOf(t.uniqueKeys[ki]!)]! : { removed: [], added: [] };
      idx.rewrites.push({ to, ...c });
      if (idx.rewrites.length > MAX_REWRITES) idx.rewrites.shift();
    });
  }
}

/**
 * A DELETE of rows `positions` (ascending) of `snapshot` leaving `rewritten`: when an index covers
 * exactly the snapshot, it is told the keys the deleted rows give up, so the commit of `rewritten`
 * takes them out instead of the next check building the set again from every row (30 ms at a
 * million rows, paid by each one-row INSERT after a one-row DELETE). Indexes not built yet stay so.
 */
export function noteDeletedKeys(t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[], rewritten: readonly Batch[]): void {
  if (t.uniqueKeys.length === 0 || positions.length === 0) return;
  const holder = t.uniqueIndexes as IndexHolder;
  const to = rewritten.filter((b) => b.length > 0);
  for (const key of t.uniqueKeys) {
    if (holder.get(key) === undefined) continue;
    // Brought up to the committed rows first: small commits since its last check extend its list.
    const idx = committedIndex(t, key);
    const covered = idx.list;
    if (snapshot.length !== covered.length || !snapshot.every((b, i) => b === covered[i])) continue;
    const removed: KeyPart[] = [];
    let base = 0;
    let bi = 0;
    for (const p of positions) {
      while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
      idx.keys.pushRow(removed, snapshot[bi]!, p - base);
    }
    idx.rewrites.push({ to, removed, added: [] });
    if (idx.rewrites.length > MAX_REWRITES) idx.rewrites.shift();
  }
}

/**
 * For INSERT … ON CONFLICT DO UPDATE: per row of `rows`, whether a row of `snapshot` (of `t`) holds its
 * `key`, answered from the index and the rows it does not cover; null when the snapshot does not
 * extend what the index covers (the caller then reads the rows).
 */
export function keysHeld(t: MemoryTable, key: readonly number[], snapshot: readonly Batch[], rows: readonly (readonly Value[])[]): boolean[] | null {
  const idx = committedIndex(t, key);
  if (!t.grewFrom(snapshot, idx.list)) return null;
  const own = keySet(t, key);
  forGained(snapshot, idx.list, (b, i) => void own.insertRow(b, i));
  return rows.map((r) => {
    const vals = key.map((c) => r[c]!);
    return idx.keys.hasVals(vals) || own.hasVals(vals);
  });
}

/**
 * The keys on `key` that rows committed after a REPEATABLE READ snapshot `base` of `t`'s committed
 * rows hold and `base` did not, as a membership test; null when nothing was committed since.
 * PostgreSQL's unique index sees every committed row whatever the snapshot, so such a key is taken for
 * the transaction although its snapshot never shows the row. Rows only appended since (the usual case)
 * are read alone; after a rewrite the committed index answers, and `base`'s keys are read once, only
 * when a key it holds is asked about. `stale`: rows of `base` others changed or deleted since, whose
 * keys a committed row holding them again holds as a row `base` does not show.
 */
export function keysCommittedSince(t: MemoryTable, key: readonly number[], base: readonly Batch[], stale: readonly { readonly batch: Batch; readonly index: number }[] = []): ((vals: readonly Value[]) => boolean) | null {
  const current = t.committedSnapshot();
  if (current === base) return null;
  if (t.grewFrom(current, base)) {
    const n = gainedRows(current, base);
    if (n === 0) return null;
    const gained = keySet(t, key, n);
    for (let bi = Math.max(0, base.length - 1); bi < current.length; bi++) for (let i = gainedFrom(base, bi); i < current[bi]!.length; i++) gained.insertRow(current[bi]!, i);
    return (vals) => gained.hasVals(vals);
  }
  const committed = committedIndex(t, key).keys;
  let before: UniqueKeySet | null = null;
  return (vals) => {
    if (!committed.hasVals(vals)) return false;
    if (before === null) {
      let rows = 0;
      for (const b of base) rows += b.length;
      const seen = keySet(t, key, rows);
      for (const b of base) for (let i = 0; i < b.length; i++) seen.insertRow(b, i);
      for (const r of stale) seen.deleteRow(r.batch, r.index);
      before = seen;
    }
    return !before.hasVals(vals);
  };
}

/**
 * The key of values `vals` of key columns `key` of `t` as one value (null when a part is NULL): equal
 * for rows the index takes as the same key, for a Map of rows by key.
 */
export function indexKey(t: MemoryTable, key: readonly number[], vals: readonly Value[]): number | string | null {
  return keyValue(key.map((c) => t.schema[c]!.type), vals);
}

/**
 * A set for keys on `key` of `t` (an open transaction's pending keys): equal as the index takes
 * them equal.
 */
export function uniqueKeySet(t: MemoryTable, key: readonly number[]): UniqueKeySet {
  return keySet(t, key);
}

/**
 * INSERT … ON CONFLICT DO NOTHING: the rows of `rows` whose `arbiters` keys neither a row of
 * `existing` (the rows of `t`) nor an earlier kept row holds.
 */
export function rowsWithoutConflicts(t: MemoryTable, arbiters: readonly (readonly number[])[], rows: readonly Value[][], existing: readonly Batch[] = t.snapshot()): Value[][] {
  const taken = arbiters.map((key) => {
    const idx = committedIndex(t, key);
    const own = keySet(t, key);
    const indexed = t.grewFrom(existing, idx.list);
    const add = (b: Batch, i: number): void => void own.insertRow(b, i);
    if (indexed) forGained(existing, idx.list, add);
    else for (const b of existing) for (let i = 0; i < b.length; i++) add(b, i);
    return { committed: indexed ? idx.keys : null, own };
  });
  const kept: Value[][] = [];
  for (const r of rows) {
    const vals = arbiters.map((key) => key.map((c) => r[c]!));
    if (vals.some((v, a) => taken[a]!.committed?.hasVals(v) === true || taken[a]!.own.hasVals(v))) continue;
    vals.forEach((v, a) => taken[a]!.own.insertVals(v));
    kept.push(r);
  }
  return kept;
}

/**
 * A test of whether `current` (the committed rows, possibly with a transaction's own appended) holds
 * a row whose unique key `key` (an entry of t.uniqueKeys) equals the values given in `key`'s column
 * order. Looks through the committed index plus the rows appended since, so a foreign key check of a
 * child row reads no parent rows; a list the index does not extend (the parent rewritten in this
 * transaction) is read once into a set of its own.
 */
export function keyPresence(t: MemoryTable, key: readonly number[], current: readonly Batch[]): (vals: readonly Value[]) => boolean {
  const idx = committedIndex(t, key);
  const indexed = t.grewFrom(current, idx.list);
  const own = keySet(t, key, indexed ? gainedRows(current, idx.list) : 0);
  const collect = (b: Batch, i: number): void => void own.insertRow(b, i);
  if (indexed) forGained(current, idx.list, collect);
  else for (const b of current) for (let i = 0; i < b.length; i++) collect(b, i);
  return (vals) => (indexed && idx.keys.hasVals(vals)) || own.hasVals(vals);
}
