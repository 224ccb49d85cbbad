/**
 * string_agg(value text, delimiter text) → text, and string_agg(bytea, bytea) → bytea. Not strict: a NULL value is skipped, a NULL delimiter
 * contributes nothing. Each value after the first is preceded by its own row's delimiter (PostgreSQL
 * appends every row's delimiter and strips the first one in the final function).
 */
import { T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import type {
  AggregateFunction,
  GroupedAccumulator,
  ResolvedAggregate,
  SlidingAccumulator,
} from './aggregate-function.js';
import { growArr } from './support.js';

class GroupedStringAgg implements GroupedAccumulator {
  /**
   * Per group: its first value, then (from the second value on) its pieces, values and delimiters,
   * joined once by result(). Appending to a string per row would make two rope nodes per row that all
   * stay alive to the end: millions of small survivors for every young-generation collection to copy,
   * and those collections, not the appending, were what held the event loop.
   */
  private readonly acc: (string | string[] | null)[] = [];
  grow(groups: number): void {
    growArr(this.acc, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const vc = args[0]!;
    const dc = args[1]!;
    const vd = vc.data as Value[];
    const vn = vc.nulls;
    const dd = dc.data as Value[];
    const dn = dc.nulls;
    const acc = this.acc;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (vn !== null && vn[k] === 1)) continue;
      const v = vd[k] as string | null;
      if (v === null) continue;
      const cur = acc[g]!;
      if (cur === null) {
        acc[g] = v;
        continue;
      }
      const delim = dn !== null && dn[k] === 1 ? null : (dd[k] as string | null);
      if (typeof cur === 'string') acc[g] = delim === null || delim === '' ? [cur, v] : [cur, delim, v];
      else {
        if (delim !== null && delim !== '') cur.push(delim);
        cur.push(v);
      }
    }
  }
  result(g: number): Value {
    const a = this.acc[g]!;
    if (a === null || typeof a === 'string') return a;
    const s = a.join('');
    this.acc[g] = s;
    return s;
  }
}

class SlidingStringAgg implements SlidingAccumulator {
  /** Everything after the first value's delimiter; firstDelim is kept so merge() can join states. */
  s: string | null = null;
  firstDelim = '';
  add(args: readonly Value[]): void {
    const v = args[0] as string | null;
    if (v === null) return;
    const d = (args[1] as string | null) ?? '';
    if (this.s === null) {
      this.s = v;
      this.firstDelim = d;
    } else this.s += d + v;
  }
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingStringAgg;
    if (o.s === null) return;
    if (this.s === null) {
      this.s = o.s;
      this.firstDelim = o.firstDelim;
    } else this.s += o.firstDelim + o.s;
  }
  value(): Value {
    return this.s;
  }
  reset(): void {
    this.s = null;
    this.firstDelim = '';
  }
}

function isTextLike(t: DataType): boolean {
  return t.name === 'text' || t.name === 'varchar' || t.name === 'bpchar' || t.name === 'name' || t.name === 'unknown';
}

export const stringAgg: AggregateFunction = {
  name: 'string_agg',
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    if (argTypes.length !== 2) return null;
    // string_agg(bytea, bytea): bytea values are strings of bytes (see types.ts), joined the same way.
    const bytes = argTypes[0]!.name === 'bytea' && (argTypes[1]!.name === 'bytea' || argTypes[1]!.name === 'unknown');
    if (!bytes && (!isTextLike(argTypes[0]!) || !isTextLike(argTypes[1]!))) return null;
    const t = bytes ? T.bytea : T.text;
    return {
      name: 'string_agg',
      returnType: t,
      argTypes: [t, t],
      invertible: false,
      retainsInput: true,
      grouped: () => new GroupedStringAgg(),
      sliding: () => new SlidingStringAgg(),
    };
  },
};
