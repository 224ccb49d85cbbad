/**
 * FOREIGN KEY enforcement, per statement. A statement that writes tables linked by foreign keys runs
 * as usual; afterwards the batch lists of those tables are compared with the ones it started from.
 * Keys a referenced table lost trigger the referential actions (CASCADE, SET NULL, SET DEFAULT) on
 * the referencing rows, round after round until the actions change nothing more (chains of tables,
 * self-references); then, as PostgreSQL checks constraints that are not deferred at the end of the
 * statement, every key a referencing table gained must be in its referenced table, and no key a
 * referenced table lost may still be referenced (NO ACTION, RESTRICT). A statement that deletes a key
 * and inserts it again in one go therefore passes. Checks and actions run on the transaction's own
 * copies of the tables, so they see its changes and ROLLBACK undoes the cascaded ones too.
 *
 * A child row's key is found through the parent's unique index (unique-index.ts keyPresence), not by
 * reading the parent; finding the rows that reference a lost key reads the child table.
 */
import { castValue } from '../common/cast.js';
import { getValue, type Batch } from '../common/column.js';
import { QuireError } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import type { DataType, Value } from '../common/types.js';
import { quoteIdent } from '../functions/scalar/support/quote.js';
import type { ForeignKey, ReferentialAction } from '../storage/foreign-key.js';
import { extendsBatch, MemoryTable } from '../storage/memory-table.js';
import { keyPresence } from '../storage/unique-index.js';
import { applyRowChanges, defaultValue, evalRowExprs, untilUnlocked } from './dml-statements.js';
import { stopWatching, takeUpdates, watchUpdates } from './key-changes.js';
import { binderFor } from './statement-support.js';
import type { UtilityHost } from './utility.js';
import type { CommittingTable } from './transaction.js';

/** A foreign key with both its tables, as the running transaction sees them. */
export interface Link {
  readonly fk: ForeignKey;
  readonly childKey: string;
  readonly child: MemoryTable;
  readonly parentKey: string;
  readonly parent: MemoryTable;
  /** The parent's unique key (an entry of its uniqueKeys) the foreign key references. */
  readonly key: readonly number[];
  /** For each column of `key`, its place in fk.parentCols (and so in fk.cols). */
  readonly order: readonly number[];
  readonly parentTypes: readonly DataType[];
}

/** The catalog key a table name resolves to for this session (its TEMP table first). */
function keyOfName(host: UtilityHost, name: string): string {
  return host.tempKey(name) ?? name;
}

/** The parent's unique key whose columns are `cols` (in any order), or undefined. */
export function matchingKey(parent: { uniqueKeys: readonly (readonly number[])[] }, cols: readonly number[]): readonly number[] | undefined {
  return parent.uniqueKeys.find((k) => k.length === cols.length && k.every((c) => cols.includes(c)));
}

export function linkOf(host: UtilityHost, childKey: string, child: MemoryTable, fk: ForeignKey): Link | null {
  const parentKey = keyOfName(host, fk.parent);
  const parent = host.catalog.tables.get(parentKey);
  if (!(parent instanceof MemoryTable)) return null;
  const key = matchingKey(parent, fk.parentCols);
  if (key === undefined) return null;
  return { fk, childKey, child, parentKey, parent, key, order: key.map((c) => fk.parentCols.indexOf(c)), parentTypes: fk.parentCols.map((c) => parent.schema[c]!.type) };
}

/** Every foreign key among the tables this session sees. */
export function foreignKeyLinks(host: UtilityHost): Link[] {
  const out: Link[] = [];
  for (const [k, t] of host.catalog.tables) {
    if (!(t instanceof MemoryTable) || t.foreignKeys.length === 0) continue;
    for (const fk of t.foreignKeys) {
      const l = linkOf(host, k, t, fk);
      if (l !== null) out.push(l);
    }
  }
  return out;
}

/** Runs a data-changing statement and enforces the foreign keys of the tables it (or its actions) changed. */
export async function withForeignKeys<R>(host: UtilityHost, run: () => Promise<R>): Promise<R> {
  const links = foreignKeyLinks(host);
  if (links.length === 0) return run();
  const tables = new Map<string, MemoryTable>();
  for (const l of links) {
    tables.set(l.childKey, l.child);
    tables.set(l.parentKey, l.parent);
  }
  const start = snapshots(tables);
  // Which action applies to a lost key depends on whether an UPDATE replaced it: recorded unless both are NO ACTION.
  for (const l of links) if (l.fk.onUpdate !== 'a' || l.fk.onDelete !== 'a') watchUpdates(l.parent);
  try {
    const r = await run();
    await enforce(host, links, tables, start);
    return r;
  } finally {
    for (const l of links) stopWatching(l.parent);
  }
}

