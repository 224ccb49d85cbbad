/**
 * INSERT [… ON CONFLICT], UPDATE and DELETE applied to the transaction's copy of the table: row
 * rewrites, row-lock waits, constraint checks and RETURNING. UPDATE and DELETE always run as plans
 * (planned-dml.ts); their input query comes from dml-target.ts.
 */
import { noteRebuiltBatch } from '../common/rebuilt-batch.js';
import type { Node } from '@pgsql/types';
import { castValue } from '../common/cast.js';
import { QuireError, positionOf } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import { T, type DataType, type Value, typeDisplayName } from '../common/types.js';
import { BATCH_SIZE, ColumnBuilder, getValue, type Batch } from '../common/column.js';
import { checkCancel, type ExecContext } from '../execution/context.js';
import { colRef, type Expr } from '../logical/expr.js';
import { compileKernel } from '../physical/compile-expr.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import { bindExpr, locOf, type ExprCtx } from '../sql/bind/expr.js';
import { QueryBinder, figureColname } from '../sql/bind/query.js';
import { coerce } from '../sql/coerce.js';
import { Scope } from '../sql/scope.js';
import { MemoryTable } from '../storage/memory-table.js';
import { columnSequence } from '../storage/sequence.js';
import { checkUniqueBatches, checkUniqueKeys, indexKey, keysHeld, noteDeletedKeys, rowsWithoutConflicts } from '../storage/unique-index.js';
import { matchConflictRows, type MatchedRows } from './dml-target.js';
import { insertParts, planDelete, planInsert, planUpdate, runPlanned } from './planned-dml.js';
import type { QueryResult } from './database.js';
import type { LockStrength } from '../sql/locking-clause.js';
import { MoveLog } from './row-lineage.js';
import { noteUpdate, watchingUpdates } from './key-changes.js';
import { LockOwner, holderAmong, lockPositions, waitFor } from './row-locks.js';
import { holdPendingKeys, pendingKeyHolder, rowsAt } from './pending-keys.js';
import { checkKeysCommittedSince, checkRewrittenKeys, keyCheckRows, liveRows, staleRows } from './snapshot-keys.js';
import { binderFor, result } from './statement-support.js';
import type { UtilityHost } from './utility.js';

const pos = positionOf;

/** Stands for "run again on a fresh snapshot" where a statement returns the lock holder it waits for. */
const OUTDATED = new LockOwner();
OUTDATED.release();

/**
 * Before UPDATE/DELETE changes rows `positions` (ascending) of `snapshot` of `t`: the open transaction
 * whose row lock it must wait for, or one already ended when the rows were rewritten by a commit since
 * the snapshot (run again); null once the rows are locked for this transaction, so the next writer of
 * any of them waits for it. Synchronous from the check to the locks: no other statement runs between.
 */
export function claimRows(host: UtilityHost, t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[], strength: LockStrength): LockOwner | null {
  if (positions.length === 0) return null;
  const me = host.rowLocks;
  if (me === null) return null;
  const set = new Set(positions);
  const holder = holderAmong(snapshot, (p) => set.has(p), strength, me);
  if (holder !== null) return holder;
  if (host.rewrittenSince(t, snapshot, positions) === 'outdated') return OUTDATED;
  lockPositions(me, snapshot, positions, strength);
  return null;
}

/** Runs an UPDATE/DELETE attempt until no other transaction's row lock stands in its way. */
export async function untilUnlocked<R>(host: UtilityHost, attempt: () => Promise<R | LockOwner>): Promise<R> {
  for (;;) {
    const r = await attempt();
    if (!(r instanceof LockOwner)) return r;
    const ctx = host.execContext([], [], false);
    await waitFor(host.rowLocks!, r, () => checkCancel(ctx));
    host.beginStatement();
  }
}

/** Every unique key holds over `existing` plus `newRows` (UPDATE and a merging COMMIT check all rows). */
export function uniqueCheck(t: MemoryTable, newRows: Value[][], existing: readonly Batch[]): void {
  checkUniqueKeys(t, newRows, existing);
}

export function checkNotNull(t: MemoryTable, rows: Value[][]): void {
  for (const r of rows) {
    for (let c = 0; c < t.schema.length; c++) {
      if (r[c] === null && t.meta[c]!.notNull) {
        const shown = r.map((v, k) => (v === null ? 'null' : formatValue(v, t.schema[k]!.type))).join(', ');
        throw new QuireError('23502', `null value in column "${t.schema[c]!.name}" of relation "${t.name}" violates not-null constraint`, { detail: `Failing row contains (${shown}).` });
      }
    }
  }
}

