/**
 * INSERT … SELECT, UPDATE and DELETE (plain or with FROM/USING, WITH, subqueries or WHERE CURRENT OF)
 * as plans: the query that finds the new rows (or the target rows' positions and new values) is the
 * input of a ModifyTable node, whose target applies the changes through the transaction's table, the
 * row lineage and the constraint checks of dml-statements.ts. EXPLAIN shows these plans, and EXPLAIN
 * ANALYZE runs them.
 */
import { refuseInheritedTarget } from './inheritance.js';
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { T, typeDisplayName, type DataType, type Value } from '../common/types.js';
import { BATCH_SIZE, ColumnBuilder, getValue, sliceBatch, type Batch } from '../common/column.js';
import type { LogicalPlan, ModifyKind, ModifyTarget } from '../logical/plan.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../sql/ast.js';
import { isAggregateName } from '../functions/aggregate/registry.js';
import { lookupScalar } from '../functions/registry.js';
import { lookupTableFunction } from '../storage/table-functions/table-function.js';
import { MemoryTable } from '../storage/memory-table.js';
import type { QueryResult } from './database.js';
import { matchedRows, targetRowsQuery, type MatchedRows } from './dml-target.js';
import { mapExpr, someExpr, type Expr } from '../logical/expr.js';
import { canCoerce, coerce } from '../sql/coerce.js';
import { locOf } from '../sql/bind/expr.js';
import type { QueryBinder } from '../sql/bind/query.js';
import {
  applyUpdates,
  assign,
  bindReturning,
  checkNotNull,
  conflictArbiters,
  defaultValue,
  deleteRows,
  evalRowExprs,
  finishInsert,
  identityAlways,
  insertBatches,
  claimRows,
  keysAssigned,
  retList,
  returningColumns,
  setItems,
  type SetItem,
  updateStrength,
} from './dml-statements.js';
import { holdPendingKeys, pendingKeyHolder, rowsAt } from './pending-keys.js';
import { checkKeysCommittedSince, checkRewrittenKeys } from './snapshot-keys.js';
import { locateRow, rowAt } from './row-lineage.js';
import { LockOwner } from './row-locks.js';
import { targetRow, type TargetedRow } from './row-targets.js';
import { columnSequence } from '../storage/sequence.js';
import { binderFor, relName, result } from './statement-support.js';
import type { UtilityHost } from './utility.js';

const pos = positionOf;

/** A DML statement planned, ready to run (or to EXPLAIN). */
export interface PlannedDml {
  /** A ModifyTable node over the statement's input. */
  readonly plan: LogicalPlan;
  readonly paramTypes: DataType[];
  /** The statement's result once the plan has run; a LockOwner to wait for when a row lock stopped it. */
  outcome(): QueryResult | LockOwner;
}

/** A statement's result rows as batches of the given column types. */
function rowBatches(rows: readonly Value[][], types: readonly DataType[]): Batch[] {
  const out: Batch[] = [];
  for (let start = 0; start < rows.length; start += BATCH_SIZE) {
    const end = Math.min(rows.length, start + BATCH_SIZE);
    const builders = types.map((t) => new ColumnBuilder(t, end - start));
    for (let i = start; i < end; i++) builders.forEach((bd, c) => bd.push(rows[i]![c]!));
    out.push({ columns: builders.map((bd) => bd.finish()), length: end - start });
  }
  return out;
}

/** The ModifyTable node whose target runs `apply` and records its result. */
function modifyNode(kind: ModifyKind, t: MemoryTable, input: LogicalPlan, returning: readonly { name: string; type: DataType }[], paramTypes: DataType[], apply: (input: readonly Batch[]) => Promise<QueryResult | LockOwner>): PlannedDml {
  let outcome: QueryResult | LockOwner | null = null;
  const target: ModifyTarget = {
    apply: async (batches) => {
      const r = await apply(batches);
      outcome = r;
      if (r instanceof LockOwner || returning.length === 0) return [];
      return rowBatches(r.rows, returning.map((c) => c.type));
    },
  };
  return {
    plan: { op: 'modify', kind, table: t.name, input, target, schema: returning.map((c) => ({ name: c.name, type: c.type })) },
    paramTypes,
    outcome: () => {
      if (outcome === null) throw new QuireError('XX000', `${kind.toUpperCase()} plan did not run`);
      return outcome;
    },
  };
}

