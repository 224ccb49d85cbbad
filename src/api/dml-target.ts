/**
 * UPDATE and DELETE (with FROM/USING, subqueries, WITH or WHERE CURRENT OF, or none) through the planner.
 *
 * The statement becomes a SELECT over its target table (with the FROM/USING items, WHERE and WITH
 * as written) that returns each matching row's position and, for UPDATE, its new values; the target
 * is bound as a copy of the table's batches with one more column, the row position, under a name
 * no identifier can spell. Joins, subqueries, CTEs and everything else the planner knows then work
 * as in any SELECT. The query is the input of the statement's ModifyTable node (planned-dml.ts),
 * which applies the rows it finds to the table.
 *
 * As in PostgreSQL, a target row that several FROM rows join takes the values of one of them (here
 * the first found), and a row is updated or deleted once.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { T, type Value } from '../common/types.js';
import { getValue, makeColumn, type Column } from '../common/column.js';
import type { AnyNode } from '../sql/ast.js';
import { MemoryTable } from '../storage/memory-table.js';
import type { PreparedQuery } from './database.js';
import type { ExecContext } from '../execution/context.js';
import type { PhysicalOperator } from '../physical/operator.js';
import type { Batch } from '../common/column.js';
import type { LogicalPlan, TableSource } from '../logical/plan.js';
import type { DataType } from '../common/types.js';
import type { QueryBinder } from '../sql/bind/query.js';

const TARGET = '\u0000dml target';
const ROW_BATCH = '\u0000row batch';
const ROW_INDEX = '\u0000row index';
/** A row's key in the input query: its batch's ordinal times KEY_SPAN plus its index in the batch. */
const KEY_SPAN = 65536 * 65536;

export interface DmlHost {
  prepareSelect(stmt: SelectStmt, params: readonly unknown[], paramTypes?: DataType[], extraRelations?: ReadonlyMap<string, TableSource>, rewrite?: (bound: LogicalPlan, env: QueryBinder) => LogicalPlan): PreparedQuery;
  execContext(paramTypes: readonly DataType[], params: readonly unknown[], analyze: boolean): ExecContext;
  physical(plan: LogicalPlan, ctx: ExecContext): Promise<PhysicalOperator>;
  collectBatches(op: PhysicalOperator, ctx: ExecContext): Promise<Batch[]>;
}

export interface MatchedRows {
  /** Row position in the table's snapshot → the values of the SELECT's other columns for it. */
  readonly rows: Map<number, Value[]>;
  /** Types of those values (for assignment casts). */
  readonly types: DataType[];
}

/**
 * A stored batch's row ids for the input query: its ordinal among the batches read (which a rewrite
 * of another batch seldom changes) and each row's index in it, kept while the batch lives, so a
 * statement over a large table allocates nothing per row. The absolute position, which shifts after
 * every DELETE before it, is worked out only for the rows the query returns (matchedRows).
 */
const rowIdColumns = new WeakMap<Batch, { ordinal: number; ordinals: Column; indexes: Column }>();

function rowIds(batch: Batch, ordinal: number): [Column, Column] {
  let known = rowIdColumns.get(batch);
  if (known === undefined || known.ordinal !== ordinal) {
    let indexes = known?.indexes;
    if (indexes === undefined) {
      const idx = new Int32Array(batch.length);
      for (let i = 0; i < batch.length; i++) idx[i] = i;
      indexes = makeColumn(T.int4, idx, null);
    }
    known = { ordinal, ordinals: makeColumn(T.int4, new Int32Array(batch.length).fill(ordinal), null), indexes };
    rowIdColumns.set(batch, known);
  }
  return [known.ordinals, known.indexes];
}

/** `<ordinal>::int8 * 65536 * 65536 + <index>` over the target's hidden columns: the row key the query returns first. */
function rowKey(qualifier: string): Node {
  const ref = (name: string): Node => ({ ColumnRef: { fields: [{ String: { sval: qualifier } }, { String: { sval: name } }] } }) as Node;
  const op = (name: string, lexpr: Node, rexpr: Node): Node => ({ A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: name } }], lexpr, rexpr } }) as Node;
  const int = (ival: number): Node => ({ A_Const: { ival: { ival } } }) as Node;
  const ordinal = { TypeCast: { arg: ref(ROW_BATCH), typeName: { names: [{ String: { sval: 'pg_catalog' } }, { String: { sval: 'int8' } }], typemod: -1 } } } as Node;
  return op('+', op('*', op('*', ordinal, int(65536)), int(65536)), ref(ROW_INDEX));
}

/** An input query of an UPDATE/DELETE, and where each batch it read starts in the table. */
export interface TargetRowsQuery extends PreparedQuery {
  readonly starts: readonly number[];
}

/**
 * `SELECT <row position>, <values…> FROM <target> [, from…] WHERE …` with the statement's WITH, over
 * `snapshot` (the batches of `table`), prepared: the input plan of an UPDATE or DELETE.
 */
