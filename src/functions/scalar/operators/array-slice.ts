/**
 * a[lo:hi]: the elements from position lo to hi, clipped to the array's bounds, as a new array
 * starting at 1 (as PostgreSQL); empty when nothing is left. An omitted bound is bound as the
 * array's own (the binder passes int4's extremes), so only a NULL bound gives NULL.
 */
import { registerScalar } from '../../registry.js';
import type { ArrayValue } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';

registerScalar('[:]', {
  args: ['anyarray', 'int4', 'int4'],
  returns: (types) => types[0]!,
  fn: (_c: EvalContext, a: ArrayValue, lo: number, hi: number) => {
    const from = Math.max(lo, 1);
    const to = Math.min(hi, a.length);
    return from > to ? [] : a.slice(from - 1, to);
  },
});