function aliasOf(rv: AnyNode): string | undefined {
  return (rv.alias as AnyNode | undefined)?.aliasname as string | undefined;
}

/** The RETURNING columns of `b` over `t`, bound (not evaluated) for the plan's schema. */
function returningOf(host: UtilityHost, t: MemoryTable, b: AnyNode, params: readonly unknown[]): { name: string; type: DataType }[] {
  const list = retList(b);
  return list === null ? [] : returningColumns(bindReturning(host, t, b.relation as AnyNode, list, params).targets);
}

/**
 * Aggregates, window functions and set-returning functions have no place in UPDATE's SET list or in
 * RETURNING (PostgreSQL's messages name the clause). Checked on the statement as written, since its
 * input query is a SELECT, where they would be taken (subqueries are their own queries, so not entered).
 */
function checkPlacement(host: UtilityHost, n: unknown, clause: string): void {
  if (n === null || typeof n !== 'object') return;
  if (Array.isArray(n)) {
    for (const x of n) checkPlacement(host, x, clause);
    return;
  }
  const o = n as AnyNode;
  if ('SubLink' in o) return;
  if ('FuncCall' in o) {
    const f = o.FuncCall as AnyNode;
    const parts = strings(f.funcname as Node[]);
    const name = parts.length === 2 && parts[0] === 'pg_catalog' ? parts[1]! : parts.join('.');
    const position = pos(f.location as number);
    if (f.over !== undefined) throw new QuireError('42P20', `window functions are not allowed in ${clause}`, { position });
    const userFns = host.catalog.functions.get(name);
    if ((isAggregateName(name) && lookupScalar(name) === undefined) || (host.catalog.aggregates.has(name) && userFns === undefined)) {
      throw new QuireError('42803', `aggregate functions are not allowed in ${clause}`, { position });
    }
    if ((lookupTableFunction(name) !== undefined && lookupScalar(name) === undefined) || userFns?.some((fn) => fn.returnsSet) === true) {
      throw new QuireError('0A000', `set-returning functions are not allowed in ${clause}`, { position });
    }
  }
  for (const k in o) checkPlacement(host, o[k], clause);
}

/**
 * The input query of an UPDATE/DELETE as bound, before the optimizer. UPDATE's SET values are cast to
 * their columns' types in assignment context (a literal takes the column's type, a wrong type is
 * 42804 at the value). RETURNING is selected by the input query beside the new values, so it can read
 * the FROM/USING items and hold subqueries; UPDATE's returns the new row: each reference to a column
 * the SET list assigns becomes the assigned value, as the row will hold it.
 */
function inputRewrite(t: MemoryTable, sets: readonly SetItem[] | null): (bound: LogicalPlan, binder: QueryBinder) => LogicalPlan {
  const skip = 1 + (sets?.length ?? 0);
  return (bound, binder) => {
    if (bound.op !== 'project') throw new QuireError('XX000', `unexpected ${bound.op} at the top of a DML input`);
    const assigned = new Map<number, Expr>();
    const values = bound.exprs.slice(0, skip);
    sets?.forEach((s, k) => {
      const col = t.schema[s.col]!;
      values[1 + k] = coerce(values[1 + k]!, col.type, 'assignment', binder, pos(locOf(s.val)), `column "${col.name}"`);
      assigned.set(s.col, s.fallback ?? values[1 + k]!);
    });
    const exprs = bound.exprs.map((e, i) => {
      if (i < skip) return values[i]!;
      if (assigned.size > 0 && someExpr(e, (x) => x.kind === 'subquery' && x.correlated)) {
        throw new QuireError('0A000', 'correlated subqueries in RETURNING of UPDATE are not supported');
      }
      const r = assigned.size === 0 ? e : mapExpr(e, (x) => (x.kind === 'column' && assigned.has(x.index) ? assigned.get(x.index)! : x));
      return r.type.name === 'unknown' ? coerce(r, T.text, 'implicit', binder) : r;
    });
    return { ...bound, exprs, schema: bound.schema.map((f, i) => ({ ...f, type: exprs[i]!.type })) };
  };
}

