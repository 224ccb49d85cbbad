/** Shared pieces of the array functions: element equality by the element type, argument types. */
import { equalValues } from '../../../common/compare.js';
import { elementType, T, type ArrayValue, type DataType, type Value } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import type { ScalarOverload } from '../../registry.js';

/** IS NOT DISTINCT FROM on elements of the array type `t` (array_position and array_remove find NULLs). */
export function notDistinct(t: DataType): (x: Value, y: Value) => boolean {
  const et = elementType(t);
  return (x, y) => (x === null || y === null ? x === y : equalValues(x, y, et));
}

/** The array argument's type among resolved argument types (the first array). */
export function arrayArg(types: readonly DataType[]): DataType {
  return types.find((t) => t.name.startsWith('_'))!;
}

/**
 * Every non-null element of `inner` equals some element of `outer` (PostgreSQL's array_contain_compare:
 * elements compare with the element type's equality and a NULL element matches nothing).
 */
export function containsAll(outer: ArrayValue, inner: ArrayValue, t: DataType): boolean {
  const et = elementType(t);
  return inner.every((x) => x !== null && outer.some((y) => y !== null && equalValues(x, y, et)));
}

/** An anyarray × anyarray → bool operator whose test needs the array type. */
export function arrayPredicate(f: (a: ArrayValue, b: ArrayValue, t: DataType) => boolean): ScalarOverload {
  return {
    args: ['anyarray', 'anyarray'],
    returns: T.bool,
    fn: (_c: EvalContext, a: ArrayValue, b: ArrayValue) => f(a, b, T._text),
    specialize: (types) => (_c: EvalContext, a: ArrayValue, b: ArrayValue) => f(a, b, types[0]!),
  };
}
