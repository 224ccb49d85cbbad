/**
 * The public library API: an in-process database. `query` runs SQL and returns rows; `stream`
 * yields rows or batches as the plan produces them (pull-based, so a slow consumer slows the plan
 * instead of buffering the result).
 */
import { checkCommittingReferences } from './foreign-key-checks.js';
import { foreignKeyDef } from '../storage/foreign-key.js';
import { quoteIdent } from '../functions/scalar/support/quote.js';
import { modifyingCtes, type ModifyingScope } from './modifying-ctes.js';
import { DESCRIBE_COLUMNS, describeRows, inspectCommand, summarizeSql, type InspectCommand } from './describe.js';
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import { storageKind, T, typeDisplayName, type DataType, type Field, type Value } from '../common/types.js';
import { BATCH_SIZE, ColumnBuilder, batchRows, makeColumn, type Batch, type Column } from '../common/column.js';
import { makeExecContext, type ExecContext, type StatementClock } from '../execution/context.js';
import { abortError, cancelError, currentLimits, parseDurationMs, runWithLimits, timeoutError, type StatementLimits } from '../execution/interrupt.js';
import { prewalkGlobs } from '../storage/glob-walk.js';
import { batchBytes, queryMemory, reserveResult, ROW_ARRAY_BYTES, type MemoryReservation } from '../execution/memory-pool.js';
import type { LogicalPlan, TableSource } from '../logical/plan.js';
import { optimize, type OptimizeTrace } from '../optimizer/optimizer.js';
import { explainPlan, explainSummary, type ExplainOptions } from '../physical/explain.js';
import { explainLogical } from '../physical/explain-logical.js';
import type { PhysicalOperator } from '../physical/operator.js';
import { PhysicalPlanner } from '../physical/planner.js';
import { foldConstantSubqueries } from '../physical/fold-constant-subqueries.js';
import { nodeBody, nodeTag } from '../sql/ast.js';
import { QueryBinder } from '../sql/bind/query.js';
import { ensureParser, parseStatements, type ParsedStatement } from '../sql/parse.js';
import { isLiteralInsert, literalInsertOf, literalInsertText, type LiteralInsert } from '../sql/parse-insert-values.js';
import { runJsParamInsert, runLiteralInsert, runParamInsert } from './insert-literal.js';
import { paramInsertOf, type ParamInsert } from '../sql/param-insert.js';
import { Catalog, isTempTableKey, tempTableKey } from '../storage/catalog.js';
import { SessionSequences } from './sequences.js';
import { MemoryTable } from '../storage/memory-table.js';
import { checkParamCount, inferJsType, jsToValue } from './params.js';
import { Session } from './session.js';
import { AccessPolicy, type AccessOptions } from './access-policy.js';
import { FilePlanCache, cacheableFiles, catalogChanges, stampFiles, watchedEvalContext, type PlanMark, type PlanState } from './file-plan-cache.js';
import { CursorManager, CursorsView } from './cursors.js';
import type { LockOwner } from './row-locks.js';
import { executeUtility, type UtilityHost } from './utility.js';
import { uniqueCheck } from './dml-statements.js';
import { checkIsolation } from './transaction-statements.js';
import { Transaction, type IsolationLevel } from './transaction.js';
import '../functions/scalar/index.js';
import '../storage/table-functions/index.js';
import { detachAll, refreshForStatement, runAttachCommand, splitAttachStatements } from '../storage/connectors/attach.js';
import { openStore, recordMemory, storeFor } from '../storage/persist/index.js';
import { restoreSecondaryIndexes } from './index-ddl.js';
import { registerArrowTable, type ArrowTableLike } from './arrow-import.js';
import { Pager, type Page, type PageRequest } from '../cursor/pager.js';

export interface ResultColumn {
  name: string;
  type: DataType;
}

export interface QueryResult {
  /** Statement kind: 'SELECT', 'INSERT', 'CREATE TABLE', 'EXPLAIN', 'SET', … */
  command: string;
  /** PostgreSQL's command tag: 'SELECT 3', 'INSERT 0 5', 'CREATE TABLE'. */
  commandTag: string;
  columns: ResultColumn[];
  rows: Value[][];
  /** Rows returned (SELECT) or affected (INSERT/UPDATE/DELETE/COPY). */
  rowCount: number;
  /** Notices (e.g. "table does not exist, skipping"). */
  notices: string[];
  /** COPY … TO STDOUT: the data, in the requested COPY format. */
  copyOut?: string;
}

export interface DatabaseOptions {
  /** Session settings to start with, e.g. { TimeZone: 'Europe/Paris' }. */
  settings?: Record<string, string>;
  /**
   * A database directory: its tables are loaded now (replaying its write-ahead log), and every commit
   * is appended to the log and fsynced before it is acknowledged (see storage/persist). Absent: in
   * memory only.
   */
  path?: string;
  /**
   * With `path`: open the directory without its writer lock, as a consistent snapshot that is never
   * written (statements that would change it fail with 25006) and never cleaned up.
   */
  readOnly?: boolean;
  /**
   * With `path`: checkpoint (rewrite the changed table files and empty the write-ahead log) once the
   * log passes this many bytes. Default 64 MiB; closing the database checkpoints too.
   */
  checkpointBytes?: number;
  /**
   * What SQL may do beyond reading: writes, files, network (src/api/access-policy.ts). Default: all
   * the process may. `{ allowFiles: ['data'] }` confines read_* and COPY to ./data as servers do.
   */
  access?: AccessOptions | AccessPolicy;
}

export interface StreamResult {
  columns: ResultColumn[];
  batches(): AsyncGenerator<Batch>;
  rows(): AsyncGenerator<Value[]>;
}

export interface PreparedQuery {
  readonly plan: LogicalPlan;
  readonly columns: ResultColumn[];
  readonly paramTypes: DataType[];
}

/** How registerColumns takes its arrays. */
export interface RegisterColumnsOptions {
  /**
   * false: typed arrays that match their column's storage become the table's storage without a copy,
   * and must not be changed afterwards. Default true (every array is copied).
   */
  copy?: boolean;
}

/** Per-call limits of query() and execute(). */
export interface QueryOptions {
  /** Aborting it cancels the running statement: 57014 "canceling statement due to user request". */
  signal?: AbortSignal;
  /** Each statement fails with 57014 "canceling statement due to statement timeout" after this many ms (0: no limit). */
  timeoutMs?: number;
}

function limitsOf(opts: QueryOptions): StatementLimits {
  return {
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    ...(opts.timeoutMs !== undefined && opts.timeoutMs > 0 ? { deadline: performance.now() + opts.timeoutMs } : {}),
  };
}

export interface ConnectOptions {
  /** Settings for the new session, on top of PostgreSQL's defaults (not copied from this one). */
  settings?: Record<string, string>;
  /**
   * The catalog the connection binds against; defaults to this database's. Servers pass a view that
   * shares this database's tables and views and adds their own (pg_catalog tables for the wire protocol).
   */
  catalog?: Catalog;
  /** The new session's privileges; default: this database's (a confined database never hands out more). */
  access?: AccessOptions | AccessPolicy;
}

/** Log records needing less memory than this are not worth a reservation. */
const LOG_RECORD_RESERVE_FROM = 1 << 20;

/** How long an idle session keeps its last plan alive (see Database.shapeKeeper). */
const KEEP_SHAPES_MS = 5000;

export class Database implements UtilityHost {
  /** The catalog every session shares (or a connection's view of it). */
  private readonly shared: Catalog;
  private tx: Transaction | null = null;
  readonly session: Session;
  readonly cursors = new CursorManager();
  private readonly sessionRelations = new Map([['pg_cursors', new CursorsView(this.cursors)]]);
  private abort: AbortController | null = null;
  /** `abort` was made by prepareFiles for the running statement and no plan has taken it yet. */
  private abortUnused = false;
  /** Messages raised while the current statement runs (PL/pgSQL RAISE NOTICE), sent before its result. */
  private raised: string[] = [];
  /** statement_timeout's deadline, shared with the contexts of this session's statements (see startStatement). */
  private readonly clock: StatementClock = { at: Infinity };
  private defaultPager: Pager | null = null;
  /**
   * The newest statement's plan and context, kept past its end (see below for how long). V8 throws away
   * optimized code when a hidden class it checks dies, and a class's instance shapes die with its last
   * instance: between two statements a full GC collected the finished plan's operators and context, so
   * every statement ran its per-batch loops (scan, filter, aggregate, probe, cancellation checks)
   * unoptimized again and paid for optimizing them once more. The kept plan holds no rows of its own,
   * but its scans reference table snapshots (rows another session has since replaced): it is let go
   * when the next statement starts, or KEEP_SHAPES_MS after it was planned, so an idle session does
   * not hold old table versions.
   */
  private shapeKeeper: readonly [PhysicalOperator, ExecContext] | null = null;
  private shapeKeeperTimer: ReturnType<typeof setTimeout> | null = null;

