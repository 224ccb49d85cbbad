/**
 * Aggregate functions: the contract between the binder (which resolves a call by argument types), the
 * hash aggregate (vectorized per-group state) and the window operator (row-at-a-time frame state).
 *
 * Every built-in aggregate here is strict in PostgreSQL's sense except where noted: rows whose
 * (first) argument is NULL are ignored, and an aggregate that saw no rows returns NULL (count returns 0).
 * FILTER, DISTINCT and ORDER BY inside the call are handled by the operator, not by the aggregate.
 */
import type { DataType, Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';

export interface AggregateFunction {
  readonly name: string;
  /** Ordered-set (percentile_cont, mode) or hypothetical-set (rank(x)) aggregates take WITHIN GROUP. */
  readonly withinGroup?: 'ordered' | 'hypothetical';
  /**
   * The implementation for these (binder-side) argument types, or null: the binder then raises 42883.
   * WITHIN GROUP aggregates also get the sort of their ordered arguments and the values of constant
   * direct arguments (which they must check even when the group has no rows).
   */
  resolve(argTypes: readonly DataType[], within?: WithinGroup): ResolvedAggregate | null;
}

export interface WithinGroup {
  /** Arguments before the ordered ones (the fraction of percentile_cont, the row of rank(…)). */
  readonly direct: number;
  /** One per ordered argument, as in the WITHIN GROUP (ORDER BY …) clause. */
  readonly order: readonly { readonly desc: boolean; readonly nullsFirst: boolean }[];
  /** Values of direct arguments that are constants (undefined where the argument is not). */
  readonly directValues: readonly (Value | undefined)[];
}

export interface ResolvedAggregate {
  readonly name: string;
  readonly returnType: DataType;
  /** Types the arguments must be coerced to before they reach update()/add(). */
  readonly argTypes: readonly DataType[];
  /**
   * A scalar function the binder applies to an argument before the aggregate sees it (null: none).
   * For per-row work that needs the session, which accumulators are not given: json_agg over
   * timestamptz writes each value with to_json in the session time zone.
   */
  readonly wrapArgs?: readonly (string | null)[];
  /** True when sliding() accumulators implement remove() (moving-aggregate inverse transition). */
  readonly invertible: boolean;
  /**
   * True when sliding() accumulators cannot merge() (a user-defined aggregate has no combine function):
   * window frames are then always re-aggregated row by row, never answered by a segment tree.
   */
  readonly noMerge?: boolean;
  /**
   * True when the grouped state keeps every input value (string_agg, array_agg, json_agg, ordered-set
   * aggregates): its size grows with the data, so the aggregate operator reserves the argument bytes it
   * feeds from memory_limit.
   */
  readonly retainsInput?: boolean;
  grouped(): GroupedAccumulator;
  sliding(): SlidingAccumulator;
}

/**
 * State for many groups at once, kept in typed arrays indexed by group id. The operator assigns dense
 * group ids 0..groups-1 and calls grow() before any update() that uses a new id.
 */
export interface GroupedAccumulator {
  /** Make room for group ids < groups; new groups start empty. Never shrinks. */
  grow(groups: number): void;
  /**
   * Feed rows 0..n-1 of `args` (columns of the coerced argument types): row k belongs to group gids[k].
   * A negative gid means "skip this row" (FILTER (WHERE …) is false or null for it).
   */
  update(gids: Int32Array, n: number, args: readonly Column[]): void;
  /**
   * update() for a batch whose rows 0..n-1 all belong to group g (an aggregate without GROUP BY): an
   * accumulator that can fold a whole batch at once (count adds n) skips the per-row group ids.
   */
  updateGroup?(g: number, n: number, args: readonly Column[]): void;
  /**
   * updateGroup() over the rows sel[0..n) of `args` (a filter's selection, a join's matched probe rows):
   * every one belongs to group g, so no group ids are written or read.
   */
  updateGroupSel?(g: number, sel: Uint32Array, n: number, args: readonly Column[]): void;
  /**
   * update() over the rows sel[0..n) of `args` (a filter's selection over an uncopied batch): row sel[k]
   * belongs to group gids[k], which is never negative. Without it the caller gathers the rows first.
   */
  updateSel?(gids: Int32Array, sel: Uint32Array, n: number, args: readonly Column[]): void;
  /**
   * Whether update() over these arguments only adds one to each row's group (count(*), count(x) of a
   * column without NULLs): then addRowCounts() with the batch's rows per group stands for it, and one
   * count per group serves every such aggregate of the batch.
   */
  countsRowsOnly?(args: readonly Column[]): boolean;
  /** update() for countsRowsOnly arguments: perGroup[g] rows for each group g < groups. */
  addRowCounts?(perGroup: Float64Array, groups: number): void;
  /**
   * The per-row update as a statement a generated loop can inline (null: these arguments need the
   * general path). A loop that groups the rows and updates several
   * aggregates in one pass then reads each row once instead of once per aggregate. Valid until the
   * next grow(), which may replace the state arrays.
   */
  inlineStep?(args: readonly Column[]): InlineStep | null;
  result(g: number): Value;
}

/**
 * One accumulator's update of one row, as source text over names the loop binds. The text depends only
 * on the accumulator's kind (so compiled loops are shared between queries), the refs on its state.
 *
 * The update is split so that a row's updates commit together: `compute` evaluates the new state into
 * locals, `ok` says whether they are what update() would store, `store` writes them. Where `ok` is false
 * (an overflow to check, a first value with its own rule) the loop stores nothing for the row and hands
 * it to update(). The loop makes no calls, which lets the compiler keep its arrays in registers.
 */
export interface InlineStep {
  /** State arrays, bound in order to the names ref(0), ref(1), … */
  readonly refs: readonly unknown[];
  /** True when the text never reads `v` (count): the loop then does not load the argument. */
  readonly argUnused?: boolean;
  /**
   * True when the text only adds one to ref(0)[g] (a count of rows): the loop may count a group's rows
   * once for all such steps and add the counts when it stops.
   */
  readonly countsRows?: boolean;
  /**
   * The ref whose [g] counts the rows the step updates (avg's divisor), left out of the step's store:
   * the loop adds one to it per row, in its tally where it keeps one (as for countsRows).
   */
  readonly rowCountRef?: number;
  /**
   * True when the argument has NULLs on some rows, on which the aggregate changes nothing (count(x),
   * sum, avg, …): the loop runs the step only on the other rows.
   */
  readonly skipsNulls?: boolean;
  /**
   * The row's text for group `g` (a non-negative int variable) and argument value `v` (a number
   * variable); `t` prefixes the locals it declares, unique within the loop.
   */
  code(ref: (i: number) => string, g: string, v: string, t: string): InlineCode;
}

export interface InlineCode {
  readonly compute: string;
  readonly ok: string;
  readonly store: string;
}

/**
 * Row-at-a-time state for window frames. remove() exists only for invertible aggregates (PostgreSQL's
 * moving-aggregate support: count, sum/avg of exact types, bool_and/bool_or, variance of exact types);
 * merge() exists for all of them so segment trees can combine partial states. merge(other) appends
 * `other`'s rows after this accumulator's rows (order matters for string_agg); `other` must come from the
 * same ResolvedAggregate.
 */
export interface SlidingAccumulator {
  add(args: readonly Value[]): void;
  /**
   * Takes a row out of the state (invertible aggregates). False: this state cannot take it out (a
   * user-defined inverse transition returned NULL); the caller rebuilds the state from the frame's rows.
   */
  remove?(args: readonly Value[]): boolean | void;
  merge(other: SlidingAccumulator): void;
  value(): Value;
  reset(): void;
}