export async function evalRowExprs(host: UtilityHost, exprs: Expr[], paramTypes: DataType[], params: readonly unknown[]): Promise<Value[]> {
  let ctx: ExecContext | null = null;
  const one: Batch = { columns: [], length: 1 };
  // A literal, or a chain of casts of one (0.5 is numeric cast to float8): no kernel to compile for one value.
  const literal = (e: Expr): Value | undefined => {
    if (e.kind === 'const') return e.value;
    if (e.kind !== 'cast') return undefined;
    const v = literal(e.arg);
    if (v === undefined || v === null) return v;
    return castValue(v, e.arg.type, e.type, { timezone: host.session.timezone }, e.explicit);
  };
  return exprs.map((e) => {
    const v = literal(e);
    if (v !== undefined) return v;
    ctx ??= host.execContext(paramTypes, params, false);
    const k = compileKernel(e);
    if (k.slots.length > 0) throw new QuireError('0A000', 'subqueries in VALUES of INSERT are not supported');
    return getValue(k.run(one, ctx, []), 0);
  });
}

/**
 * A column's default. A serial/identity column's is nextval of its sequence: drawn right away when
 * `drawNow` (one VALUES row), else as a call evaluated once per row (INSERT … SELECT, UPDATE).
 */
export function defaultValue(host: UtilityHost, t: MemoryTable, c: number, binder: QueryBinder, drawNow = false): Expr {
  const m = t.meta[c]!;
  const type = t.schema[c]!.type;
  if (m.sequence) {
    const seq = columnSequence(t, c)!;
    if (drawNow && host.session.sequences !== undefined) return { kind: 'const', value: host.session.sequences.drew(seq, seq.nextval()), type };
    const call = { FuncCall: { funcname: [{ String: { sval: 'nextval' } }], args: [{ A_Const: { sval: { sval: `"${seq.name.replace(/"/g, '""')}"` } } }], funcformat: 'COERCE_EXPLICIT_CALL' } } as unknown as Node;
    const cx: ExprCtx = { scope: new Scope(null), clause: 'DEFAULT expressions', aggs: null, windows: null, env: binder };
    return coerce(bindExpr(call, cx), type, 'assignment', binder);
  }
  if (m.defaultExpr) {
    const cx: ExprCtx = { scope: new Scope(null), clause: 'DEFAULT expressions', aggs: null, windows: null, env: binder };
    return coerce(bindExpr(m.defaultExpr, cx), type, 'assignment', binder);
  }
  void host;
  return { kind: 'const', value: null, type };
}

/** Inserting a value of one's own into a GENERATED ALWAYS identity column needs OVERRIDING SYSTEM VALUE. */
export function identityAlways(t: MemoryTable, c: number): QuireError {
  const name = t.schema[c]!.name;
  return new QuireError('428C9', `cannot insert a non-DEFAULT value into column "${name}"`, {
    detail: `Column "${name}" is an identity column defined as GENERATED ALWAYS.`,
    hint: 'Use OVERRIDING SYSTEM VALUE to override.',
  });
}

