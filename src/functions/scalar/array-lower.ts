/** array_lower(a, dim): lower bound of dimension dim; arrays here always start at 1. */
import { registerScalar } from '../registry.js';
import { T, type ArrayValue } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('array_lower', {
  args: ['anyarray', 'int4'],
  returns: T.int4,
  fn: (_c: EvalContext, a: ArrayValue, dim: number) => (dim === 1 && a.length > 0 ? 1 : null),
});