  private constructor(opts: DatabaseOptions, catalog: Catalog = new Catalog()) {
    this.shared = catalog;
    // A read-only directory refuses writes before they run, as a read-only server does; the store's
    // own refusal at commit is only the last guard.
    const readOnly = opts.readOnly === true && opts.path !== undefined;
    const access =
      opts.access instanceof AccessPolicy
        ? opts.access
        : opts.access === undefined && !readOnly
          ? AccessPolicy.full
          : new AccessPolicy({ ...(opts.access ?? {}), ...(readOnly ? { allowWrites: false } : {}) });
    this.session = new Session(opts.settings ?? {}, access);
    this.session.sequences = new SessionSequences(this.session.id, () => this.catalog);
  }

  /** This session's privileges. */
  get access(): AccessPolicy {
    return this.session.access;
  }

  /**
   * Refuses the whole text when any statement in it may not run here, before the first one runs
   * (a read-only server must not run \`select 1; drop table t\` up to the DROP).
   */
  checkStatements(stmts: readonly ParsedStatement[]): void {
    for (const s of stmts) this.checkStatement(s);
  }

  private checkStatement(s: ParsedStatement): void {
    const access = this.session.access;
    if (access === AccessPolicy.full) return;
    const prepared = this.session.prepared;
    access.check(s.stmt, (name) => (prepared.has(name) ? prepared.get(name).stmt.stmt : undefined));
  }

  static async create(opts: DatabaseOptions = {}): Promise<Database> {
    await ensureParser();
    const db = new Database(opts);
    if (opts.path !== undefined) {
      const views = await openStore(opts.path, db.catalog, {
        readOnly: opts.readOnly === true,
        ...(opts.checkpointBytes !== undefined ? { checkpointBytes: opts.checkpointBytes } : {}),
      });
      // Views are stored as their CREATE VIEW text and re-bound against the loaded tables (through a
      // connection with full access: restoring them writes nothing, even in a read-only directory).
      const restore = views.length > 0 ? db.connect({ access: AccessPolicy.full }) : db;
      for (const v of views) await restore.execute(v);
      // Secondary indexes are kept as their CREATE INDEX statements and defined again over the loaded tables.
      restoreSecondaryIndexes(restore);
    }
    return db;
  }

  /** While a statement with data-modifying WITH queries runs: what it reads (modifying-ctes.ts). */
  modifyingScope: ModifyingScope | null = null;
  /** Plans of repeated SELECTs over files (file-plan-cache.ts). */
  private readonly filePlans = new FilePlanCache<PreparedQuery>();
  /** Set while a plan that may be kept is bound: called when binding reads the clock or random state. */
  private clockWatch: (() => void) | null = null;

  /** This session's TEMP tables: name → catalog key. */
  private readonly temps = new Map<string, string>();
  private tempViews = new WeakMap<Catalog, Catalog>();

  /**
   * The catalog statements bind against: the open transaction's private view, or the shared one; with
   * TEMP tables, a view in which their names resolve to them first (pg_temp comes first in the path).
   */
  get catalog(): Catalog {
    const base = this.tx?.catalog ?? this.shared;
    if (this.temps.size === 0) return base;
    let v = this.tempViews.get(base);
    if (v === undefined) {
      const temps = this.temps;
      const view = Object.create(base) as Catalog;
      Object.defineProperty(view, 'getTable', {
        value: (name: string) => {
          const key = temps.get(name);
          return (key !== undefined ? base.tables.get(key) : undefined) ?? base.getTable(name);
        },
      });
      Object.defineProperty(view, 'getMemoryTable', {
        value: (name: string, position?: number) => {
          const key = temps.get(name);
          return key !== undefined && base.tables.has(key) ? base.getMemoryTable(key, position) : base.getMemoryTable(name, position);
        },
      });
      // public.x is the permanent table even when a TEMP x shadows it; pg_temp.x only the TEMP one.
      Object.defineProperty(view, 'getTableIn', {
        value: (schema: string | undefined, name: string) => {
          if (schema === 'public') return base.getTable(name);
          const key = temps.get(name);
          const temp = key !== undefined ? base.tables.get(key) : undefined;
          return schema === 'pg_temp' ? temp : (temp ?? base.getTable(name));
        },
      });
      Object.defineProperty(view, 'getMemoryTableIn', {
        value: (schema: string | undefined, name: string, position?: number) => {
          if (schema === 'public') return base.getMemoryTable(name, position);
          const key = temps.get(name);
          if ((schema === undefined || schema === 'pg_temp') && key !== undefined && base.tables.has(key)) return base.getMemoryTable(key, position);
          return base.getMemoryTableIn(schema, name, position);
        },
      });
      v = view;
      this.tempViews.set(base, v);
    }
    return v;
  }

  tempKey(name: string): string | undefined {
    const key = this.temps.get(name);
    return key !== undefined && this.catalog.tables.has(key) ? key : undefined;
  }

  addTemp(name: string): string {
    const key = tempTableKey(this.session.id, name);
    this.temps.set(name, key);
    this.tempViews = new WeakMap();
    return key;
  }

  dropTemp(name: string): void {
    this.temps.delete(name);
    this.tempViews = new WeakMap();
  }

  /** The end of a session (a client disconnecting): its transaction is discarded and its TEMP tables dropped. */
  endSession(): void {
    this.rollbackTransaction();
    for (const key of this.temps.values()) this.shared.tables.delete(key);
    this.temps.clear();
    const mine = tempTableKey(this.session.id, '');
    for (const key of [...this.shared.sequences.keys()]) if (key.startsWith(mine)) this.shared.sequences.delete(key);
    this.tempViews = new WeakMap();
  }

  /** The query string the running statement came in (pg_cursors.statement shows it). */
  queryText = '';

  /** The open transaction's row locks (SELECT … FOR UPDATE), if a transaction is open. */
  get rowLocks(): LockOwner | null {
    return this.tx?.rowLocks ?? null;
  }

  get keyHolder(): LockOwner | null {
    return this.tx !== null && !this.tx.oneStatement ? this.tx.rowLocks : null;
  }

  get inAnyTransaction(): boolean {
    return this.tx !== null;
  }

  beginTransaction(opts: { isolation?: IsolationLevel; implicit: boolean; oneStatement?: boolean; oneCall?: boolean }): void {
    if (this.tx !== null) {
      // BEGIN inside a multi-statement string's implicit transaction makes it explicit.
      if (!opts.implicit && this.tx.implicit) this.session.inTransaction = true;
      return;
    }
    const isolation = opts.isolation ?? checkIsolation(this.session.get('default_transaction_isolation') ?? 'read committed');
    this.tx = new Transaction(this.shared, isolation, opts.implicit, opts.oneStatement === true, opts.oneStatement === true || opts.oneCall === true);
    this.tx.beginStatement();
    if (!opts.implicit) this.session.inTransaction = true;
  }

  commitTransaction(): void {
    const tx = this.tx;
    if (tx === null) return;
    this.tx = null;
    this.session.inTransaction = false;
    this.session.transactionFailed = false;
    const store = storeFor(this.shared);
    let reservation: MemoryReservation | null = null;
    try {
      // A large commit's log record (the text form of its object columns) is memory the statement
      // holds: reserved before anything is applied, so a commit too large for memory_limit fails whole (53200).
      if (store !== undefined) {
        const bytes = recordMemory(tx.addedBatches());
        if (bytes >= LOG_RECORD_RESERVE_FROM) {
          reservation = queryMemory(this.execContext([], [], false)).pool.register('write-ahead log record', false);
          reservation.grow(bytes, 'write-ahead log record');
        }
      }
      tx.commit((t, batches) => uniqueCheck(t, [], batches), checkCommittingReferences);
      // Database directory: the commit goes to the write-ahead log now; durable() holds back its
      // acknowledgement until an fsync covers it.
      store?.commit(this.shared, this);
    } finally {
      tx.rowLocks.release();
      reservation?.free();
    }
  }

