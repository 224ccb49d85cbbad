/** array_remove(a, x): a without the elements equal to x (NULL removes NULLs). */
import { registerScalar } from '../registry.js';
import { type ArrayValue, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { arrayArg, notDistinct } from './support/array-support.js';

registerScalar('array_remove', {
  args: ['anyarray', 'anyelement'],
  returns: arrayArg,
  strict: false,
  fn: () => null,
  specialize: (types) => {
    const eq = notDistinct(types[0]!);
    return (_c: EvalContext, a: ArrayValue | null, x: Value) => (a === null ? null : a.filter((e) => !eq(e, x)));
  },
});
