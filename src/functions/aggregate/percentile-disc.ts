/**
 * percentile_disc(fraction) WITHIN GROUP (ORDER BY x): the first sorted non-NULL input whose position
 * reaches `fraction` of the rows, for any sortable x.
 */
import { T, type, type DataType } from '../../common/types.js';
import type { AggregateFunction, ResolvedAggregate, WithinGroup } from './aggregate-function.js';
import { GroupedOrderedSet, constDirect, noSliding } from './ordered-set.js';
import { checkedFraction } from './percentile-cont.js';

export const percentileDisc: AggregateFunction = {
  name: 'percentile_disc',
  withinGroup: 'ordered',
  resolve(argTypes: readonly DataType[], within?: WithinGroup): ResolvedAggregate | null {
    if (within === undefined || within.direct !== 1 || argTypes.length !== 2) return null;
    const frac = argTypes[0]!;
    if (frac.name !== 'float8' && frac.name !== 'float4' && frac.name !== 'numeric' && !frac.name.startsWith('int') && frac.name !== 'unknown') return null;
    // anyelement: the result keeps the input's type but not its modifier.
    const x = argTypes[1]!.name === 'unknown' ? T.text : type(argTypes[1]!.name);
    return {
      name: 'percentile_disc',
      returnType: x,
      argTypes: [T.float8, x],
      invertible: false,
      retainsInput: true,
      grouped: () =>
        new GroupedOrderedSet(
          (sorted, p) => {
            const f = checkedFraction(p);
            if (f === null || sorted.length === 0) return null;
            return sorted[Math.max(Math.ceil(f * sorted.length), 1) - 1]!;
          },
          true,
          constDirect(within),
        ),
      sliding: () => noSliding('percentile_disc'),
    };
  },
};
