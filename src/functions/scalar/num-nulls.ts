/**
 * num_nulls(variadic "any"): not strict, since counting NULLs is the point. The first parameter is
 * spelled out so that a call needs at least one argument, as PostgreSQL's variadic resolution requires.
 */
import { registerScalar } from '../registry.js';
import { T, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('num_nulls', {
  args: ['any', 'any'],
  variadic: true,
  returns: T.int4,
  strict: false,
  fn: (_c: EvalContext, ...args: Value[]) => {
    let n = 0;
    for (const a of args) if (a === null) n++;
    return n;
  },
});
