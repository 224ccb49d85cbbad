/**
 * The running statement as plans name it. Plans hold run-time hooks (a table function's reader, a
 * ModifyTable's target) that are handed the statement when it runs; the execution layer's
 * ExecContext extends this, so plans need not import what sits above them.
 */
import type { Value } from '../common/types.js';
import type { EvalContext } from '../functions/eval-context.js';

export interface StatementContext {
  readonly eval: EvalContext;
  readonly params: readonly Value[];
  readonly signal?: AbortSignal;
  /** Operator metrics are collected when true (EXPLAIN ANALYZE). */
  readonly analyze: boolean;
}
