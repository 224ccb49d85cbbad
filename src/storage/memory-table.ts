/**
 * In-memory table: immutable columnar batches. Writers append new batches (or swap the whole list
 * for UPDATE/DELETE), so a scan that is running keeps reading the batches it started with.
 *
 * Small commits (one-row INSERTs) do not each add a batch: their rows go into the table's open last
 * batch, whose buffers have room past the rows published so far. Each commit publishes a new, longer
 * batch object over the same buffers (typed arrays as views, object columns as prefixColumn, which
 * copies the row slots only when read); earlier batch objects keep their own length, so what a scan
 * or snapshot saw never changes.
 * Only the batch object whose length equals the rows written may write further: any other holder of
 * the same buffers copies them first, so two writers never write the same slots.
 */
import type { Node } from '@pgsql/types';
import type { Schema, Value } from '../common/types.js';
import { BATCH_SIZE, ColumnBuilder, makeColumn, prefixColumn, type Batch, type Column, type ColumnData } from '../common/column.js';
import { recordExtendedBatch, recordImmutableBatch } from '../execution/column-stats.js';
import { encodeText, TextDictionary } from '../common/text-dictionary.js';
import type { TableSource } from '../logical/plan.js';
import type { IndexDefinition } from '../logical/index-definition.js';
import type { ForeignKey } from './foreign-key.js';

/** Column constraints and defaults kept with the table (checked by INSERT/UPDATE). */
export interface ColumnMeta {
  notNull: boolean;
  /** DEFAULT expression as written (bound at insert time, so now() is per statement). */
  defaultExpr: Node | null;
  /** serial / bigserial / GENERATED … AS IDENTITY: the owned sequence's counter and options (src/storage/sequence.ts). */
  sequence: ColumnSequence | null;
  /** GENERATED ALWAYS / BY DEFAULT AS IDENTITY; absent for serial columns and plain ones. */
  identity?: 'always' | 'by default';
}

/**
 * The counter of a column's own sequence, kept with the column so it persists with the table: `next`
 * is what the next nextval() returns; the options are present only where they differ from the column
 * type's defaults (increment 1, from 1 to the type's maximum, no cycle).
 */
export interface ColumnSequence {
  next: number;
  increment?: number;
  start?: number;
  min?: number;
  max?: number;
  cycle?: boolean;
}

/** The buffers of an open batch: room for `capacity` rows, `used` of them written. */
interface TailStore {
  readonly data: ColumnData[];
  readonly nulls: (Uint8Array | null)[];
  readonly capacity: number;
  used: number;
  /** The batch whose rows the store was started with (weakly: it only matters while someone holds it). */
  from: WeakRef<Batch> | null;
  /**
   * What every batch over this store shares with the batch it was copied from (rowIdentity): row i
   * of any of them is the same row, so a row lock taken through one is found through the others.
   */
  identity: object;
}

/**
 * The tail store a batch was published over (only those may be extended): a field of the batch
 * object, not a WeakMap entry, as every one-row commit publishes one.
 */
function tailOf(b: Batch): TailStore | undefined {
  return b instanceof CommittedBatch ? (b.store ?? undefined) : undefined;
}

/** Batches from this many rows up are kept as they are (bulk loads), not copied into the open batch. */
const SMALL_BATCH = 512;

/**
 * Rows an open batch with plain-array columns (text, numeric, …) may reach. Reading a published
 * batch's such column copies its row slots (an array cannot be viewed like a typed array), so a
 * workload that reads after every one-row commit would copy up to BATCH_SIZE pointers each time; at
 * this size that is a few KB, and scans of such tables are as fast as over full-size batches.
 */
const OPEN_ARRAY_BATCH = 1024;

/**
 * Column `ci` of `b` as stored: a batch published over a tail store reads the store's buffers, whose
 * first b.length rows are b's (stores only append), so its plain columns need not be copied out.
 * Any other batch's column data as it is.
 */
export function storedData(b: Batch, ci: number): ColumnData {
  const s = tailOf(b);
  return s !== undefined ? s.data[ci]! : b.columns[ci]!.data;
}

function sameKind(a: ColumnData, b: ColumnData): boolean {
  return Array.isArray(a) ? Array.isArray(b) : a.constructor === b.constructor;
}