/** The RETURNING values of the rows changed, in table order, from the input query's rows. */
function returnedRows(matched: MatchedRows, skip: number): Value[][] {
  return [...matched.rows.keys()].sort((x, y) => x - y).map((p) => matched.rows.get(p)!.slice(skip));
}

function returnedColumns(plan: LogicalPlan, skip: number): { name: string; type: DataType }[] {
  return plan.schema.slice(1 + skip).map((f) => ({ name: f.name, type: f.type }));
}

/**
 * The rows of `snapshot` an UPDATE/DELETE may change: with data-modifying WITH queries, only those of
 * the statement's snapshot, not rows an earlier one added (PostgreSQL's sub-statements do not see
 * each other's changes). Added rows are appended batches, so those rows are a prefix of the batches.
 */
function visibleBatches(host: UtilityHost, t: MemoryTable, snapshot: readonly Batch[]): readonly Batch[] {
  const frozen = host.modifyingScope?.reads.getTable(t.name);
  if (frozen === undefined || frozen === t || !(frozen instanceof MemoryTable)) return snapshot;
  const before = frozen.snapshot();
  if (before.length > snapshot.length || before.some((b, i) => b !== snapshot[i])) return snapshot;
  return snapshot.slice(0, before.length);
}

/** `WHERE CURRENT OF cursor`: the cursor's name, when that is the whole WHERE clause. */
function currentOfName(b: AnyNode): string | null {
  const w = b.whereClause as Node | undefined;
  if (w === undefined || nodeTag(w) !== 'CurrentOfExpr') return null;
  return nodeBody<AnyNode>(w).cursor_name as string;
}

/**
 * The row cursor `name` is on, for UPDATE/DELETE of table `named` (the cursor must read that table,
 * as a simply updatable scan or FOR UPDATE/SHARE of it): the table the row is in (`named` itself, or
 * a table inheriting from it that the cursor read), and the row. PostgreSQL's execCurrentOf errors.
 */
function currentOfRow(host: UtilityHost, named: MemoryTable, name: string): TargetedRow {
  const c = host.cursors.get(name);
  if (c.held) throw new QuireError('24000', `cursor "${name}" is held from a previous transaction`);
  const mine = c.info.targets.map((tg, k) => ({ tg, k })).filter(({ tg }) => tg.segments.some((s) => s.table === named));
  if (c.info.locking) {
    if (mine.length === 0) throw new QuireError('24000', `cursor "${name}" does not have a FOR UPDATE/SHARE reference to table "${named.name}"`);
    if (mine.length > 1) throw new QuireError('24000', `cursor "${name}" has multiple FOR UPDATE/SHARE references to table "${named.name}"`);
  } else if (mine.length !== 1) {
    throw new QuireError('24000', `cursor "${name}" is not a simply updatable scan of table "${named.name}"`);
  }
  const ids = c.currentIds();
  if (ids === null) throw new QuireError('24000', `cursor "${name}" is not positioned on a row`);
  const { tg, k } = mine[0]!;
  return targetRow(tg, ids[k]!);
}

/**
 * The position in `snapshot` (of table `t`) of the row cursor `name` is on; null when that row is
 * gone (deleted, or not in this snapshot) or is in another table than `t`.
 */
