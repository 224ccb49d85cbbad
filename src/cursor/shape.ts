/**
 * Which rows a paged query returns and how to order them totally.
 *
 * The binder produces, for one SELECT level (src/sql/bind/query.ts):
 *     [project(visible)] ← [limit] ← [sort | distinct-on ← sort] ← base
 * where base's schema holds the visible columns followed by hidden sort keys. The pager keeps
 * `base`, extends the ORDER BY with a unique key of base's rows, and re-applies the order itself
 * (seek filter + Top-N per page), so every page is a fresh, bounded query.
 *
 * Unique keys come from the plan: PRIMARY KEY / NOT NULL UNIQUE columns of scanned tables (through
 * filters, windows, projections and joins: the pair of both sides' keys is unique for every join
 * type), group keys after GROUP BY, all columns after DISTINCT / UNION / INTERSECT / EXCEPT, the
 * DISTINCT ON keys. When a key column is not in the output it is appended to base's projection as
 * one more hidden column.
 *
 * A query reading one table through filters and projections pages by row position instead
 * (positioned-scan.ts): without ORDER BY the position is the only key, so pages come in table order;
 * with one, on a table without a unique key, the position breaks its ties.
 *
 * When no unique key exists otherwise (UNION ALL, VALUES, joins of heap tables), the order is
 * extended by every column of base and the cursor also counts how many rows equal to the last one
 * were already sent ("duplicate-counting" mode). Rows equal in every column are indistinguishable
 * to the client, so skipping that many of them on resume neither skips nor repeats a row.
 *
 * The query's own LIMIT / OFFSET choose *which* rows there are, in the query's order. When that order
 * decides the choice (the ORDER BY covers a unique key, or every column, so tied rows are identical)
 * the pager applies them itself in the extended order: OFFSET as rows skipped on page 1, LIMIT as a
 * count of rows still to send, and later pages seek past them. Otherwise (no ORDER BY, or ties that a
 * LIMIT or OFFSET may cut through) the rows they keep depend on how the engine breaks ties, and another
 * order would keep other rows; then the limit stays inside the paged rows (`limitedBase`), with its
 * arguments fixed to page 1's values, and every page pages over exactly the rows the query returns.
 */
import { elementType, isArrayType, T, type DataType } from '../common/types.js';
import { colRef, someExpr, type Expr, type SortKey } from '../logical/expr.js';
import { mapPlanExprs } from '../logical/map-plan-exprs.js';
import type { LogicalPlan } from '../logical/plan.js';
import { assertNever } from '../logical/plan-nodes.js';
import type { KeyColumn } from './keyset.js';
import { PagingError } from './errors.js';
import { POSITION_COLUMN, positionedPlan, scannedTable, type SnapshotTable } from './positioned-scan.js';

export interface PagingShape {
  /** The rows to page, visible columns first; keys index its schema. */
  base: LogicalPlan;
  visible: number;
  /** Full, total order: the query's ORDER BY then the tiebreaker columns. */
  keys: KeyColumn[];
  /** false: no unique key, the cursor counts duplicates of the last row (see header). */
  unique: boolean;
  /**
   * LIMIT/OFFSET of the paged query itself (not the page size). `decided`: the query's ORDER BY alone
   * decides which rows they keep, so the pager may apply them in its extended order (see header).
   */
  limit: { offset: Expr | null; count: Expr | null; decided: boolean } | null;
  /** The query's ORDER BY when the pager took it off `base` (a limit kept inside re-applies it). */
  order: SortKey[] | null;
  /** Set when keyset paging cannot be used; the pager then pages by OFFSET or refuses. */
  fallbackReason: string | null;
  /**
   * Row-position paging (positioned-scan.ts) of a query reading one table through filters and
   * projections: the row position is base's last column and the last key. `scanOrder`: the query has
   * no ORDER BY, so its rows come in table order, position is the only key and `at(n)` is base
   * reading from position n. Otherwise the position breaks the ORDER BY's ties (a table without a
   * unique key), in the table order an unpaged sort keeps them in.
   */
  position: { table: SnapshotTable; scanOrder: boolean; at(from: number): LogicalPlan } | null;
}

interface MemoryTableLike {
  uniqueKeys: number[][];
  meta: { notNull: boolean }[];
}

