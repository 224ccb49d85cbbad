/**
 * Logical plan: what to compute, not how. Every node carries its output schema so rules can be
 * checked locally. Column references inside a node's expressions index the node's *input* schema
 * (for joins: left columns then right columns).
 */
import type { DataType, Field, Schema, Value } from '../common/types.js';
import type { Batch } from '../common/column.js';
import type { EvalContext } from '../functions/eval-context.js';
import type { Expr, SortKey } from './expr.js';
import type { IndexAccess, IndexDefinition } from './index-definition.js';
import type { StatementContext } from './statement-context.js';
import { nodeInfo } from './plan-nodes.js';

export interface TableSource {
  readonly name: string;
  readonly schema: Schema;
  /** Estimated row count for the optimizer, if known. */
  rowCount(): number | undefined;
  /** Work the source can do itself in place of operators above its scan (connectors). */
  readonly pushdown?: ScanPushdown;
  /** Secondary indexes over the source's rows (stored tables), for choose-index-scan. */
  readonly indexes?: readonly IndexDefinition[];
  /**
   * Rows read to be locked (FOR UPDATE): a partial index's implied conjuncts are checked again on each
   * row, as PostgreSQL rechecks a row it locks, instead of being left to the index's predicate.
   */
  readonly lockTarget?: boolean;
  /** The relation EXPLAIN names when `name` is an internal one (a table read with its row positions). */
  readonly explainName?: string;
}

/**
 * What a source can take over from the plan above its scan. Each step returns a narrower source, or
 * null when the source cannot take it; the optimizer keeps the operator above for whatever was
 * refused or only partly taken, so declining is always correct. Column indexes and expressions are
 * over the source's current schema.
 */
export interface ScanPushdown {
  /** Only these columns, in this order. */
  project(columns: readonly number[]): TableSource;
  /** Evaluates the conjuncts it can; `rest` must still be filtered above. */
  filter(conjuncts: readonly Expr[]): { source: TableSource; rest: Expr[] } | null;
  /**
   * ORDER BY `keys` LIMIT `count` (null: all) OFFSET `offset`. Asked for `split` > 1 ranges, a source may
   * instead read that many concurrent ranges that each keep their own first count+offset rows; it then
   * answers `final: false` and the Top-N above stays to merge them.
   */
  topN(keys: readonly SortKey[], count: number | null, offset: number, split: number): { source: TableSource; final: boolean } | null;
  /** LIMIT `count` (null: all) OFFSET `offset`, in no particular order. */
  limit(count: number | null, offset: number): TableSource | null;
}

/** The executable half of a bound table function (see storage/table-functions). */
export interface TableFunctionImpl {
  /**
   * `exec` is the running statement (its memory pool, interrupt and deadline), absent outside a plan.
   * `dropsBatches`: the consumer is done with each batch, and every array in it, before it pulls the
   * next (an aggregate that keeps no input): a reader may then decode into arrays it reuses once the
   * batches cut from them have been handed out. Without it, every batch must stay valid for good.
   */
  execute(args: readonly Value[], ctx: EvalContext, signal?: AbortSignal, exec?: StatementContext, dropsBatches?: boolean): AsyncGenerator<Batch>;
  estimatedRows?: number;
  /**
   * Optional pushdown capabilities (file readers). withProjection returns a copy that outputs only
   * these schema columns, in this order; withFilter returns a copy that may skip data these
   * conjuncts (over the current schema) reject, or null when nothing can be used. The Filter stays
   * above the function for every conjunct but those in the copy's exactConjuncts, so skipping only
   * has to be conservative.
   */
  withProjection?(columns: readonly number[]): TableFunctionImpl;
  withFilter?(conjuncts: readonly Expr[], setting?: (name: string) => string | undefined): TableFunctionImpl | null;
  /**
   * Set on what withFilter returns: positions (in the list it was given) of the conjuncts the function
   * applies to every row exactly as the Filter would, which the Filter then leaves out.
   */
  readonly exactConjuncts?: readonly number[];
  /**
   * Returns a copy whose schema columns at these positions become bool columns that are true where the
   * value is present and NULL where it is NULL (the plan only tests them for NULL: count(x), x IS NULL),
   * so their values need not be decoded; null when none of them can be (or already is) read that way.
   */
  withPresence?(columns: readonly number[]): TableFunctionImpl | null;
  /**
   * Returns a copy that leaves out its first `rows` output rows (an OFFSET), passing over what holds
   * them without reading it where it can; null when it cannot skip exactly (e.g. it filters rows).
   */
  withSkip?(rows: number): TableFunctionImpl | null;
  /**
   * Returns a copy that may stop after `rows` output rows (after its skip), as a LIMIT above reads no
   * more: it need not read or decode what lies past them. The Limit stays above it. Null when it cannot
   * tell its output rows before reading them (it filters rows), or already stops there.
   */
  withRowLimit?(rows: number): TableFunctionImpl | null;
  /** Extra EXPLAIN text (pushed-down columns and filters). */
  describe?(): string;
}