function snapshots(tables: ReadonlyMap<string, MemoryTable>): Map<string, readonly Batch[]> {
  const m = new Map<string, readonly Batch[]>();
  for (const [k, t] of tables) m.set(k, t.snapshot());
  return m;
}

/**
 * Calls `gone(batch, from)` for the rows of `before` not in `after` and `came(batch, from)` for those
 * of `after` not in `before`, by batch identity (batches are immutable; a batch extended by small
 * commits counts only its new rows). Rows of a rewritten batch appear as gone and come again: callers
 * compare keys, not rows.
 */
function diff(before: readonly Batch[], after: readonly Batch[], gone: (b: Batch, from: number) => void, came: (b: Batch, from: number) => void): void {
  if (before === after) return;
  const was = new Set(before);
  const is = new Set(after);
  const tail = before.length > 0 ? before[before.length - 1]! : undefined;
  let tailExtended = false;
  for (const b of after) {
    if (was.has(b)) continue;
    if (tail !== undefined && !tailExtended && !is.has(tail) && extendsBatch(b, tail)) {
      tailExtended = true;
      came(b, tail.length);
    } else came(b, 0);
  }
  for (const b of before) if (!is.has(b) && !(tailExtended && b === tail)) gone(b, 0);
}

/**
 * A key as a map entry: a one-column key of a safe integer as itself (no text to build for the usual
 * integer keys), any other as its values typed as the parent's columns, as text.
 */
function keyText(types: readonly DataType[], vals: readonly Value[]): number | string {
  if (vals.length === 1) {
    const v = vals[0]!;
    if (typeof v === 'number' && Number.isSafeInteger(v) && !Object.is(v, -0)) return v;
  }
  let s = '';
  for (let i = 0; i < vals.length; i++) s += `${typeof vals[i]}:${formatValue(vals[i]!, types[i]!)}\u0001`;
  return s;
}

function parentVals(l: Link, b: Batch, i: number): Value[] | null {
  const out: Value[] = [];
  for (const c of l.fk.parentCols) {
    const v = getValue(b.columns[c]!, i);
    if (v === null) return null;
    out.push(v);
  }
  return out;
}

/**
 * A child row's key in the parent's column types: null when it is not checked (MATCH SIMPLE: any
 * column NULL; MATCH FULL: all of them); 'partial' when MATCH FULL finds some but not all NULL.
 */
function childVals(l: Link, b: Batch, i: number): Value[] | null | 'partial' {
  const out: Value[] = [];
  let nulls = 0;
  for (let k = 0; k < l.fk.cols.length; k++) {
    const c = l.fk.cols[k]!;
    const v = getValue(b.columns[c]!, i);
    if (v === null) {
      if (l.fk.match === 's') return null;
      nulls++;
      out.push(null);
      continue;
    }
    const from = l.child.schema[c]!.type;
    const to = l.parentTypes[k]!;
    out.push(from.name === to.name ? v : castValue(v, from, to));
  }
  if (nulls === 0) return out;
  return nulls === out.length ? null : 'partial';
}

function columnList(t: MemoryTable, cols: readonly number[]): string {
  return cols.map((c) => quoteIdent(t.schema[c]!.name)).join(', ');
}

function shownKey(types: readonly DataType[], vals: readonly Value[]): string {
  return vals.map((v, i) => formatValue(v, types[i]!)).join(', ');
}

function notPresent(l: Link, vals: readonly Value[]): QuireError {
  const childTypes = l.fk.cols.map((c) => l.child.schema[c]!.type);
  const raw = vals.map((v, k) => (v === null || childTypes[k]!.name === l.parentTypes[k]!.name ? v : castValue(v, l.parentTypes[k]!, childTypes[k]!)));
  return new QuireError('23503', `insert or update on table "${l.child.name}" violates foreign key constraint "${l.fk.name}"`, {
    detail: `Key (${columnList(l.child, l.fk.cols)})=(${shownKey(childTypes, raw)}) is not present in table "${l.parent.name}".`,
  });
}

