/** array_cat(a, b): the elements of a then b; a NULL operand is ignored, both NULL gives NULL. */
import { registerScalar } from '../registry.js';
import { type ArrayValue } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { arrayArg } from './support/array-support.js';

export function concatArrays(a: ArrayValue | null, b: ArrayValue | null): ArrayValue | null {
  if (a === null) return b;
  if (b === null) return a;
  return [...a, ...b];
}

registerScalar('array_cat', {
  args: ['anyarray', 'anyarray'],
  returns: arrayArg,
  strict: false,
  fn: (_c: EvalContext, a: ArrayValue | null, b: ArrayValue | null) => concatArrays(a, b),
});
