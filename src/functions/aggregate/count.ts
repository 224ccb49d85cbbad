/** count(*) and count(x): int8, never NULL. count(x) skips NULLs of any type. */
import { T, type DataType, type Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import type {
  AggregateFunction,
  GroupedAccumulator,
  InlineCode,
  InlineStep,
  ResolvedAggregate,
  SlidingAccumulator,
} from './aggregate-function.js';
import { growF64 } from './support.js';
import { anchorShape } from '../../common/shape-anchor.js';

class GroupedCount implements GroupedAccumulator {
  // A double counts exactly up to 2^53 rows per group, far beyond what fits in memory.
  private counts = new Float64Array(0);

  constructor(private readonly star: boolean) {}

  grow(groups: number): void {
    this.counts = growF64(this.counts, groups);
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const counts = this.counts;
    const nulls = this.star ? null : args[0]!.nulls;
    if (nulls === null) {
      for (let k = 0; k < n; k++) {
        const g = gids[k]!;
        if (g >= 0) counts[g]++;
      }
    } else {
      for (let k = 0; k < n; k++) {
        const g = gids[k]!;
        if (g >= 0 && nulls[k] === 0) counts[g]++;
      }
    }
  }

  updateSel(gids: Int32Array, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const counts = this.counts;
    const nulls = this.star ? null : args[0]!.nulls;
    if (nulls === null) for (let k = 0; k < n; k++) counts[gids[k]!]++;
    else for (let k = 0; k < n; k++) counts[gids[k]!] += 1 - nulls[sel[k]!]!;
  }

  countsRowsOnly(args: readonly Column[]): boolean {
    return this.star || args[0]!.nulls === null;
  }

  addRowCounts(perGroup: Float64Array, groups: number): void {
    const counts = this.counts;
    for (let g = 0; g < groups; g++) counts[g] += perGroup[g]!;
  }

  updateGroup(g: number, n: number, args: readonly Column[]): void {
    const nulls = this.star ? null : args[0]!.nulls;
    let c = n;
    if (nulls !== null) for (let k = 0; k < n; k++) c -= nulls[k]!;
    this.counts[g] += c;
  }

  updateGroupSel(g: number, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const nulls = this.star ? null : args[0]!.nulls;
    let c = n;
    if (nulls !== null) for (let k = 0; k < n; k++) c -= nulls[sel[k]!]!;
    this.counts[g] += c;
  }

  inlineStep(args: readonly Column[]): InlineStep | null {
    if (!this.star && args[0]!.nulls !== null) return { refs: [this.counts], code: countStep, argUnused: true, skipsNulls: true };
    return { refs: [this.counts], code: countStep, argUnused: true, countsRows: true };
  }

  result(g: number): Value {
    return this.counts[g]!;
  }
}

const countStep = (ref: (i: number) => string, g: string): InlineCode => ({ compute: '', ok: 'true', store: `${ref(0)}[${g}]++;` });

class SlidingCount implements SlidingAccumulator {
  n = 0;
  constructor(private readonly star: boolean) {}
  add(args: readonly Value[]): void {
    if (this.star || args[0] !== null) this.n++;
  }
  remove(args: readonly Value[]): void {
    if (this.star || args[0] !== null) this.n--;
  }
  merge(other: SlidingAccumulator): void {
    this.n += (other as SlidingCount).n;
  }
  value(): Value {
    return this.n;
  }
  reset(): void {
    this.n = 0;
  }
}

/** count(*) (star: every row counts) or count(x) (non-NULL inputs only). */
function resolvedCount(argTypes: readonly DataType[], star: boolean): ResolvedAggregate {
  return {
    name: 'count',
    returnType: T.int8,
    argTypes: [...argTypes],
    invertible: true,
    grouped: () => new GroupedCount(star),
    sliding: () => new SlidingCount(star),
  };
}

export const count: AggregateFunction = {
  name: 'count',
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    if (argTypes.length > 1) return null;
    return resolvedCount(argTypes, argTypes.length === 0);
  },
};

/**
 * count((a, b)) / count(DISTINCT (a, b)) over the fields of one row value (built by the binder only, never
 * callable by name): a row is never NULL, so every row counts, as for count(*); DISTINCT compares the fields.
 */
export const ROW_COUNT_AGGREGATE = 'count(row)';
export const countRow: AggregateFunction = {
  name: ROW_COUNT_AGGREGATE,
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    return resolvedCount(argTypes, true);
  },
};

// Long-lived instances keep the shapes the optimized update/result loops check, so code optimized by
// one query serves the next (see shape-anchor.ts).
anchorShape(new GroupedCount(true));
anchorShape(new SlidingCount(true));
