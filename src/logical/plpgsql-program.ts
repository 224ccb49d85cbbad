/**
 * A PL/pgSQL function bound for one call site: its variables (parameters first, then DECLAREd ones)
 * and statements whose expressions are bound over the virtual row of the variables' current values
 * (column i = variable i). The physical layer runs it once per call (src/physical/plpgsql-run.ts).
 */
import type { DataType } from '../common/types.js';
import type { Expr } from './expr.js';

export interface PlVariable {
  readonly name: string;
  readonly type: DataType;
  /** DECLARE … := expr (over the variables declared before it); null starts the variable as NULL. */
  readonly init: Expr | null;
}

export type PlLevel = 'debug' | 'log' | 'info' | 'notice' | 'warning' | 'exception';

export type PlStatement =
  /** `v := expr`, `v.field := expr` when `field` is set (a composite variable's field), `v[i] := expr` when `subscript` is. */
  | { readonly kind: 'assign'; readonly target: number; readonly field: number | null; readonly subscript: Expr | null; readonly value: Expr }
  | { readonly kind: 'if'; readonly branches: readonly { readonly cond: Expr; readonly body: readonly PlStatement[] }[]; readonly otherwise: readonly PlStatement[] }
  /** RETURN with no expression returns NULL (functions returning void). */
  | { readonly kind: 'return'; readonly value: Expr | null }
  /** `format` with `%` placeholders filled by `params` in order (`%%` is a literal percent sign). */
  | { readonly kind: 'raise'; readonly level: PlLevel; readonly format: string; readonly params: readonly Expr[]; readonly sqlstate: string }
  /** PERFORM expr / a bare expression statement: evaluated for its side effects. */
  | { readonly kind: 'perform'; readonly value: Expr }
  | { readonly kind: 'block'; readonly body: readonly PlStatement[] };

export interface PlProgram {
  readonly name: string;
  /** The function definition it was bound from: calls of one function with equal arguments are equal. */
  readonly definition: object;
  readonly variables: readonly PlVariable[];
  readonly paramCount: number;
  readonly body: readonly PlStatement[];
  readonly returns: DataType;
}