function currentOfPosition(host: UtilityHost, t: MemoryTable, named: MemoryTable, snapshot: readonly Batch[], name: string): number | null {
  const row = currentOfRow(host, named, name);
  if (row.table !== t) return null;
  return locateRow(snapshot, row.ref);
}

/** Whether a RETURNING or select-list item is `*` or `alias.*`. */
function returnsStar(item: Node): boolean {
  const val = nodeBody<AnyNode>(item).val as Node | undefined;
  if (val === undefined || nodeTag(val) !== 'ColumnRef') return false;
  const fields = (nodeBody<AnyNode>(val).fields ?? []) as Node[];
  return fields.length > 0 && nodeTag(fields[fields.length - 1]!) === 'A_Star';
}

/**
 * The table an UPDATE/DELETE … WHERE CURRENT OF changes: the table it names, or, when it names a
 * parent without ONLY, the inheriting table the cursor's row is in. RETURNING * of a child with more
 * columns would list them, where PostgreSQL lists the parent's: refused.
 */
function currentOfTarget(host: UtilityHost, named: MemoryTable, b: AnyNode): MemoryTable {
  const name = currentOfName(b);
  const rv = b.relation as AnyNode;
  if (name === null || named.inheritance.children.length === 0) return named;
  const row = currentOfRow(host, named, name);
  if (row.table === named || rv.inh !== true) return named;
  const list = retList(b);
  if (list !== null && list.some(returnsStar) && row.table.schema.length !== named.schema.length) {
    throw new QuireError('0A000', `RETURNING of WHERE CURRENT OF on table "${named.name}" whose cursor row is in "${row.table.name}", which has more columns, is not supported`, { hint: 'Name the columns to return.' });
  }
  return row.table;
}

/** UPDATE/DELETE's target table; WHERE CURRENT OF cannot name a view. */
function dmlTable(host: UtilityHost, b: AnyNode): MemoryTable {
  const rv = b.relation as AnyNode;
  if (currentOfName(b) !== null && host.catalog.views.has(relName(rv, 'relation')) && host.tempKey(relName(rv)) === undefined) {
    throw new QuireError('0A000', 'WHERE CURRENT OF on a view is not implemented');
  }
  const t = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, relName(rv, 'relation'), pos(rv.location as number));
  // WHERE CURRENT OF refuses after the cursor checks (see currentOfPosition).
  if (currentOfName(b) === null) refuseInheritedTarget(t, rv, b.targetList !== undefined ? 'UPDATE' : 'DELETE');
  return t;
}

/**
 * The rows an UPDATE/DELETE may change and the statement to find them with: the visible rows, or for
 * WHERE CURRENT OF only the cursor's row (none when it is gone), with that WHERE taken out.
 */
function candidateRows(host: UtilityHost, t: MemoryTable, named: MemoryTable, b: AnyNode, snapshot: readonly Batch[]): { batches: readonly Batch[]; first: number; stmt: AnyNode } {
  const cursor = currentOfName(b);
  if (cursor === null) return { batches: visibleBatches(host, t, snapshot), first: 0, stmt: b };
  const at = currentOfPosition(host, t, named, snapshot, cursor);
  const stmt = { ...b, whereClause: undefined };
  if (at === null) return { batches: [], first: 0, stmt };
  const ref = rowAt(snapshot, at);
  return { batches: [sliceBatch(ref.batch, ref.index, ref.index + 1)], first: at, stmt };
}