function newStore(like: Batch, capacity: number): TailStore {
  return {
    data: like.columns.map((c) => (Array.isArray(c.data) ? new Array<Value>(capacity) : new (c.data.constructor as new (n: number) => Uint8Array | Int32Array | Float64Array)(capacity))),
    nulls: like.columns.map(() => null),
    capacity,
    used: 0,
    from: null,
    identity: {},
  };
}

/** Writes a batch's rows into the store after the rows it holds. */
function writeRows(s: TailStore, b: Batch): void {
  const at = s.used;
  const n = b.length;
  const columns = b.columns;
  for (let ci = 0; ci < columns.length; ci++) {
    const c = columns[ci]!;
    const dst = s.data[ci]!;
    const src = c.data;
    if (Array.isArray(dst)) {
      const from = src as Value[];
      for (let i = 0; i < n; i++) dst[at + i] = from[i]!;
    } else if (n === 1) {
      (dst as Int32Array)[at] = (src as Int32Array)[0]!;
    } else {
      (dst as Int32Array).set((src as Int32Array).subarray(0, n), at);
    }
    if (c.nulls !== null) {
      const nm = (s.nulls[ci] ??= new Uint8Array(s.capacity));
      nm.set(c.nulls.subarray(0, n), at);
    }
  }
  s.used = at + n;
}

/**
 * A batch published over a tail store, or a commit's rows cut from one. Constructed, not an object
 * literal: V8 decides per literal site whether to allocate straight in the old generation
 * (allocation-site pretenuring), and the open batch of every table in a database of many tables
 * survives, so a literal here got pretenured; every later commit's batch was then born old and kept
 * its young columns and text copy alive through each scavenge until a full collection (4 MB
 * promoted a scavenge beside 300 tables). Constructed objects carry no allocation site.
 */
class CommittedBatch implements Batch {
  // Declared and assigned, not parameter properties: those are defined by an initializer and then
  // assigned (ES2022 class fields), twice the work for an object every one-row commit makes.
  declare readonly columns: readonly Column[];
  declare readonly length: number;
  /** The tail store this batch was published over; null for a cut of one (batchRowsFrom). */
  declare readonly store: TailStore | null;
  constructor(columns: readonly Column[], length: number, store: TailStore | null) {
    this.columns = columns;
    this.length = length;
    this.store = store;
  }
}

/** The batch of the store's `used` rows. */
function publish(s: TailStore, like: Batch): Batch {
  const n = s.used;
  const width = like.columns.length;
  const columns: Column[] = new Array(width);
  for (let ci = 0; ci < width; ci++) {
    const type = like.columns[ci]!.type;
    const d = s.data[ci]!;
    const nm = s.nulls[ci]!;
    const rowNulls = nm !== null ? nm.subarray(0, n) : null;
    // Plain values are copied only when read (prefixColumn): most batches a commit publishes are
    // replaced by the next commit's before anything reads them.
    columns[ci] = Array.isArray(d) ? prefixColumn(type, d, n, rowNulls) : makeColumn(type, d.subarray(0, n), rowNulls);
  }
  return new CommittedBatch(columns, n, s);
}

/**
 * `last` with `more`'s rows after its own, sharing buffers when `last` is the open batch that wrote
 * last (amortized: no copy of the rows already there); null when the rows do not fit in one batch
 * or their storage differs (an int8 column widened to plain values).
 */
export function extendBatch(last: Batch, more: Batch): Batch | null {
  const n = last.length + more.length;
  let s = tailOf(last);
  const width = last.columns.length;
  if (width !== more.columns.length) return null;
  let limit = BATCH_SIZE;
  for (let c = 0; c < width; c++) {
    const d = s !== undefined ? s.data[c]! : last.columns[c]!.data;
    if (!sameKind(d, more.columns[c]!.data)) return null;
    if (Array.isArray(d)) limit = OPEN_ARRAY_BATCH;
  }
  if (n > limit) return null;
  if (s === undefined || s.used !== last.length || s.capacity < n) {
    // Not extendable in place (a closed batch, buffers another writer went on with, or full): copy
    // into new buffers with room to grow.
    let cap = Math.max(64, s?.capacity ?? 0);
    while (cap < n) cap *= 2;
    s = newStore(last, Math.min(cap, limit));
    s.from = new WeakRef(last);
    s.identity = rowIdentity(last);
    writeRows(s, last);
  }
  writeRows(s, more);
  return publish(s, last);
}

