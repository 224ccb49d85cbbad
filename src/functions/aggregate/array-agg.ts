/**
 * array_agg(value) → an array of the values in input order, NULLs included; NULL when there were no rows.
 * Only text[] exists among Quire's array types so far, so array_agg takes text (and untyped literals);
 * other element types are refused with 0A000 rather than answered with the wrong array type.
 */
import { QuireError } from '../../common/errors.js';
import { T, type, typeDisplayName, type DataType, type TextArray, type Value } from '../../common/types.js';
import { getValue, type Column } from '../../execution/column.js';
import type { AggregateFunction, GroupedAccumulator, ResolvedAggregate, SlidingAccumulator } from './aggregate-function.js';
import { growArr } from './support.js';

class GroupedArrayAgg implements GroupedAccumulator {
  private readonly acc: ((string | null)[] | null)[] = [];
  grow(groups: number): void {
    growArr(this.acc, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0) continue;
      (this.acc[g] ??= []).push(getValue(c, k) as string | null);
    }
  }
  result(g: number): Value {
    return (this.acc[g] ?? null) as TextArray | null;
  }
}

class SlidingArrayAgg implements SlidingAccumulator {
  elems: (string | null)[] = [];
  add(args: readonly Value[]): void {
    this.elems.push(args[0] as string | null);
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
    if (t.name !== 'text' && t.name !== 'unknown') {
      throw new QuireError('0A000', `array_agg over ${typeDisplayName(type(t.name))} is not supported: the only array type is text[]`, {
        hint: 'Cast the argument to text.',
      });
    }
    return {
      name: 'array_agg',
      returnType: T._text,
      argTypes: [T.text],
      invertible: false,
      retainsInput: true,
      grouped: () => new GroupedArrayAgg(),
      sliding: () => new SlidingArrayAgg(),
    };
  },
};
