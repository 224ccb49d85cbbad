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
 */
import { QuireError } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import { quoteIdent } from '../functions/scalar/support/quote.js';
import type { Batch, Column } from '../common/column.js';
import type { DataType, Value } from '../common/types.js';
import { storedData, storesColumn, type MemoryTable } from './memory-table.js';
import { KeySet } from './key-set.js';

/** A key as a hash-set member: a safe integer as itself, a text value as its string, anything else as tagged text (keyOf). Null when a part is NULL. */
type KeyValue = number | string;

export interface UniqueIndex {
  /** The committed batch list the set covers. */
  list: readonly Batch[];
  keys: KeySet;
  /** UPDATEs of exactly `list` not yet committed: what each changes in the set should it commit. */
  rewrites: Rewrite[];
  /** The keys of a bulk INSERT's batches into an empty set, should they commit after `list`. */
  offer: Offer | null;
  /**
   * A key of several columns checkNewBatch made last, and its columns' values: when the next commit
   * adds one row holding those very values (that INSERT's row), the key is taken as it is instead of
   * joined again, so an autocommit loop joins each row's key once, as a one-column key makes none.
   */
  checked: KeyValue | null;
  readonly checkedVals: Value[];
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
  readonly keys: KeySet;
}

/**
 * An UPDATE's effect on one key's set: the batch list it leaves (`to`), the keys its rows gave up
 * and those they took. When the committed list becomes `to` (plus rows appended since), the set is
 * brought there by these changes instead of being built again from every row.
 */
interface Rewrite {
  readonly to: readonly Batch[];
  readonly removed: readonly KeyValue[];
  readonly added: readonly KeyValue[];
}

/** Uncommitted UPDATEs remembered per index (rolled-back ones are only forgotten when others come). */
const MAX_REWRITES = 8;