/**
 * Whether `later` holds `earlier`'s rows and possibly more after them: `earlier` extended, in place or
 * through copies into larger buffers.
 */
export function extendsBatch(later: Batch, earlier: Batch): boolean {
  const target = tailOf(earlier);
  for (let x: Batch | undefined = later; x !== undefined; ) {
    if (x === earlier) return true;
    const s = tailOf(x);
    if (s === undefined) return false;
    if (s === target) return x.length >= earlier.length;
    x = s.from?.deref();
  }
  return false;
}

/**
 * The object that names `b`'s rows by index across extensions: a commit that fills the open last
 * batch publishes a new, longer batch whose first rows are the old one's, and row locks must follow
 * them (row-locks.ts keys its holds by this).
 */
export function rowIdentity(b: Batch): object {
  return tailOf(b)?.identity ?? b;
}

/**
 * The arrays whose slots `b`'s rows are, per column: a batch published over a tail store reads the
 * store's (its plain columns would copy their slots out when read); null for any other batch, whose
 * columns' data are its rows.
 */
export function storedColumns(b: Batch): readonly ColumnData[] | null {
  return tailOf(b)?.data ?? null;
}

/** Rows `from` … end of a batch, sharing its typed buffers. */
export function batchRowsFrom(b: Batch, from: number): Batch {
  return new CommittedBatch(
    b.columns.map((c, ci) => {
      const d = storedData(b, ci);
      return makeColumn(c.type, Array.isArray(d) ? d.slice(from, b.length) : d.subarray(from, b.length), c.nulls !== null ? c.nulls.subarray(from, b.length) : null);
    }),
    b.length - from,
    null,
  );
}

/**
 * Whether `current` holds exactly `base`'s rows and possibly more after them (the same batches, the
 * last possibly extended, then new ones), by comparing the two lists batch by batch.
 */
export function listGrewFrom(current: readonly Batch[], base: readonly Batch[]): boolean {
  if (current === base) return true;
  const n = base.length;
  if (current.length < n) return false;
  for (let i = 0; i < n - 1; i++) if (current[i] !== base[i]) return false;
  return n === 0 || extendsBatch(current[n - 1]!, base[n - 1]!);
}

/**
 * Lists a table remembers having made by appends alone, with the list each was made from: enough for
 * a writer that checks after every commit (the unique index, the log) and a few sessions between.
 */
const APPEND_HISTORY = 8;

/** A stored text column's dictionary, and how many rows it has encoded (to tell when it stops paying). */
interface ColumnDictionary {
  readonly dictionary: TextDictionary;
  rows: number;
  /** Set once the column proved too varied: later batches are stored without codes. */
  stopped: boolean;
}

/** Entries a column's dictionary may reach, whatever the row count. */
const MAX_DICTIONARY = 1 << 20;
/** Rows seen before the distinct share decides whether a dictionary pays. */
const DICTIONARY_TRIAL_ROWS = 16384;

function dictionaryFor(t: { name: string }): ColumnDictionary | null {
  return t.name === 'text' || t.name === 'varchar' ? { dictionary: new TextDictionary(), rows: 0, stopped: false } : null;
}

/** A text column encodeBatch made → the column it encoded (the same strings, in the same rows). */
const encodedFrom = new WeakMap<Column, Column>();

/**
 * Whether stored column `stored` holds the values of column `given` row for row: the very column, or
 * the copy with dictionary codes an append stored in its place. A unique index offered the keys of a
 * bulk load's batches takes them only for the columns it checked.
 */
export function storesColumn(stored: Column, given: Column): boolean {
  return stored === given || encodedFrom.get(stored) === given;
}

export class MemoryTable implements TableSource {
  private batches: Batch[] = [];
  /** Per column: the dictionary of a text column that bulk-loaded batches encode into (shared with transaction clones). */
  private dictionaries: (ColumnDictionary | null)[];
  /**
   * Where the table reports that its rows or definition were replaced (a database directory's
   * commit then looks at the reported tables only, not at every table of the catalog); null when no
   * one asks, as for a transaction's private copy.
   */
  changeSink: Set<MemoryTable> | null = null;
  private meta_: ColumnMeta[];
  private uniqueKeys_: number[][] = [];
  private uniqueNames_: string[] = [];
  private indexKeyNames_: string[] = [];
  private primaryKey_ = false;
  private foreignKeys_: readonly ForeignKey[] = [];
  private indexes_: readonly IndexDefinition[] = [];
  private restoreIndexes_: readonly { name: string; sql: string }[] = [];