export async function insert(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<QueryResult> {
  const parts = insertParts(host, b);
  const { t, rv, onConflict, arbiters, targetCols, sel } = parts;
  const rows: Value[][] = [];
  const binder = binderFor(host, params.map(() => T.unknown));
  const fill = (partial: Map<number, Value>): Value[] => t.schema.map((_, c) => (partial.has(c) ? partial.get(c)! : null));
  if (sel === null) {
    // INSERT … DEFAULT VALUES
    const vals = await evalRowExprs(host, t.schema.map((_, c) => defaultValue(host, t, c, binder, true)), binder.paramTypes, params);
    rows.push(vals);
  } else if (sel.valuesLists && !sel.sortClause && !sel.limitCount && !sel.withClause) {
    const cx: ExprCtx = { scope: new Scope(null), clause: 'VALUES', aggs: null, windows: null, env: binder };
    const exprRows: Expr[][] = [];
    for (const l of sel.valuesLists) {
      const items = nodeBody<AnyNode>(l).items as Node[];
      if (items.length > targetCols.length) throw new QuireError('42601', 'INSERT has more expressions than target columns', { position: pos(locOf(items[targetCols.length])) });
      if (items.length < targetCols.length && b.cols) throw new QuireError('42601', 'INSERT has more target columns than expressions', { position: pos(locOf(items[0])) });
      const full: Expr[] = t.schema.map((_, c) => {
        const k = targetCols.indexOf(c);
        if (k < 0 || k >= items.length) return defaultValue(host, t, c, binder, true);
        const item = items[k]!;
        if (nodeTag(item) === 'SetToDefault') return defaultValue(host, t, c, binder, true);
        if (t.meta[c]!.identity === 'always' && b.override !== 'OVERRIDING_SYSTEM_VALUE') throw identityAlways(t, c);
        if (t.meta[c]!.identity !== undefined && b.override === 'OVERRIDING_USER_VALUE') return defaultValue(host, t, c, binder, true);
        const e = bindExpr(item, cx);
        return coerce(e, t.schema[c]!.type, 'assignment', binder, pos(locOf(item)), `column "${t.schema[c]!.name}"`);
      });
      exprRows.push(full);
    }
    for (const er of exprRows) rows.push(await evalRowExprs(host, er, binder.paramTypes, params));
  } else {
    // INSERT … SELECT (or VALUES with ORDER BY, LIMIT or WITH): a ModifyTable plan.
    return untilUnlocked(host, () => runPlanned(host, planInsert(host, b, params, parts), params));
  }
  // The rows are computed once (their defaults and sequences drawn once); a wait for a row lock
  // only decides again which of them conflict.
  return untilUnlocked(host, () => finishInsert(host, t, rv, b, onConflict, arbiters, rows, params));
}

/** Inserts `rows` (whole rows of `t`): ON CONFLICT, unique keys, RETURNING. */
export async function finishInsert(
  host: UtilityHost,
  t: MemoryTable,
  rv: AnyNode,
  b: AnyNode,
  onConflict: AnyNode | undefined,
  arbiters: number[][] | null,
  rows: Value[][],
  params: readonly unknown[],
): Promise<QueryResult | LockOwner> {
  checkNotNull(t, rows);
  if (t.uniqueKeys.length) {
    const holder = pendingKeyHolder(t, { rows }, host.rowLocks);
    if (holder !== null) return holder;
  }
  if (onConflict?.action === 'ONCONFLICT_UPDATE') return upsert(host, t, rv, b, onConflict, arbiters![0]!, rows, params);
  // Under REPEATABLE READ, without the rows of the snapshot whose keys others freed since.
  const existing = t.uniqueKeys.length ? keyCheckRows(host, t) : t.snapshot();
  const inserted = arbiters !== null ? withoutConflicts(t, arbiters, rows, existing) : rows;
  if (t.uniqueKeys.length) uniqueCheck(t, inserted, existing);
  const ret = retList(b) ? await returning(host, t, rv, inserted, retList(b)!, params) : null;
  if (host.keyHolder !== null && t.uniqueKeys.length) {
    checkKeysCommittedSince(host, t, { rows: inserted }, arbiters !== null);
    holdPendingKeys(t, { rows: inserted }, host.keyHolder);
  }
  t.appendRows(inserted);
  return result('INSERT', `INSERT 0 ${inserted.length}`, { rowCount: inserted.length, ...(ret ?? {}) });
}

/**
 * INSERT … ON CONFLICT (key) DO UPDATE: proposed rows that conflict on `key` update the row they
 * conflict with (SET and WHERE see it and EXCLUDED, the proposed row); the others are inserted.
 * As in PostgreSQL, one command may not touch a row twice (21000).
 */
export async function upsert(host: UtilityHost, t: MemoryTable, rv: AnyNode, b: AnyNode, clause: AnyNode, key: number[], rows: Value[][], params: readonly unknown[]): Promise<QueryResult | LockOwner> {
  const snapshot = t.snapshot();
  // REPEATABLE READ: a row of the snapshot that others deleted or changed since conflicts with nothing
  // (its key is free, or held by a version this transaction does not see: 40001 below).
  const stale = staleRows(host, t, snapshot);
  // The unique index tells which proposed keys a row already holds; only those rows' positions are
  // looked for, and none when every proposed key is new (the index cannot say where a row is).
  const held = keysHeld(t, key, snapshot, rows);
  const wanted = held === null ? null : new Set(rows.filter((_, i) => held[i]).map((r) => indexKey(t, key, key.map((c) => r[c]!))));
  const existing = new Map<string | number, number>();
  let base = 0;
  if (wanted === null || wanted.size > 0) {
    const one = key.length === 1 ? key[0]! : -1;
    for (const batch of snapshot) {
      const col = one >= 0 ? batch.columns[one]! : null;
      for (let i = 0; i < batch.length; i++) {
        // One integer column (the usual key): its value is its index key, no array per row.
        const v = col !== null ? getValue(col, i) : undefined;
        const k = typeof v === 'number' && Number.isSafeInteger(v) && !Object.is(v, -0) ? v : indexKey(t, key, col !== null ? [v!] : key.map((c) => getValue(batch.columns[c]!, i)));
        if (k !== null && (wanted === null || wanted.has(k)) && (stale === null || !stale.positions.has(base + i))) existing.set(k, base + i);
      }
      base += batch.length;
    }
  }
  const twice = (): QuireError =>
    new QuireError('21000', 'ON CONFLICT DO UPDATE command cannot affect row a second time', {
      hint: 'Ensure that no rows proposed for insertion within the same command have duplicate constrained values.',
    });
  const inserted: Value[][] = [];
  const insertedKeys = new Set<string | number>();
  const proposals: Value[][] = [];
  const positions: number[] = [];
  const touched = new Set<number>();
  // RETURNING lists the rows in the order they were proposed: an inserted row, or the position of the row it updated.
  const order: (Value[] | number)[] = [];
  for (const r of rows) {
    const k = indexKey(t, key, key.map((c) => r[c]!));
    const at = k === null ? undefined : existing.get(k);
    if (at === undefined) {
      if (k !== null && insertedKeys.has(k)) throw twice();
      if (k !== null) insertedKeys.add(k);
      inserted.push(r);
      order.push(r);
      continue;
    }
    if (touched.has(at)) throw twice();
    touched.add(at);
    proposals.push(r);
    positions.push(at);
    order.push(at);
  }
  let out: Batch[] = [...snapshot];
  let updated: Value[][] = [];
  let keysChecked = false;
  let matchedPositions: number[] = [];
  let assigned: number[] = [];
  if (proposals.length > 0) {
    const binder = binderFor(host, params.map(() => T.unknown));
    const sets = setItems(host, t, clause.targetList as Node[] | undefined, binder);
    // As PostgreSQL, the conflicting rows are locked before DO UPDATE's WHERE sees them: another open
    // transaction's lock on one makes this statement wait for it and run again.
    const holder = claimRows(host, t, snapshot, [...positions].sort((x, y) => x - y), updateStrength(t, sets.map((x) => x.col)));
    if (holder !== null) return holder;
    const alias = (rv.alias as AnyNode | undefined)?.aliasname as string | undefined;
    const matched = await matchConflictRows(host, t, snapshot, alias, proposals, positions, clause, sets.map((x) => x.val), params);
    ({ out, changedRows: updated } = await applyUpdates(host, t, snapshot, matched, sets, binder, params));
    matchedPositions = [...matched.rows.keys()];
    assigned = sets.map((x) => x.col);
    checkNotNull(t, updated);
    if (inserted.length === 0) {
      // Only updates: checked through the index, as UPDATE's are.
      checkRewrittenKeys(host, t, snapshot, [...matchedPositions].sort((x, y) => x - y), updated, assigned, out);
      keysChecked = true;
    }
  }
  if (t.uniqueKeys.length && !keysChecked) {
    if (stale === null) uniqueCheck(t, inserted, out);
    // The updated rows' new versions (appended to `out`) and then the inserted rows, as `out` orders them.
    else uniqueCheck(t, [...updated, ...inserted], liveRows(snapshot, stale.positions, matchedPositions));
  }
  const all = [...inserted, ...updated];
  let ret: Partial<QueryResult> | null = null;
  if (retList(b)) {
    const newVersion = new Map<number, Value[]>();
    if (updated.length > 0) [...matchedPositions].sort((x, y) => x - y).forEach((p, k) => newVersion.set(p, updated[k]!));
    const listed = order.flatMap((o) => (typeof o === 'number' ? (newVersion.has(o) ? [newVersion.get(o)!] : []) : [o]));
    ret = await returning(host, t, rv, listed, retList(b)!, params);
  }
  if (host.keyHolder !== null) {
    checkKeysCommittedSince(host, t, { rows: inserted }, true);
    checkKeysCommittedSince(host, t, { rows: updated }, false);
    holdPendingKeys(t, { rows: [...inserted, ...updated] }, host.keyHolder);
    // Keys DO UPDATE moved rows off stay theirs until this transaction commits.
    const moved = updated.length > 0 ? keysAssigned(t, assigned) : [];
    if (moved.length > 0) holdPendingKeys(t, rowsAt(snapshot, [...matchedPositions].sort((x, y) => x - y)), host.keyHolder, moved);
  }
  if (updated.length > 0) t.replaceAll(out);
  t.appendRows(inserted);
  return result('INSERT', `INSERT 0 ${all.length}`, { rowCount: all.length, ...(ret ?? {}) });
}

/**
 * The unique keys ON CONFLICT watches: the one its column list names (42P10 when none matches), or
 * (DO NOTHING only) every unique key when it names none.
 */
export function conflictArbiters(t: MemoryTable, clause: AnyNode): number[][] {
  const infer = clause.infer as AnyNode | undefined;
  const elems = (infer?.indexElems as Node[] | undefined) ?? [];
  if (elems.length === 0) return t.uniqueKeys;
  if (infer?.whereClause) throw new QuireError('0A000', 'ON CONFLICT with a WHERE on the conflict target is not supported', { position: pos(infer.location as number) });
  const cols = elems.map((e) => {
    const name = nodeBody<AnyNode>(e).name as string | undefined;
    const c = name === undefined ? -1 : t.schema.findIndex((f) => f.name === name);
    if (name === undefined) throw new QuireError('0A000', 'ON CONFLICT on an expression is not supported', { position: pos(infer!.location as number) });
    if (c < 0) throw new QuireError('42703', `column "${name}" does not exist`, { position: pos(infer!.location as number) });
    return c;
  });
  const want = [...new Set(cols)].sort((x, y) => x - y).join(',');
  const key = t.uniqueKeys.find((k) => [...k].sort((x, y) => x - y).join(',') === want);
  if (key === undefined) throw new QuireError('42P10', 'there is no unique or exclusion constraint matching the ON CONFLICT specification');
  return [key];
}

/** The rows that conflict with neither the table nor an earlier row of the same INSERT on an arbiter key. */
export function withoutConflicts(t: MemoryTable, arbiters: number[][], rows: Value[][], existing: readonly Batch[] = t.snapshot()): Value[][] {
  return rowsWithoutConflicts(t, arbiters, rows, existing);
}

/**
 * INSERT … SELECT filling every column, with no RETURNING: the query's batches go in column by
 * column (a column of the table's type as it is, others cast value by value), without materialising
 * rows; unique keys are checked over the batches once every NOT NULL column has been, as finishInsert
 * checks rows.
 */
export function insertBatches(host: UtilityHost, t: MemoryTable, batches: readonly Batch[], targetCols: readonly number[], from: readonly { type: DataType }[]): QueryResult | LockOwner {
  const out: Batch[] = [];
  let count = 0;
  for (const bt of batches) {
    if (bt.length === 0) continue;
    const columns = t.schema.map((f, c) => {
      const k = targetCols.indexOf(c);
      const col = bt.columns[k]!;
      const ft = from[k]!.type;
      if (ft.name === f.type.name && ft.typmod === f.type.typmod) return col;
      const cast = new ColumnBuilder(f.type, bt.length);
      // One cast context for the column, not one per value (assign's).
      const ctx = { timezone: host.session.timezone };
      try {
        for (let i = 0; i < bt.length; i++) {
          const v = getValue(col, i);
          cast.push(v === null ? null : castValue(v, ft, f.type, ctx, false));
        }
      } catch (e) {
        throw assignError(e, ft, f.type, f.name);
      }
      return cast.finish();
    });
    for (let c = 0; c < columns.length; c++) {
      if (!t.meta[c]!.notNull) continue;
      // A typed column without a NULL array holds no NULL: nothing to look at row by row.
      if (columns[c]!.nulls === null && !Array.isArray(columns[c]!.data)) continue;
      for (let i = 0; i < bt.length; i++) if (getValue(columns[c]!, i) === null) checkNotNull(t, [columns.map((col) => getValue(col, i))]);
    }
    out.push({ columns, length: bt.length });
    count += bt.length;
  }
  if (t.uniqueKeys.length > 0) {
    const holder = pendingKeyHolder(t, { batches: out }, host.rowLocks);
    if (holder !== null) return holder;
    checkUniqueBatches(t, out, keyCheckRows(host, t));
    if (host.keyHolder !== null) {
      checkKeysCommittedSince(host, t, { batches: out }, false);
      holdPendingKeys(t, { batches: out }, host.keyHolder);
    }
  }
  for (const o of out) t.appendBatch(o);
  return result('INSERT', `INSERT 0 ${count}`, { rowCount: count });
}

export function assign(v: Value, from: DataType, to: DataType, host: UtilityHost, col: string): Value {
  if (from.name === 'unknown' || from.name === to.name) return castValue(v, from, to, { timezone: host.session.timezone }, false);
  try {
    return castValue(v, from, to, { timezone: host.session.timezone }, false);
  } catch (e) {
    throw assignError(e, from, to, col);
  }
}

/** What a failed assignment cast raises: a type with no assignment cast is 42804 naming the column. */
function assignError(e: unknown, from: DataType, to: DataType, col: string): unknown {
  if (from.name !== 'unknown' && from.name !== to.name && e instanceof QuireError && e.code === '42846') {
    return new QuireError('42804', `column "${col}" is of type ${typeDisplayName(to)} but expression is of type ${typeDisplayName(from)}`, {
      hint: 'You will need to rewrite or cast the expression.',
    });
  }
  return e;
}

/** Binds expressions over one table's row for UPDATE/DELETE. */
function tableScope(t: MemoryTable, alias: string | undefined): Scope {
  const scope = new Scope(null);
  scope.entries = t.schema.map((f, i) => ({ qualifier: alias ?? t.name, name: f.name, expr: colRef(i, f.type, f.name), hiddenFromStar: false, hiddenUnqualified: false }));
  return scope;
}

/**
 * The batches of a table after UPDATE or DELETE: rows `deleted` go, rows `updated` (position → new
 * values) go from where they were and their new versions are appended at the end, where PostgreSQL
 * writes a new row version of a small table. Batches without such a row are kept as they are (a
 * database directory's log then carries only the rewritten ones). Where each row went is recorded
 * for WHERE CURRENT OF (row-lineage.ts).
 */
function rebuildTable(t: MemoryTable, snapshot: readonly Batch[], changes: RowChanges): Batch[] {
  const out: Batch[] = [];
  const log = new MoveLog();
  const { positions, updates } = changes;
  // Encoded before the lineage records them: it follows rows by these very batch objects.
  const appended = changes.finish().map((b) => t.encodeRewritten(b));
  const slots = appended.map(() => log.slot());
  let nth = 0;
  let next = 0;
  let base = 0;
  for (const batch of snapshot) {
    const end = base + batch.length;
    if (next >= positions.length || positions[next]! >= end) {
      out.push(batch);
      base = end;
      continue;
    }
    const keep: number[] = [];
    const removedFrom = next;
    for (let i = 0; i < batch.length; i++) {
      if (next < positions.length && positions[next] === base + i) {
        if (updates[next++]) {
          log.moved(batch, i, slots[Math.floor(nth / BATCH_SIZE)]!, nth % BATCH_SIZE, true);
          nth++;
        } else log.deleted(batch);
      } else keep.push(i);
    }
    if (keep.length > 0) {
      const slot = log.slot();
      keep.forEach((i, k) => log.moved(batch, i, slot, k));
      const builders = t.schema.map((f) => new ColumnBuilder(f.type, keep.length));
      for (const i of keep) builders.forEach((bb, c) => bb.pushFrom(batch.columns[c]!, i));
      const kept = t.encodeRewritten({ columns: builders.map((x) => x.finish()), length: keep.length });
      log.fill(slot, kept);
      // Secondary indexes renumber their entries across this batch instead of sorting again.
      const removed = new Int32Array(next - removedFrom);
      for (let k = 0; k < removed.length; k++) removed[k] = positions[removedFrom + k]! - base;
      noteRebuiltBatch(kept, batch, removed);
      out.push(kept);
    } else log.deleted(batch);
    base = end;
  }
  appended.forEach((b, k) => {
    log.fill(slots[k]!, b);
    out.push(b);
  });
  log.commit();
  return out;
}

/**
 * The rows an UPDATE or DELETE changes: ascending positions in the snapshot, and for updated rows
 * their new versions, built into batches as they come.
 */
class RowChanges {
  readonly positions: number[] = [];
  /** Per position: true for a new version, false for a deletion. */
  readonly updates: boolean[] = [];
  private readonly done: Batch[] = [];
  private builders: ColumnBuilder[] | null = null;
  private filled = 0;

  constructor(private readonly schema: readonly { type: DataType }[]) {}

  /** Positions must come in ascending order; `row` null deletes. */
  add(position: number, row: Value[] | null): void {
    this.positions.push(position);
    this.updates.push(row !== null);
    if (row === null) return;
    if (this.builders === null) this.builders = this.schema.map((f) => new ColumnBuilder(f.type, BATCH_SIZE));
    for (let c = 0; c < this.builders.length; c++) this.builders[c]!.push(row[c]!);
    if (++this.filled === BATCH_SIZE) this.flush();
  }

  private flush(): void {
    if (this.builders === null || this.filled === 0) return;
    this.done.push({ columns: this.builders.map((b) => b.finish()), length: this.filled });
    this.builders = null;
    this.filled = 0;
  }

  /** The new versions' batches. */
  finish(): Batch[] {
    this.flush();
    return this.done;
  }

  get size(): number {
    return this.positions.length;
  }

  has(position: number): boolean {
    let lo = 0;
    let hi = this.positions.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.positions[mid]!;
      if (v === position) return true;
      if (v < position) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  static deleting(schema: readonly { type: DataType }[], positions: Iterable<number>): RowChanges {
    const c = new RowChanges(schema);
    for (const p of [...positions].sort((a, b) => a - b)) c.add(p, null);
    return c;
  }
}

/** The row lock UPDATE needs: FOR UPDATE's when it changes a unique key column, else FOR NO KEY UPDATE's. */
export function updateStrength(t: MemoryTable, cols: readonly number[]): LockStrength {
  return t.uniqueKeys.some((k) => k.some((c) => cols.includes(c))) ? 'update' : 'no key update';
}

export function update(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<QueryResult> {
  return untilUnlocked(host, () => runPlanned(host, planUpdate(host, b, params), params));
}

/** One assignment of an UPDATE's (or ON CONFLICT DO UPDATE's) SET list. */
export interface SetItem {
  col: number;
  /** The value expression, or a NULL placeholder for DEFAULT (evaluated per row from `fallback`). */
  val: Node;
  fallback: Expr | null;
}

/** An UPDATE's (or ON CONFLICT DO UPDATE's) SET list against table `t`. */
export function setItems(host: UtilityHost, t: MemoryTable, targetList: Node[] | undefined, binder: QueryBinder): SetItem[] {
  return (targetList ?? []).map((n) => {
    const rt = nodeBody<AnyNode>(n);
    const c = t.schema.findIndex((f) => f.name === rt.name);
    if (c < 0) throw new QuireError('42703', `column "${rt.name as string}" of relation "${t.name}" does not exist`, { position: pos(rt.location as number) });
    const val = nodeTag(rt.val as Node) === 'MultiAssignRef' ? multiAssigned(nodeBody<AnyNode>(rt.val as Node), rt) : (rt.val as Node);
    const isDefault = nodeTag(val) === 'SetToDefault';
    return { col: c, val: isDefault ? ({ A_Const: { isnull: true } } as Node) : val, fallback: isDefault ? defaultValue(host, t, c, binder) : null };
  });
}

/**
 * `SET (a, b) = (x, y)`: the parser gives each column the whole source and its place in it; a ROW
 * source hands each column its own item. A sub-SELECT source is not taken.
 */
function multiAssigned(m: AnyNode, rt: AnyNode): Node {
  const source = m.source as Node;
  const tag = nodeTag(source);
  if (tag === 'RowExpr') {
    const row = nodeBody<AnyNode>(source);
    const items = (row.args as Node[] | undefined) ?? [];
    if (items.length !== (m.ncolumns as number)) throw new QuireError('42601', 'number of columns does not match number of values', { position: pos(row.location as number) });
    return items[(m.colno as number) - 1]!;
  }
  if (tag === 'SubLink') throw new QuireError('0A000', 'UPDATE … SET (columns) = (SELECT …) is not supported', { position: pos(rt.location as number) });
  throw new QuireError('0A000', 'source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression', { position: pos(locOf(source)) });
}

/** The table's batches with the matched rows' SET columns replaced; untouched batches are shared. */
export async function applyUpdates(
  host: UtilityHost,
  t: MemoryTable,
  snapshot: readonly Batch[],
  matched: MatchedRows,
  sets: readonly SetItem[],
  binder: QueryBinder,
  params: readonly unknown[],
): Promise<{ out: Batch[]; changedRows: Value[][] }> {
  const updated = new RowChanges(t.schema);
  const changedRows: Value[][] = [];
  // Visits the matched rows only, in table order: an UPDATE of a few rows of a large table costs those rows.
  const positions = [...matched.rows.keys()].sort((x, y) => x - y);
  const watching = watchingUpdates(t);
  let base = 0;
  let bi = 0;
  for (const p of positions) {
    while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
    const batch = snapshot[bi]!;
    const i = p - base;
    const vals = matched.rows.get(p)!;
    const row: Value[] = t.schema.map((_, c) => getValue(batch.columns[c]!, i));
    const before = watching ? row.slice() : null;
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k]!;
      const to = t.schema[s.col]!;
      if (s.fallback !== null) {
        row[s.col] = (await evalRowExprs(host, [s.fallback], binder.paramTypes, params))[0]!;
        continue;
      }
      const v = vals[k]!;
      const from = matched.types[k]!;
      row[s.col] = v === null || (from.name === to.type.name && from.typmod === to.type.typmod) ? v : assign(v, from, to.type, host, to.name);
    }
    updated.add(p, row);
    changedRows.push(row);
    if (before !== null) noteUpdate(t, before, row);
  }
  const out = updated.size > 0 ? rebuildTable(t, snapshot, updated) : [...snapshot];
  return { out, changedRows };
}

export function del(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<QueryResult> {
  return untilUnlocked(host, () => runPlanned(host, planDelete(host, b, params), params));
}

/** Deletes rows `doomed` (positions in `snapshot`) of `t`, unless another transaction's row lock is in the way. */
export async function deleteRows(host: UtilityHost, b: AnyNode, t: MemoryTable, snapshot: readonly Batch[], doomed: ReadonlySet<number>, params: readonly unknown[]): Promise<QueryResult | LockOwner> {
  const holder = claimRows(host, t, snapshot, [...doomed].sort((x, y) => x - y), 'update');
  if (holder !== null) return holder;
  const list = retList(b);
  let ret: Partial<QueryResult> | null = null;
  if (list !== null) {
    const deleted: Value[][] = [];
    let base = 0;
    for (const batch of snapshot) {
      for (let i = 0; i < batch.length; i++) if (doomed.has(base + i)) deleted.push(t.schema.map((_, c) => getValue(batch.columns[c]!, i)));
      base += batch.length;
    }
    ret = await returning(host, t, b.relation as AnyNode, deleted, list, params);
  }
  if (doomed.size > 0) {
    const positions = [...doomed].sort((x, y) => x - y);
    const out = rebuildTable(t, snapshot, RowChanges.deleting(t.schema, doomed));
    noteDeletedKeys(t, snapshot, positions, out);
    // The keys given up stay the rows' until this transaction commits: their writers wait for it.
    if (host.keyHolder !== null && t.uniqueKeys.length > 0) holdPendingKeys(t, rowsAt(snapshot, positions), host.keyHolder);
    t.replaceAll(out);
  }
  return result('DELETE', `DELETE ${doomed.size}`, { rowCount: doomed.size, ...(ret ?? {}) });
}

/** PostgreSQL 18 moved the list into a ReturningClause (which may also name OLD/NEW aliases). */
export function retList(b: AnyNode): Node[] | null {
  const rc = b.returningClause as AnyNode | undefined;
  if (rc) {
    if (rc.options) throw new QuireError('0A000', 'RETURNING WITH (OLD/NEW …) is not supported');
    return (rc.exprs as Node[] | undefined) ?? null;
  }
  return (b.returningList as Node[] | undefined) ?? null;
}

/** RETURNING: the select list evaluated over the rows a statement inserted, updated or deleted. */
export async function returning(host: UtilityHost, t: MemoryTable, rv: AnyNode, rows: Value[][], list: Node[], params: readonly unknown[]): Promise<Partial<QueryResult>> {
  const { targets, binder } = bindReturning(host, t, rv, list, params);
  const builders = t.schema.map((f) => new ColumnBuilder(f.type, rows.length));
  for (const r of rows) r.forEach((v, c) => builders[c]!.push(v));
  const batch: Batch = { columns: builders.map((x) => x.finish()), length: rows.length };
  const ctx = host.execContext(binder.paramTypes, params, false);
  const cols = targets.map((tg) => {
    const k = compileKernel(tg.expr);
    if (k.slots.length > 0) throw new QuireError('0A000', 'subqueries in RETURNING are not supported');
    return k.run(batch, ctx, []);
  });
  const out: Value[][] = rows.map((_, i) => cols.map((c) => getValue(c, i)));
  return { columns: returningColumns(targets), rows: out };
}

/** The RETURNING list's columns (a plan's output schema before anything runs). */
export function returningColumns(targets: readonly { expr: Expr; name: string }[]): { name: string; type: DataType }[] {
  return targets.map((tg) => ({ name: tg.name, type: tg.expr.type }));
}

/** The RETURNING list bound over the target table's row. */
export function bindReturning(host: UtilityHost, t: MemoryTable, rv: AnyNode, list: Node[], params: readonly unknown[]): { targets: { expr: Expr; name: string }[]; binder: QueryBinder } {
  const binder = binderFor(host, params.map(() => T.unknown));
  const scope = tableScope(t, (rv.alias as AnyNode | undefined)?.aliasname as string | undefined);
  const cx: ExprCtx = { scope, clause: 'RETURNING', aggs: null, windows: null, env: binder };
  const targets: { expr: Expr; name: string }[] = [];
  for (const n of list) {
    const rt = nodeBody<AnyNode>(n);
    const val = rt.val as Node;
    if (nodeTag(val) === 'ColumnRef' && nodeTag(((nodeBody<AnyNode>(val).fields as Node[]) ?? []).slice(-1)[0]) === 'A_Star') {
      t.schema.forEach((f, i) => targets.push({ expr: colRef(i, f.type, f.name), name: f.name }));
      continue;
    }
    const e = bindExpr(val, cx);
    targets.push({ expr: e.type.name === 'unknown' ? coerce(e, T.text, 'implicit', binder) : e, name: (rt.name as string | undefined) ?? figureColname(val) });
  }
  return { targets, binder };
}

/**
 * Rewrites rows of `t` as a referential action does (ON DELETE/UPDATE CASCADE, SET NULL, SET
 * DEFAULT): `changes` maps positions of `snapshot` to their new values, or null to delete the row.
 * The rows are locked as an UPDATE or DELETE locks them (the lock holder in the way is returned
 * instead), and the new versions meet NOT NULL and the unique keys.
 */
export function applyRowChanges(host: UtilityHost, t: MemoryTable, snapshot: readonly Batch[], changes: ReadonlyMap<number, Value[] | null>, assigned: readonly number[]): LockOwner | null {
  const positions = [...changes.keys()].sort((x, y) => x - y);
  const holder = claimRows(host, t, snapshot, positions, 'update');
  if (holder !== null) return holder;
  const rc = new RowChanges(t.schema);
  const updatedPositions: number[] = [];
  const newRows: Value[][] = [];
  const watching = watchingUpdates(t);
  let base = 0;
  let bi = 0;
  for (const p of positions) {
    const row = changes.get(p)!;
    rc.add(p, row);
    if (row === null) continue;
    updatedPositions.push(p);
    newRows.push(row);
    if (watching) {
      while (p >= base + snapshot[bi]!.length) base += snapshot[bi++]!.length;
      const b = snapshot[bi]!;
      noteUpdate(t, t.schema.map((_, c) => getValue(b.columns[c]!, p - base)), row);
    }
  }
  checkNotNull(t, newRows);
  const keys = keysAssigned(t, assigned);
  if (keys.length > 0) {
    const other = pendingKeyHolder(t, { rows: newRows }, host.rowLocks, keys);
    if (other !== null) return other;
  }
  const out = rebuildTable(t, snapshot, rc);
  if (t.uniqueKeys.length) checkRewrittenKeys(host, t, snapshot, updatedPositions, newRows, assigned, out, positions);
  if (host.keyHolder !== null && keys.length > 0) {
    checkKeysCommittedSince(host, t, { rows: newRows }, false, keys);
    holdPendingKeys(t, { rows: newRows }, host.keyHolder, keys);
  }
  // The keys the changed and deleted rows give up stay theirs until this transaction commits.
  if (host.keyHolder !== null && t.uniqueKeys.length > 0) {
    const gone = updatedPositions.length < positions.length ? t.uniqueKeys : keys;
    if (gone.length > 0) holdPendingKeys(t, rowsAt(snapshot, positions), host.keyHolder, gone);
  }
  t.replaceAll(out);
  return null;
}

/** The unique keys of `t` an UPDATE of columns `assigned` can give new values. */
export function keysAssigned(t: MemoryTable, assigned: readonly number[]): number[][] {
  return t.uniqueKeys.filter((k) => k.some((c) => assigned.includes(c)));
}