function mixedNulls(l: Link): QuireError {
  return new QuireError('23503', `insert or update on table "${l.child.name}" violates foreign key constraint "${l.fk.name}"`, {
    detail: 'MATCH FULL does not allow mixing of null and nonnull key values.',
  });
}

/** RESTRICT refuses with restrict_violation, NO ACTION with foreign_key_violation, as in PostgreSQL. */
function stillReferenced(l: Link, vals: readonly Value[], action: ReferentialAction = 'a'): QuireError {
  return new QuireError(action === 'r' ? '23001' : '23503', `update or delete on table "${l.parent.name}" violates foreign key constraint "${l.fk.name}" on table "${l.child.name}"`, {
    detail: `Key (${columnList(l.parent, l.fk.parentCols)})=(${shownKey(l.parentTypes, vals)}) is still referenced from table "${l.child.name}".`,
  });
}

/** The keys (of fk.parentCols) the parent's rows lost between two batch lists, by keyText. */
function lostKeys(l: Link, before: readonly Batch[], after: readonly Batch[]): Map<number | string, Value[]> {
  const lost = new Map<number | string, Value[]>();
  const came: [Batch, number][] = [];
  diff(
    before,
    after,
    (b, from) => {
      for (let i = from; i < b.length; i++) {
        const v = parentVals(l, b, i);
        if (v !== null) lost.set(keyText(l.parentTypes, v), v);
      }
    },
    (b, from) => came.push([b, from]),
  );
  // Rows only added (INSERT, COPY) lose nothing: their keys are not even read.
  if (lost.size === 0) return lost;
  for (const [b, from] of came) {
    for (let i = from; i < b.length; i++) {
      const v = parentVals(l, b, i);
      if (v !== null) lost.delete(keyText(l.parentTypes, v));
    }
  }
  return lost;
}

/** Positions in `snapshot` of the child rows whose key is one of `keys`, with that key's text. */
function referencingRows(l: Link, snapshot: readonly Batch[], keys: ReadonlyMap<number | string, unknown>): Map<number, number | string> {
  const out = new Map<number, number | string>();
  if (keys.size === 0) return out;
  // Rows whose first key column holds a value no lost key has are passed over without building their key.
  const firstCol = l.fk.cols[0]!;
  const sameType = l.child.schema[firstCol]!.type.name === l.parentTypes[0]!.name;
  const firsts = new Set<Value>();
  for (const k of keys.keys()) firsts.add(typeof k === 'number' ? k : null);
  const allIntegers = !firsts.has(null) && l.fk.cols.length === 1;
  let base = 0;
  for (const b of snapshot) {
    const col = b.columns[firstCol]!;
    for (let i = 0; i < b.length; i++) {
      if (allIntegers && sameType) {
        const f = getValue(col, i);
        if (typeof f === 'number' && !firsts.has(f)) continue;
      }
      const v = childVals(l, b, i);
      if (v === null || v === 'partial') continue;
      const k = keyText(l.parentTypes, v);
      if (keys.has(k)) out.set(base + i, k);
    }
    base += b.length;
  }
  return out;
}

/** What an action does to one key's referencing rows: delete them, or give these columns these values. */
type Effect = { kind: 'delete' } | { kind: 'set'; cols: readonly number[]; values: readonly Value[] | null };