export function analyzeShape(bound: LogicalPlan): PagingShape {
  rejectVolatile(bound);
  let p = bound;
  const visible = p.schema.length;
  if (p.op === 'project' && isPrefixProjection(p)) p = p.input;
  let limitNode: (LogicalPlan & { op: 'limit' }) | null = null;
  let fallbackReason: string | null = null;
  if (p.op === 'limit') {
    if (p.ties !== null) fallbackReason = 'FETCH ... WITH TIES';
    limitNode = p;
    p = p.input;
  }
  let sortKeys: readonly SortKey[] = [];
  let order: SortKey[] | null = null;
  if (p.op === 'sort') {
    sortKeys = p.keys;
    order = p.keys;
    p = p.input;
  } else if (p.op === 'distinct-on' && p.input.op === 'sort') {
    sortKeys = p.input.keys;
  }
  if (!sortKeys.every((k) => k.expr.kind === 'column')) fallbackReason ??= 'ORDER BY on an expression the binder did not project';

  const table = sortKeys.length === 0 && fallbackReason === null ? scannedTable(p) : null;
  const positioned = table !== null ? positionedPlan(p, 0) : null;
  if (table !== null && positioned !== null) {
    const inner = p;
    const col = positioned.schema.length - 1;
    // Table order decides which rows the query's own LIMIT / OFFSET keep, and the pager applies them in that order.
    const limit = limitNode === null ? null : { offset: limitNode.offset, count: limitNode.count, decided: true };
    return {
      base: positioned,
      visible,
      keys: [{ col, type: T.int8, name: POSITION_COLUMN, desc: false, nullsFirst: false }],
      unique: true,
      limit,
      order: null,
      fallbackReason: null,
      position: { table, scanOrder: true, at: (from) => positionedPlan(inner, from)! },
    };
  }

  let base = p;
  let uniq = uniqueColumns(base);
  if (uniq === null && base.op === 'project') {
    // The input has a key the projection drops: keep it as extra hidden columns.
    const inner = uniqueColumns(base.input);
    if (inner !== null) {
      const exprs = [...base.exprs];
      const schema = [...base.schema];
      const mapped: number[] = [];
      for (const c of inner) {
        let at = exprs.findIndex((e) => e.kind === 'column' && e.index === c);
        if (at < 0) {
          const f = base.input.schema[c]!;
          exprs.push(colRef(c, f.type, f.name));
          schema.push({ name: '?key?', type: f.type });
          at = exprs.length - 1;
        }
        mapped.push(at);
      }
      base = { ...base, exprs, schema };
      uniq = mapped;
    }
  }

  const sortTable = uniq === null && sortKeys.length > 0 && fallbackReason === null && base === p ? scannedTable(p) : null;
  const sortPositioned = sortTable !== null ? positionedPlan(p, 0) : null;
  if (sortTable !== null && sortPositioned !== null) {
    const inner = p;
    const col = sortPositioned.schema.length - 1;
    const keys: KeyColumn[] = [];
    for (const k of sortKeys) {
      if (k.expr.kind !== 'column' || keys.some((x) => x.col === (k.expr as { index: number }).index)) continue;
      const f = sortPositioned.schema[k.expr.index]!;
      keys.push({ col: k.expr.index, type: f.type, name: f.name, desc: k.desc, nullsFirst: k.nullsFirst });
    }
    keys.push({ col, type: T.int8, name: POSITION_COLUMN, desc: false, nullsFirst: false });
    // Which tied rows a LIMIT keeps is the engine's choice: the limit stays inside the paged rows.
    const limit = limitNode === null ? null : { offset: limitNode.offset, count: limitNode.count, decided: false };
    return {
      base: sortPositioned,
      visible,
      keys,
      unique: true,
      limit,
      order,
      fallbackReason: null,
      position: { table: sortTable, scanOrder: false, at: (from) => positionedPlan(inner, from)! },
    };
  }

  const keys: KeyColumn[] = [];
  const seen = new Set<number>();
  const add = (c: number, desc: boolean, nullsFirst: boolean): void => {
    if (seen.has(c)) return;
    seen.add(c);
    const f = base.schema[c]!;
    keys.push({ col: c, type: f.type, name: f.name, desc, nullsFirst });
  };
  for (const k of sortKeys) if (k.expr.kind === 'column') add(k.expr.index, k.desc, k.nullsFirst);
  const unique = uniq !== null;
  for (const c of uniq ?? base.schema.map((_, i) => i)) add(c, false, false);
  let limit: PagingShape['limit'] = null;
  if (limitNode !== null) {
    const ordered = new Set(sortKeys.flatMap((k) => (k.expr.kind === 'column' ? [k.expr.index] : [])));
    const covers = (cols: readonly number[]): boolean => cols.every((c) => ordered.has(c));
    const decided =
      (uniq !== null && covers(uniq)) || (covers(base.schema.map((_, i) => i)) && base.schema.every((f) => equalMeansIdentical(f.type)));
    limit = { offset: limitNode.offset, count: limitNode.count, decided };
  }
  return { base, visible, keys, unique, limit, order, fallbackReason, position: null };
}

/**
 * The rows the query returns with its own LIMIT / OFFSET applied, fixed to the given values, as the
 * base to page over when the ORDER BY does not decide which rows the limit keeps.
 */
