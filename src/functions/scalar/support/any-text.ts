/**
 * Text output of "any"-typed arguments (concat, concat_ws, format, text || anynonarray). PostgreSQL
 * formats each argument with its type's output function, so the implementation needs the resolved
 * argument types: a JavaScript number alone could be an int4, a float8, a date or a timestamp.
 *
 * Overloads here carry `specialize(argTypes)`, which returns an implementation bound to the argument
 * types; the plain `fn` is a fallback for callers that do not know the types yet and guesses from
 * the JavaScript value (numbers print as numbers, so dates and timestamps come out wrong there).
 */
import type { DataType, Value } from '../../../common/types.js';
import { T } from '../../../common/types.js';
import { Numeric } from '../../../common/numeric.js';
import { Interval } from '../../../common/interval.js';
import { formatValue } from '../../../common/format-value.js';
import type { EvalContext } from '../../eval-context.js';
import type { ScalarImpl, ScalarOverload } from '../../registry.js';

export type TextOf = (v: Value, ctx: EvalContext) => string;

export interface TypedScalarOverload extends ScalarOverload {
  /** An implementation specialised to the resolved argument types (after coercion). */
  readonly specialize: (argTypes: readonly DataType[]) => ScalarImpl;
}

export function textOf(t: DataType): TextOf {
  if (t.name === 'text' || t.name === 'varchar' || t.name === 'name' || t.name === 'unknown') return (v) => v as string;
  return (v, ctx) => (formatValue(v, t, ctx) ?? '');
}

export function guessTextOf(v: Value, ctx: EvalContext): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return (formatValue(v, T.bool, ctx) ?? '');
  if (typeof v === 'bigint') return (formatValue(v, T.int8, ctx) ?? '');
  if (typeof v === 'number') return (formatValue(v, Number.isInteger(v) ? T.int8 : T.float8, ctx) ?? '');
  if (v instanceof Numeric) return (formatValue(v, T.numeric, ctx) ?? '');
  if (v instanceof Interval) return (formatValue(v, T.interval, ctx) ?? '');
  return String(v);
}

/** Formatters per argument position; the last one repeats for variadic tails. */
export function textOfArgs(argTypes: readonly DataType[]): (i: number) => TextOf {
  const fs = argTypes.map(textOf);
  return (i) => fs[i] ?? guessTextOf;
}
