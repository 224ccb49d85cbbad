/**
 * mode() WITHIN GROUP (ORDER BY x): the most frequent non-NULL input; among equally frequent ones, the
 * first in the sort order. Inputs arrive sorted, so equal values are adjacent runs.
 */
import { equalValues } from '../../common/compare.js';
import { T, type, type DataType, type Value } from '../../common/types.js';
import type { AggregateFunction, ResolvedAggregate, WithinGroup } from './aggregate-function.js';
import { GroupedOrderedSet, noSliding } from './ordered-set.js';

function longestRun(sorted: readonly Value[], t: DataType): Value {
  let best: Value = null;
  let bestLen = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i + 1;
    while (j < sorted.length && equalValues(sorted[j]!, sorted[i]!, t)) j++;
    if (j - i > bestLen) {
      bestLen = j - i;
      best = sorted[i]!;
    }
    i = j;
  }
  return best;
}

export const mode: AggregateFunction = {
  name: 'mode',
  withinGroup: 'ordered',
  resolve(argTypes: readonly DataType[], within?: WithinGroup): ResolvedAggregate | null {
    if (within === undefined || within.direct !== 0 || argTypes.length !== 1) return null;
    const x = argTypes[0]!.name === 'unknown' ? T.text : type(argTypes[0]!.name);
    return {
      name: 'mode',
      returnType: x,
      argTypes: [x],
      invertible: false,
      retainsInput: true,
      grouped: () => new GroupedOrderedSet((sorted) => longestRun(sorted, x), false, undefined),
      sliding: () => noSliding('mode'),
    };
  },
};