export function limitedBase(shape: PagingShape, count: number | null, offset: number): LogicalPlan {
  const input: LogicalPlan = shape.order === null ? shape.base : { op: 'sort', input: shape.base, keys: shape.order, schema: shape.base.schema };
  const n = (v: number): Expr => ({ kind: 'const', value: v, type: T.int8 });
  return { op: 'limit', input, count: count === null ? null : n(count), offset: offset > 0 ? n(offset) : null, ties: null, schema: input.schema };
}

/**
 * Whether values that sort as equal always look the same to the client. Not so for numeric (1.0 and
 * 1.00), float (0 and -0), interval ('1 day' and '24 hours') and bpchar (trailing blanks): a limit
 * cutting through such ties keeps specific ones, which only the engine's own order reproduces.
 */
function equalMeansIdentical(t: DataType): boolean {
  if (isArrayType(t)) return equalMeansIdentical(elementType(t));
  switch (t.name) {
    case 'bool':
    case 'int2':
    case 'int4':
    case 'int8':
    case 'money':
    case 'text':
    case 'varchar':
    case 'name':
    case 'unknown':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return true;
    default:
      return false;
  }
}

function isPrefixProjection(p: LogicalPlan & { op: 'project' }): boolean {
  return p.input.schema.length > p.exprs.length && p.exprs.every((e, i) => e.kind === 'column' && e.index === i);
}

/** Column positions of `p` that are unique over its rows (NULL-free), or null when none are known. */
export function uniqueColumns(p: LogicalPlan): number[] | null {
  switch (p.op) {
    case 'scan': {
      const src = p.source as unknown as Partial<MemoryTableLike>;
      if (!Array.isArray(src.uniqueKeys) || !Array.isArray(src.meta)) return null;
      // A UNIQUE column may hold several NULLs, which the order treats as peers: only NOT NULL keys count.
      const keys = src.uniqueKeys.filter((k) => k.every((c) => src.meta![c]?.notNull === true)).sort((a, b) => a.length - b.length);
      if (keys.length === 0) return null;
      const key = keys[0]!;
      if (p.projection === undefined) return [...key];
      const mapped = key.map((c) => p.projection!.indexOf(c));
      return mapped.every((i) => i >= 0) ? mapped : null;
    }
    case 'filter':
    case 'sort':
    case 'limit':
    case 'topn':
    case 'window': // a window only appends columns
      return uniqueColumns(p.input);
    case 'aggregate':
      return p.groupBy.map((_, i) => i);
    case 'distinct':
      return p.schema.map((_, i) => i);
    case 'distinct-on':
      return p.keys.every((k) => k.kind === 'column') ? p.keys.map((k) => (k as Expr & { kind: 'column' }).index) : null;
    case 'setop':
      return p.all ? null : p.schema.map((_, i) => i);
    case 'values':
      return p.rows.length <= 1 ? [] : null;
    case 'empty':
      return [];
    case 'join': {
      const l = uniqueColumns(p.left);
      if (p.type === 'semi' || p.type === 'anti') return l;
      const r = uniqueColumns(p.right);
      if (l === null || r === null) return null;
      const w = p.left.schema.length;
      return [...l, ...r.map((c) => c + w)];
    }
    case 'project': {
      const inner = uniqueColumns(p.input);
      if (inner === null) return null;
      const out: number[] = [];
      for (const c of inner) {
        const at = p.exprs.findIndex((e) => e.kind === 'column' && e.index === c);
        if (at < 0) return null;
        out.push(at);
      }
      return out;
    }
    case 'table-function':
    case 'topn-ranking':
    case 'recursive-cte':
    case 'worktable':
    case 'modify':
      return null;
    default:
      return assertNever(p);
  }
}

/**
 * A volatile function (random(), clock_timestamp()) gives other values on every page, so no order
 * over them is repeatable; statement-time functions (now()) are pinned by the cursor instead.
 */
function rejectVolatile(plan: LogicalPlan): void {
  let found: string | null = null;
  mapPlanExprs(plan, 1, (e) => {
    if (found === null && someExpr(e, (x) => x.kind === 'call' && x.overload.volatile === true)) {
      found = firstVolatile(e);
    }
    return e;
  });
  if (found !== null) {
    throw new PagingError('PaginationUnsupported', `cannot page a query that calls the volatile function ${found}()`, {
      detail: 'Each page re-runs the query, and a volatile function returns different values each time, so pages could overlap or miss rows.',
      hint: 'Run it without fetch_size, or materialise the result first (CREATE TABLE ... AS).',
    });
  }
}

function firstVolatile(e: Expr): string {
  let name = 'volatile';
  someExpr(e, (x) => {
    if (x.kind === 'call' && x.overload.volatile === true) {
      name = x.name;
      return true;
    }
    return false;
  });
  return name;
}
