/** bit_and / bit_or over int2, int4, int8 (result type = argument type). */
import { T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import type {
  AggregateFunction,
  GroupedAccumulator,
  ResolvedAggregate,
  SlidingAccumulator,
} from './aggregate-function.js';
import { growArr, growI32, growU8, int8Of } from './support.js';

class GroupedBit32 implements GroupedAccumulator {
  private st = new Int32Array(0);
  private seen = new Uint8Array(0);
  constructor(private readonly isAnd: boolean) {}
  grow(groups: number): void {
    this.st = growI32(this.st, groups);
    this.seen = growU8(this.seen, groups);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Int32Array;
    const nulls = c.nulls;
    const st = this.st;
    const seen = this.seen;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      if (seen[g] === 0) {
        st[g] = v;
        seen[g] = 1;
      } else st[g] = this.isAnd ? st[g]! & v : st[g]! | v;
    }
  }
  result(g: number): Value {
    return this.seen[g] === 1 ? this.st[g]! : null;
  }
}

/** int8 needs 64-bit bitwise operations, i.e. bigint. */
class GroupedBit64 implements GroupedAccumulator {
  private readonly st: (bigint | null)[] = [];
  constructor(private readonly isAnd: boolean) {}
  grow(groups: number): void {
    growArr(this.st, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data;
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const raw = d[k] as number | bigint | null;
      if (raw === null) continue;
      const v = BigInt(raw);
      const cur = this.st[g]!;
      this.st[g] = cur === null ? v : this.isAnd ? cur & v : cur | v;
    }
  }
  result(g: number): Value {
    const s = this.st[g]!;
    return s === null ? null : int8Of(s);
  }
}

class SlidingBit implements SlidingAccumulator {
  private cur: bigint | null = null;
  constructor(
    private readonly isAnd: boolean,
    private readonly int8: boolean,
  ) {}
  add(args: readonly Value[]): void {
    const raw = args[0] as number | bigint | null;
    if (raw === null) return;
    const v = BigInt(raw);
    this.cur = this.cur === null ? v : this.isAnd ? this.cur & v : this.cur | v;
  }
  merge(other: SlidingAccumulator): void {
    const o = (other as SlidingBit).cur;
    if (o !== null) this.add([o]);
  }
  value(): Value {
    if (this.cur === null) return null;
    return this.int8 ? int8Of(this.cur) : Number(this.cur);
  }
  reset(): void {
    this.cur = null;
  }
}

function bitAgg(name: string, isAnd: boolean): AggregateFunction {
  return {
    name,
    resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
      if (argTypes.length !== 1) return null;
      const n = argTypes[0]!.name;
      if (n !== 'int2' && n !== 'int4' && n !== 'int8') return null;
      const t = T[n];
      return {
        name,
        returnType: t,
        argTypes: [t],
        invertible: false,
        grouped: () => (n === 'int8' ? new GroupedBit64(isAnd) : new GroupedBit32(isAnd)),
        sliding: () => new SlidingBit(isAnd, n === 'int8'),
      };
    },
  };
}

export const bitAnd = bitAgg('bit_and', true);
export const bitOr = bitAgg('bit_or', false);
