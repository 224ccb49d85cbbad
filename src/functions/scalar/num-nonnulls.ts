/** num_nonnulls(variadic "any"): the complement of num_nulls, with the same one-argument minimum. */
import { registerScalar } from '../registry.js';
import { T, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('num_nonnulls', {
  args: ['any', 'any'],
  variadic: true,
  returns: T.int4,
  strict: false,
  fn: (_c: EvalContext, ...args: Value[]) => {
    let n = 0;
    for (const a of args) if (a !== null) n++;
    return n;
  },
});
