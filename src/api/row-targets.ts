/**
 * Which table row each result row of a SELECT came from, for FOR UPDATE/SHARE locks and for cursors
 * that UPDATE/DELETE … WHERE CURRENT OF can use.
 *
 * Each FROM-list table that needs it is replaced, for this statement only, by a copy of its batches
 * with one more column, the row's position in that snapshot, under a name no identifier can spell
 * (the binder leaves such columns out of `*`); the query returns those positions after its own
 * columns. Positions become rows (batch and index) through the snapshot, and rows are found again
 * in later snapshots through row-lineage.ts.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { T, type Field } from '../common/types.js';
import { makeColumn, type Batch } from '../common/column.js';
import type { LogicalPlan, TableSource } from '../logical/plan.js';
import type { IndexDefinition } from '../logical/index-definition.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import { lockedItems, type LockStrength, type LockWait } from '../sql/locking-clause.js';
import type { Catalog } from '../storage/catalog.js';
import { MemoryTable } from '../storage/memory-table.js';
import { rowAt, type RowRef } from './row-lineage.js';

const ROW_ID = '\u0000row id';

export interface RowTarget {
  /** The name the query refers to the table by (its alias, else its name). */
  readonly refName: string;
  /** The table (this transaction's view of it). */
  readonly table: MemoryTable;
  readonly snapshot: readonly Batch[];
  /**
   * The tables read under that name: the table, then (without ONLY) every table inheriting from it,
   * each once. Positions number their rows one table after another.
   */
  readonly segments: readonly TargetSegment[];
  /** The lock FOR UPDATE/SHARE asks for on its rows; null when only positions are wanted. */
  readonly strength: LockStrength | null;
  readonly wait: LockWait;
}

export interface TargetSegment {
  readonly table: MemoryTable;
  readonly snapshot: readonly Batch[];
  /** Position of the table's first row. */
  readonly base: number;
  readonly rows: number;
}

/** A row a target's position stands for: its table, that table's snapshot, and the row in it. */
export interface TargetedRow {
  readonly table: MemoryTable;
  readonly snapshot: readonly Batch[];
  readonly ref: RowRef;
}

export interface RowTargeted {
  readonly stmt: SelectStmt;
  readonly relations: Map<string, TableSource>;
  /** In the order of the position columns that follow the query's own. */
  readonly targets: RowTarget[];
}

/**
 * The rows of a target's tables with each row's position as one more column, computed batch by batch
 * as they are scanned, so a cursor that reads ten rows of a large table pays for ten. An inheriting
 * table's columns are picked by name into the first table's order, as the binder's scan of a parent does.
 */
class WithRowIds implements TableSource {
  readonly schema: Field[];
  readonly explainName: string;
  readonly lockTarget = true;
  /** The table's indexes, when its own rows are all there is (without descendants read after them). */
  readonly indexes: readonly IndexDefinition[];
  readonly rowIdColumn: number;
  constructor(
    readonly name: string,
    private readonly table: MemoryTable,
    private readonly segments: readonly TargetSegment[],
  ) {
    this.schema = [...table.schema, { name: ROW_ID, type: T.int4 }];
    this.explainName = table.name;
    this.indexes = segments.length === 1 ? table.indexes : [];
    this.rowIdColumn = table.schema.length;
  }
  /** The rows an index scan reads: the one segment's snapshot, whose positions are the row ids. */
  indexedRows(): readonly Batch[] {
    return this.segments[0]!.snapshot;
  }
  batchExtends(later: Batch, earlier: Batch): boolean {
    return this.table.batchExtends(later, earlier);
  }
  rowCount(): number {
    return this.segments.reduce((n, s) => n + s.rows, 0);
  }
  async *scan(): AsyncGenerator<Batch> {
    const fields = this.schema.slice(0, -1);
    for (const seg of this.segments) {
      const pick = fields.map((f) => seg.table.schema.findIndex((x) => x.name === f.name));
      let base = seg.base;
      for (const batch of seg.snapshot) {
        const ids = new Int32Array(batch.length);
        for (let i = 0; i < batch.length; i++) ids[i] = base + i;
        base += batch.length;
        yield { columns: [...pick.map((c) => batch.columns[c]!), makeColumn(T.int4, ids, null)], length: batch.length };
      }
    }
  }
}

/** The table, then (unless ONLY) its descendants breadth first, each once, as the binder reads them. */
function segmentsOf(catalog: Catalog, table: MemoryTable, withDescendants: boolean): TargetSegment[] {
  const out: TargetSegment[] = [];
  let base = 0;
  const add = (t: MemoryTable): void => {
    const snapshot = t.snapshot();
    const rows = snapshot.reduce((n, b) => n + b.length, 0);
    out.push({ table: t, snapshot, base, rows });
    base += rows;
  };
  add(table);
  if (!withDescendants) return out;
  const seen = new Set<MemoryTable>([table]);
  const queue = [...table.inheritance.children];
  while (queue.length > 0) {
    const c = catalog.getTableIn(undefined, queue.shift()!);
    if (!(c instanceof MemoryTable) || seen.has(c)) continue;
    seen.add(c);
    queue.push(...c.inheritance.children);
    add(c);
  }
  return out;
}

interface FromRangeVar {
  readonly node: AnyNode;
  readonly refName: string;
}