/** Brings `idx` to a rewrite of its list that `committed` grew from; false when none did. */
function applyRewrite(t: MemoryTable, idx: UniqueIndex, committed: readonly Batch[]): boolean {
  const r = idx.rewrites.find((x) => t.grewFrom(committed, x.to));
  if (r === undefined) return false;
  for (const k of r.removed) idx.keys.delete(k);
  for (const k of r.added) idx.keys.add(k);
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
 * there. A one-column key stored as 32-bit integers (int2, int4, date) is read straight from the
 * column: building the index of a million-row table is then a few tens of milliseconds instead of a
 * boxed value and a key function per row.
 */
function addBatchKeys(t: MemoryTable, key: readonly number[], keys: KeySet, b: Batch, from: number): void {
  const col = key.length === 1 ? b.columns[key[0]!]! : null;
  // As stored: col.data of a text column of the open batch would copy its rows.
  const stored = col !== null ? storedData(b, key[0]!) : null;
  if (col !== null && stored instanceof Int32Array) {
    const data = stored;
    const nulls = col.nulls;
    for (let i = from; i < b.length; i++) {
      if (nulls !== null && nulls[i] === 1) continue;
      if (!keys.insert(data[i]!)) throw duplicateKey(t, key, rowVals(key, b, i));
    }
    return;
  }
  const texts = col !== null ? textKeyData(t, key, b) : null;
  if (texts !== null) {
    const nulls = col!.nulls;
    for (let i = from; i < b.length; i++) {
      const k = texts[i];
      // NULL as the column's null map or as the value itself (getValue reads both).
      if ((nulls !== null && nulls[i] === 1) || k === null || k === undefined) continue;
      if (!keys.insert(k as string)) throw duplicateKey(t, key, rowVals(key, b, i));
    }
    return;
  }
  for (let i = from; i < b.length; i++) {
    const k = rowKey(t, key, b, i);
    if (k === null) continue;
    if (!keys.insert(k)) throw duplicateKey(t, key, rowVals(key, b, i));
  }
}

/**
 * The strings of `b`'s column of a one-column key `key` of text, varchar or name, whose values are
 * their own keys (valueKey): read straight from the stored column as an int4 key is, where building
 * a million-row index spent half its time on a value and a key function per row. Null for any
 * other key.
 */
function textKeyData(t: MemoryTable, key: readonly number[], b: Batch): readonly Value[] | null {
  const n = t.schema[key[0]!]!.type.name;
  if (n !== 'text' && n !== 'varchar' && n !== 'name') return null;
  const data = storedData(b, key[0]!);
  return Array.isArray(data) ? data : null;
}

/**
 * The key of values `vals` of key columns `key`. Integers of the safe range (int2, int4 and int8 all
 * hold them as numbers) key as themselves; the values of a text column as the strings themselves (no
 * key string made and kept per row, where the one-int-key paths make none either); other values by
 * type and text, as equal values of one column type print alike. A key of several columns joins its
 * parts' texts (joinPart) so that no two different rows join alike, whatever their text holds.
 */
function keyOf(t: MemoryTable, key: readonly number[], vals: readonly Value[]): KeyValue | null {
  if (key.length === 1) {
    const v = vals[0]!;
    return v === null ? null : valueKey(v, t.schema[key[0]!]!.type);
  }
  let s = '';
  const last = key.length - 1;
  for (let j = 0; j <= last; j++) {
    const v = vals[j]!;
    // NULL never equals anything: a key with a NULL part conflicts with no row.
    if (v === null) return null;
    s = joinPart(s, v, t.schema[key[j]!]!.type, j === last);
  }
  return s;
}

/**
 * `s` followed by a part of a key of several columns. Read from the start, every part but the last
 * ends where it says: an integer at the comma after its digits, anything else after the length
 * written before it; the last runs to the end. So two keys join alike only when every part does.
 */
function joinPart(s: string, v: NonNullable<Value>, type: DataType, last: boolean): string {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return last ? s + String(v) : `${s}${v},`;
  const p = partText(v, type);
  return last ? s + p : `${s}${p.length}:${p}`;
}

/**
 * The key of non-null value `v` of a one-column key of type `type`. A column holds values of one
 * type, so its keys never mix a raw string (text) with a tagged one (any other type). Equality is
 * the type's own: text and varchar by their characters (the engine's C collation, deterministic, as
 * PostgreSQL's texteq compares bytes), char(n) without its trailing spaces (bpchareq ignores them),
 * float8's -0 as 0 (float8eq says they are equal).
 */
function valueKey(v: NonNullable<Value>, type: DataType): KeyValue {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v === 0 ? 0 : v;
  return partText(v, type);
}

/** valueKey as text, for a part of a key of several columns (a safe integer as its digits, -0 as 0). */
function partText(v: NonNullable<Value>, type: DataType): string {
  if (typeof v === 'string') {
    const n = type.name;
    if (n === 'text' || n === 'varchar' || n === 'name') return v;
    if (n === 'bpchar') return trimSpaces(v);
  } else if (typeof v === 'number' && Number.isSafeInteger(v)) return v === 0 ? '0' : String(v);
  return `${typeof v}:${formatValue(v, type)}`;
}

/** `s` without trailing spaces (bpchar's insignificant padding); `s` itself when it has none. */
function trimSpaces(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 32) e--;
  return e === s.length ? s : s.slice(0, e);
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

/** The key of row `i` of `b` (no array for a one-column key, the usual primary key). */
function rowKey(t: MemoryTable, key: readonly number[], b: Batch, i: number): KeyValue | null {
  if (key.length === 1) {
    const v = cell(b, key[0]!, i);
    return v === null ? null : valueKey(v, t.schema[key[0]!]!.type);
  }
  let s = '';
  const last = key.length - 1;
  for (let j = 0; j <= last; j++) {
    const v = cell(b, key[j]!, i);
    if (v === null) return null;
    s = joinPart(s, v, t.schema[key[j]!]!.type, j === last);
  }
  return s;
}

function rowVals(key: readonly number[], b: Batch, i: number): Value[] {
  return key.map((c) => cell(b, c, i));
}

/**
 * Row `i` of column `c` of `b`, as getValue reads it but from the stored buffers (storedData): the
 * table's open batch is read after every commit, and reading its text column through the column
 * copied all its rows (up to a thousand) per commit, garbage a one-int-key table never made.
 */
function cell(b: Batch, c: number, i: number): Value {
  const nulls = b.columns[c]!.nulls;
  if (nulls !== null && nulls[i] === 1) return null;
  const d = storedData(b, c);
  if (d instanceof Uint8Array) return d[i] === 1;
  return d[i] as Value;
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
      if (gained === 1 && idx.checked !== null && addChecked(t, key, idx, committed)) return idx;
      keys.reserve(gained);
      for (let bi = Math.max(0, base.length - 1); bi < committed.length; bi++) addBatchKeys(t, key, keys, committed[bi]!, gainedFrom(base, bi));
      idx.list = committed;
    }
    return idx;
  }
  let rows = 0;
  for (const b of committed) rows += b.length;
  const keys = new KeySet(rows);
  for (const b of committed) addBatchKeys(t, key, keys, b, 0);
  idx = { list: committed, keys, rewrites: [], offer: null, checked: null, checkedVals: [] };
  holder.set(key, idx);
  return idx;
}

