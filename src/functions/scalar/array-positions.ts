/** array_positions(a, x): every position holding x (NULL finds NULLs), as an int[]. */
import { registerScalar } from '../registry.js';
import { T, type ArrayValue, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { notDistinct } from './support/array-support.js';

registerScalar('array_positions', {
  args: ['anyarray', 'anyelement'],
  returns: T._int4,
  strict: false,
  fn: () => null,
  specialize: (types) => {
    const eq = notDistinct(types[0]!);
    return (_c: EvalContext, a: ArrayValue | null, x: Value) => {
      if (a === null) return null;
      const out: number[] = [];
      for (let i = 0; i < a.length; i++) if (eq(a[i]!, x)) out.push(i + 1);
      return out;
    };
  },
});
