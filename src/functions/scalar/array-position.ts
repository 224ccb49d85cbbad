/** array_position(a, x [, start]): the first position at or after start holding x (NULL finds a NULL), or null. */
import { QuireError } from '../../common/errors.js';
import { registerScalar } from '../registry.js';
import { T, type ArrayValue, type Value } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { notDistinct } from './support/array-support.js';

function position(eq: (x: Value, y: Value) => boolean, a: ArrayValue | null, x: Value, start: number | null): number | null {
  if (a === null) return null;
  let from = 0;
  if (start !== null) from = Math.max(0, start - 1);
  for (let i = from; i < a.length; i++) if (eq(a[i]!, x)) return i + 1;
  return null;
}

registerScalar(
  'array_position',
  {
    args: ['anyarray', 'anyelement'],
    returns: T.int4,
    strict: false,
    fn: () => null,
    specialize: (types) => {
      const eq = notDistinct(types[0]!);
      return (_c: EvalContext, a: ArrayValue | null, x: Value) => position(eq, a, x, null);
    },
  },
  {
    args: ['anyarray', 'anyelement', 'int4'],
    returns: T.int4,
    strict: false,
    fn: () => null,
    specialize: (types) => {
      const eq = notDistinct(types[0]!);
      return (_c: EvalContext, a: ArrayValue | null, x: Value, start: number | null) => {
        if (start === null) throw new QuireError('22004', 'initial position must not be null');
        return position(eq, a, x, start);
      };
    },
  },
);