export function planUpdate(host: UtilityHost, b: AnyNode, params: readonly unknown[]): PlannedDml {
  const rv = b.relation as AnyNode;
  const named = dmlTable(host, b);
  const t = currentOfTarget(host, named, b);
  const binder = binderFor(host, params.map(() => T.unknown));
  const sets = setItems(host, t, b.targetList as Node[] | undefined, binder);
  checkPlacement(host, sets.map((x) => x.val), 'UPDATE');
  const snapshot = t.snapshot();
  const list = retList(b);
  checkPlacement(host, list, 'RETURNING');
  const more = { returning: list ?? [], rewrite: inputRewrite(t, sets) };
  const rows = candidateRows(host, t, named, b, snapshot);
  const query = targetRowsQuery(host, t, rows.batches, aliasOf(rv), rows.stmt, sets.map((x) => x.val), params, new Map(), more, rows.first);
  // PostgreSQL's rewriter refuses this once the statement is bound, after any error in the values.
  sets.forEach((s, k) => {
    if (sets.findIndex((x) => x.col === s.col) !== k) throw new QuireError('42601', `multiple assignments to same column "${t.schema[s.col]!.name}"`);
  });
  const columns = returnedColumns(query.plan, sets.length);
  return modifyNode('update', t, query.plan, columns, query.paramTypes, async (input) => {
    const matched = matchedRows(input, query);
    const positions = [...matched.rows.keys()].sort((x, y) => x - y);
    const holder = claimRows(host, t, snapshot, positions, updateStrength(t, sets.map((x) => x.col)));
    if (holder !== null) return holder;
    const { out, changedRows } = await applyUpdates(host, t, snapshot, matched, sets, binder, params);
    checkNotNull(t, changedRows);
    // A new key another open transaction wrote: wait for it, as an INSERT of that key would.
    const keys = keysAssigned(t, sets.map((x) => x.col));
    if (keys.length > 0) {
      const other = pendingKeyHolder(t, { rows: changedRows }, host.rowLocks, keys);
      if (other !== null) return other;
    }
    if (t.uniqueKeys.length) checkRewrittenKeys(host, t, snapshot, positions, changedRows, sets.map((x) => x.col), out);
    if (host.keyHolder !== null && keys.length > 0) {
      checkKeysCommittedSince(host, t, { rows: changedRows }, false, keys);
      holdPendingKeys(t, { rows: changedRows }, host.keyHolder, keys);
      // The keys the rows give up stay theirs until this transaction commits.
      holdPendingKeys(t, rowsAt(snapshot, positions), host.keyHolder, keys);
    }
    const n = changedRows.length;
    if (n > 0) t.replaceAll(out);
    return result('UPDATE', `UPDATE ${n}`, { rowCount: n, ...(list !== null ? { columns, rows: returnedRows(matched, sets.length) } : {}) });
  });
}

export function planDelete(host: UtilityHost, b: AnyNode, params: readonly unknown[]): PlannedDml {
  const rv = b.relation as AnyNode;
  const named = dmlTable(host, b);
  const t = currentOfTarget(host, named, b);
  const snapshot = t.snapshot();
  const list = retList(b);
  checkPlacement(host, list, 'RETURNING');
  const more = { returning: list ?? [], rewrite: inputRewrite(t, null) };
  const rows = candidateRows(host, t, named, b, snapshot);
  const query = targetRowsQuery(host, t, rows.batches, aliasOf(rv), rows.stmt, [], params, new Map(), more, rows.first);
  const columns = returnedColumns(query.plan, 0);
  const plain = { ...b, returningList: undefined, returningClause: undefined };
  return modifyNode('delete', t, query.plan, columns, query.paramTypes, async (input) => {
    const matched = matchedRows(input, query);
    const r = await deleteRows(host, plain, t, snapshot, new Set(matched.rows.keys()), params);
    if (r instanceof LockOwner || list === null) return r;
    return { ...r, columns, rows: returnedRows(matched, 0) };
  });
}

/**
 * INSERT's target, column list, ON CONFLICT and source query; the source is null for DEFAULT VALUES.
 * A WITH written before INSERT belongs to the source query (its own inner WITH comes after it).
 */
