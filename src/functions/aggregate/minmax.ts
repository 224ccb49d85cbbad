/**
 * min() and max() over every orderable type, result type = argument type (varchar and unknown resolve to
 * text as in PostgreSQL's catalog; there is no min/max(boolean)). Like PostgreSQL's *larger/*smaller
 * transition functions, the new value replaces the state on ties: max(1.0, 1.00) is 1.00, which shows
 * in numeric display scales and in -0 vs 0 for floats. Floats order NaN above everything.
 */
import { compareValues } from '../../common/compare.js';
import { T, storageKind, type DataType, type Value } from '../../common/types.js';
import { takeColumn, type Column } from '../../common/column.js';
import type {
  AggregateFunction,
  GroupedAccumulator,
  ResolvedAggregate,
  SlidingAccumulator,
} from './aggregate-function.js';
import { growArr, growF64, growU8 } from './support.js';
import { GroupedNumericMinMax } from './scaled-numeric-minmax.js';
import { anchorShape } from '../../common/shape-anchor.js';

/**
 * Typed state (Float64Array) for types stored as numbers; switches to Value[] state the first time an
 * int8 column arrives widened to a plain array (a value beyond ±2^53 somewhere in the batch).
 */
class GroupedMinMax implements GroupedAccumulator {
  private num = new Float64Array(0);
  private seen = new Uint8Array(0);
  private obj: Value[] | null;
  private groups = 0;

  constructor(
    private readonly type: DataType,
    private readonly isMax: boolean,
  ) {
    this.obj = storageKind(type) === 'obj' ? [] : null;
  }

  grow(groups: number): void {
    this.groups = Math.max(this.groups, groups);
    if (this.obj !== null) growArr(this.obj, groups, null);
    else {
      this.num = growF64(this.num, groups);
      this.seen = growU8(this.seen, groups);
    }
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data;
    if (Array.isArray(d)) {
      if (this.obj === null) this.widen();
      this.updateObj(gids, n, d, c.nulls);
    } else if (this.obj !== null) {
      // Typed batch after widening: values are numbers, compare them generically.
      const vals: Value[] = new Array(n);
      for (let k = 0; k < n; k++) vals[k] = d[k]!;
      this.updateObj(gids, n, vals, c.nulls);
    } else {
      this.updateTyped(gids, n, d as Float64Array, c.nulls);
    }
  }

  /** update() over rows sel[0..n) of a filter's uncopied batch: typed columns are read in place. */
  updateSel(gids: Int32Array, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data;
    if (Array.isArray(d) || this.obj !== null) {
      this.update(gids, n, [takeColumn(c, sel, n)]);
      return;
    }
    const st = this.num;
    const seen = this.seen;
    const isMax = this.isMax;
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const i = sel[k]!;
      if (nulls !== null && nulls[i] === 1) continue;
      const g = gids[k]!;
      const v = d[i]!;
      if (seen[g] === 0) {
        st[g] = v;
        seen[g] = 1;
        continue;
      }
      const cur = st[g]!;
      const keep = isMax ? cur > v || (cur !== cur && v === v) : v > cur || (v !== v && cur === cur);
      if (!keep) st[g] = v;
    }
  }

  private updateTyped(gids: Int32Array, n: number, d: Float64Array | Int32Array, nulls: Uint8Array | null): void {
    const st = this.num;
    const seen = this.seen;
    const isMax = this.isMax;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      if (seen[g] === 0) {
        st[g] = v;
        seen[g] = 1;
        continue;
      }
      const cur = st[g]!;
      // Keep the state only when it is strictly better; NaN is the largest float (the NaN tests are
      // always false for integer and datetime types).
      const keep = isMax ? cur > v || (cur !== cur && v === v) : v > cur || (v !== v && cur === cur);
      if (!keep) st[g] = v;
    }
  }

  private updateObj(gids: Int32Array, n: number, d: Value[], nulls: Uint8Array | null): void {
    const st = this.obj!;
    const t = this.type;
    const sign = this.isMax ? 1 : -1;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k]!;
      if (v === null) continue;
      const cur = st[g]!;
      if (cur === null || compareValues(cur, v, t) * sign <= 0) st[g] = v;
    }
  }

  private widen(): void {
    const o: Value[] = new Array(this.groups);
    for (let g = 0; g < this.groups; g++) o[g] = this.seen[g] === 1 ? this.num[g]! : null;
    this.obj = o;
  }

  result(g: number): Value {
    if (this.obj !== null) return this.obj[g] ?? null;
    return this.seen[g] === 1 ? this.num[g]! : null;
  }
}

class SlidingMinMax implements SlidingAccumulator {
  private cur: Value = null;
  constructor(
    private readonly type: DataType,
    private readonly isMax: boolean,
  ) {}
  add(args: readonly Value[]): void {
    const v = args[0]!;
    if (v === null) return;
    if (this.cur === null || compareValues(this.cur, v, this.type) * (this.isMax ? 1 : -1) <= 0) this.cur = v;
  }
  merge(other: SlidingAccumulator): void {
    this.add([(other as SlidingMinMax).cur]);
  }
  value(): Value {
    return this.cur;
  }
  reset(): void {
    this.cur = null;
  }
}

function orderableType(t: DataType): DataType | null {
  switch (t.name) {
    case 'varchar':
    // name has no min/max of its own: PostgreSQL resolves min(name) to min(text) through the implicit cast.
    case 'name':
    case 'unknown':
    case 'text':
      return T.text;
    case 'bool':
    case 'json':
    case 'point':
      return null;
    default:
      return T[t.name];
  }
}

function minmax(name: 'min' | 'max'): AggregateFunction {
  const isMax = name === 'max';
  return {
    name,
    resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
      if (argTypes.length !== 1) return null;
      const t = orderableType(argTypes[0]!);
      if (t === null) return null;
      return {
        name,
        returnType: t,
        argTypes: [t],
        invertible: false,
        // numeric compares a scaled column's doubles (scaled-numeric-minmax.ts) instead of Numerics.
        grouped: () => (t.name === 'numeric' ? new GroupedNumericMinMax(isMax) : new GroupedMinMax(t, isMax)),
        sliding: () => new SlidingMinMax(t, isMax),
      };
    },
  };
}

export const min = minmax('min');
export const max = minmax('max');

// Long-lived instances keep the shapes the optimized update/result loops check, so code optimized by
// one query serves the next (see shape-anchor.ts).
anchorShape(new GroupedMinMax(T.float8, false));
anchorShape(new SlidingMinMax(T.float8, false));
