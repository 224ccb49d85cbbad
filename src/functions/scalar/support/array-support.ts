/** Shared pieces of the array functions: element equality by the element type, argument types. */
import { equalValues } from '../../../common/compare.js';
import { elementType, type DataType, type Value } from '../../../common/types.js';

/** IS NOT DISTINCT FROM on elements of the array type `t` (array_position and array_remove find NULLs). */
export function notDistinct(t: DataType): (x: Value, y: Value) => boolean {
  const et = elementType(t);
  return (x, y) => (x === null || y === null ? x === y : equalValues(x, y, et));
}

/** The array argument's type among resolved argument types (the first array). */
export function arrayArg(types: readonly DataType[]): DataType {
  return types.find((t) => t.name.startsWith('_'))!;
}