  get meta(): ColumnMeta[] {
    return this.meta_;
  }
  set meta(m: ColumnMeta[]) {
    this.meta_ = m;
    this.changed();
  }
  /** Column sets that must be unique (PRIMARY KEY, UNIQUE). */
  get uniqueKeys(): number[][] {
    return this.uniqueKeys_;
  }
  set uniqueKeys(k: number[][]) {
    this.uniqueKeys_ = k;
    this.changed();
  }
  /** The constraint name of each unique key (23505 names it); empty for tables saved without names. */
  get uniqueNames(): string[] {
    return this.uniqueNames_;
  }
  set uniqueNames(n: string[]) {
    this.uniqueNames_ = n;
    this.changed();
  }
  /** Those of `uniqueNames` that name a unique index (CREATE UNIQUE INDEX, dropped by DROP INDEX), not a constraint. */
  get indexKeyNames(): string[] {
    return this.indexKeyNames_;
  }
  set indexKeyNames(n: string[]) {
    this.indexKeyNames_ = n;
    this.changed();
  }
  /** Whether uniqueKeys[0] is the PRIMARY KEY (columns grouped by it decide the rest of the row). */
  get primaryKey(): boolean {
    return this.primaryKey_;
  }
  set primaryKey(p: boolean) {
    this.primaryKey_ = p;
    this.changed();
  }
  /** FOREIGN KEY constraints of this table (as the referencing side); replaced, never mutated. */
  get foreignKeys(): readonly ForeignKey[] {
    return this.foreignKeys_;
  }
  set foreignKeys(f: readonly ForeignKey[]) {
    this.foreignKeys_ = f;
    this.changed();
  }
  /**
   * Secondary indexes (CREATE INDEX): definitions only, replaced and never mutated. Their entries are
   * built per batch list when a scan first reads through them (index-entries.ts), so every snapshot a
   * transaction or cursor holds has entries that match its own rows.
   */
  get indexes(): readonly IndexDefinition[] {
    return this.indexes_;
  }
  set indexes(i: readonly IndexDefinition[]) {
    this.indexes_ = i;
    this.changed();
  }
  /** CREATE INDEX statements read from a database directory, run again once the catalog is loaded. */
  get restoreIndexes(): readonly { name: string; sql: string }[] {
    return this.restoreIndexes_;
  }
  set restoreIndexes(r: readonly { name: string; sql: string }[]) {
    this.restoreIndexes_ = r;
    this.changed();
  }
  /**
   * Table inheritance (INHERITS, PARTITION OF), by table name: the tables this one inherits from and
   * those that inherit from it. Shared with transaction clones, as the DDL that changes it is not
   * transactional here.
   */
  inheritance: { parents: string[]; children: string[] } = { parents: [], children: [] };
  /** Indexes of the unique keys over the committed rows (unique-index.ts), shared with transaction copies. */
  uniqueIndexes: WeakMap<readonly number[], unknown> = new WeakMap();
  /** For a transaction's private copy: the shared table it copies, whose rows are the committed ones. */
  private origin: MemoryTable | null = null;
  private rows = 0;
  /**
   * The last APPEND_HISTORY lists of `batches` made by appending to the one before, as pairs (list,
   * the list it was made from) in a ring: whether a list grew from an older one is then a walk of a
   * few steps instead of a comparison of every batch, which at a million rows (a thousand batches)
   * was a third of a one-row commit's CPU. Emptied by any other change of the list, so it holds no
   * batches the table no longer holds.
   */
  private appends: (readonly Batch[] | undefined)[] = [];
  private appendAt = 0;
  /** Bumped on every write, so cursors and caches can tell the table changed. */
  version = 0;

  constructor(
    readonly name: string,
    readonly schema: Schema,
    meta?: ColumnMeta[],
  ) {
    this.meta_ = meta ?? schema.map(() => ({ notNull: false, defaultExpr: null, sequence: null }));
    this.dictionaries = schema.map((f) => dictionaryFor(f.type));
  }

