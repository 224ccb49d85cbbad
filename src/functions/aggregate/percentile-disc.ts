/**
 * percentile_disc(fraction) WITHIN GROUP (ORDER BY x): the first sorted non-NULL input whose position
 * reaches `fraction` of the rows, for any sortable x.
 */
import { QuireError } from '../../common/errors.js';
import { T, arrayTypeFor, category, elementType, isArrayType, type, type DataType, type Value } from '../../common/types.js';
import type { AggregateFunction, ResolvedAggregate, WithinGroup } from './aggregate-function.js';
import { GroupedOrderedSet, constDirect, noSliding } from './ordered-set.js';
import { checkedFraction, eachFraction } from './percentile-cont.js';

export const percentileDisc: AggregateFunction = {
  name: 'percentile_disc',
  withinGroup: 'ordered',
  resolve(argTypes: readonly DataType[], within?: WithinGroup): ResolvedAggregate | null {
    if (within === undefined || within.direct !== 1 || argTypes.length !== 2) return null;
    const frac = argTypes[0]!;
    const many = isArrayType(frac) && category(elementType(frac)) === 'N';
    if (!many && category(frac) !== 'N' && frac.name !== 'unknown') return null;
    // anyelement: the result keeps the input's type but not its modifier.
    const x = argTypes[1]!.name === 'unknown' ? T.text : type(argTypes[1]!.name);
    const one = (sorted: readonly Value[], p: Value): Value => {
      const f = checkedFraction(p);
      if (f === null || sorted.length === 0) return null;
      return sorted[Math.max(Math.ceil(f * sorted.length), 1) - 1]!;
    };
    if (many && isArrayType(x)) throw new QuireError('0A000', 'percentile_disc with several fractions over an array column is not supported: multidimensional arrays are not supported');
    return {
      name: 'percentile_disc',
      returnType: many ? arrayTypeFor(x) : x,
      argTypes: [many ? T._float8 : T.float8, x],
      invertible: false,
      retainsInput: true,
      grouped: () => new GroupedOrderedSet(many ? eachFraction(one) : one, true, constDirect(within)),
      sliding: () => noSliding('percentile_disc'),
    };
  },
};