export interface InsertParts {
  t: MemoryTable;
  rv: AnyNode;
  onConflict: AnyNode | undefined;
  arbiters: number[][] | null;
  targetCols: number[];
  sel: SelectStmt | null;
}

export function insertParts(host: UtilityHost, b: AnyNode): InsertParts {
  const rv = b.relation as AnyNode;
  const t = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, relName(rv, 'relation'), pos(rv.location as number));
  const onConflict = b.onConflictClause as AnyNode | undefined;
  if ((onConflict?.infer as AnyNode | undefined)?.conname !== undefined) {
    throw new QuireError('0A000', 'ON CONFLICT ON CONSTRAINT is not supported', { position: pos(onConflict!.location as number), hint: 'Name the key columns: ON CONFLICT (column, …).' });
  }
  if (onConflict?.action === 'ONCONFLICT_UPDATE' && !((onConflict.infer as AnyNode | undefined)?.indexElems as Node[] | undefined)?.length) {
    throw new QuireError('42601', 'ON CONFLICT DO UPDATE requires inference specification or constraint name', {
      position: pos(onConflict.location as number),
      hint: 'For example, ON CONFLICT (column_name).',
    });
  }
  const arbiters = onConflict !== undefined ? conflictArbiters(t, onConflict) : null;
  const targetCols: number[] = b.cols
    ? (b.cols as Node[]).map((c) => {
        const cb = nodeBody<AnyNode>(c);
        const i = t.schema.findIndex((f) => f.name === cb.name);
        if (i < 0) throw new QuireError('42703', `column "${cb.name as string}" of relation "${t.name}" does not exist`, { position: pos(cb.location as number) });
        return i;
      })
    : t.schema.map((_, i) => i);
  targetCols.forEach((c, k) => {
    if (targetCols.indexOf(c) !== k) {
      const cb = nodeBody<AnyNode>((b.cols as Node[])[k]!);
      throw new QuireError('42701', `column "${cb.name as string}" specified more than once`, { position: pos(cb.location as number) });
    }
  });
  let sel = b.selectStmt ? nodeBody<SelectStmt>(b.selectStmt as Node) : null;
  const outerWith = b.withClause as SelectStmt['withClause'];
  if (outerWith !== undefined && sel !== null) {
    const inner = sel.withClause;
    sel = {
      ...sel,
      withClause: inner === undefined ? outerWith : { ...inner, ctes: [...(outerWith.ctes ?? []), ...(inner.ctes ?? [])], recursive: outerWith.recursive === true || inner.recursive === true },
    };
  }
  return { t, rv, onConflict, arbiters, targetCols, sel };
}

/**
 * Fills the columns of `t` outside `given` with their defaults, row by row; null when every column is
 * given. Serial and identity columns draw from their sequence directly (no expression context per
 * row); other defaults are bound once and evaluated per row, so volatile ones differ per row.
 */
export function defaultsFiller(host: UtilityHost, t: MemoryTable, given: readonly number[], params: readonly unknown[]): ((row: Value[]) => Promise<void>) | null {
  const binder = binderFor(host, params.map(() => T.unknown));
  const seqs = t.schema.map((_, c) => (!given.includes(c) && t.meta[c]!.sequence ? columnSequence(t, c) : null));
  const anySeq = seqs.some((q) => q !== null);
  const defaults = t.schema.map((_, c) => (given.includes(c) || seqs[c] !== null ? null : defaultValue(host, t, c, binder)));
  const anyDefault = defaults.some((d) => d !== null);
  if (!anyDefault && !anySeq) return null;
  const exprs = defaults.map((d) => d ?? { kind: 'const' as const, value: null, type: T.unknown });
  return async (row) => {
    if (anyDefault) {
      const dv = await evalRowExprs(host, exprs, binder.paramTypes, params);
      for (let c = 0; c < row.length; c++) if (defaults[c] !== null) row[c] = dv[c]!;
    }
    if (anySeq) {
      for (let c = 0; c < row.length; c++) {
        const q = seqs[c];
        if (q) row[c] = host.session.sequences !== undefined ? host.session.sequences.drew(q, q.nextval()) : q.nextval();
      }
    }
  };
}