  /**
   * An error inside a transaction block: the block is aborted (25P02 until ROLLBACK) and, as
   * PostgreSQL's abort does at once, gives up its row locks and unique keys, so sessions waiting on
   * them go on instead of waiting for a client that may never send ROLLBACK. Its writes stay private
   * and are discarded at the ROLLBACK.
   */
  failTransaction(): void {
    if (!this.session.inTransaction) return;
    this.session.transactionFailed = true;
    this.tx?.rowLocks.release();
  }

  rollbackTransaction(): void {
    this.tx?.rowLocks.release();
    this.tx = null;
    this.session.inTransaction = false;
    this.session.transactionFailed = false;
  }

  /** A new statement: READ COMMITTED transactions take a fresh snapshot of what others committed. */
  beginStatement(): void {
    this.tx?.beginStatement();
  }

  snapshotBase(t: MemoryTable): readonly Batch[] | null {
    return this.tx?.snapshotBase(t) ?? null;
  }

  rewrittenSince(t: MemoryTable, snapshot: readonly Batch[], positions: readonly number[]): 'current' | 'outdated' {
    return this.tx?.rewrittenSince(t, snapshot, positions) ?? 'current';
  }

  /** ATTACH 'postgres://…' AS alias, from JavaScript: remote tables become alias.table. */
  async attach(alias: string, dsn: string, opts: { fetchSize?: number } = {}): Promise<void> {
    this.session.access.checkAttach();
    await runAttachCommand(this.catalog, { kind: 'attach', alias, dsn, options: opts });
  }

  async detach(alias: string): Promise<void> {
    await runAttachCommand(this.catalog, { kind: 'detach', alias, ifExists: false });
  }

  /** Closes attached databases' connections (the process can then exit without waiting for them). */
  async close(): Promise<void> {
    this.shapeKeeper = null;
    if (this.shapeKeeperTimer !== null) clearTimeout(this.shapeKeeperTimer);
    this.shapeKeeperTimer = null;
    await detachAll(this.catalog);
    storeFor(this.catalog)?.close();
  }

  /**
   * A connection-scoped view for servers: the same tables and views, but its own Session (settings,
   * transaction status), cursors and cancel(), so clients on different connections do not see each
   * other's SET, DECLARE or BEGIN. The view needs no closing; close its cursors when done with it.
   */
  connect(opts: ConnectOptions = {}): Database {
    return new Database({ settings: opts.settings ?? {}, access: opts.access ?? this.session.access }, opts.catalog ?? this.shared);
  }

  get timezone(): string {
    return this.session.timezone;
  }

  /** A value's PostgreSQL text form under this session's settings (TimeZone, extra_float_digits). */
  formatValue(v: Value, type: DataType): string | null {
    const efd = Number(this.session.get('extra_float_digits') ?? '1');
    return formatValue(v, type, {
      timezone: this.session.timezone,
      extraFloatDigits: Number.isFinite(efd) ? efd : 1,
      dateStyle: this.session.get('datestyle'),
      intervalStyle: this.session.get('intervalstyle'),
    });
  }

  /** Runs every statement in `sql`; returns the last statement's result. */
  query(sql: string, params: readonly unknown[] = [], opts: QueryOptions = {}): Promise<QueryResult> {
    const direct = this.tryDirect(sql, params, opts);
    if (direct !== null) return direct;
    try {
      return this.queueCall(sql, params, opts).then(lastResult);
    } catch (e) {
      // As an async function would: an argument execute() refuses at once is a rejection too.
      return Promise.reject(e);
    }
  }

  /**
   * Runs every statement in `sql`; one result per statement. Calls on one session run one at a time,
   * in the order made, as a connection runs its queries: one overlapping another would otherwise run
   * inside the other's implicit transaction, whose commit or rollback would take its writes along
   * (or report them done and then roll them back). A call made while none runs starts at once.
   */
  execute(sql: string, params: readonly unknown[] = [], opts: QueryOptions = {}): Promise<QueryResult[]> {
    const direct = this.tryDirect(sql, params, opts);
    return direct !== null ? direct.then(oneResult) : this.queueCall(sql, params, opts);
  }

  /** directCall when the session is free and the call has no limits of its own; else null. */
  private tryDirect(sql: string, params: readonly unknown[], opts: QueryOptions): Promise<QueryResult> | null {
    if (this.callRunning || opts.signal !== undefined || opts.timeoutMs !== undefined) return null;
    return this.directCall(sql, params);
  }

  /** The general path of a call: now when the session is free, else after the calls made before it. */
  private queueCall(sql: string, params: readonly unknown[], opts: QueryOptions): Promise<QueryResult[]> {
    if (!this.callRunning) {
      this.callRunning = true;
      return this.runCall(sql, params, opts);
    }
    return new Promise<void>((resume) => this.waitingCalls.push(resume)).then(() => this.runCall(sql, params, opts));
  }

  /**
   * One call of execute(), the session handed on when it settles. A method, not a closure made per
   * call: an autocommit loop makes one call per commit, and a closure each time is garbage per commit.
   */
  private runCall(sql: string, params: readonly unknown[], opts: QueryOptions): Promise<QueryResult[]> {
    const p = opts.signal !== undefined || opts.timeoutMs !== undefined ? runWithLimits(limitsOf(opts), () => this.executeCall(sql, params)) : this.executeCall(sql, params);
    p.then(this.nextCall, this.nextCall);
    return p;
  }

  /**
   * The autocommit loop's INSERT (literal rows, or the library's parameter values) while no call runs:
   * run here and now, from the text to its commit in the log with no statement tree and no promise
   * turn between, and acknowledged once durable (at once when the log's inline sync made it so; the
   * session is held until then otherwise, as runCall holds it). Null when the general path must run
   * it: nothing was changed then.
   */
  private directCall(sql: string, params: readonly unknown[]): Promise<QueryResult> | null {
    let r: QueryResult | null;
    try {
      if (params.length > 0) {
        const pi = paramInsertShape(sql);
        if (pi === null) return null;
        this.startStatement();
        r = this.jsParamInsertSync(sql, pi, params);
      } else {
        // Another access policy checks the statement's tree (checkStatements), which this path has none of.
        if (this.session.access !== AccessPolicy.full) return null;
        const lit = literalInsertText(sql);
        if (lit === null) return null;
        this.startStatement();
        r = this.literalRowsSync(sql, lit);
      }
    } catch (e) {
      return this.refused(e);
    }
    return r === null ? null : this.acknowledged(r);
  }

  /** Result `r` once every commit written so far is durable. */
  private acknowledged(r: QueryResult): Promise<QueryResult> {
    const pending = this.pendingDurable();
    return pending === null ? Promise.resolve(r) : this.heldUntil(pending.then(() => r));
  }

  /** Error `e` once every commit written so far is durable (an earlier statement's commit comes first). */
  private refused(e: unknown): Promise<QueryResult> {
    const pending = this.pendingDurable();
    if (pending === null) return Promise.reject(e);
    return this.heldUntil(
      pending.then(() => {
        throw e;
      }),
    );
  }

  /** `p`, the session held until it settles (calls made meanwhile wait in turn). */
  private heldUntil(p: Promise<QueryResult>): Promise<QueryResult> {
    this.callRunning = true;
    p.then(this.nextCall, this.nextCall);
    return p;
  }

  /** Whether a call of execute() is running on this session. */
  private callRunning = false;
  /** Calls waiting for the running one, in the order made. */
  private readonly waitingCalls: (() => void)[] = [];
  /** Hands the session to the next waiting call, or leaves it free. */
  private readonly nextCall = (): void => {
    const next = this.waitingCalls.shift();
    if (next !== undefined) next();
    else this.callRunning = false;
  };

