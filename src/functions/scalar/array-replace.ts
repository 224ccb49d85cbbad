/** array_replace(a, from, to): a with every element equal to `from` (NULL matches NULLs) replaced by `to`. */
import { registerScalar } from '../registry.js';
import { type ArrayValue, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { arrayArg, notDistinct } from './support/array-support.js';

registerScalar('array_replace', {
  args: ['anyarray', 'anyelement', 'anyelement'],
  returns: arrayArg,
  strict: false,
  fn: () => null,
  specialize: (types) => {
    const eq = notDistinct(types[0]!);
    return (_c: EvalContext, a: ArrayValue | null, from: Value, to: Value) => (a === null ? null : a.map((e) => (eq(e, from) ? to : e)));
  },
});
