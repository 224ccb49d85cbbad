/**
 * Table functions usable in FROM (generate_series, read_csv, read_json, …). Binding fixes the output
 * schema (file readers may look at the file to infer it); execution receives the argument values.
 */
import type { DataType, Field, Value } from '../../common/types.js';
import type { Batch } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import type { EvalContext } from '../../functions/eval-context.js';
import type { Expr } from '../../logical/expr.js';

export interface TableFunctionBinding {
  schema: Field[];
  /** Argument types the arguments must be coerced to (same length as the call's arguments). */
  argTypes: DataType[];
  /** Column names available for projection pushdown are the schema's names. */
  /**
   * `exec` is the running statement: readers reserve what they hold from its memory pool
   * (queryMemory(exec)), so memory_limit binds them. Absent when a function runs outside a plan.
   * `dropsBatches`: the consumer is done with each batch (and every array in it) before it pulls the
   * next, so a reader may decode into arrays it reuses (see TableFunctionImpl in logical/plan.ts).
   */
  execute(args: readonly Value[], ctx: EvalContext, signal?: AbortSignal, exec?: ExecContext, dropsBatches?: boolean): AsyncGenerator<Batch>;
  /** Estimated rows, for the optimizer. */
  estimatedRows?: number;
  /** Optional pushdown (see TableFunctionImpl in logical/plan.ts). */
  withProjection?(columns: readonly number[]): TableFunctionBinding;
  /** `setting` reads the session's settings (a reader's switches for its pushdowns). */
  withFilter?(conjuncts: readonly Expr[], setting?: (name: string) => string | undefined): TableFunctionBinding | null;
  /** Set by withFilter: the conjuncts applied exactly (see TableFunctionImpl in logical/plan.ts). */
  readonly exactConjuncts?: readonly number[];
  /** Presence-only columns (see TableFunctionImpl in logical/plan.ts). */
  withPresence?(columns: readonly number[]): TableFunctionBinding | null;
  /** OFFSET pushdown (see TableFunctionImpl in logical/plan.ts). */
  withSkip?(rows: number): TableFunctionBinding | null;
  /** LIMIT pushdown (see TableFunctionImpl in logical/plan.ts). */
  withRowLimit?(rows: number): TableFunctionBinding | null;
  describe?(): string;
}

export interface TableFunction {
  readonly name: string;
  /**
   * `constArgs[i]` is the argument's value when it is a constant at bind time, `undefined` otherwise
   * (e.g. a parameter). Throw QuireError (42883 for no matching signature, 58P01 for a missing file).
   */
  bind(argTypes: readonly DataType[], constArgs: readonly (Value | undefined)[], ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding;
}

const registry = new Map<string, TableFunction>();

export function registerTableFunction(f: TableFunction): void {
  registry.set(f.name, f);
}

export function lookupTableFunction(name: string): TableFunction | undefined {
  return registry.get(name);
}
