/**
 * Transactions: each one reads and writes a private view of the catalog, so its writes stay invisible
 * to other sessions until COMMIT and ROLLBACK discards only them.
 *
 * Tables are lists of immutable batches, so the private view clones each table cheaply (the batch
 * list is shared, not copied). At COMMIT each written table is merged into the shared one:
 * - rows only appended (INSERT, COPY): the new batches are appended to the shared table, whatever
 *   other transactions committed meanwhile, so concurrent inserts all survive;
 * - table rewritten (UPDATE, DELETE, TRUNCATE): if the shared table only gained rows since the clone,
 *   the rewrite plus those rows (which the statement could not see, as in READ COMMITTED) replace it;
 *   if another transaction rewrote it too, the rows this one changed are taken out of the committed
 *   list and its new rows appended (row-merge.ts); only a row both changed or deleted fails with
 *   40001 (row locks make a READ COMMITTED writer of such a row wait instead, as in PostgreSQL).
 * Unique keys are checked again over the merged rows (two transactions inserting one key: 23505 at
 * the second COMMIT). Created, dropped and replaced tables and views are applied the same way.
 *
 * READ COMMITTED (the default) points unwritten clones at the latest committed batches before each
 * statement; REPEATABLE READ keeps the snapshot taken at the transaction's first statement.
 *
 * Row locks (SELECT … FOR UPDATE/SHARE, and those UPDATE and DELETE take on the rows they change) are
 * per row, not per table (row-locks.ts): an UPDATE or DELETE of a row another open transaction locked
 * waits for it, then runs again on a fresh snapshot.
 */
import { QuireError } from '../common/errors.js';
import type { Batch } from '../common/column.js';
import type { TableSource } from '../logical/plan.js';
import type { AggregateDef, Catalog, SqlFunctionDef, ViewDef } from '../storage/catalog.js';
import type { CompositeType } from '../common/types.js';
import { batchRowsFrom, extendsBatch, MemoryTable } from '../storage/memory-table.js';
import { LockOwner } from './row-locks.js';
import type { ForeignKey } from '../storage/foreign-key.js';
import { mergeRewrite, rowPicker, rowsUnchangedSince } from './row-merge.js';

/** A table as a COMMIT leaves it: whether this transaction wrote it, and whether others did since it last looked. */
export interface CommittingTable {
  readonly table: MemoryTable;
  readonly rows: readonly Batch[];
  readonly written: boolean;
  readonly stale: boolean;
}

export type IsolationLevel = 'read committed' | 'repeatable read';

interface Clone {
  readonly shared: MemoryTable;
  readonly clone: MemoryTable;
  /** The shared table's batch list the clone started from (or was last reset to). */
  base: readonly Batch[];
  /** The clone's version when it was made or reset: a higher one means this transaction wrote it. */
  version: number;
  /** Set once the clone's batch list stopped extending `base` (UPDATE, DELETE, TRUNCATE). */
  rewritten: boolean;
  /** Rows others committed were folded into the written clone: unique keys need checking at COMMIT. */
  mixed: boolean;
  /** The shared table's unique keys when the clone was made (CREATE UNIQUE INDEX / DROP INDEX replace the list). */
  readonly keysAtStart: readonly (readonly number[])[];  /** The shared table's foreign keys when the clone was made (ALTER TABLE, DROP … CASCADE replace the list). */
  readonly foreignKeysAtStart: readonly ForeignKey[];
  /** The secondary index list at the start: CREATE INDEX / DROP INDEX here replace the clone's. */
  readonly indexesAtStart: MemoryTable['indexes'];
  /** Another transaction committed rows of the table since this one started (foreign keys are checked again at COMMIT). */
  othersWrote: boolean;
}

function conflict(name: string): QuireError {
  return new QuireError('40001', 'could not serialize access due to concurrent update', {
    detail: `Another transaction rewrote table "${name}" and committed first.`,
    hint: 'Retry the transaction.',
  });
}