async function enforce(host: UtilityHost, links: readonly Link[], tables: ReadonlyMap<string, MemoryTable>, start: ReadonlyMap<string, readonly Batch[]>): Promise<void> {
  let round = start;
  /** Per table: the keys (of any foreign key's referenced columns) its UPDATEs replaced, by key text. */
  const updatedKeys = new Map<MemoryTable, Set<number | string>>();
  for (;;) {
    const now = snapshots(tables);
    const updates = new Map<MemoryTable, [Value[], Value[]][]>();
    for (const t of tables.values()) updates.set(t, takeUpdates(t));
    for (const l of links) {
      const pairs = updates.get(l.parent) ?? [];
      if (pairs.length === 0) continue;
      let set = updatedKeys.get(l.parent);
      if (set === undefined) updatedKeys.set(l.parent, (set = new Set()));
      for (const [oldRow] of pairs) set.add(keyText(l.parentTypes, l.fk.parentCols.map((c) => oldRow[c]!)));
    }
    let acted = false;
    // In the order the constraints were made, as PostgreSQL fires their triggers: a NO ACTION or
    // RESTRICT key met before an action that would have removed its referencing rows refuses.
    for (const l of links) {
      const before = round.get(l.parentKey)!;
      const after = now.get(l.parentKey)!;
      if (before === after) continue;
      const lost = lostKeys(l, before, after);
      if (lost.size === 0) continue;
      if (!hasAction(l.fk)) {
        const refs = referencingRows(l, l.child.snapshot(), lost);
        for (const k of refs.values()) throw stillReferenced(l, lost.get(k)!, updatedKeys.get(l.parent)?.has(k) === true ? l.fk.onUpdate : l.fk.onDelete);
        continue;
      }
      const replaced = new Map<number | string, Value[]>();
      for (const [oldRow, newRow] of updates.get(l.parent) ?? []) {
        const o = l.fk.parentCols.map((c) => oldRow[c]!);
        if (o.some((v) => v === null)) continue;
        replaced.set(keyText(l.parentTypes, o), l.fk.parentCols.map((c) => newRow[c]!));
      }
      const effects = new Map<number | string, Effect>();
      const refused = new Map<number | string, Value[]>();
      for (const [k, v] of lost) {
        const newKey = replaced.get(k);
        const action = newKey !== undefined ? l.fk.onUpdate : l.fk.onDelete;
        if (action === 'a' || action === 'r') {
          refused.set(k, v);
          continue;
        }
        if (action === 'c') effects.set(k, newKey !== undefined ? { kind: 'set', cols: l.fk.cols, values: newKey } : { kind: 'delete' });
        else effects.set(k, { kind: 'set', cols: newKey === undefined && l.fk.deleteSetCols !== undefined ? l.fk.deleteSetCols : l.fk.cols, values: action === 'n' ? l.fk.cols.map(() => null) : null });
      }
      for (const k of referencingRows(l, l.child.snapshot(), refused).values()) throw stillReferenced(l, refused.get(k)!, replaced.has(k) ? l.fk.onUpdate : l.fk.onDelete);
      if (effects.size === 0) continue;
      if (await act(host, l, effects)) acted = true;
    }
    round = now;
    if (!acted) break;
  }
  const end = snapshots(tables);
  for (const l of links) checkChildRows(l, start.get(l.childKey)!, end.get(l.childKey)!, end.get(l.parentKey)!);
  for (const l of links) {
    const before = start.get(l.parentKey)!;
    const after = end.get(l.parentKey)!;
    if (before === after) continue;
    const lost = lostKeys(l, before, after);
    const refs = referencingRows(l, end.get(l.childKey)!, lost);
    for (const k of refs.values()) throw stillReferenced(l, lost.get(k)!, updatedKeys.get(l.parent)?.has(k) === true ? l.fk.onUpdate : l.fk.onDelete);
  }
}

function hasAction(fk: ForeignKey): boolean {
  return !((fk.onDelete === 'a' || fk.onDelete === 'r') && (fk.onUpdate === 'a' || fk.onUpdate === 'r'));
}

/** Applies `effects` (by key text) to the child rows that reference those keys; whether any row changed. */
async function act(host: UtilityHost, l: Link, effects: ReadonlyMap<number | string, Effect>): Promise<boolean> {
  return untilUnlocked(host, async () => {
    const snapshot = l.child.snapshot();
    const rows = referencingRows(l, snapshot, effects);
    if (rows.size === 0) return false;
    const changes = new Map<number, Value[] | null>();
    const assigned = new Set<number>();
    let base = 0;
    let bi = 0;
    for (const p of [...rows.keys()].sort((x, y) => x - y)) {
      const e = effects.get(rows.get(p)!)!;
      if (e.kind === 'delete') {
        changes.set(p, null);
        continue;
      }
      while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
      const b = snapshot[bi]!;
      const row = l.child.schema.map((_, c) => getValue(b.columns[c]!, p - base));
      const values = e.values ?? (await defaults(host, l.child, e.cols));
      e.cols.forEach((c, k) => {
        const v = values[k] ?? null;
        const k2 = l.fk.cols.indexOf(c);
        const from = k2 >= 0 && e.values !== null ? l.parentTypes[k2]! : l.child.schema[c]!.type;
        row[c] = v === null || from.name === l.child.schema[c]!.type.name ? v : castValue(v, from, l.child.schema[c]!.type);
        assigned.add(c);
      });
      changes.set(p, row);
    }
    return applyRowChanges(host, l.child, snapshot, changes, [...assigned]) ?? true;
  });
}

