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
import type { QueryBinder } from '../sql/bind-query.js';

const TARGET = '\u0000dml target';
const ROW_POSITION = '\u0000row position';

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

/** Row positions of a stored batch, kept while it lives: a batch mostly keeps its place from one statement to the next. */
const positionColumns = new WeakMap<Batch, { base: number; column: Column }>();

function positionColumn(batch: Batch, base: number): Column {
  const known = positionColumns.get(batch);
  if (known !== undefined && known.base === base) return known.column;
  const pos = new Int32Array(batch.length);
  for (let i = 0; i < batch.length; i++) pos[i] = base + i;
  const column = makeColumn(T.int4, pos, null);
  positionColumns.set(batch, { base, column });
  return column;
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
): PreparedQuery {
  // Named as the table for EXPLAIN; bound under TARGET, which no identifier can spell.
  const target = new MemoryTable(table.name, [...table.schema, { name: ROW_POSITION, type: T.int4 }]);
  let base = firstPosition;
  const batches: Batch[] = [];
  for (const batch of snapshot) {
    if (batch.length === 0) continue;
    batches.push({ columns: [...batch.columns, positionColumn(batch, base)], length: batch.length });
    base += batch.length;
  }
  // The table's own batches as they are stored (text already encoded or left plain): appending would
  // encode every text value again, into a dictionary of this one statement.
  target.rebase(batches);
  const qualifier = alias ?? table.name;
  const col = (name: string): Node => ({ ColumnRef: { fields: [{ String: { sval: qualifier } }, { String: { sval: name } }] } }) as Node;
  const from = [
    { RangeVar: { relname: TARGET, inh: true, relpersistence: 'p', alias: { aliasname: qualifier } } },
    ...(((b.fromClause ?? b.usingClause) as Node[] | undefined) ?? []),
  ];
  const select = {
    targetList: [...[col(ROW_POSITION), ...values].map((val) => ({ ResTarget: { val } })), ...more.returning],
    fromClause: from,
    ...(b.whereClause !== undefined ? { whereClause: b.whereClause } : {}),
    ...(b.withClause !== undefined ? { withClause: b.withClause } : {}),
    op: 'SETOP_NONE',
    limitOption: 'LIMIT_OPTION_DEFAULT',
  } as unknown as SelectStmt;
  return host.prepareSelect(select, params, undefined, new Map<string, TableSource>([...extra, [TARGET, target]]), more.rewrite);
}

/** The rows `targetRowsQuery`'s plan found: the first values per target row. */
export function matchedRows(batches: readonly Batch[], plan: LogicalPlan): MatchedRows {
  const rows = new Map<number, Value[]>();
  for (const bt of batches) {
    for (let i = 0; i < bt.length; i++) {
      const p = getValue(bt.columns[0]!, i) as number;
      if (rows.has(p)) continue;
      const vals: Value[] = [];
      for (let k = 1; k < bt.columns.length; k++) vals.push(getValue(bt.columns[k]!, i));
      rows.set(p, vals);
    }
  }
  return { rows, types: plan.schema.slice(1).map((f) => f.type) };
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
  const excluded = new MemoryTable('excluded', [...table.schema, { name: TARGET_POSITION, type: T.int4 }]);
  excluded.appendRows(proposals.map((r, i) => [...r, targetPositions[i]!]));
  const qualifier = alias ?? table.name;
  const ref = (q: string, name: string): Node => ({ ColumnRef: { fields: [{ String: { sval: q } }, { String: { sval: name } }] } }) as Node;
  const same = { A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: '=' } }], lexpr: ref('excluded', TARGET_POSITION), rexpr: ref(qualifier, ROW_POSITION) } } as Node;
  const where = clause.whereClause !== undefined ? ({ BoolExpr: { boolop: 'AND_EXPR', args: [same, clause.whereClause] } } as Node) : same;
  const stmt: AnyNode = { fromClause: [{ RangeVar: { relname: 'excluded', inh: true, relpersistence: 'p' } }], whereClause: where };
  const prepared = targetRowsQuery(host, table, snapshot, alias, stmt, values, params, new Map([['excluded', excluded]]));
  const ctx = host.execContext(prepared.paramTypes, params, false);
  return matchedRows(await host.collectBatches(await host.physical(prepared.plan, ctx), ctx), prepared.plan);
}