export function targetRowsQuery(
  host: DmlHost,
  table: MemoryTable,
  snapshot: readonly Batch[],
  alias: string | undefined,
  b: AnyNode,
  values: readonly Node[],
  params: readonly unknown[],
  /** More relations the statement names (ON CONFLICT's EXCLUDED). */
  extra: ReadonlyMap<string, TableSource> = new Map(),
  /**
   * RETURNING items, selected after the values (over the target's row as it was and the FROM items),
   * and a rewrite of the bound plan before the optimizer (UPDATE's RETURNING reads the new values).
   */
  more: { returning: readonly Node[]; rewrite?: (bound: LogicalPlan, env: QueryBinder) => LogicalPlan } = { returning: [] },
  /** The position of the first row of `snapshot` (WHERE CURRENT OF passes only the cursor's row). */
  firstPosition = 0,
): TargetRowsQuery {
  // Named as the table for EXPLAIN; bound under TARGET, which no identifier can spell.
  const target = new MemoryTable(table.name, [...table.schema, { name: ROW_BATCH, type: T.int4 }, { name: ROW_INDEX, type: T.int4 }]);
  let base = firstPosition;
  const batches: Batch[] = [];
  const starts: number[] = [];
  for (const batch of snapshot) {
    if (batch.length === 0) continue;
    batches.push({ columns: [...batch.columns, ...rowIds(batch, starts.length)], length: batch.length });
    starts.push(base);
    base += batch.length;
  }
  // The table's own batches as they are stored (text already encoded or left plain): appending would
  // encode every text value again, into a dictionary of this one statement.
  target.rebase(batches);
  const qualifier = alias ?? table.name;
  const from = [
    { RangeVar: { relname: TARGET, inh: true, relpersistence: 'p', alias: { aliasname: qualifier } } },
    ...(((b.fromClause ?? b.usingClause) as Node[] | undefined) ?? []),
  ];
  const select = {
    targetList: [...[rowKey(qualifier), ...values].map((val) => ({ ResTarget: { val } })), ...more.returning],
    fromClause: from,
    ...(b.whereClause !== undefined ? { whereClause: b.whereClause } : {}),
    ...(b.withClause !== undefined ? { withClause: b.withClause } : {}),
    op: 'SETOP_NONE',
    limitOption: 'LIMIT_OPTION_DEFAULT',
  } as unknown as SelectStmt;
  const prepared = host.prepareSelect(select, params, undefined, new Map<string, TableSource>([...extra, [TARGET, target]]), more.rewrite);
  return { ...prepared, starts };
}

/** The rows `targetRowsQuery`'s plan found, by position in the table: the first values per target row. */
export function matchedRows(batches: readonly Batch[], query: TargetRowsQuery): MatchedRows {
  const rows = new Map<number, Value[]>();
  for (const bt of batches) {
    for (let i = 0; i < bt.length; i++) {
      const key = Number(getValue(bt.columns[0]!, i));
      const ordinal = Math.floor(key / KEY_SPAN);
      const p = query.starts[ordinal]! + (key - ordinal * KEY_SPAN);
      if (rows.has(p)) continue;
      const vals: Value[] = [];
      for (let k = 1; k < bt.columns.length; k++) vals.push(getValue(bt.columns[k]!, i));
      rows.set(p, vals);
    }
  }
  return { rows, types: query.plan.schema.slice(1).map((f) => f.type) };
}

const TARGET_POSITION = '\u0000target position';

/**
 * ON CONFLICT DO UPDATE: the SET values (and WHERE) for each existing row a proposed row conflicts
 * with, by joining the target to EXCLUDED (the proposed rows, each with the position of the row it
 * conflicts with).
 */
export async function matchConflictRows(
  host: DmlHost,
  table: MemoryTable,
  snapshot: readonly Batch[],
  alias: string | undefined,
  proposals: readonly Value[][],
  targetPositions: readonly number[],
  clause: AnyNode,
  values: readonly Node[],
  params: readonly unknown[],
): Promise<MatchedRows> {
  // Each proposed row carries the key of the row it conflicts with, as the target's rows are keyed.
  const starts: number[] = [];
  let base = 0;
  for (const batch of snapshot) {
    if (batch.length === 0) continue;
    starts.push(base);
    base += batch.length;
  }
  const keyOf = (p: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo * KEY_SPAN + (p - starts[lo]!);
  };
  const excluded = new MemoryTable('excluded', [...table.schema, { name: TARGET_POSITION, type: T.int8 }]);
  excluded.appendRows(proposals.map((r, i) => [...r, keyOf(targetPositions[i]!)]));
  const qualifier = alias ?? table.name;
  const ref = (q: string, name: string): Node => ({ ColumnRef: { fields: [{ String: { sval: q } }, { String: { sval: name } }] } }) as Node;
  const same = { A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: '=' } }], lexpr: ref('excluded', TARGET_POSITION), rexpr: rowKey(qualifier) } } as Node;
  const where = clause.whereClause !== undefined ? ({ BoolExpr: { boolop: 'AND_EXPR', args: [same, clause.whereClause] } } as Node) : same;
  const stmt: AnyNode = { fromClause: [{ RangeVar: { relname: 'excluded', inh: true, relpersistence: 'p' } }], whereClause: where };
  const prepared = targetRowsQuery(host, table, snapshot, alias, stmt, values, params, new Map([['excluded', excluded]]));
  const ctx = host.execContext(prepared.paramTypes, params, false);
  return matchedRows(await host.collectBatches(await host.physical(prepared.plan, ctx), ctx), prepared);
}
