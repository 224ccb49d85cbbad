/** array_prepend(x, a): a with x added at the front; a NULL array counts as empty (the function is not strict). */
import { registerScalar } from '../registry.js';
import { type ArrayValue, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { arrayArg } from './support/array-support.js';

export function prependElement(x: Value, a: ArrayValue | null): ArrayValue {
  return a === null ? [x] : [x, ...a];
}

registerScalar('array_prepend', {
  args: ['anyelement', 'anyarray'],
  returns: arrayArg,
  strict: false,
  fn: (_c: EvalContext, x: Value, a: ArrayValue | null) => prependElement(x, a),
});
