/**
 * Statements other than plain SELECT: executeUtility runs each in an implicit transaction where
 * PostgreSQL would and dispatches it to the file of its family beside this one (dml-, ddl-, cursor-,
 * transaction- and settings-statements, copy-statement, explain-statement).
 */
import { createCompositeType, dropTypes } from './type-ddl.js';
import { descendantTables } from './inheritance.js';
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { type DataType, type Value } from '../common/types.js';
import type { Batch } from '../common/column.js';
import type { ExecContext } from '../execution/context.js';
import type { LogicalPlan, TableSource } from '../logical/plan.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import type { QueryBinder } from '../sql/bind/query.js';
import type { ParsedStatement } from '../sql/parse.js';
import type { IsolationLevel } from './transaction.js';
import type { Catalog } from '../storage/catalog.js';
import type { Session } from './session.js';
import type { CursorManager } from './cursors.js';
import { createFunction, dropRoutines } from './routine-ddl.js';
import { deallocate, executePrepared, prepareStatement } from './prepared.js';
import type { PreparedQuery, QueryResult } from './database.js';
import type { PhysicalOperator } from '../physical/operator.js';
import type { ExplainOptions } from '../physical/explain.js';
import { LockOwner } from './row-locks.js';
import { relName, result } from './statement-support.js';
import { createIndex, createTable, createTableAs, createView, defineAggregate, drop, selectInto, sequenceStatement } from './ddl-statements.js';
import { declareCursor, fetchCursor, selectForUpdate } from './cursor-statements.js';
import { transactionStatement } from './transaction-statements.js';
import { setVariable, showVariable } from './settings-statements.js';
import { explain } from './explain-statement.js';
import type { MemoryTable } from '../storage/memory-table.js';
import { del, insert, update } from './dml-statements.js';
import { copy } from './copy-statement.js';
import { withForeignKeys } from './foreign-key-checks.js';
import { alterTable, truncateReferencing } from './foreign-key-ddl.js';
import { modifyingCtes, runQuery, withModifyingCtes, type ModifyingScope } from './modifying-ctes.js';

export interface UtilityHost {
  readonly catalog: Catalog;
  readonly session: Session;
  readonly cursors: CursorManager;
  /** Transaction control (src/api/transaction.ts): the host owns the open transaction, if any. */
  beginTransaction(opts: { isolation?: IsolationLevel; implicit: boolean; oneStatement?: boolean; oneCall?: boolean }): void;
  commitTransaction(): void;
  rollbackTransaction(): void;
  /** True while a transaction (explicit or implicit) is open. */
  readonly inAnyTransaction: boolean;
  /** The catalog key of this session's TEMP table of that name, if it has one. */
  tempKey(name: string): string | undefined;
  /** Records a TEMP table of this session; returns its catalog key. */
  addTemp(name: string): string;
  dropTemp(name: string): void;
  prepareSelect(stmt: SelectStmt, params: readonly unknown[], paramTypes?: DataType[], extraRelations?: ReadonlyMap<string, TableSource>, rewrite?: (bound: LogicalPlan, env: QueryBinder) => LogicalPlan): PreparedQuery;
  execContext(paramTypes: readonly DataType[], params: readonly unknown[], analyze: boolean): ExecContext;
  physical(plan: LogicalPlan, ctx: ExecContext): Promise<PhysicalOperator>;
  collectBatches(op: PhysicalOperator, ctx: ExecContext): Promise<Batch[]>;
  collect(op: PhysicalOperator, ctx: ExecContext): Promise<Value[][]>;
  explainLines(stmt: SelectStmt, params: readonly unknown[], opts: ExplainOptions, relations?: ReadonlyMap<string, TableSource>): Promise<string[]>;
  /** The open transaction's row locks (SELECT … FOR UPDATE), if one is open. */
  readonly rowLocks: LockOwner | null;
  /**
   * The open transaction's owner when it outlives the running statement (a block, a multi-statement
   * string, a pipeline until Sync): the unique keys it writes are held for it (pending-keys.ts).
   */
  readonly keyHolder: LockOwner | null;
  /** A fresh READ COMMITTED snapshot, after waiting for a row lock. */
  beginStatement(): void;
  /**
   * Whether another transaction rewrote table `t` (this transaction's copy) and committed since the
   * statement's snapshot of it: 'outdated' when the statement can run again on a fresh snapshot;
   * throws 40001 when this transaction cannot take one (REPEATABLE READ, or it wrote `t` already)
   * and another transaction changed one of the rows at `positions` of `snapshot` it is about to change.
   */
  rewrittenSince(t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[]): 'current' | 'outdated';
  /**
   * Under REPEATABLE READ, the committed rows of the table behind `t` as the transaction's snapshot
   * saw them when others committed to it since (null otherwise): keys those others committed are
   * taken although the snapshot does not show them (snapshot-keys.ts).
   */
  snapshotBase(t: MemoryTable): readonly Batch[] | null;
  /** The query string the running statement came in. */
  readonly queryText: string;
  /** While a statement with data-modifying WITH queries runs: their results and the snapshot it reads. */
  modifyingScope: ModifyingScope | null;
}


/**
 * Statements that only read or only touch the session run as they are; every other statement outside
 * a transaction block runs in an implicit transaction of its own, so it applies whole or not at all.
 */
const NO_IMPLICIT_TRANSACTION = new Set(['TransactionStmt', 'VariableSetStmt', 'VariableShowStmt', 'DeclareCursorStmt', 'FetchStmt', 'ClosePortalStmt', 'PrepareStmt', 'DeallocateStmt', 'DiscardStmt']);

/** Statements that may write rows of tables (and so must keep their foreign keys). */
const WRITES_ROWS = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'CopyStmt', 'MergeStmt', 'ExecuteStmt']);