function extends_(list: readonly Batch[], prefix: readonly Batch[]): boolean {
  if (list === prefix) return true;
  if (list.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}

/**
 * Whether the shared table only gained rows since `base`: the same batches, the last one possibly
 * extended by later commits (small commits fill the open last batch), then new ones.
 */
function grewFrom(current: readonly Batch[], base: readonly Batch[]): boolean {
  if (current === base) return true;
  const n = base.length;
  if (current.length < n) return false;
  for (let i = 0; i < n - 1; i++) if (current[i] !== base[i]) return false;
  return n === 0 || extendsBatch(current[n - 1]!, base[n - 1]!);
}

/** The rows a table that grewFrom(base) gained since, as batches. */
function gainedSince(current: readonly Batch[], base: readonly Batch[]): Batch[] {
  const n = base.length;
  if (n === 0) return current.slice();
  const grown = current[n - 1]!.length - base[n - 1]!.length;
  return grown > 0 ? [batchRowsFrom(current[n - 1]!, base[n - 1]!.length), ...current.slice(n)] : current.slice(n);
}

export class Transaction {
  /** The catalog statements of this transaction bind against. */
  readonly catalog: Catalog;
  private readonly clones = new Map<string, Clone>();
  private readonly tablesAtStart: Map<string, TableSource>;
  private readonly viewsAtStart: Map<string, ViewDef>;
  private readonly functionsAtStart: Map<string, readonly SqlFunctionDef[]>;
  private readonly aggregatesAtStart: Map<string, readonly AggregateDef[]>;
  private readonly typesAtStart: Map<string, CompositeType>;
  /** Row locks of SELECT … FOR UPDATE/SHARE, UPDATE and DELETE, released when the transaction ends (row-locks.ts). */
  readonly rowLocks = new LockOwner();

  constructor(
    /** The shared catalog (or a connection's view of it, which shares its maps). */
    private readonly shared: Catalog,
    readonly isolation: IsolationLevel,
    /** An implicit transaction wraps one statement or one multi-statement string; BEGIN starts an explicit one. */
    readonly implicit: boolean,
    /** The implicit transaction of one statement, committed as soon as it ends. */
    readonly oneStatement = false,
    /** The implicit transaction of one library call (a statement, or a string of several): no other call joins it. */
    readonly oneCall = oneStatement,
  ) {
    this.tablesAtStart = new Map(shared.tables);
    this.viewsAtStart = new Map(shared.views);
    this.functionsAtStart = new Map(shared.functions);
    this.aggregatesAtStart = new Map(shared.aggregates);
    this.typesAtStart = new Map(shared.types);
    const view = Object.create(shared) as Catalog;
    const tables = new Map<string, TableSource>();
    for (const [name, t] of shared.tables) {
      if (t instanceof MemoryTable) {
        const clone = t.cloneForTransaction();
        this.clones.set(name, { shared: t, clone, base: t.snapshot(), version: clone.version, rewritten: false, mixed: false, keysAtStart: t.uniqueKeys, foreignKeysAtStart: t.foreignKeys, indexesAtStart: t.indexes, othersWrote: false });
        tables.set(name, clone);
      } else {
        tables.set(name, t);
      }
    }
    Object.defineProperty(view, 'tables', { value: tables, enumerable: true });
    Object.defineProperty(view, 'views', { value: new Map(shared.views), enumerable: true });
    Object.defineProperty(view, 'functions', { value: new Map(shared.functions), enumerable: true });
    Object.defineProperty(view, 'aggregates', { value: new Map(shared.aggregates), enumerable: true });
    Object.defineProperty(view, 'types', { value: new Map(shared.types), enumerable: true });
    // Names that are not the shared catalog's own tables (a connection's system tables) still resolve
    // through it; a table this transaction dropped must not reappear from there.
    Object.defineProperty(view, 'getTable', {
      value: (name: string): TableSource | undefined => tables.get(name) ?? (shared.tables.has(name) ? undefined : shared.getTable(name)),
    });
    this.catalog = view;
  }

  /**
   * Before each statement: READ COMMITTED sees what others committed. A table this transaction has
   * not written takes the latest batches; one it has written keeps its own changes over the rows
   * others committed since (appended, or rewritten: merged row by row).
   */
  beginStatement(): void {
    if (this.isolation !== 'read committed') return;
    for (const [name, c] of this.clones) {
      if (this.catalog.tables.get(name) !== c.clone || this.shared.tables.get(name) !== c.shared) continue;
      const current = c.shared.snapshot();
      if (current === c.base) continue;
      c.othersWrote = true;
      if (!this.written(c)) {
        c.clone.rebase(current);
      } else if (grewFrom(current, c.base)) {
        const mine = c.clone.snapshot();
        c.clone.rebase(c.rewritten ? [...mine, ...gainedSince(current, c.base)] : [...current, ...mine.slice(c.base.length)]);
        c.mixed = true;
        // From here on the clone extends the new base unless it was rewritten.
      } else {
        // Others rewrote it too: this statement sees their committed rows with this transaction's
        // changes over them (a row both changed stays as this transaction saw it and fails at COMMIT).
        const merged = mergeRewrite(c.base, c.clone.snapshot(), current, rowPicker((b) => c.shared.encodeRewritten(b)));
        if (merged === null) continue;
        c.clone.rebase(merged);
        c.mixed = true;
      }
      c.base = current;
    }
  }

  /**
   * Whether another transaction rewrote the shared table behind `t` and committed since this
   * transaction's snapshot of it. An UPDATE or DELETE computed on that snapshot could only fail at
   * COMMIT: under READ COMMITTED, when this transaction has not written the table, the statement
   * runs again on a fresh snapshot (PostgreSQL re-reads a row updated under it); otherwise it goes on
   * when no row it is about to change (`positions` of `snapshot`) was changed by the other (its
   * COMMIT merges row by row), and fails now with 40001 when one was, as PostgreSQL does.
   */
  rewrittenSince(t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[]): 'current' | 'outdated' {
    for (const [name, c] of this.clones) {
      if (c.clone !== t) continue;
      const current = c.shared.snapshot();
      if (this.shared.tables.get(name) !== c.shared || grewFrom(current, c.base)) return 'current';
      if (this.isolation === 'read committed' && !this.written(c)) return 'outdated';
      if (rowsUnchangedSince(c.base, current, snapshot, positions)) return 'current';
      throw conflict(name);
    }
    return 'current';
  }

  /**
   * REPEATABLE READ: the committed rows of the table behind `t` (this transaction's copy) as its
   * snapshot saw them, when others committed to it since; null otherwise, and always under READ
   * COMMITTED, whose statements start from the latest rows.
   */
  snapshotBase(t: MemoryTable): readonly Batch[] | null {
    if (this.isolation === 'read committed') return null;
    for (const c of this.clones.values()) {
      if (c.clone === t) return c.shared.snapshot() === c.base ? null : c.base;
    }
    return null;
  }

  private written(c: Clone): boolean {
    if (c.clone.version === c.version) return false;
    if (!c.rewritten && !extends_(c.clone.snapshot(), c.base)) c.rewritten = true;
    return true;
  }

  /** The batches this transaction would add to the shared tables (what its log record carries). */
  addedBatches(): Batch[] {
    const out: Batch[] = [];
    for (const [name, c] of this.clones) {
      if (this.catalog.tables.get(name) !== c.clone || !this.written(c)) continue;
      const mine = c.clone.snapshot();
      if (!c.rewritten) out.push(...mine.slice(c.base.length));
      else {
        const kept = new Set(c.base);
        for (const b of mine) if (!kept.has(b)) out.push(b);
      }
    }
    for (const [name, t] of this.catalog.tables) {
      if (t instanceof MemoryTable && this.clones.get(name)?.clone !== t && this.tablesAtStart.get(name) !== t) out.push(...t.snapshot());
    }
    return out;
  }

  /** Applies this transaction's changes to the shared catalog; throws 40001 or 23505 and applies nothing on a conflict. */
  commit(checkUnique: (t: MemoryTable, batches: readonly Batch[]) => void, checkReferences?: (tables: ReadonlyMap<string, CommittingTable>) => void): void {
    const mine = this.catalog.tables;
    const apply: (() => void)[] = [];
    // Each shared table as this COMMIT would leave it, for the foreign key check across transactions.
    const committing = new Map<string, CommittingTable>();
    // Tables this transaction wrote, dropped or created.
    for (const [name, c] of this.clones) {
      const now = mine.get(name);
      const sharedNow = this.shared.tables.get(name);
      if (now !== c.clone) {
        // Dropped (or dropped and re-created) here: the shared table goes, unless someone replaced it.
        if (sharedNow === c.shared) apply.push(() => this.shared.tables.delete(name));
        else if (sharedNow !== undefined && this.written(c)) throw conflict(name);
        continue;
      }
      // CREATE UNIQUE INDEX or DROP INDEX here: the clone's key list replaces the shared one, checked
      // over the rows as they commit (another transaction's rows included).
      const keysChanged = c.clone.uniqueKeys !== c.keysAtStart;
      if (keysChanged) {
        if (sharedNow !== c.shared || c.shared.uniqueKeys !== c.keysAtStart) throw conflict(name);
        const { uniqueKeys, uniqueNames, indexKeyNames, primaryKey } = c.clone;
        apply.push(() => {
          c.shared.uniqueKeys = uniqueKeys;
          c.shared.uniqueNames = uniqueNames;
          c.shared.indexKeyNames = indexKeyNames;
          c.shared.primaryKey = primaryKey;
        });
      }
      if (c.clone.indexes !== c.indexesAtStart) {
        if (sharedNow !== c.shared || c.shared.indexes !== c.indexesAtStart) throw conflict(name);
        const indexes = c.clone.indexes;
        apply.push(() => {
          c.shared.indexes = indexes;
        });
      }
      if (c.clone.foreignKeys !== c.foreignKeysAtStart) {
        if (sharedNow !== c.shared || c.shared.foreignKeys !== c.foreignKeysAtStart) throw conflict(name);
        const fks = c.clone.foreignKeys;
        apply.push(() => {
          c.shared.foreignKeys = fks;
        });
      }
      const stale = c.othersWrote || c.shared.snapshot() !== c.base;
      committing.set(name, { table: c.clone, rows: c.shared.snapshot(), written: false, stale });
      const keyed = keysChanged ? c.clone : c.shared;
      if (!this.written(c)) {
        if (keysChanged && keyed.uniqueKeys.length > 0) checkUnique(keyed, c.shared.snapshot());
        continue;
      }
      if (sharedNow !== c.shared) throw conflict(name);
      const current = c.shared.snapshot();
      if (!c.rewritten) {
        // Rows only appended: they go after whatever others committed meanwhile.
        const added = c.clone.snapshot().slice(c.base.length);
        if (keyed.uniqueKeys.length > 0 && (keysChanged || current !== c.base || c.mixed)) checkUnique(keyed, [...current, ...added]);
        apply.push(() => c.shared.appendCommitted(added));
        committing.set(name, { table: c.clone, rows: [...current, ...added], written: true, stale });
        continue;
      }
      const merged = grewFrom(current, c.base) ? [...c.clone.snapshot(), ...gainedSince(current, c.base)] : mergeRewrite(c.base, c.clone.snapshot(), current, rowPicker((b) => c.shared.encodeRewritten(b)));
      if (merged === null) throw conflict(name);
      if (keyed.uniqueKeys.length > 0 && (keysChanged || current !== c.base || c.mixed)) checkUnique(keyed, merged);
      apply.push(() => c.shared.replaceAll(merged));
      committing.set(name, { table: c.clone, rows: merged, written: true, stale });
    }
    for (const [name, t] of mine) {
      if (this.clones.get(name)?.clone === t) continue;
      if (this.tablesAtStart.get(name) === t) continue;
      // Created in this transaction.
      const sharedNow = this.shared.tables.get(name);
      if (sharedNow !== undefined && sharedNow !== this.tablesAtStart.get(name)) {
        throw new QuireError('42P07', `relation "${name}" already exists`, { detail: 'Another transaction created it and committed first.' });
      }
      if (this.shared.views.has(name) && !this.viewsAtStart.has(name)) throw new QuireError('42P07', `relation "${name}" already exists`);
      apply.push(() => this.shared.tables.set(name, t));
      if (t instanceof MemoryTable) committing.set(name, { table: t, rows: t.snapshot(), written: true, stale: false });
    }
    // Non-memory tables dropped here (remote ones).
    for (const [name, t] of this.tablesAtStart) {
      if (!(t instanceof MemoryTable) && !mine.has(name) && this.shared.tables.get(name) === t) apply.push(() => this.shared.tables.delete(name));
    }
    // Views: created, replaced or dropped here.
    const views = this.catalog.views;
    for (const [name, v] of views) {
      if (this.viewsAtStart.get(name) === v) continue;
      const sharedNow = this.shared.views.get(name);
      if (sharedNow !== this.viewsAtStart.get(name)) throw new QuireError('40001', 'could not serialize access due to concurrent update', { detail: `Another transaction changed view "${name}".` });
      apply.push(() => this.shared.views.set(name, v));
    }
    for (const [name, v] of this.viewsAtStart) {
      if (!views.has(name) && this.shared.views.get(name) === v) apply.push(() => this.shared.views.delete(name));
    }
    // Functions and aggregates: each name's overload list was replaced or removed here.
    const routineMaps = [
      [this.catalog.functions, this.functionsAtStart, this.shared.functions],
      [this.catalog.aggregates, this.aggregatesAtStart, this.shared.aggregates],
      [this.catalog.types, this.typesAtStart, this.shared.types],
    ] as [Map<string, unknown>, Map<string, unknown>, Map<string, unknown>][];
    for (const [mine, atStart, shared] of routineMaps) {
      for (const [name, list] of mine) {
        if (atStart.get(name) === list) continue;
        if (shared.get(name) !== atStart.get(name)) throw new QuireError('40001', 'could not serialize access due to concurrent update', { detail: `Another transaction changed function "${name}".` });
        apply.push(() => shared.set(name, list));
      }
      for (const [name, list] of atStart) {
        if (!mine.has(name) && shared.get(name) === list) apply.push(() => shared.delete(name));
      }
    }
    checkReferences?.(committing);
    for (const f of apply) f();
  }
}