  private async executeCall(sql: string, params: readonly unknown[]): Promise<QueryResult[]> {
    const inspect = inspectCommand(sql);
    if (inspect !== null) return [await this.inspect(inspect, params)];
    const pieces = splitAttachStatements(sql);
    if (pieces !== null) {
      // ATTACH/DETACH are not PostgreSQL grammar: run them here, the other pieces as usual.
      const out: QueryResult[] = [];
      for (const p of pieces) {
        if (p.kind === 'command') this.session.access.checkAttach();
        else this.checkStatements(parseStatements(p.text));
      }
      for (const p of pieces) {
        if (p.kind === 'command') {
          const tag = await runAttachCommand(this.catalog, p.command);
          out.push(emptyResult(tag, tag));
        } else out.push(...(await this.executeCall(p.text, params)));
      }
      return out;
    }
    if (params.length > 0) {
      // query('INSERT INTO t VALUES ($1, …)', values) in a loop: no parse, bind or plan per row.
      const pi = paramInsertShape(sql);
      if (pi !== null) {
        const r = await this.directInsert(() => this.jsParamInsertSync(sql, pi, params));
        if (r !== null) return r;
      }
    }
    const stmts = parseStatements(sql);
    if (params.length > 0 && stmts.length > 1) {
      throw new QuireError('42601', 'cannot insert multiple commands into a prepared statement');
    }
    this.checkStatements(stmts);
    if (stmts.length === 1 && params.length === 0) {
      const r = await this.directInsert(() => this.literalInsertSync(stmts[0]!));
      if (r !== null) return r;
    }
    // As in PostgreSQL, several statements sent at once are one transaction unless they control
    // transactions themselves: an error in any of them undoes them all.
    const implicit = stmts.length > 1 && this.tx === null && !stmts.some((s) => nodeTag(s.stmt) === 'TransactionStmt');
    if (implicit) this.beginTransaction({ implicit: true, oneCall: true });
    const out: QueryResult[] = [];
    try {
      for (const s of stmts) {
        // A literal INSERT parsed without the grammar has no $n to count.
        if (params.length > 0 || !isLiteralInsert(s.stmt)) checkParamCount(s.stmt, params.length);
        if (this.session.transactionFailed && this.session.inTransaction) {
          const kind = nodeTag(s.stmt) === 'TransactionStmt' ? nodeBody<{ kind: string }>(s.stmt).kind : '';
          if (kind === 'TRANS_STMT_COMMIT') {
            // COMMIT of a failed transaction block rolls it back, and says so.
            this.rollbackTransaction();
            await this.cursors.rollback();
            out.push(emptyResult('ROLLBACK', 'ROLLBACK'));
            continue;
          }
          if (kind !== 'TRANS_STMT_ROLLBACK') throw new QuireError('25P02', 'current transaction is aborted, commands ignored until end of transaction block');
        }
        this.startStatement();
        await refreshForStatement(this.catalog, s.stmt);
        // Literal rows call no functions, so there are no read_* globs to walk, and nothing runs long
        // enough to cancel (a statement that needs evaluating gets its controller from execContext).
        if (isLiteralInsert(s.stmt)) {
          this.abort = null;
          this.abortUnused = false;
        }
        else await this.prepareFiles(s.stmt);
        this.beginStatement();
        try {
          out.push(await this.runStatement(s, sql, params));
        } catch (e) {
          this.failTransaction();
          throw e;
        }
        // Changes made outside any transaction (table loads through the API) go to disk too.
        if (this.tx === null) storeFor(this.shared)?.commit(this.shared, this);
      }
    } catch (e) {
      if (implicit && this.tx?.implicit === true) {
        this.rollbackTransaction();
        // Cursors declared in the string close with it, WITH HOLD ones too (nothing committed them).
        await this.cursors.rollback();
      }
      // A statement before the failing one may have committed: its durability comes first.
      await this.durable();
      throw e;
    }
    if (implicit && this.tx?.implicit === true) {
      this.commitTransaction();
      await this.cursors.commit();
    }
    await this.durable();
    return out;
  }

  /**
   * Resolves once every commit written to the database directory's log so far (this session's and
   * any other's) is on disk. Nothing that reflects a commit may reach a client before: query()
   * waits for it, and servers wait before sending their buffered replies.
   */
  async durable(): Promise<void> {
    const pending = this.pendingDurable();
    if (pending !== null) await pending;
  }

  /**
   * durable() without a promise when there is nothing to wait for: most often the case, as a single
   * writer's inline sync already made its commit durable. Null when every commit written is on disk.
   */
  pendingDurable(): Promise<void> | null {
    return storeFor(this.shared)?.waitDurable() ?? null;
  }

  /**
   * Before binding: walks the globs a statement's read_* calls name, asynchronously, under the
   * statement's cancel and timeout (binding is synchronous and would otherwise walk them itself).
   */
  async prepareFiles(stmt: Node): Promise<void> {
    const ac = (this.abort = new AbortController());
    this.abortUnused = true;
    const limits = currentLimits();
    const clock = this.clock;
    const deadline = limits?.deadline ?? Infinity;
    await prewalkGlobs(stmt, () => {
      if (ac.signal.aborted) throw abortError(ac.signal);
      if (limits?.signal?.aborted) throw abortError(limits.signal);
      const now = performance.now();
      if (now > deadline || now > clock.at) throw timeoutError();
    });
  }

  /**
   * Starts statement_timeout for the next statement: the library calls it per statement, servers per
   * protocol message that runs one (a simple Query, an Execute), as PostgreSQL does.
   */
  startStatement(): void {
    // Held only across the idle time between statements (the collector's usual moment): from here the
    // new statement's own objects keep the shapes alive, and a DROP TABLE frees the old plan's snapshot.
    this.shapeKeeper = null;
    const setting = this.session.get('statement_timeout') ?? '0';
    if (setting !== this.timeoutSetting) {
      this.timeoutSetting = setting;
      this.timeoutMs = parseDurationMs(setting) ?? 0;
    }
    const ms = this.timeoutMs;
    this.clock.at = ms > 0 ? performance.now() + ms : Infinity;
  }

  /** statement_timeout as last read, and in ms. */
  private timeoutSetting = '';
  private timeoutMs = 0;

  /** Cancels the running statement (57014). */
  cancel(): void {
    this.abort?.abort(cancelError());
  }

  /** Streams one SELECT's rows without materialising the whole result. */
  async stream(sql: string, params: readonly unknown[] = []): Promise<StreamResult> {
    const stmts = parseStatements(sql);
    if (stmts.length !== 1 || nodeTag(stmts[0]!.stmt) !== 'SelectStmt') {
      throw new QuireError('42601', 'stream() takes exactly one SELECT statement');
    }
    const s = stmts[0]!;
    checkParamCount(s.stmt, params.length);
    this.startStatement();
    await refreshForStatement(this.catalog, s.stmt);
    await this.prepareFiles(s.stmt);
    const prepared = withPosition(sql, s, () => this.prepareSelect(nodeBody<SelectStmt>(s.stmt), params));
    const ctx = this.execContext(prepared.paramTypes, params, false);
    const op = await this.physical(prepared.plan, ctx);
    const batches = async function* (): AsyncGenerator<Batch> {
      yield* op.execute(ctx);
    };
    return {
      columns: prepared.columns,
      batches,
      rows: async function* () {
        for await (const b of batches()) for (const r of batchRows(b)) yield r;
      },
    };
  }

  /**
   * Keyset pagination (src/cursor/pager.ts): page 1 of one SELECT plus a cursor for the next page
   * (null on the last page). Cursors are signed with a random per-Database key; servers that need
   * cursors to outlive the process build their own Pager with a configured secret.
   */
  paginate(sql: string, req: PageRequest): Promise<Page> {
    return this.pager().first(sql, req);
  }

  /** The page after a cursor returned by paginate() (or by the previous resume()). */
  resume(cursor: string, req: Partial<PageRequest> = {}): Promise<Page> {
    return this.pager().next(cursor, req);
  }

  private pager(): Pager {
    return (this.defaultPager ??= new Pager(this));
  }