/** Types whose casts among each other need no session setting and fail only with a value's own error. */
const NUMBER_TYPES = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);

/**
 * The assignment casts between number types moved into the query's top projection, as PostgreSQL puts
 * them in the subquery's target list: the compiled projection then makes each value in its column's
 * type at once (`i * 0.5` into a float8 column is computed on doubles, scaled-numeric-float.ts) instead
 * of a Numeric per row that the insert casts afterwards. The values and errors are the same: the cast
 * is the one the insert would apply. Other casts (to text, dates, domains) stay with the insert, which
 * reports a type mismatch naming the column.
 */
function castsInProjection(plan: LogicalPlan, columns: readonly { name: string; type: DataType }[], targets: readonly DataType[]): { plan: LogicalPlan; columns: readonly { name: string; type: DataType }[] } {
  if (plan.op !== 'project' || plan.exprs.length !== columns.length || plan.schema.length !== columns.length) return { plan, columns };
  const moved = (k: number): boolean => {
    const from = columns[k]!.type;
    const to = targets[k]!;
    if (!NUMBER_TYPES.has(from.name) || !NUMBER_TYPES.has(to.name) || from.name === to.name) return false;
    // numeric(p,s) targets round and check precision: the insert's cast does that.
    return to.typmod === -1 && plan.exprs[k]!.type.name === from.name;
  };
  if (!columns.some((_, k) => moved(k))) return { plan, columns };
  const exprs = plan.exprs.map((e, k): Expr => (moved(k) ? { kind: 'cast', arg: e, type: targets[k]!, explicit: false, assignment: true } : e));
  const schema = plan.schema.map((f, k) => (moved(k) ? { ...f, type: targets[k]! } : f));
  return { plan: { ...plan, exprs, schema }, columns: columns.map((c, k) => (moved(k) ? { ...c, type: targets[k]! } : c)) };
}

/** INSERT … SELECT (or VALUES, or DEFAULT VALUES) as a plan. */
export function planInsert(host: UtilityHost, b: AnyNode, params: readonly unknown[], parts: InsertParts = insertParts(host, b)): PlannedDml {
  const { t, rv, onConflict, arbiters, targetCols, sel } = parts;
  if (sel?.valuesLists?.some((l) => (nodeBody<AnyNode>(l).items as Node[]).some((i) => nodeTag(i) === 'SetToDefault'))) {
    throw new QuireError('0A000', 'DEFAULT in VALUES of a planned INSERT is not supported');
  }
  const prepared = sel === null ? null : host.prepareSelect(sel, params);
  const selected = prepared?.columns ?? [];
  if (selected.length > targetCols.length) throw new QuireError('42601', 'INSERT has more expressions than target columns');
  const given = targetCols.slice(0, selected.length);
  for (const c of given) if (t.meta[c]!.identity === 'always' && b.override !== 'OVERRIDING_SYSTEM_VALUE') throw identityAlways(t, c);
  if (sel !== null) checkAssignable(t, given, selected, sel);
  const { plan: input, columns } = castsInProjection(prepared?.plan ?? { op: 'empty', schema: [], oneRow: true }, selected, given.map((c) => t.schema[c]!.type));
  return modifyNode('insert', t, input, returningOf(host, t, b, params), prepared?.paramTypes ?? [], async (batches) => {
    // Defaults are bound when the statement runs: a sequence advances only for rows really inserted.
    const fill = defaultsFiller(host, t, given, params);
    if (fill === null && retList(b) === null && onConflict === undefined) return insertBatches(host, t, batches, targetCols, columns);
    const rows: Value[][] = [];
    for (const bt of batches) {
      for (let i = 0; i < bt.length; i++) {
        const row: Value[] = new Array<Value>(t.schema.length).fill(null);
        for (let k = 0; k < columns.length; k++) {
          const c = targetCols[k]!;
          const v = getValue(bt.columns[k]!, i);
          const from = columns[k]!.type;
          const to = t.schema[c]!.type;
          row[c] = v === null || (from.name === to.name && from.typmod === to.typmod) ? v : assign(v, from, to, host, t.schema[c]!.name);
        }
        if (fill !== null) await fill(row);
        rows.push(row);
      }
    }
    return finishInsert(host, t, rv, b, onConflict, arbiters, rows, params);
  });
}