export interface AggCall {
  /** Aggregate name, e.g. 'count', 'sum', 'string_agg'; count(*) has name 'count' and no args. */
  name: string;
  args: Expr[];
  distinct: boolean;
  filter: Expr | null;
  /** ORDER BY inside the call (string_agg(x, ',' ORDER BY y)). */
  orderBy: SortKey[];
  type: DataType;
  /** Argument types after coercion (the aggregate implementation is chosen by them). */
  argTypes: DataType[];
  /** WITHIN GROUP aggregates: how many leading arguments are direct (the rest are sorted by `orderBy`). */
  withinGroup?: { direct: number; order: { desc: boolean; nullsFirst: boolean }[] };
  /** A user-defined aggregate (CREATE AGGREGATE): its bound transition and final expressions. */
  user?: UserAggregateSpec;
}

/** CREATE AGGREGATE, bound: expressions over a virtual row, evaluated once per input row. */
export interface UserAggregateSpec {
  /** Over the row [state, arg1, …]: the next state (of `stateType`). */
  transition: Expr;
  /** Over the row [state]: the result; null when the state is the result. */
  final: Expr | null;
  stateType: DataType;
  /** The initial state (INITCOND cast to the state type), or null. */
  initial: Value;
  /**
   * A strict transition function (PostgreSQL's rule): rows with a NULL argument leave the state as it
   * is, and while the state is NULL the first row's argument becomes the state without a call.
   */
  strict: boolean;
  /** A strict final function is not called on a NULL state: the result is NULL. */
  finalStrict: boolean;
  /**
   * Moving-aggregate mode, when the aggregate declares MSFUNC and MINVFUNC: its own transition, state,
   * initial value and final function, and the inverse transition (over [state, arg1, …]) that takes a
   * row out of the state; NULL from it means the state must be rebuilt from the frame's rows.
   */
  moving?: Omit<UserAggregateSpec, 'moving'> & { inverse: Expr; inverseStrict: boolean };
}

export type FrameUnits = 'rows' | 'range' | 'groups';
export type FrameBound =
  | { kind: 'unbounded-preceding' | 'current-row' | 'unbounded-following' }
  | { kind: 'preceding' | 'following'; offset: Expr };
export interface Frame {
  units: FrameUnits;
  start: FrameBound;
  end: FrameBound;
  exclude: 'no-others' | 'current-row' | 'group' | 'ties';
}
export interface WindowSpec {
  partitionBy: Expr[];
  orderBy: SortKey[];
  frame: Frame;
  /** This window's place in PostgreSQL's evaluation order among the query's windows (sql/bind/window-eval-order.ts). */
  evalOrder?: number;
}
export interface WindowCall {
  name: string;
  args: Expr[];
  distinct: boolean;
  filter: Expr | null;
  ignoreNulls: boolean;
  fromLast: boolean;
  spec: WindowSpec;
  type: DataType;
  argTypes: DataType[];
  /** A CREATE AGGREGATE aggregate used with OVER: its bound transition and final functions. */
  user?: UserAggregateSpec;
}

/**
 * What a ModifyTable node changes: the statement's target table, as the layer that owns tables
 * (the API's transactions, row lineage and constraints) applies it. The node hands it its whole input
 * at once, as PostgreSQL's ModifyTable sees every row before the command's end-of-statement checks.
 */
export interface ModifyTarget {
  /**
   * Applies the changes `input` describes (new rows for INSERT; the target rows' positions and new
   * values for UPDATE; positions for DELETE) and returns the RETURNING rows, in the node's schema.
   */
  apply(input: readonly Batch[], ctx: StatementContext): Promise<Batch[]>;
}

export type ModifyKind = 'insert' | 'update' | 'delete';

export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'cross' | 'semi' | 'anti';

