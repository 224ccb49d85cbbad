/** any_value(x) (PostgreSQL 16): some non-null input value of the group; NULL when there is none. */
import type { DataType, Value } from '../../common/types.js';
import { getValue, type Column } from '../../common/column.js';
import type { AggregateFunction, GroupedAccumulator, ResolvedAggregate, SlidingAccumulator } from './aggregate-function.js';

class GroupedAnyValue implements GroupedAccumulator {
  private vals: Value[] = [];
  grow(groups: number): void {
    while (this.vals.length < groups) this.vals.push(null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const vals = this.vals;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      // The first non-null value wins, which makes the choice deterministic for a given input order.
      if (g < 0 || vals[g] !== null) continue;
      vals[g] = getValue(c, k);
    }
  }
  result(g: number): Value {
    return this.vals[g] ?? null;
  }
}

class SlidingAnyValue implements SlidingAccumulator {
  private v: Value = null;
  add(args: readonly Value[]): void {
    if (this.v === null) this.v = args[0] ?? null;
  }
  merge(other: SlidingAccumulator): void {
    if (this.v === null) this.v = (other as SlidingAnyValue).v;
  }
  value(): Value {
    return this.v;
  }
  reset(): void {
    this.v = null;
  }
}

export const anyValue: AggregateFunction = {
  name: 'any_value',
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    if (argTypes.length !== 1) return null;
    const t = argTypes[0]!;
    return {
      name: 'any_value',
      returnType: t,
      argTypes: [t],
      invertible: false,
      grouped: () => new GroupedAnyValue(),
      sliding: () => new SlidingAnyValue(),
    };
  },
};
