/** Signatures of compiled expressions, shared by the expression compiler and the operators. */
import type { Batch, Column } from '../common/column.js';
import type { ExecContext } from '../execution/context.js';

/** Evaluates an expression over every row of a batch. */
export type CompiledExpr = (batch: Batch, ctx: ExecContext) => Column;

/** Evaluates a predicate; returns the indexes of rows where it is true (not false, not null). */
export type CompiledPredicate = (batch: Batch, ctx: ExecContext) => { sel: Uint32Array; n: number };