/** Ranking function a per-partition Top-N is derived from (see rules/derive-topn-from-window.ts). */
export type RankingKind = 'row_number' | 'rank' | 'dense_rank';

export type LogicalPlan =
  | {
      op: 'scan';
      source: TableSource;
      alias: string;
      schema: Schema;
      /** Source column indexes kept (prune-scan-columns); absent = all. */
      projection?: number[];
      /**
       * At most this many rows are needed (push-limit-into-scan): the scan may stop after them. Absent = all.
       * A hint only: the Limit above stays, so a source that ignores it is still correct.
       */
      fetch?: number;
      /** Read through a secondary index (choose-index-scan); absent = the whole table in storage order. */
      index?: IndexAccess;
    }
  | { op: 'values'; rows: Expr[][]; schema: Schema }
  | { op: 'empty'; schema: Schema; /** one row with no columns (SELECT without FROM) */ oneRow: boolean }
  | { op: 'table-function'; name: string; args: Expr[]; impl: TableFunctionImpl; schema: Schema }
  | { op: 'filter'; input: LogicalPlan; predicate: Expr; schema: Schema }
  | { op: 'project'; input: LogicalPlan; exprs: Expr[]; schema: Schema }
  | { op: 'aggregate'; input: LogicalPlan; groupBy: Expr[]; aggs: AggCall[]; schema: Schema }
  | { op: 'window'; input: LogicalPlan; calls: WindowCall[]; schema: Schema }
  | { op: 'sort'; input: LogicalPlan; keys: SortKey[]; schema: Schema }
  | {
      op: 'limit';
      input: LogicalPlan;
      /** Constant-folded at bind time when possible; otherwise evaluated once at execution start. */
      offset: Expr | null;
      count: Expr | null;
      /** WITH TIES: rows equal to the last one on these keys are kept too. */
      ties: SortKey[] | null;
      schema: Schema;
    }
  | {
      op: 'topn';
      input: LogicalPlan;
      keys: SortKey[];
      offset: Expr | null;
      count: Expr;
      withTies: boolean;
      schema: Schema;
    }
  | {
      /**
       * Per-partition Top-N (derive-topn-from-window): keeps, for every partition of `partitionBy`, the rows
       * whose `ranking` over `orderBy` would be <= k, and drops the rest. Output = a subset of the input
       * rows (same schema), so the Window above it computes the same ranking values for the rows it keeps.
       * rank / dense_rank keep every row tied at the cutoff.
       */
      op: 'topn-ranking';
      input: LogicalPlan;
      partitionBy: Expr[];
      orderBy: SortKey[];
      ranking: RankingKind;
      k: number;
      /**
       * false: the operator may give up and pass extra rows through when pruning does not pay (many tiny
       * partitions); the ranking filter above then stays and removes them. true: never passes extra rows.
       */
      strict: boolean;
      schema: Schema;
    }
  | { op: 'distinct'; input: LogicalPlan; schema: Schema }
  | { op: 'distinct-on'; input: LogicalPlan; keys: Expr[]; schema: Schema }
  | {
      op: 'join';
      type: JoinType;
      left: LogicalPlan;
      right: LogicalPlan;
      condition: Expr | null;
      /** The right side reads the current left row (LATERAL subquery or function). */
      lateral?: boolean;
      schema: Schema;
    }
  | { op: 'setop'; kind: 'union' | 'intersect' | 'except'; all: boolean; left: LogicalPlan; right: LogicalPlan; schema: Schema }
  | { op: 'recursive-cte'; name: string; anchor: LogicalPlan; recursive: LogicalPlan; all: boolean; id: number; schema: Schema }
  | { op: 'worktable'; id: number; name: string; schema: Schema }
  | {
      /** INSERT, UPDATE or DELETE of `table` (PostgreSQL's ModifyTable): outputs the RETURNING rows, if any. */
      op: 'modify';
      kind: ModifyKind;
      table: string;
      input: LogicalPlan;
      target: ModifyTarget;
      schema: Schema;
    };

export type PlanOp = LogicalPlan['op'];

export function children(p: LogicalPlan): LogicalPlan[] {
  return nodeInfo(p).children(p);
}

export function withChildren(p: LogicalPlan, kids: LogicalPlan[]): LogicalPlan {
  return nodeInfo(p).withChildren(p, kids);
}

export function fieldsOf(names: readonly string[], types: readonly DataType[]): Field[] {
  return names.map((name, i) => ({ name, type: types[i]! }));
}
