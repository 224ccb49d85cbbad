/**
 * array_agg(value) → an array of the values in input order, NULLs included; NULL when there were no rows.
 * The result is the argument type's array without its modifier (PostgreSQL's anyarray keeps none).
 * Array arguments would make a multidimensional array, which Quire does not have: refused with 0A000.
 */
import { QuireError } from '../../common/errors.js';
import { arrayTypeFor, isArrayType, T, type, type DataType, type Value } from '../../common/types.js';
import { getValue, type Column } from '../../common/column.js';
import type { AggregateFunction, GroupedAccumulator, ResolvedAggregate, SlidingAccumulator } from './aggregate-function.js';
import { growArr } from './support.js';

class GroupedArrayAgg implements GroupedAccumulator {
  private readonly acc: (Value[] | null)[] = [];
  grow(groups: number): void {
    growArr(this.acc, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0) continue;
      (this.acc[g] ??= []).push(getValue(c, k));
    }
  }
  result(g: number): Value {
    return this.acc[g] ?? null;
  }
}

class SlidingArrayAgg implements SlidingAccumulator {
  elems: Value[] = [];
  add(args: readonly Value[]): void {
    this.elems.push(args[0]!);
  }
  merge(other: SlidingAccumulator): void {
    for (const e of (other as SlidingArrayAgg).elems) this.elems.push(e);
  }
  value(): Value {
    return this.elems.length === 0 ? null : [...this.elems];
  }
  reset(): void {
    this.elems = [];
  }
}

export const arrayAgg: AggregateFunction = {
  name: 'array_agg',
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    if (argTypes.length !== 1) return null;
    const t = argTypes[0]!;
    if (isArrayType(t)) throw new QuireError('0A000', 'array_agg over arrays is not supported: multidimensional arrays are not supported');
    // Typmods go (PostgreSQL's array_agg returns the bare array type); a composite type stays.
    const arg = t.name === 'unknown' ? T.text : t.composite !== undefined ? t : type(t.name);
    return {
      name: 'array_agg',
      returnType: arrayTypeFor(arg),
      argTypes: [arg],
      invertible: false,
      retainsInput: true,
      grouped: () => new GroupedArrayAgg(),
      sliding: () => new SlidingArrayAgg(),
    };
  },
};