/** The FROM list's names and its plain table references (through joins, not into subqueries). */
function fromItems(s: SelectStmt): { names: string[]; rangeVars: FromRangeVar[] } {
  const names: string[] = [];
  const rangeVars: FromRangeVar[] = [];
  const walk = (n: Node): void => {
    const tag = nodeTag(n);
    const b = nodeBody<AnyNode>(n);
    const alias = (b.alias as AnyNode | undefined)?.aliasname as string | undefined;
    if (tag === 'RangeVar') {
      const refName = alias ?? (b.relname as string);
      names.push(refName);
      if (b.schemaname === undefined) rangeVars.push({ node: b, refName });
    } else if (tag === 'JoinExpr') {
      walk(b.larg as Node);
      walk(b.rarg as Node);
      if (alias !== undefined) names.push(alias);
    } else if (alias !== undefined) names.push(alias);
  };
  for (const n of s.fromClause ?? []) walk(n);
  return { names, rangeVars };
}

function cteNames(s: SelectStmt): Set<string> {
  const out = new Set<string>();
  for (const c of s.withClause?.ctes ?? []) out.add(nodeBody<AnyNode>(c).ctename as string);
  return out;
}

/** The in-memory table a FROM item names, unless it is a CTE or view (whose rows are not a table's). */
function tableOf(catalog: Catalog, s: SelectStmt, rv: AnyNode): MemoryTable | null {
  const name = rv.relname as string;
  if (cteNames(s).has(name) || catalog.views.has(name)) return null;
  const t = catalog.getTable(name);
  return t instanceof MemoryTable ? t : null;
}

/**
 * The statement rewritten to return row positions of `chosen` FROM items, with the relations to
 * bind it with. `chosen` maps a FROM item's name to the lock wanted on its rows (null: none).
 */
function rewrite(catalog: Catalog, s: SelectStmt, chosen: ReadonlyMap<string, { strength: LockStrength | null; wait: LockWait }>): RowTargeted {
  const copy = structuredClone(s);
  const { rangeVars } = fromItems(copy);
  const relations = new Map<string, TableSource>();
  const targets: RowTarget[] = [];
  const extraTargets: Node[] = [];
  for (const rv of rangeVars) {
    const want = chosen.get(rv.refName);
    if (want === undefined) continue;
    const table = tableOf(catalog, s, rv.node);
    if (table === null) continue;
    const segments = segmentsOf(catalog, table, rv.node.inh === true);
    const snapshot = segments[0]!.snapshot;
    const key = `\u0000rows of ${targets.length}`;
    relations.set(key, new WithRowIds(key, table, segments));
    const alias = (rv.node.alias as AnyNode | undefined) ?? {};
    rv.node.alias = { ...alias, aliasname: rv.refName };
    rv.node.relname = key;
    extraTargets.push({ ResTarget: { val: { ColumnRef: { fields: [{ String: { sval: rv.refName } }, { String: { sval: ROW_ID } }] } } } } as unknown as Node);
    targets.push({ refName: rv.refName, table, snapshot, segments, strength: want.strength, wait: want.wait });
  }
  // The locking clause stays: the binder refuses it with aggregates, DISTINCT and the like.
  copy.targetList = [...(copy.targetList ?? []), ...extraTargets];
  return { stmt: copy, relations, targets };
}

/** SELECT … FOR UPDATE/SHARE: the locked FROM items get positions (checks OF names, 42P01). */
export function lockTargets(catalog: Catalog, s: SelectStmt): RowTargeted {
  const { names } = fromItems(s);
  return rewrite(catalog, s, lockedItems(s, names));
}

/** PostgreSQL's "simply updatable" cursor: a scan of one table, filtered, projected or limited. */
export function simplyUpdatable(catalog: Catalog, s: SelectStmt, plan: LogicalPlan): RowTargeted | null {
  if ((s.fromClause ?? []).length !== 1) return null;
  const { rangeVars } = fromItems(s);
  if (rangeVars.length !== 1 || nodeTag(s.fromClause![0]) !== 'RangeVar') return null;
  if (tableOf(catalog, s, rangeVars[0]!.node) === null) return null;
  const plain = (p: LogicalPlan): boolean => {
    switch (p.op) {
      case 'scan':
        return true;
      // A sort is not: PostgreSQL only finds the scan through nodes that pass its rows on as they come.
      case 'filter':
      case 'project':
      case 'limit':
        return plain(p.input);
      // A table and the tables inheriting from it, read one after another (PostgreSQL's Append).
      case 'setop':
        return p.kind === 'union' && p.all && plain(p.left) && plain(p.right);
      default:
        return false;
    }
  };
  if (!plain(plan)) return null;
  return rewrite(catalog, s, new Map([[rangeVars[0]!.refName, { strength: null, wait: 'wait' }]]));
}

/** The row position `position` of a target stands for. */
export function targetRow(t: RowTarget, position: number): TargetedRow {
  for (const seg of t.segments) {
    if (position < seg.base + seg.rows) return { table: seg.table, snapshot: seg.snapshot, ref: rowAt(seg.snapshot, position - seg.base) };
  }
  throw new RangeError(`row ${position} is past the target's rows`);
}

/**
 * Rows grouped by their table, for calls made per table: `each(table, snapshot, refs, at)` where
 * at[j] is the index in `rows` of refs[j].
 */
export function byTable(rows: readonly TargetedRow[], each: (table: MemoryTable, snapshot: readonly Batch[], refs: RowRef[], at: number[]) => void): void {
  const groups = new Map<MemoryTable, { snapshot: readonly Batch[]; refs: RowRef[]; at: number[] }>();
  rows.forEach((r, i) => {
    let g = groups.get(r.table);
    if (g === undefined) groups.set(r.table, (g = { snapshot: r.snapshot, refs: [], at: [] }));
    g.refs.push(r.ref);
    g.at.push(i);
  });
  for (const [table, g] of groups) each(table, g.snapshot, g.refs, g.at);
}
