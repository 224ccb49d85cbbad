/** a[i]: the element at 1-based position i, null outside the bounds (as PostgreSQL). */
import { registerScalar } from '../../registry.js';
import { elementType, type ArrayValue } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';

registerScalar('[]', {
  args: ['anyarray', 'int4'],
  returns: (types) => elementType(types[0]!),
  fn: (_c: EvalContext, a: ArrayValue, i: number) => (i >= 1 && i <= a.length ? a[i - 1]! : null),
});