/**
 * Adds the key of the one row `committed` gained over the index (its last) when it holds the values
 * checkNewBatch last made a key of (the key is then that one); false, with nothing done, otherwise.
 */
function addChecked(t: MemoryTable, key: readonly number[], idx: UniqueIndex, committed: readonly Batch[]): boolean {
  const b = committed[committed.length - 1]!;
  const i = b.length - 1;
  const vals = idx.checkedVals;
  for (let j = 0; j < key.length; j++) if (cell(b, key[j]!, i) !== vals[j]) return false;
  const k = idx.checked!;
  idx.checked = null;
  if (!idx.keys.insert(k)) throw duplicateKey(t, key, rowVals(key, b, i));
  idx.list = committed;
  return true;
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
  const k = rowKey(t, key, b, 0);
  if (k !== null && idx.keys.has(k)) throw duplicateKey(t, key, rowVals(key, b, 0));
  if (k !== null && key.length > 1) {
    idx.checked = k;
    for (let j = 0; j < key.length; j++) idx.checkedVals[j] = cell(b, key[j]!, 0);
  }
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
  let seen: KeySet[] | null = null;
  if (gained + others > 1) {
    seen = new Array(keys.length);
    for (let ki = 0; ki < keys.length; ki++) seen[ki] = new KeySet(gained);
  }
  if (indexed) {
    for (let bi = Math.max(0, covered.length - 1); bi < existing.length; bi++) {
      const b = existing[bi]!;
      for (let i = gainedFrom(covered, bi); i < b.length; i++) checkBatchRow(t, indexes, seen, b, i);
    }
  } else for (const b of existing) for (let i = 0; i < b.length; i++) checkBatchRow(t, null, seen, b, i);
  for (const b of added) {
    if (keys.length === 1 && int32KeyRows(t, keys[0]!, b, indexes?.[0]!.keys ?? null, seen?.[0] ?? null)) continue;
    for (let i = 0; i < b.length; i++) checkBatchRow(t, indexes, seen, b, i);
  }
  for (const r of newRows) {
    for (let ki = 0; ki < keys.length; ki++) {
      const key = keys[ki]!;
      const vals: Value[] = new Array(key.length);
      for (let j = 0; j < key.length; j++) vals[j] = r[key[j]!]!;
      const k = keyOf(t, key, vals);
      if (k !== null && taken(indexes, seen, ki, k)) throw duplicateKey(t, key, vals);
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

/** Whether key `k` of key number `ki` is taken: by a committed row (`indexes`, when they cover the rows checked) or by a row checked before (added to `seen` now). */
function taken(indexes: readonly UniqueIndex[] | null, seen: readonly KeySet[] | null, ki: number, k: KeyValue): boolean {
  return (indexes !== null && indexes[ki]!.keys.has(k)) || (seen !== null && !seen[ki]!.insert(k));
}

/** Row `i` of `b` against every key of `t`, in order: 23505 naming the first key whose value is taken. */
function checkBatchRow(t: MemoryTable, indexes: readonly UniqueIndex[] | null, seen: readonly KeySet[] | null, b: Batch, i: number): void {
  const keys = t.uniqueKeys;
  for (let ki = 0; ki < keys.length; ki++) {
    const key = keys[ki]!;
    const k = rowKey(t, key, b, i);
    if (k !== null && taken(indexes, seen, ki, k)) throw duplicateKey(t, key, rowVals(key, b, i));
  }
}

/**
 * The rows of `b` checked against `committed` and added to `own` as batchRow does, for a table's only
 * key when it is one column stored as 32-bit integers (an int4 PRIMARY KEY): read straight from the
 * column, where a bulk INSERT … SELECT spent most of its check boxing each value and calling a key
 * function and a closure per row. A key of one text column goes to textKeyRows; false (nothing
 * checked) for any other column.
 */
function int32KeyRows(t: MemoryTable, key: readonly number[], b: Batch, committed: KeySet | null, own: KeySet | null): boolean {
  if (key.length !== 1) return false;
  const col = b.columns[key[0]!]!;
  if (!(col.data instanceof Int32Array)) return textKeyRows(t, key, b, col, committed, own);
  const data = col.data;
  const nulls = col.nulls;
  for (let i = 0; i < b.length; i++) {
    if (nulls !== null && nulls[i] === 1) continue;
    // An Int32Array holds no -0 and only safe integers: the value is its key, as rowKey makes it.
    const k = data[i]!;
    if ((committed !== null && committed.has(k)) || (own !== null && !own.insert(k))) throw duplicateKey(t, key, rowVals(key, b, i));
  }
  return true;
}

/** int32KeyRows for a key of one text, varchar or name column (textKeyData): each string is its key. */
function textKeyRows(t: MemoryTable, key: readonly number[], b: Batch, col: Column, committed: KeySet | null, own: KeySet | null): boolean {
  const data = textKeyData(t, key, b);
  if (data === null) return false;
  const nulls = col.nulls;
  for (let i = 0; i < b.length; i++) {
    const v = data[i];
    if ((nulls !== null && nulls[i] === 1) || v === null || v === undefined) continue;
    const k = v as string;
    if ((committed !== null && committed.has(k)) || (own !== null && !own.insert(k))) throw duplicateKey(t, key, rowVals(key, b, i));
  }
  return true;
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
  const changes = keys.map(() => ({ removed: [] as KeyValue[], added: [] as KeyValue[] }));
  // Old keys of the changed rows, read at their positions.
  const old = keys.map(() => new Set<KeyValue>());
  let base = 0;
  let bi = 0;
  for (const p of positions) {
    while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
    const b = snapshot[bi]!;
    keys.forEach((key, ki) => {
      const k = rowKey(t, key, b, p - base);
      if (k !== null) {
        old[ki]!.add(k);
        changes[ki]!.removed.push(k);
      }
    });
  }
  keys.forEach((key, ki) => {
    const own = new Set<KeyValue>();
    forGained(snapshot, covered, (b, i) => {
      const k = rowKey(t, key, b, i);
      if (k !== null) own.add(k);
    });
    const taken = new Set<KeyValue>();
    for (const r of newRows) {
      const vals = key.map((c) => r[c]!);
      const k = keyOf(t, key, vals);
      if (k === null) continue;
      const heldByOther = (indexes[ki]!.keys.has(k) || own.has(k)) && !old[ki]!.has(k);
      if (heldByOther || taken.has(k)) throw duplicateKey(t, key, vals);
      taken.add(k);
      changes[ki]!.added.push(k);
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
    const removed: KeyValue[] = [];
    let base = 0;
    let bi = 0;
    for (const p of positions) {
      while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
      const k = rowKey(t, key, snapshot[bi]!, p - base);
      if (k !== null) removed.push(k);
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
  const own = new Set<KeyValue>();
  forGained(snapshot, idx.list, (b, i) => {
    const k = rowKey(t, key, b, i);
    if (k !== null) own.add(k);
  });
  return rows.map((r) => {
    const k = keyOf(t, key, key.map((c) => r[c]!));
    return k !== null && (idx.keys.has(k) || own.has(k));
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
export function keysCommittedSince(t: MemoryTable, key: readonly number[], base: readonly Batch[], stale: readonly { readonly batch: Batch; readonly index: number }[] = []): ((k: KeyValue) => boolean) | null {
  const current = t.committedSnapshot();
  if (current === base) return null;
  if (t.grewFrom(current, base)) {
    const n = gainedRows(current, base);
    if (n === 0) return null;
    const gained = new KeySet(n);
    for (let bi = Math.max(0, base.length - 1); bi < current.length; bi++) {
      const b = current[bi]!;
      for (let i = gainedFrom(base, bi); i < b.length; i++) {
        const k = rowKey(t, key, b, i);
        if (k !== null) gained.add(k);
      }
    }
    return (k) => gained.has(k);
  }
  const committed = committedIndex(t, key).keys;
  let before: KeySet | null = null;
  return (k) => {
    if (!committed.has(k)) return false;
    if (before === null) {
      let rows = 0;
      for (const b of base) rows += b.length;
      const seen = new KeySet(rows);
      for (const b of base) {
        for (let i = 0; i < b.length; i++) {
          const bk = rowKey(t, key, b, i);
          if (bk !== null) seen.add(bk);
        }
      }
      for (const r of stale) {
        const sk = rowKey(t, key, r.batch, r.index);
        if (sk !== null) seen.delete(sk);
      }
      before = seen;
    }
    return !before.has(k);
  };
}

/** How the index keys `vals` of key columns `key` of `t` (null when a part is NULL). */
export function indexKey(t: MemoryTable, key: readonly number[], vals: readonly Value[]): number | string | null {
  return keyOf(t, key, vals);
}

/** indexKey of row `i` of batch `b` of `t`. */
export function batchRowKey(t: MemoryTable, key: readonly number[], b: Batch, i: number): number | string | null {
  return rowKey(t, key, b, i);
}

/**
 * INSERT … ON CONFLICT DO NOTHING: the rows of `rows` whose `arbiters` keys neither a row of
 * `existing` (the rows of `t`) nor an earlier kept row holds.
 */
export function rowsWithoutConflicts(t: MemoryTable, arbiters: readonly (readonly number[])[], rows: readonly Value[][], existing: readonly Batch[] = t.snapshot()): Value[][] {
  const taken = arbiters.map((key) => {
    const idx = committedIndex(t, key);
    const own = new Set<KeyValue>();
    const indexed = t.grewFrom(existing, idx.list);
    const add = (b: Batch, i: number): void => {
      const k = rowKey(t, key, b, i);
      if (k !== null) own.add(k);
    };
    if (indexed) forGained(existing, idx.list, add);
    else for (const b of existing) for (let i = 0; i < b.length; i++) add(b, i);
    return { committed: indexed ? idx.keys : null, own };
  });
  const kept: Value[][] = [];
  for (const r of rows) {
    const keys = arbiters.map((key) => keyOf(t, key, key.map((c) => r[c]!)));
    if (keys.some((k, a) => k !== null && (taken[a]!.committed?.has(k) === true || taken[a]!.own.has(k)))) continue;
    keys.forEach((k, a) => k !== null && taken[a]!.own.add(k));
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
  const own = new KeySet(indexed ? gainedRows(current, idx.list) : 0);
  const collect = (b: Batch, i: number): void => {
    const k = rowKey(t, key, b, i);
    if (k !== null) own.add(k);
  };
  if (indexed) forGained(current, idx.list, collect);
  else for (const b of current) for (let i = 0; i < b.length; i++) collect(b, i);
  return (vals) => {
    const k = keyOf(t, key, vals);
    return k !== null && ((indexed && idx.keys.has(k)) || own.has(k));
  };
}