export async function executeUtility(host: UtilityHost, s: ParsedStatement, params: readonly unknown[]): Promise<QueryResult> {
  const prepared = host.session.prepared;
  host.session.access.check(s.stmt, (name) => (prepared.has(name) ? prepared.get(name).stmt.stmt : undefined));
  const ctes = modifyingCtes(nodeBody<AnyNode>(s.stmt));
  const body = (): Promise<QueryResult> => executeStatement(host, s, params);
  const run = (): Promise<QueryResult> => {
    if (ctes !== null) return withForeignKeys(host, () => withModifyingCtes(host, ctes, params, body));
    return WRITES_ROWS.has(nodeTag(s.stmt)!) ? withForeignKeys(host, body) : body();
  };
  if (host.inAnyTransaction || NO_IMPLICIT_TRANSACTION.has(nodeTag(s.stmt)!)) return run();
  host.beginTransaction({ implicit: true, oneStatement: true });
  let r: QueryResult;
  try {
    r = await run();
  } catch (e) {
    host.rollbackTransaction();
    throw e;
  }
  host.commitTransaction();
  return r;
}

async function executeStatement(host: UtilityHost, s: ParsedStatement, params: readonly unknown[]): Promise<QueryResult> {
  const tag = nodeTag(s.stmt)!;
  const b = nodeBody<AnyNode>(s.stmt);
  switch (tag) {
    case 'SelectStmt':
      if (((b as SelectStmt).lockingClause ?? []).length > 0 && !b.intoClause) return selectForUpdate(host, b as SelectStmt, params);
      if (!b.intoClause) return runQuery(host, b as SelectStmt, params);
      return selectInto(host, b as SelectStmt, params);
    case 'CreateStmt':
      return createTable(host, b);
    case 'CreateTableAsStmt':
      return createTableAs(host, b, params);
    case 'CreateSeqStmt':
    case 'AlterSeqStmt':
      return sequenceStatement(host, tag, b);
    case 'ViewStmt':
      return createView(host, b, s.text);
    case 'DropStmt':
      if (b.removeType === 'OBJECT_TYPE') return result('DROP TYPE', 'DROP TYPE', { notices: dropTypes(host.catalog, b) });
      if (b.removeType === 'OBJECT_FUNCTION' || b.removeType === 'OBJECT_AGGREGATE') {
        const tag = b.removeType === 'OBJECT_FUNCTION' ? 'DROP FUNCTION' : 'DROP AGGREGATE';
        return result(tag, tag, { notices: dropRoutines(host.catalog, b) });
      }
      return drop(host, b);
    case 'CompositeTypeStmt':
      createCompositeType(host.catalog, b);
      return result('CREATE TYPE', 'CREATE TYPE');
    case 'CreateFunctionStmt':
      createFunction(host.catalog, b, s.text);
      return result('CREATE FUNCTION', 'CREATE FUNCTION');
    case 'DefineStmt':
      if (b.kind !== 'OBJECT_AGGREGATE') throw new QuireError('0A000', `CREATE ${String(b.kind).replace('OBJECT_', '')} is not supported`, { position: s.start + 1 });
      defineAggregate(host, b, s.text);
      return result('CREATE AGGREGATE', 'CREATE AGGREGATE');
    case 'InsertStmt':
      return insert(host, b, params);
    case 'UpdateStmt':
      return update(host, b, params);
    case 'DeleteStmt':
      return del(host, b, params);
    case 'TruncateStmt': {
      const emptied: MemoryTable[] = [];
      for (const r of (b.relations as Node[]) ?? []) {
        const rv = nodeBody<AnyNode>(r);
        const t = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, relName(rv), positionOf(rv.location as number | undefined));
        // Without ONLY, TRUNCATE empties the inheriting tables too.
        for (const x of rv.inh === true ? [t, ...descendantTables(host, t)] : [t]) if (!emptied.includes(x)) emptied.push(x);
      }
      const notices = truncateReferencing(host, emptied, b.behavior === 'DROP_CASCADE');
      for (const x of emptied) x.replaceAll([]);
      return result('TRUNCATE', 'TRUNCATE TABLE', { notices });
    }
    case 'CopyStmt':
      return copy(host, b, params);
    case 'ExplainStmt':
      return explain(host, b, params);
    case 'VariableSetStmt':
      return setVariable(host, b);
    case 'VariableShowStmt':
      return showVariable(host, b);
    case 'TransactionStmt':
      return transactionStatement(host, b);
    case 'DeclareCursorStmt':
      return declareCursor(host, b, params, s.text);
    case 'FetchStmt':
      return fetchCursor(host, b);
    case 'ClosePortalStmt':
      await host.cursors.close((b.portalname as string | undefined) ?? null);
      return result('CLOSE CURSOR', b.portalname === undefined ? 'CLOSE CURSOR ALL' : 'CLOSE CURSOR');
    case 'AlterTableStmt':
      return alterTable(host, b);
    case 'IndexStmt':
      return createIndex(host, b, s.text);
    case 'VacuumStmt':
      return result(b.is_vacuumcmd ? 'VACUUM' : 'ANALYZE', b.is_vacuumcmd ? 'VACUUM' : 'ANALYZE');
    case 'DiscardStmt':
      // DISCARD ALL includes DEALLOCATE ALL.
      if (b.target === 'DISCARD_ALL') host.session.prepared.clear();
      return result('DISCARD', 'DISCARD ALL');
    case 'PrepareStmt':
      return prepareStatement(host, b, s);
    case 'ExecuteStmt':
      return executePrepared(host, b, params);
    case 'DeallocateStmt':
      return deallocate(host, b);
    default:
      throw new QuireError('0A000', `${tag.replace(/Stmt$/, '')} statements are not supported`, { position: s.start + 1 });
  }
}