  /**
   * `b` with codes on its text columns, their strings replaced by the dictionary's shared ones. Appends
   * encode only batches of bulk size (small ones go into the open batch, which holds no codes); a
   * dictionary stops taking entries once most values are distinct, and its column then stays plain.
   */
  private encodeBatch(b: Batch, minRows = SMALL_BATCH): Batch {
    if (b.length < minRows) return b;
    let columns: Column[] | null = null;
    for (let ci = 0; ci < b.columns.length; ci++) {
      const cd = this.dictionaries[ci];
      const c = b.columns[ci]!;
      if (cd == null || cd.stopped || c.dict != null || !Array.isArray(c.data) || c.data.length < b.length) continue;
      const before = cd.dictionary.size;
      const data = new Array<Value>(b.length);
      const dc = encodeText(c.data, c.nulls, b.length, cd.dictionary, true, data);
      if (dc === null) continue;
      cd.rows += b.length;
      const grown = cd.dictionary.size - before;
      // A column whose batches keep bringing mostly new strings (ids, free text) gains nothing from codes.
      if (cd.dictionary.size > MAX_DICTIONARY || (cd.rows >= DICTIONARY_TRIAL_ROWS && grown * 2 > b.length && cd.dictionary.size * 2 > cd.rows)) {
        cd.stopped = true;
      }
      columns ??= b.columns.slice();
      const encoded = makeColumn(c.type, data, c.nulls, dc);
      encodedFrom.set(encoded, c);
      columns[ci] = encoded;
    }
    return columns === null ? b : { columns, length: b.length };
  }

  private changed(): void {
    if (this.changeSink !== null) this.changeSink.add(this);
  }

  rowCount(): number {
    return this.rows;
  }

  snapshot(): readonly Batch[] {
    return this.batches;
  }

  /** Whether batch `later` holds batch `earlier`'s rows first (secondary indexes extend their entries over appends). */
  batchExtends(later: Batch, earlier: Batch): boolean {
    return later === earlier || extendsBatch(later, earlier);
  }

  /** The table every transaction's copy of this one copies (this one when it is not a copy). */
  get committedTable(): MemoryTable {
    return this.origin ?? this;
  }

  /** The committed rows: this table's own batches, or for a transaction's copy the shared table's. */
  committedSnapshot(): readonly Batch[] {
    return (this.origin ?? this).batches;
  }

  /** Remembers that `list` was made by appending to `from` (rows to its last batch, and batches). */
  private appended(list: readonly Batch[], from: readonly Batch[]): void {
    const at = this.appendAt;
    this.appends[at] = list;
    this.appends[at + 1] = from;
    this.appendAt = at + 2 === 2 * APPEND_HISTORY ? 0 : at + 2;
  }

  /** The list `list` was made from by appends, as this table or the one it copies remembers. */
  private appendedTo(list: readonly Batch[]): readonly Batch[] | undefined {
    const a = this.appends;
    for (let i = 0; i < a.length; i += 2) if (a[i] === list) return a[i + 1];
    const o = this.origin;
    if (o !== null) {
      const b = o.appends;
      for (let i = 0; i < b.length; i += 2) if (b[i] === list) return b[i + 1];
    }
    return undefined;
  }

  /**
   * Whether list `current` (of this table, or of the committed table it copies) was made from `base`
   * by appends alone, as the table remembers them; false when it cannot tell (listGrewFrom can).
   */
  appendedSince(current: readonly Batch[], base: readonly Batch[]): boolean {
    let x: readonly Batch[] | undefined = current;
    for (let step = 0; step <= 2 * APPEND_HISTORY && x !== undefined; step++) {
      if (x === base) return true;
      x = this.appendedTo(x);
    }
    return false;
  }

  /** listGrewFrom(current, base), answered from the appends remembered when they reach `base`. */
  grewFrom(current: readonly Batch[], base: readonly Batch[]): boolean {
    return current === base || this.appendedSince(current, base) || listGrewFrom(current, base);
  }

  private forgetAppends(): void {
    if (this.appends.length > 0) this.appends = [];
    this.appendAt = 0;
  }