  /** Registers JavaScript objects as a table; column types are inferred unless given. */
  registerRows(name: string, rows: readonly Record<string, unknown>[], columnTypes: Record<string, string> = {}): void {
    const names: string[] = [];
    const seen = new Set<string>();
    for (const r of rows) for (const k of Object.keys(r)) if (!seen.has(k)) {
      seen.add(k);
      names.push(k);
    }
    for (const k of Object.keys(columnTypes)) if (!seen.has(k)) {
      seen.add(k);
      names.push(k);
    }
    const fields: Field[] = names.map((n) => ({
      name: n,
      type: columnTypes[n] ? this.resolveTypeText(columnTypes[n]!) : inferJsType(rows.map((r) => r[n])),
    }));
    this.storeRegistered(name, fields, rows.length, (c, i) => rows[i]![fields[c]!.name], false);
  }

  /**
   * Registers columns as a table: `columns` maps each column name to an array or typed array, all of
   * one length. Values are JavaScript values as registerRows takes them, or the representation query
   * results use: a number in a date column is days since 1970, in a timestamp[tz] column microseconds
   * since 1970. Types come from `columnTypes`, else from the array (Int32Array, Int16Array, Int8Array,
   * Uint16Array and Uint8Array: integer; Float64Array and Float32Array: double precision;
   * BigInt64Array and Uint32Array: bigint) or its values. The arrays are copied: changing them later
   * does not change the table. No row objects are made, so loading columns costs their size only.
   *
   * With `{ copy: false }` an Int32Array of an integer column, and a Float64Array of a double
   * precision column or of a bigint, date or timestamp[tz] column whose values are all whole, become
   * the table's storage as they are, without a copy: the caller hands them over and must not change
   * them afterwards. Other columns are copied as without the option.
   */
  registerColumns(
    name: string,
    columns: Readonly<Record<string, ArrayLike<unknown>>>,
    columnTypes: Record<string, string> = {},
    options: RegisterColumnsOptions = {},
  ): void {
    const names = Object.keys(columns);
    for (const k of Object.keys(columnTypes)) {
      if (!(k in columns)) throw new QuireError('42703', `column "${k}" of columnTypes is not among the columns`);
    }
    const length = names.length === 0 ? 0 : columns[names[0]!]!.length;
    for (const n of names) {
      if (columns[n]!.length !== length) {
        throw new QuireError('22023', `column "${n}" has ${columns[n]!.length} values where "${names[0]}" has ${length}`);
      }
    }
    const arrays = names.map((n) => columns[n]!);
    const fields: Field[] = names.map((n, c) => ({
      name: n,
      type: columnTypes[n] ? this.resolveTypeText(columnTypes[n]!) : (typedArrayType(arrays[c]!) ?? inferJsType(Array.from(arrays[c]!))),
    }));
    // A typed array the column stores as it is: handed over, or copied in one call rather than value by
    // value through closures (which V8 may keep reachable from code optimized while loading, and with
    // them the caller's arrays: at 10M rows the bench's RSS after load held both copies in some processes).
    const adopted = fields.map((f, c) => {
      const own = adoptableStorage(f.type, arrays[c]!);
      return own === null || options.copy === false ? own : own.slice();
    });
    this.storeRegistered(name, fields, length, (c, i) => arrays[c]![i], true, adopted);
  }

  /**
   * A table of `length` rows whose value (c, i) is `valueAt(c, i)`, built a batch at a time and put in
   * the catalog under `name` (replacing a table of that name). `temporalNumbers`: a number in a date or
   * timestamp column is already Quire's representation (days or microseconds since 1970).
   */
  private storeRegistered(
    name: string,
    fields: Field[],
    length: number,
    valueAt: (c: number, i: number) => unknown,
    temporalNumbers: boolean,
    adopted: readonly (Int32Array | Float64Array | null)[] | null = null,
  ): void {
    const t = new MemoryTable(name, fields);
    const tz = this.timezone;
    // Values already in the engine's representation go straight into the columns.
    const direct = (v: unknown, f: Field): boolean => {
      switch (f.type.name) {
        case 'float8':
          return typeof v === 'number';
        case 'int4':
          return typeof v === 'number' && (v | 0) === v;
        case 'int8':
          return typeof v === 'number' && Number.isSafeInteger(v);
        case 'text':
          return typeof v === 'string';
        case 'bool':
          return typeof v === 'boolean';
        case 'date':
        case 'timestamp':
        case 'timestamptz':
          return temporalNumbers && typeof v === 'number' && Number.isSafeInteger(v);
        default:
          return false;
      }
    };
    const valueOf = (c: number, i: number): Value => {
      const v = valueAt(c, i);
      const f = fields[c]!;
      return v === undefined || v === null ? null : direct(v, f) ? (v as Value) : jsToValue(v, f.type, tz);
    };
    // A column of fixed-width values is filled into one array of all its rows (or is the caller's own,
    // handed over), and the stored batches are views of it: a few large allocations instead of one per
    // batch and column, which leave fewer holes in the C heap when loading's temporaries are freed.
    const flat = fields.map((f, c) => {
      const own = adopted?.[c];
      return own != null && length > 0 ? flatView(f.type, own, null) : flatColumn(f.type, length, (i) => valueOf(c, i));
    });
    for (let start = 0; start < length; start += BATCH_SIZE) {
      const end = Math.min(length, start + BATCH_SIZE);
      const columns = fields.map((f, c) => {
        const whole = flat[c];
        if (whole != null) return whole.slice(start, end);
        const b = new ColumnBuilder(f.type, end - start);
        for (let i = start; i < end; i++) b.push(valueOf(c, i));
        return b.finish();
      });
      t.appendBatch({ columns, length: end - start });
    }
    this.catalog.tables.delete(name);
    this.catalog.addTable(t);
  }

  /** Registers an Apache Arrow table (apache-arrow's Table) as a table, zero-copy where types allow. */
  registerArrow(name: string, table: ArrowTableLike): void {
    const t = registerArrowTable(name, table);
    this.catalog.tables.delete(name);
    this.catalog.addTable(t);
  }

