/** a[i] on text[]: the element at 1-based position i, null outside the bounds (as PostgreSQL). */
import { registerScalar } from '../../registry.js';
import { T, type TextArray } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';

registerScalar('[]', {
  args: ['_text', 'int4'],
  returns: T.text,
  fn: (_c: EvalContext, a: TextArray, i: number) => (i >= 1 && i <= a.length ? a[i - 1]! : null),
});
