/** array_length(a, dim): length of dimension dim; null for an empty array or another dimension. */
import { registerScalar } from '../registry.js';
import { T, type ArrayValue } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('array_length', {
  args: ['anyarray', 'int4'],
  returns: T.int4,
  fn: (_c: EvalContext, a: ArrayValue, dim: number) => (dim === 1 && a.length > 0 ? a.length : null),
});