/** The columns' defaults, evaluated for one row (a serial's draws its next value). */
async function defaults(host: UtilityHost, t: MemoryTable, cols: readonly number[]): Promise<Value[]> {
  const binder = binderFor(host, []);
  const exprs = cols.map((c) => defaultValue(host, t, c, binder));
  return evalRowExprs(host, exprs, binder.paramTypes, []);
}

/** The keys the child gained since `before` are all in the parent (`parentNow`). */
function checkChildRows(l: Link, before: readonly Batch[], after: readonly Batch[], parentNow: readonly Batch[]): void {
  if (before === after) return;
  const fresh = new Map<number | string, Value[]>();
  const had = new Set<number | string>();
  diff(
    before,
    after,
    (b, from) => {
      for (let i = from; i < b.length; i++) {
        const v = childVals(l, b, i);
        if (v !== null && v !== 'partial') had.add(keyText(l.parentTypes, v));
      }
    },
    (b, from) => {
      for (let i = from; i < b.length; i++) {
        const v = childVals(l, b, i);
        if (v === 'partial') throw mixedNulls(l);
        if (v !== null) {
          const k = keyText(l.parentTypes, v);
          if (!fresh.has(k)) fresh.set(k, v);
        }
      }
    },
  );
  if (fresh.size === 0) return;
  const present = keyPresence(l.parent, l.key, parentNow);
  for (const [k, v] of fresh) {
    // A key some row held before the statement was checked then; losing it is the parent's check.
    if (had.has(k)) continue;
    if (!present(l.order.map((j) => v[j]!))) throw notPresent(l, v);
  }
}

/** ALTER TABLE … ADD FOREIGN KEY: every row the child already has must meet the new constraint. */
export function checkExistingRows(l: Link): void {
  checkChildRows(l, [], l.child.snapshot(), l.parent.snapshot());
}

/**
 * At COMMIT: a foreign key between a table this transaction wrote and one another transaction
 * changed since (and committed) is checked again over the rows as they are about to commit, so two
 * sessions cannot together leave an orphan (one deletes a parent row while the other inserts a child
 * of it): the second to commit fails with 23503 and nothing of it is applied. PostgreSQL makes the
 * second one wait on a row lock instead; README.md (FOREIGN KEY constraints) says so.
 */
export function checkCommittingReferences(tables: ReadonlyMap<string, CommittingTable>): void {
  for (const [childKey, c] of tables) {
    for (const fk of c.table.foreignKeys) {
      const p = tables.get(fk.parent);
      if (p === undefined || !((c.written && p.stale) || (p.written && c.stale))) continue;
      const key = matchingKey(p.table, fk.parentCols);
      if (key === undefined) continue;
      const l: Link = { fk, childKey, child: c.table, parentKey: fk.parent, parent: p.table, key, order: key.map((k) => fk.parentCols.indexOf(k)), parentTypes: fk.parentCols.map((k) => p.table.schema[k]!.type) };
      const present = keyPresence(p.table, key, p.rows);
      for (const b of c.rows) {
        for (let i = 0; i < b.length; i++) {
          const v = childVals(l, b, i);
          if (v === null) continue;
          if (v === 'partial') throw mixedNulls(l);
          if (!present(l.order.map((j) => v[j]!))) throw p.written && c.stale ? stillReferenced(l, v) : notPresent(l, v);
        }
      }
    }
  }
}

/**
 * A literal INSERT's rows (insert-literal.ts, which runs without the statement wrapper): their keys
 * must be in the parents. Inserting rows takes no key away from any table, so nothing else is due.
 */
export function checkInsertedRows(host: UtilityHost, childKey: string, child: MemoryTable, rows: Batch): void {
  for (const fk of child.foreignKeys) {
    const l = linkOf(host, childKey, child, fk);
    // A self-reference may name a key the same statement brings.
    if (l !== null) checkChildRows(l, [], [rows], l.parent === child ? [...child.snapshot(), rows] : l.parent.snapshot());
  }
}
