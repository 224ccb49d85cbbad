/** array_append(a, x): a with x added at the end; a NULL array counts as empty (the function is not strict). */
import { registerScalar } from '../registry.js';
import { type ArrayValue, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { arrayArg } from './support/array-support.js';

export function appendElement(a: ArrayValue | null, x: Value): ArrayValue {
  return a === null ? [x] : [...a, x];
}

registerScalar('array_append', {
  args: ['anyarray', 'anyelement'],
  returns: arrayArg,
  strict: false,
  fn: (_c: EvalContext, a: ArrayValue | null, x: Value) => appendElement(a, x),
});
