/**
 * Array containment and overlap: a @> b (every element of b is in a), a <@ b, a && b (a common element).
 * Elements compare with the element type's equality and a NULL element matches nothing, as PostgreSQL's
 * array_contain_compare does.
 */
import { registerScalar } from '../../registry.js';
import { equalValues } from '../../../common/compare.js';
import { elementType, T, type ArrayValue, type DataType } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';

function containsAll(outer: ArrayValue, inner: ArrayValue, t: DataType): boolean {
  const et = elementType(t);
  return inner.every((x) => x !== null && outer.some((y) => y !== null && equalValues(x, y, et)));
}

function overlaps(a: ArrayValue, b: ArrayValue, t: DataType): boolean {
  const et = elementType(t);
  return a.some((x) => x !== null && b.some((y) => y !== null && equalValues(x, y, et)));
}

const impl = (f: (a: ArrayValue, b: ArrayValue, t: DataType) => boolean) => ({
  args: ['anyarray', 'anyarray'] as const,
  returns: T.bool,
  fn: (_c: EvalContext, a: ArrayValue, b: ArrayValue) => f(a, b, T._text),
  specialize: (types: readonly DataType[]) => (_c: EvalContext, a: ArrayValue, b: ArrayValue) => f(a, b, types[0]!),
});

registerScalar('@>', impl((a, b, t) => containsAll(a, b, t)));
registerScalar('<@', impl((a, b, t) => containsAll(b, a, t)));
registerScalar('&&', impl(overlaps));
