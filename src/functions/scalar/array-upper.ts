/** array_upper(a, dim): upper bound of dimension dim (text[] is one-dimensional, lower bound 1); null for an empty array or another dimension. */
import { registerScalar } from '../registry.js';
import { T, type TextArray } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('array_upper', {
  args: ['_text', 'int4'],
  returns: T.int4,
  fn: (_c: EvalContext, a: TextArray, dim: number) => (dim === 1 && a.length > 0 ? a.length : null),
});