  async *scan(): AsyncGenerator<Batch> {
    for (const b of this.batches) yield b;
  }

  appendBatch(b: Batch): void {
    if (b.length === 0) return;
    b = this.encodeBatch(b);
    recordImmutableBatch(b);
    const from = this.batches;
    this.batches = [...from, b];
    this.appended(this.batches, from);
    this.rows += b.length;
    this.version++;
    this.changed();
  }

  appendRows(rows: readonly (readonly Value[])[]): void {
    for (let start = 0; start < rows.length; start += BATCH_SIZE) {
      const end = Math.min(rows.length, start + BATCH_SIZE);
      const builders = this.schema.map((f) => new ColumnBuilder(f.type, end - start));
      for (let r = start; r < end; r++) {
        const row = rows[r]!;
        for (let c = 0; c < builders.length; c++) builders[c]!.push(row[c] ?? null);
      }
      this.appendBatch({ columns: builders.map((b) => b.finish()), length: end - start });
    }
  }

  /**
   * A transaction's committed rows: small batches go into the open last batch (a one-row INSERT
   * costs a row, not a batch), larger ones are added as they are.
   */
  appendCommitted(batches: readonly Batch[]): void {
    const list = this.batches.slice();
    let added = 0;
    for (const b of batches) {
      if (b.length === 0) continue;
      added += b.length;
      const last = list[list.length - 1];
      if (b.length < SMALL_BATCH) {
        // A large batch that is not open (a bulk load's last) is not copied into an open one: each
        // commit would then publish a copy of all its rows, and one-row commits into a table that
        // ended with a bulk load would cost more than into an empty one. A new open batch starts.
        const merged = last !== undefined && (tailOf(last) !== undefined || last.length < SMALL_BATCH) ? extendBatch(last, b) : null;
        if (merged !== null) {
          list[list.length - 1] = merged;
          recordExtendedBatch(merged, last!);
          continue;
        }
        let cap = 64;
        while (cap < b.length) cap *= 2;
        const s = newStore(b, cap);
        writeRows(s, b);
        const open = publish(s, b);
        list.push(open);
        recordImmutableBatch(open);
        continue;
      }
      recordImmutableBatch(b);
      list.push(b);
    }
    if (added === 0) return;
    this.appended(list, this.batches);
    this.batches = list;
    this.rows += added;
    this.version++;
    this.changed();
  }

  /**
   * A private copy for a transaction: the same immutable batches and the same column metadata
   * (sequences advance for everyone, as PostgreSQL's do even when a transaction rolls back).
   */
  cloneForTransaction(): MemoryTable {
    const t = new MemoryTable(this.name, this.schema, this.meta);
    t.uniqueKeys = this.uniqueKeys;
    t.uniqueNames = this.uniqueNames;
    t.indexKeyNames = this.indexKeyNames;
    t.indexes = this.indexes;
    t.primaryKey = this.primaryKey;
    t.foreignKeys = this.foreignKeys;
    t.inheritance = this.inheritance;
    t.uniqueIndexes = this.uniqueIndexes;
    t.origin = this.origin ?? this;
    t.dictionaries = this.dictionaries;
    t.batches = this.batches;
    t.rows = this.rows;
    return t;
  }

  /** A transaction's clone takes a new statement's snapshot: these batches, without counting as a write. */
  rebase(batches: readonly Batch[]): void {
    this.batches = batches as Batch[];
    this.forgetAppends();
    this.rows = batches.reduce((n, b) => n + b.length, 0);
    this.changed();
  }

  /**
   * A batch of rewritten rows (UPDATE, DELETE) with codes on its text columns, for a rewrite to store
   * and to record in its row lineage as this very object.
   */
  encodeRewritten(b: Batch): Batch {
    return this.encodeBatch(b, 1);
  }

  replaceAll(batches: Batch[]): void {
    // The batches are kept as given, never copied: WHERE CURRENT OF and row locks follow a rewritten row
    // by its batch object (row-lineage.ts). Rewrites encode their new batches first (encodeRewritten).
    this.batches = batches.filter((b) => b.length > 0);
    this.forgetAppends();
    for (const b of this.batches) recordImmutableBatch(b);
    this.rows = this.batches.reduce((n, b) => n + b.length, 0);
    this.version++;
    this.changed();
  }
}
