/** bit_and / bit_or / bit_xor over int2, int4, int8 and bit strings (result type = argument type). */
import { T, type DataType, type Value } from '../../common/types.js';
import { bitAnd as bitsAnd, bitOr as bitsOr, bitXor as bitsXor } from '../../common/bit-string.js';
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
  constructor(private readonly op: BitOp) {}
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
      } else st[g] = this.op === 'and' ? st[g]! & v : this.op === 'or' ? st[g]! | v : st[g]! ^ v;
    }
  }
  result(g: number): Value {
    return this.seen[g] === 1 ? this.st[g]! : null;
  }
}

/** int8 needs 64-bit bitwise operations, i.e. bigint. */
class GroupedBit64 implements GroupedAccumulator {
  private readonly st: (bigint | null)[] = [];
  constructor(private readonly op: BitOp) {}
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
      this.st[g] = cur === null ? v : combineBig(this.op, cur, v);
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
    private readonly op: BitOp,
    private readonly int8: boolean,
  ) {}
  add(args: readonly Value[]): void {
    const raw = args[0] as number | bigint | null;
    if (raw === null) return;
    const v = BigInt(raw);
    this.cur = this.cur === null ? v : combineBig(this.op, this.cur, v);
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

/** Bit strings: same-length operands only, as the bit operators (22026 otherwise). */
class GroupedBitString implements GroupedAccumulator {
  private readonly st: (string | null)[] = [];
  constructor(private readonly op: BitOp) {}
  grow(groups: number): void {
    growArr(this.st, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Value[];
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k] as string | null;
      if (v === null) continue;
      const cur = this.st[g]!;
      this.st[g] = cur === null ? v : combineBits(this.op, cur, v);
    }
  }
  result(g: number): Value {
    return this.st[g]!;
  }
}

class SlidingBitString implements SlidingAccumulator {
  private cur: string | null = null;
  constructor(private readonly op: BitOp) {}
  add(args: readonly Value[]): void {
    const v = args[0] as string | null;
    if (v === null) return;
    this.cur = this.cur === null ? v : combineBits(this.op, this.cur, v);
  }
  merge(other: SlidingAccumulator): void {
    const o = (other as SlidingBitString).cur;
    if (o !== null) this.add([o]);
  }
  value(): Value {
    return this.cur;
  }
  reset(): void {
    this.cur = null;
  }
}

type BitOp = 'and' | 'or' | 'xor';

function combineBig(op: BitOp, a: bigint, b: bigint): bigint {
  return op === 'and' ? a & b : op === 'or' ? a | b : a ^ b;
}

function combineBits(op: BitOp, a: string, b: string): string {
  return op === 'and' ? bitsAnd(a, b) : op === 'or' ? bitsOr(a, b) : bitsXor(a, b);
}

function bitAgg(name: string, op: BitOp): AggregateFunction {
  return {
    name,
    resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
      if (argTypes.length !== 1) return null;
      const n = argTypes[0]!.name;
      if (n === 'bit' || n === 'varbit') {
        return {
          name,
          returnType: T.bit,
          argTypes: [T.bit],
          invertible: false,
          grouped: () => new GroupedBitString(op),
          sliding: () => new SlidingBitString(op),
        };
      }
      if (n !== 'int2' && n !== 'int4' && n !== 'int8') return null;
      const t = T[n];
      return {
        name,
        returnType: t,
        argTypes: [t],
        invertible: false,
        grouped: () => (n === 'int8' ? new GroupedBit64(op) : new GroupedBit32(op)),
        sliding: () => new SlidingBit(op, n === 'int8'),
      };
    },
  };
}

export const bitAnd = bitAgg('bit_and', 'and');
export const bitOr = bitAgg('bit_or', 'or');
export const bitXor = bitAgg('bit_xor', 'xor');
