/** bool_and / every and bool_or over boolean: NULL when no non-null input. */
import { T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import type {
  AggregateFunction,
  GroupedAccumulator,
  ResolvedAggregate,
  SlidingAccumulator,
} from './aggregate-function.js';
import { growU8 } from './support.js';

class GroupedBool implements GroupedAccumulator {
  /** 0 = no input yet, 1 = false, 2 = true. */
  private st = new Uint8Array(0);
  constructor(private readonly isAnd: boolean) {}
  grow(groups: number): void {
    this.st = growU8(this.st, groups);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Uint8Array;
    const nulls = c.nulls;
    const st = this.st;
    // and: any false makes it false; or: any true makes it true. The absorbing value is written outright,
    // the other one only fills an empty state.
    const absorbing = this.isAnd ? 0 : 1;
    const absorbState = absorbing + 1;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      if (v === absorbing) st[g] = absorbState;
      else if (st[g] === 0) st[g] = v + 1;
    }
  }
  result(g: number): Value {
    const s = this.st[g]!;
    return s === 0 ? null : s === 2;
  }
}

/** PostgreSQL's bool_accum: counts of non-null and of true inputs, so remove() is exact. */
class SlidingBool implements SlidingAccumulator {
  n = 0;
  trues = 0;
  constructor(private readonly isAnd: boolean) {}
  add(args: readonly Value[]): void {
    const v = args[0];
    if (v === null) return;
    this.n++;
    if (v === true) this.trues++;
  }
  remove(args: readonly Value[]): void {
    const v = args[0];
    if (v === null) return;
    this.n--;
    if (v === true) this.trues--;
  }
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingBool;
    this.n += o.n;
    this.trues += o.trues;
  }
  value(): Value {
    if (this.n === 0) return null;
    return this.isAnd ? this.trues === this.n : this.trues > 0;
  }
  reset(): void {
    this.n = this.trues = 0;
  }
}

function boolAgg(name: string, isAnd: boolean): AggregateFunction {
  return {
    name,
    resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
      if (argTypes.length !== 1 || (argTypes[0]!.name !== 'bool' && argTypes[0]!.name !== 'unknown')) return null;
      return {
        name,
        returnType: T.bool,
        argTypes: [T.bool],
        invertible: true,
        grouped: () => new GroupedBool(isAnd),
        sliding: () => new SlidingBool(isAnd),
      };
    },
  };
}

export const boolAnd = boolAgg('bool_and', true);
export const every = boolAgg('every', true);
export const boolOr = boolAgg('bool_or', false);