  /** Names of user tables and views. */
  listTables(): { name: string; kind: 'table' | 'view'; rows: number | undefined }[] {
    const own = new Set(this.temps.values());
    return [
      ...[...this.catalog.tables.entries()].filter(([key]) => !isTempTableKey(key) || own.has(key)).map(([, t]) => ({ name: t.name, kind: 'table' as const, rows: t.rowCount() })),
      ...[...this.catalog.views.values()].map((v) => ({ name: v.name, kind: 'view' as const, rows: undefined })),
    ].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Indexes of the tables listTables shows: unique keys (constraints' and CREATE UNIQUE INDEX's) and secondary indexes. */
  listIndexes(): { name: string; table: string }[] {
    const own = new Set(this.temps.values());
    const out: { name: string; table: string }[] = [];
    for (const [key, t] of this.catalog.tables.entries()) {
      if ((isTempTableKey(key) && !own.has(key)) || !(t instanceof MemoryTable)) continue;
      for (const name of [...t.uniqueNames, ...t.indexes.map((d) => d.name)]) out.push({ name, table: t.name });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * A relation's columns as psql's \d shows them (type, nullability, default), or null when there is
   * no table or view of that name.
   */
  describeRelation(name: string): { kind: 'table' | 'view'; columns: { name: string; type: string; notNull: boolean; default: string }[]; foreignKeys?: string[]; referencedBy?: string[] } | null {
    const t = this.catalog.getTable(name);
    if (t !== undefined) {
      const meta = t instanceof MemoryTable ? t.meta : undefined;
      return {
        kind: 'table',
        columns: t.schema.map((f, i) => {
          const m = meta?.[i];
          const dflt = m?.sequence ? `nextval('${name}_${f.name}_seq'::regclass)` : m?.defaultExpr ? defaultText(m.defaultExpr) : '';
          return { name: f.name, type: typeDisplayName(f.type), notNull: m?.notNull ?? false, default: dflt };
        }),
        ...(t instanceof MemoryTable ? this.foreignKeyLines(t) : {}),
      };
    }
    const v = this.catalog.views.get(name);
    if (v === undefined) return null;
    const cols = this.prepareSelect(nodeBody<SelectStmt>(v.query), []).columns;
    return { kind: 'view', columns: cols.map((c) => ({ name: c.name, type: typeDisplayName(c.type), notNull: false, default: '' })) };
  }

  /** psql's \\d sections "Foreign-key constraints:" and "Referenced by:", named in double quotes and sorted by constraint name as psql prints them. */
  private foreignKeyLines(t: MemoryTable): { foreignKeys?: string[]; referencedBy?: string[] } {
    const columns = (x: TableSource | undefined): string[] | null => (x === undefined ? null : x.schema.map((f) => f.name));
    const byName = (a: [string, string], b: [string, string]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const own = t.foreignKeys.map((fk): [string, string] => [fk.name, `"${fk.name}" ${foreignKeyDef(fk, columns(t)!, columns(this.catalog.getTable(fk.parent)), quoteIdent)}`]);
    const refs: [string, string][] = [];
    for (const x of this.catalog.tables.values()) {
      if (!(x instanceof MemoryTable)) continue;
      for (const fk of x.foreignKeys) {
        if (fk.parent === t.name) refs.push([fk.name, `TABLE "${x.name}" CONSTRAINT "${fk.name}" ${foreignKeyDef(fk, columns(x)!, columns(t), quoteIdent)}`]);
      }
    }
    return {
      ...(own.length > 0 ? { foreignKeys: own.sort(byName).map((l) => l[1]) } : {}),
      ...(refs.length > 0 ? { referencedBy: refs.sort(byName).map((l) => l[1]) } : {}),
    };
  }

  // ---- internals shared with the utility executor and the servers ----

  resolveTypeText(text: string): DataType {
    const s = parseStatements(`select null::${text}`);
    const tc = nodeBody<{ targetList: Node[] }>(s[0]!.stmt).targetList[0]!;
    const val = nodeBody<{ val: Node }>(tc).val;
    const binder = new QueryBinder(this.catalog, this.session.evalContext(nowMicros()));
    const r = binder.bindQuery({ targetList: [{ ResTarget: { val } } as unknown as Node], op: 'SETOP_NONE' } as SelectStmt, null);
    return r.plan.schema[0]!.type;
  }

  /**
   * `rewrite` sees the bound plan before the optimizer, with the binder for the coercions it adds (UPDATE
   * casts its SET values to the columns' types, and its RETURNING reads the new values through it).
   */
  prepareSelect(stmt: SelectStmt, params: readonly unknown[], paramTypes: DataType[] = [], extraRelations?: ReadonlyMap<string, TableSource>, rewrite?: (bound: LogicalPlan, env: QueryBinder) => LogicalPlan): PreparedQuery {
    if (this.session.access !== AccessPolicy.full) this.session.access.check({ SelectStmt: stmt } as Node);
    const types = [...paramTypes];
    while (types.length < params.length) types.push(T.unknown);
    const scope = this.modifyingScope;
    const evalCtx = this.session.evalContext(nowMicros());
    const binder = new QueryBinder(scope?.reads ?? this.catalog, this.clockWatch === null ? evalCtx : watchedEvalContext(evalCtx, this.clockWatch), types);
    if (scope !== null) binder.modifyingResults = scope.results;
    if (extraRelations !== undefined) binder.extraRelations = extraRelations;
    binder.sessionRelations = this.sessionRelations;
    // Untyped output columns stay unknown for the rewrite to resolve (UPDATE SET b = '42' takes b's type).
    const bound = binder.bindQuery(stmt, null, rewrite !== undefined);
    if (rewrite !== undefined) bound.plan = rewrite(bound.plan, binder);
    const plan = optimize(bound.plan, { setting: (n) => this.session.get(n) }, this.session.disabledRules());
    return {
      plan,
      columns: bound.plan.schema.map((f) => ({ name: f.name, type: f.type.name === 'unknown' ? T.text : f.type })),
      paramTypes: binder.paramTypes,
    };
  }

  /** DESCRIBE / SUMMARIZE (describe.ts). */
  private async inspect(cmd: InspectCommand, params: readonly unknown[]): Promise<QueryResult> {
    try {
      return await this.inspectSource(cmd, params);
    } catch (e) {
      // Positions point into the statement as written, not into the query made from it.
      if (e instanceof QuireError && e.position > 0) e.position += cmd.shift;
      throw e;
    }
  }

  private async inspectSource(cmd: InspectCommand, params: readonly unknown[]): Promise<QueryResult> {
    const parsed = parseStatements(cmd.query);
    if (parsed.length !== 1 || nodeTag(parsed[0]!.stmt) !== 'SelectStmt') {
      throw new QuireError('42601', `${cmd.kind} takes a table, a view, a file or one query`);
    }
    const prepared = this.prepareSelect(nodeBody<SelectStmt>(parsed[0]!.stmt), params);
    if (cmd.kind === 'SUMMARIZE') {
      try {
        const r = (await this.executeCall(summarizeSql(cmd.query, prepared.columns), params)).at(-1)!;
        return { ...r, command: 'SUMMARIZE' };
      } catch (e) {
        // A position in the generated query means nothing to the user.
        if (e instanceof QuireError) e.position = 0;
        throw e;
      }
    }
    const table = cmd.relation !== null ? this.catalog.getTable(cmd.relation) : undefined;
    const rows = describeRows(prepared.columns, table !== undefined && 'appendRows' in table ? (table as MemoryTable) : null);
    const columns: ResultColumn[] = DESCRIBE_COLUMNS.map((name) => ({ name, type: T.text }));
    return { command: 'DESCRIBE', commandTag: `DESCRIBE ${rows.length}`, columns, rows, rowCount: rows.length, notices: [] };
  }

  optimizeTraced(plan: LogicalPlan): { plan: LogicalPlan; trace: OptimizeTrace[] } {
    const trace: OptimizeTrace[] = [];
    return { plan: optimize(plan, { setting: (n) => this.session.get(n) }, this.session.disabledRules(), trace), trace };
  }

  execContext(paramTypes: readonly DataType[], params: readonly unknown[], analyze: boolean): ExecContext {
    const tz = this.timezone;
    const ds = this.session.get('datestyle');
    const values: Value[] = paramTypes.map((t, i) => jsToValue(params[i], t, tz, ds));
    for (let i = paramTypes.length; i < params.length; i++) values.push(jsToValue(params[i], T.unknown, tz, ds));
    // The controller prepareFiles made at the statement's start serves its first plan (a cancel then
    // reaches both); later plans of the statement get their own, as cancel() stops the newest.
    if (!this.abortUnused || this.abort === null || this.abort.signal.aborted) this.abort = new AbortController();
    this.abortUnused = false;
    const limits = currentLimits();
    const now = performance.now();
    const deadline = limits?.deadline ?? Infinity;
    const signal = limits?.signal ? AbortSignal.any([this.abort.signal, limits.signal]) : this.abort.signal;
    return makeExecContext({
      eval: this.session.evalContext(nowMicros()),
      params: values,
      signal,
      deadline: deadline !== Infinity ? deadline : undefined,
      clock: this.clock,
      // `used` from the start: a field added when the statement first parks would change the
      // ticker's shape mid-statement and deoptimize the loops that read it.
      ticker: { last: now, count: 0, used: 0 },
      analyze,
      notice: (message) => {
        this.raised.push(message);
      },
    });
  }

  /** The messages raised since the last call (a statement's PL/pgSQL notices). */
  takeRaised(): string[] {
    const r = this.raised;
    this.raised = [];
    return r;
  }

  async physical(plan: LogicalPlan, ctx: ExecContext): Promise<PhysicalOperator> {
    const planner = new PhysicalPlanner({ ctx });
    const op = planner.plan(await foldConstantSubqueries(plan, planner, ctx));
    this.shapeKeeper = [op, ctx];
    // One timer per session, re-armed per plan (refresh() allocates nothing); unref'd, so it never
    // keeps the process alive.
    if (this.shapeKeeperTimer === null) {
      this.shapeKeeperTimer = setTimeout(() => {
        this.shapeKeeper = null;
      }, KEEP_SHAPES_MS);
      this.shapeKeeperTimer.unref();
    } else this.shapeKeeperTimer.refresh();
    return op;
  }

  /**
   * A SELECT's whole result as rows, reserved as a result (reserveResult: 53200 past the larger of
   * memory_limit and half the heap); stream() does not hold them.
   */
  async collect(op: PhysicalOperator, ctx: ExecContext): Promise<Value[][]> {
    const rows: Value[][] = [];
    const res = queryMemory(ctx).pool.register('query result', false);
    try {
      for await (const b of op.execute(ctx)) {
        reserveResult(res, batchBytes(b) + b.length * (ROW_ARRAY_BYTES + 8 * b.columns.length), 'result rows');
        const r = batchRows(b);
        for (let i = 0; i < r.length; i++) rows.push(r[i]!);
      }
    } finally {
      res.free();
    }
    return rows;
  }

  async collectBatches(op: PhysicalOperator, ctx: ExecContext): Promise<Batch[]> {
    const out: Batch[] = [];
    for await (const b of op.execute(ctx)) if (b.length) out.push(b);
    return out;
  }

  /**
   * `key` names the statement (its text and place in the call's text) for file-plan-cache.ts: a
   * SELECT over files asked again reuses its plan while nothing it depends on has changed.
   */
  async runSelect(stmt: SelectStmt, params: readonly unknown[], key?: string): Promise<QueryResult> {
    const prepared = key === undefined ? this.prepareSelect(stmt, params) : this.prepareFileSelect(stmt, params, key);
    const ctx = this.execContext(prepared.paramTypes, params, false);
    const op = await this.physical(prepared.plan, ctx);
    const rows = await this.collect(op, ctx);
    return { command: 'SELECT', commandTag: `SELECT ${rows.length}`, columns: prepared.columns, rows, rowCount: rows.length, notices: [] };
  }

  private prepareFileSelect(stmt: SelectStmt, params: readonly unknown[], key: string): PreparedQuery {
    if (params.length > 0 || this.tx !== null || this.modifyingScope !== null || this.session.access !== AccessPolicy.full || this.session.get('quire.file_plan_cache') === 'off') {
      return this.prepareSelect(stmt, params);
    }
    const state = (): PlanState => ({ settings: this.session.changes, catalog: catalogChanges(this.shared) });
    const before = state();
    const hit = this.filePlans.get(key, before);
    if (hit !== null) return hit;
    const paths = cacheableFiles(stmt);
    // Stamped before binding reads them: a file changed meanwhile fails the next use's check.
    const files = paths === null ? null : stampFiles(paths);
    if (files === null) return this.prepareSelect(stmt, params);
    const mark: PlanMark = { touched: false };
    const raised = this.raised.length;
    this.clockWatch = () => {
      mark.touched = true;
    };
    let prepared: PreparedQuery;
    try {
      prepared = this.prepareSelect(stmt, params);
    } finally {
      this.clockWatch = null;
    }
    const after = state();
    // A notice raised while binding would not be raised again by a kept plan.
    if (!mark.touched && this.raised.length === raised && after.settings === before.settings && after.catalog === before.catalog) this.filePlans.set(key, prepared, mark, before, files);
    return prepared;
  }

  async explainLines(stmt: SelectStmt, params: readonly unknown[], opts: ExplainOptions, relations?: ReadonlyMap<string, TableSource>): Promise<string[]> {
    const t0 = performance.now();
    const prepared = this.prepareSelect(stmt, params, undefined, relations);
    if (opts.logical === true) return explainLogical(prepared.plan);
    const ctx = this.execContext(prepared.paramTypes, params, opts.analyze);
    const op = await this.physical(prepared.plan, ctx);
    if (!opts.analyze) return explainPlan(op, opts);
    const t1 = performance.now();
    let rows = 0;
    for await (const b of op.execute(ctx)) rows += b.length;
    const ms = performance.now() - t1;
    return [...explainPlan(op, opts), ...explainSummary(opts, t1 - t0, ms, rows)];
  }

  /**
   * For servers: a literal INSERT whose prefix has a cached plan, run as query() runs it (no binding, no
   * read_* globs to walk, no portal; outside a transaction block its own commit). Null when the statement
   * does not take that path (or the transaction block has failed): the caller then runs it as any other.
   * statement_timeout is the caller's to start, per protocol message.
   */
  async runLiteralInsert(s: ParsedStatement): Promise<QueryResult | null> {
    const lit = literalInsertOf(s.stmt);
    if (lit === undefined || (this.session.transactionFailed && this.session.inTransaction)) return null;
    await refreshForStatement(this.catalog, s.stmt);
    this.abort = null;
    this.abortUnused = false;
    this.beginStatement();
    this.queryText = s.text;
    try {
      return await withPositionAsync(s.text, s, async () => this.literalInsertNow(lit));
    } catch (e) {
      this.failTransaction();
      throw e;
    }
  }

  /**
   * The autocommit loop's INSERT, run by `attempt` with no promise of its own between parsing and
   * durable(): acknowledged once its commit is durable. Null when `attempt` did not take it.
   */
  private async directInsert(attempt: () => QueryResult | null): Promise<QueryResult[] | null> {
    this.startStatement();
    let r: QueryResult | null;
    try {
      r = attempt();
    } catch (e) {
      await this.durable();
      throw e;
    }
    if (r === null) return null;
    const pending = this.pendingDurable();
    if (pending !== null) await pending;
    return [r];
  }

  /**
   * runLiteralInsert without an await, when it needs none (no attached database to refresh): the
   * statement runs, and outside a transaction block its commit is written to the log, before this
   * returns; the caller acknowledges it only after durable(). Null when the statement does not take
   * this path (nothing was changed then), including a failed transaction block, which the general
   * path answers with 25P02.
   */
  literalInsertSync(s: ParsedStatement): QueryResult | null {
    const lit = literalInsertOf(s.stmt);
    return lit === undefined ? null : this.literalRowsSync(s.text, lit);
  }

  /** literalInsertSync of statement text `text`, read into `lit`. */
  private literalRowsSync(text: string, lit: LiteralInsert): QueryResult | null {
    if (this.catalog.attached.size > 0 || (this.session.transactionFailed && this.session.inTransaction)) return null;
    this.abort = null;
    this.abortUnused = false;
    this.beginStatement();
    this.queryText = text;
    try {
      return this.literalInsertNow(lit);
    } catch (e) {
      this.failTransaction();
      throw statementError(e);
    }
  }

  /** paramInsertSync for the library's JavaScript parameter values (runJsParamInsert). */
  private jsParamInsertSync(sql: string, pi: ParamInsert, params: readonly unknown[]): QueryResult | null {
    if (this.catalog.attached.size > 0 || (this.session.transactionFailed && this.session.inTransaction)) return null;
    this.abort = null;
    this.abortUnused = false;
    this.beginStatement();
    this.queryText = sql;
    try {
      const r = runJsParamInsert(this, pi, params, nowMicros);
      if (r !== null && this.tx === null) storeFor(this.shared)?.commit(this.shared, this);
      return r;
    } catch (e) {
      this.failTransaction();
      throw statementError(e);
    }
  }

  /**
   * literalInsertSync for `INSERT INTO t VALUES ($1, …)` sent through the extended protocol with its
   * parameter values (runParamInsert): outside a transaction block the statement is its own
   * transaction, committed to the log before this returns. Null when the general path must run it.
   */
  paramInsertSync(s: ParsedStatement, pi: ParamInsert, params: readonly unknown[], paramTypes: readonly DataType[]): QueryResult | null {
    if (this.catalog.attached.size > 0 || (this.session.transactionFailed && this.session.inTransaction)) return null;
    this.abort = null;
    this.abortUnused = false;
    this.beginStatement();
    this.queryText = s.text;
    try {
      const r = runParamInsert(this, pi, params, paramTypes, nowMicros);
      if (r !== null && this.tx === null) storeFor(this.shared)?.commit(this.shared, this);
      return r;
    } catch (e) {
      this.failTransaction();
      throw statementError(e);
    }
  }

  /**
   * A literal INSERT by its prefix's cached plan, with its implicit COMMIT logged in the same synchronous
   * step as the rows went in (as commitTransaction does); null when the prefix has no plan.
   */
  private literalInsertNow(lit: LiteralInsert): QueryResult | null {
    const r = runLiteralInsert(this, lit, nowMicros);
    if (r !== null && this.tx === null) storeFor(this.shared)?.commit(this.shared, this);
    return r;
  }

  private async runStatement(s: ParsedStatement, sql: string, params: readonly unknown[]): Promise<QueryResult> {
    this.raised = [];
    const r = await this.runStatementBody(s, sql, params);
    const raised = this.takeRaised();
    return raised.length === 0 ? r : { ...r, notices: [...raised, ...r.notices] };
  }

  private async runStatementBody(s: ParsedStatement, sql: string, params: readonly unknown[]): Promise<QueryResult> {
    this.queryText = sql;
    return withPositionAsync(sql, s, async () => {
      // A literal INSERT whose prefix has a plan skips binding (and, outside a block, the transaction).
      const lit = params.length === 0 ? literalInsertOf(s.stmt) : undefined;
      if (lit !== undefined) {
        const r = this.literalInsertNow(lit);
        if (r !== null) return r;
      }
      const tag = nodeTag(s.stmt);
      if (tag === 'SelectStmt') {
        const sel = nodeBody<SelectStmt>(s.stmt);
        // SELECT INTO writes a table; SELECT … FOR UPDATE/SHARE locks the rows it returns.
        // … and WITH x AS (INSERT/UPDATE/DELETE …) changes a table.
        if (sel.intoClause || (sel.lockingClause ?? []).length > 0 || modifyingCtes(sel) !== null) return executeUtility(this, s, params);
        return this.runSelect(sel, params, `${s.start}:${s.end}:${sql}`);
      }
      return executeUtility(this, s, params);
    });
  }
}

/** A column default as \d prints it, for the shapes defaults take (constants, casts, function calls). */
function defaultText(n: Node): string {
  const tag = nodeTag(n);
  const b = nodeBody<Record<string, unknown>>(n);
  if (tag === 'A_Const') {
    if (b.isnull) return 'NULL';
    const v = (b.ival ?? b.fval ?? b.sval ?? b.boolval) as Record<string, unknown> | undefined;
    if (b.sval !== undefined) return `'${String((v as { sval?: string }).sval ?? '').replace(/'/g, "''")}'::text`;
    if (b.boolval !== undefined) return (v as { boolval?: boolean }).boolval ? 'true' : 'false';
    return String((v as { ival?: number; fval?: string }).ival ?? (v as { fval?: string }).fval ?? 0);
  }
  if (tag === 'TypeCast') {
    const inner = defaultText(b.arg as Node).replace(/::text$/, '');
    const names = ((b.typeName as { names?: { String?: { sval?: string } }[] }).names ?? []).map((x) => x.String?.sval).filter((x) => x !== 'pg_catalog');
    return `${inner}::${names.join('.')}`;
  }
  if (tag === 'FuncCall') {
    const fname = ((b.funcname as { String?: { sval?: string } }[]) ?? []).map((x) => x.String?.sval).join('.');
    const args = ((b.args as Node[] | undefined) ?? []).map(defaultText);
    return `${fname}(${args.join(', ')})`;
  }
  if (tag === 'SQLValueFunction') return String(b.op ?? '').replace(/^SVFOP_/, '').toLowerCase();
  return '(expression)';
}

export function emptyResult(command: string, tag: string): QueryResult {
  return { command, commandTag: tag, columns: [], rows: [], rowCount: 0, notices: [] };
}

export function nowMicros(): number {
  return Date.now() * 1000;
}

/** Errors raised while binding carry positions within the whole text, as PostgreSQL reports them. */
function withPosition<X>(_sql: string, _s: ParsedStatement, f: () => X): X {
  return f();
}

async function withPositionAsync<X>(_sql: string, _s: ParsedStatement, f: () => Promise<X>): Promise<X> {
  try {
    return await f();
  } catch (e) {
    throw statementError(e);
  }
}

/** What a statement's failure is reported as: its QuireError, or the SQLSTATE of an engine limit it hit. */
/** Statement texts already looked at by paramInsertShape (bounded: a program sends few distinct ones). */
const paramInsertShapes = new Map<string, ParamInsert | null>();
const MAX_PARAM_INSERT_SHAPES = 256;

/**
 * The parameter INSERT a statement text is (src/sql/param-insert.ts), or null; the text is parsed once.
 * A text the grammar refuses is null here, and the general path reports its error.
 */
function paramInsertShape(sql: string): ParamInsert | null {
  let pi = paramInsertShapes.get(sql);
  if (pi !== undefined) return pi;
  if (!/^\s*insert\s/i.test(sql)) return null;
  try {
    const stmts = parseStatements(sql);
    pi = stmts.length === 1 ? paramInsertOf(stmts[0]!.stmt) : null;
  } catch {
    pi = null;
  }
  if (paramInsertShapes.size >= MAX_PARAM_INSERT_SHAPES) paramInsertShapes.clear();
  paramInsertShapes.set(sql, pi);
  return pi;
}

/** query()'s answer: the last statement's result. */
function lastResult(results: QueryResult[]): QueryResult {
  return results.length === 0 ? emptyResult('EMPTY', '') : results[results.length - 1]!;
}

function oneResult(r: QueryResult): QueryResult[] {
  return [r];
}

function statementError(e: unknown): QuireError {
  if (e instanceof QuireError) return e;
  if (e instanceof RangeError && /call stack/i.test(e.message)) return new QuireError('54001', 'stack depth limit exceeded');
  if (e instanceof RangeError && /Invalid string length/i.test(e.message)) {
    return new QuireError('54000', 'result string is too long', { detail: 'A string value can hold at most about 512 MB.' });
  }
  if (e instanceof RangeError && /Invalid array length|allocation failed/i.test(e.message)) return new QuireError('53200', 'out of memory', { detail: e.message });
  return new QuireError('XX000', `internal error: ${e instanceof Error ? e.message : String(e)}`);
}

/** Rows [start, end) of a column filled whole by flatColumn: views of its arrays. */
interface FlatColumn {
  slice(start: number, end: number): Column;
}

/**
 * All `length` values of a bool, int2/int4 or float8-stored column in one typed array (and one null
 * map, made at the first NULL), or null when the type is stored otherwise or a value does not fit the
 * typed storage (an int8 past 2^53): such columns go through per-batch builders.
 */
function flatColumn(type: DataType, length: number, valueAt: (i: number) => Value): FlatColumn | null {
  const kind = storageKind(type);
  if (kind === 'obj' || length === 0) return null;
  const data = kind === 'u8' ? new Uint8Array(length) : kind === 'i32' ? new Int32Array(length) : new Float64Array(length);
  let nulls: Uint8Array | null = null;
  for (let i = 0; i < length; i++) {
    const v = valueAt(i);
    if (v === null) {
      (nulls ??= new Uint8Array(length))[i] = 1;
    } else if (kind === 'u8') {
      data[i] = v === true ? 1 : 0;
    } else if (typeof v === 'number') {
      data[i] = v;
    } else {
      return null;
    }
  }
  return flatView(type, data, nulls);
}

/** Batches of a column held whole in `data` (and `n`, its null map, if it has NULLs): views, no copies. */
function flatView(type: DataType, data: Uint8Array | Int32Array | Float64Array, n: Uint8Array | null): FlatColumn {
  return {
    slice(start: number, end: number): Column {
      let batchNulls: Uint8Array | null = null;
      if (n !== null) {
        // a batch without NULLs carries no null map, so its loops skip the test
        for (let i = start; i < end; i++) {
          if (n[i] === 1) {
            batchNulls = n.subarray(start, end);
            break;
          }
        }
      }
      return makeColumn(type, data.subarray(start, end), batchNulls);
    },
  };
}

/**
 * The caller's array itself as a column's storage (registerColumns with copy: false), when it is the
 * typed array the column is stored in and every value is one the column would store unchanged.
 */
function adoptableStorage(type: DataType, a: ArrayLike<unknown>): Int32Array | Float64Array | null {
  switch (type.name) {
    case 'int4':
      return a instanceof Int32Array ? a : null;
    case 'float8':
      return a instanceof Float64Array ? a : null;
    case 'int8':
    case 'date':
    case 'timestamp':
    case 'timestamptz': {
      if (!(a instanceof Float64Array)) return null;
      for (let i = 0; i < a.length; i++) if (!Number.isSafeInteger(a[i])) return null;
      return a;
    }
    default:
      return null;
  }
}

/** The SQL type a typed array's elements fit, or null for plain arrays (their values decide). */
function typedArrayType(a: ArrayLike<unknown>): DataType | null {
  if (a instanceof Int32Array || a instanceof Int16Array || a instanceof Int8Array || a instanceof Uint16Array || a instanceof Uint8Array) return T.int4;
  if (a instanceof Float64Array || a instanceof Float32Array) return T.float8;
  if (a instanceof BigInt64Array || a instanceof Uint32Array) return T.int8;
  return null;
}
