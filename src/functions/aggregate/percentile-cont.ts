/**
 * percentile_cont(fraction) WITHIN GROUP (ORDER BY x): the value at `fraction` of the way through the
 * sorted non-NULL inputs, interpolated linearly between the two nearest rows (float8 and interval).
 */
import { QuireError } from '../../common/errors.js';
import { Interval } from '../../common/interval.js';
import { T, arrayTypeOf, category, elementType, isArrayType, type ArrayValue, type DataType, type Value } from '../../common/types.js';
import { formatG } from '../scalar/support/float.js';
import type { AggregateFunction, ResolvedAggregate, WithinGroup } from './aggregate-function.js';
import { GroupedOrderedSet, constDirect, noSliding } from './ordered-set.js';

/** The fraction, checked as PostgreSQL does before it looks at the rows; null means a NULL result. */
export function checkedFraction(p: Value): number | null {
  if (p === null) return null;
  const f = p as number;
  if (!(f >= 0 && f <= 1)) throw new QuireError('22003', `percentile value ${formatG(f)} is not between 0 and 1`);
  return f;
}

function interpolate(sorted: readonly Value[], p: Value, lerp: (lo: Value, hi: Value, t: number) => Value): Value {
  const f = checkedFraction(p);
  if (f === null || sorted.length === 0) return null;
  const pos = f * (sorted.length - 1);
  const first = Math.floor(pos);
  const second = Math.ceil(pos);
  if (first === second) return sorted[first]!;
  return lerp(sorted[first]!, sorted[second]!, pos - first);
}

/** The array forms: the fractions are checked before any row is looked at, then each is answered. */
export function eachFraction(one: (sorted: readonly Value[], p: Value) => Value): (sorted: readonly Value[], p: Value) => Value {
  return (sorted, p) => {
    if (p === null || sorted.length === 0) return null;
    const fs = p as ArrayValue;
    for (const f of fs) checkedFraction(f);
    return fs.map((f) => one(sorted, f));
  };
}

const lerpFloat = (lo: Value, hi: Value, t: number): Value => (lo as number) + ((hi as number) - (lo as number)) * t;
const lerpInterval = (lo: Value, hi: Value, t: number): Value => (hi as Interval).sub(lo as Interval).mul(t).add(lo as Interval);

export const percentileCont: AggregateFunction = {
  name: 'percentile_cont',
  withinGroup: 'ordered',
  resolve(argTypes: readonly DataType[], within?: WithinGroup): ResolvedAggregate | null {
    if (within === undefined || within.direct !== 1 || argTypes.length !== 2) return null;
    const [frac, x] = argTypes as [DataType, DataType];
    // percentile_cont(float8[]): one result per fraction, NULL where the fraction is NULL.
    const many = isArrayType(frac) && category(elementType(frac)) === 'N';
    if (!many && category(frac) !== 'N' && frac.name !== 'unknown') return null;
    const interval = x.name === 'interval';
    if (!interval && category(x) !== 'N' && x.name !== 'unknown') return null;
    const lerp = interval ? lerpInterval : lerpFloat;
    const type = interval ? T.interval : T.float8;
    const direct = constDirect(within);
    const one = (sorted: readonly Value[], p: Value): Value => interpolate(sorted, p, lerp);
    return {
      name: 'percentile_cont',
      returnType: many ? arrayTypeOf(type)! : type,
      argTypes: [many ? T._float8 : T.float8, type],
      invertible: false,
      retainsInput: true,
      grouped: () => new GroupedOrderedSet(many ? eachFraction(one) : one, true, direct),
      sliding: () => noSliding('percentile_cont'),
    };
  },
};