/**
 * INSERT … SELECT's columns must convert to their target columns in assignment context, as PostgreSQL
 * checks when it binds the statement (42804 at the select-list item), not value by value while it
 * runs. A string literal or NULL written directly in a plain SELECT's list has no type of its own
 * yet and takes the column's; anywhere else (a subquery's output, a UNION, VALUES) it has resolved
 * to a type already.
 */
function checkAssignable(t: MemoryTable, given: readonly number[], columns: readonly { type: DataType }[], sel: SelectStmt): void {
  const items = sel.op === undefined || sel.op === 'SETOP_NONE' ? ((sel.targetList ?? []) as Node[]) : [];
  const stars = items.filter(returnsStar).length;
  const perStar = stars === 0 ? 0 : (columns.length - (items.length - stars)) / stars;
  // The select-list item column k comes from (a star stands for perStar columns).
  const itemOf = (k: number): Node | undefined => {
    let seen = 0;
    for (const it of items) {
      const width = returnsStar(it) ? perStar : 1;
      if (k < seen + width) return it;
      seen += width;
    }
    return undefined;
  };
  given.forEach((c, k) => {
    const from = columns[k]!.type;
    const to = t.schema[c]!.type;
    if (from.composite !== undefined || to.composite !== undefined || from.name === 'record' || to.name === 'record') return;
    if (canCoerce(from, to, 'assignment')) return;
    const item = itemOf(k);
    const val = item === undefined ? undefined : (nodeBody<AnyNode>(item).val as Node | undefined);
    if (val !== undefined && nodeTag(val) === 'A_Const') {
      const lit = nodeBody<AnyNode>(val);
      if (lit.isnull === true || lit.sval !== undefined) return;
    }
    throw new QuireError('42804', `column "${t.schema[c]!.name}" is of type ${typeDisplayName(to)} but expression is of type ${typeDisplayName(from)}`, {
      position: item === undefined ? 0 : pos(locOf(item)),
      hint: 'You will need to rewrite or cast the expression.',
    });
  });
}

/** Plans an INSERT, UPDATE or DELETE (EXPLAIN; WITH's data-modifying queries). */
export function planDml(host: UtilityHost, stmt: Node, params: readonly unknown[]): PlannedDml {
  const tag = nodeTag(stmt);
  const b = nodeBody<AnyNode>(stmt);
  if ((tag === 'UpdateStmt' || tag === 'DeleteStmt') && nodeTag(b.whereClause as Node) === 'CurrentOfExpr') {
    throw new QuireError('0A000', 'WHERE CURRENT OF is not supported here');
  }
  if (tag === 'InsertStmt') return planInsert(host, b, params);
  if (tag === 'UpdateStmt') return planUpdate(host, b, params);
  if (tag === 'DeleteStmt') return planDelete(host, b, params);
  throw new QuireError('0A000', `${String(tag).replace(/Stmt$/, '')} cannot be planned`);
}

/** Runs a planned statement to its end and returns its result. */
export async function runPlanned(host: UtilityHost, p: PlannedDml, params: readonly unknown[]): Promise<QueryResult | LockOwner> {
  const ctx = host.execContext(p.paramTypes, params, false);
  await host.collectBatches(await host.physical(p.plan, ctx), ctx);
  return p.outcome();
}
