/**
 * Hypothetical-set aggregates rank(args) / dense_rank / percent_rank / cume_dist WITHIN GROUP (ORDER BY
 * …): where a row holding `args` would fall among the group's rows in the WITHIN GROUP order (NULLs
 * take part, placed by NULLS FIRST/LAST). Inputs arrive sorted, so the rows before the hypothetical one
 * are a prefix, and dense_rank counts its runs of peers by comparing neighbours.
 */
import { compareValues } from '../../common/compare.js';
import { T, type DataType, type Value } from '../../common/types.js';
import { getValue, type Column } from '../../common/column.js';
import type { AggregateFunction, GroupedAccumulator, ResolvedAggregate, WithinGroup } from './aggregate-function.js';
import { noSliding } from './ordered-set.js';
import { growArr } from './support.js';

type Kind = 'rank' | 'dense_rank' | 'percent_rank' | 'cume_dist';

interface GroupState {
  hyp: Value[] | null;
  rows: number;
  /** Rows sorting before the hypothetical row, and before or level with it. */
  before: number;
  notAfter: number;
  /** Runs of peers among the rows before it, and the last such row. */
  runs: number;
  last: Value[] | null;
}

class GroupedHypothetical implements GroupedAccumulator {
  private readonly groups: (GroupState | null)[] = [];
  constructor(
    private readonly kind: Kind,
    private readonly types: readonly DataType[],
    private readonly order: WithinGroup['order'],
  ) {}
  grow(groups: number): void {
    growArr(this.groups, groups, null);
  }
  /** Sort-order comparison of two tuples of the ordered columns. */
  private cmp(a: readonly Value[], b: readonly Value[]): number {
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      const y = b[i]!;
      const o = this.order[i]!;
      if (x === null || y === null) {
        if (x === y) continue;
        return (x === null) === o.nullsFirst ? -1 : 1;
      }
      const c = compareValues(x, y, this.types[i]!);
      if (c !== 0) return o.desc ? -c : c;
    }
    return 0;
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const k = this.types.length;
    for (let r = 0; r < n; r++) {
      const g = gids[r]!;
      if (g < 0) continue;
      let s = this.groups[g];
      if (s === null || s === undefined) {
        s = { hyp: null, rows: 0, before: 0, notAfter: 0, runs: 0, last: null };
        this.groups[g] = s;
      }
      if (s.hyp === null) s.hyp = Array.from({ length: k }, (_, i) => getValue(args[i]!, r));
      const row = Array.from({ length: k }, (_, i) => getValue(args[k + i]!, r));
      s.rows++;
      const c = this.cmp(row, s.hyp);
      if (c < 0) {
        s.before++;
        if (s.last === null || this.cmp(s.last, row) !== 0) s.runs++;
        s.last = row;
      }
      if (c <= 0) s.notAfter++;
    }
  }
  result(g: number): Value {
    const s = this.groups[g] ?? null;
    const rows = s?.rows ?? 0;
    switch (this.kind) {
      case 'rank':
        return (s?.before ?? 0) + 1;
      case 'dense_rank':
        return (s?.runs ?? 0) + 1;
      case 'percent_rank':
        return rows === 0 ? 0 : (s?.before ?? 0) / rows;
      case 'cume_dist':
        return ((s?.notAfter ?? 0) + 1) / (rows + 1);
    }
  }
}

function hypothetical(kind: Kind): AggregateFunction {
  return {
    name: kind,
    withinGroup: 'hypothetical',
    resolve(argTypes: readonly DataType[], within?: WithinGroup): ResolvedAggregate | null {
      const k = within?.order.length ?? 0;
      if (within === undefined || k === 0 || within.direct !== k || argTypes.length !== 2 * k) return null;
      // The binder brings each direct argument and its ordered column to one type.
      const types = argTypes.slice(k);
      if (argTypes.slice(0, k).some((t, i) => t.name !== types[i]!.name)) return null;
      return {
        name: kind,
        returnType: kind === 'rank' || kind === 'dense_rank' ? T.int8 : T.float8,
        argTypes,
        invertible: false,
        grouped: () => new GroupedHypothetical(kind, types, within.order),
        sliding: () => noSliding(kind),
      };
    },
  };
}

export const hypotheticalRank = hypothetical('rank');
export const hypotheticalDenseRank = hypothetical('dense_rank');
export const hypotheticalPercentRank = hypothetical('percent_rank');
export const hypotheticalCumeDist = hypothetical('cume_dist');
