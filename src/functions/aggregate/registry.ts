/** Aggregate functions by (lower-case) name. */
import type { AggregateFunction } from './aggregate-function.js';
import { anyValue } from './any-value.js';
import { avg } from './avg.js';
import { bitAnd, bitOr } from './bit.js';
import { boolAnd, boolOr, every } from './bool.js';
import { count } from './count.js';
import { max, min } from './minmax.js';
import { stringAgg } from './string-agg.js';
import { sum } from './sum.js';
import { stddev, stddevPop, stddevSamp, variance, varPop, varSamp } from './variance.js';

const aggregates = new Map<string, AggregateFunction>();
for (const a of [
  count,
  sum,
  avg,
  min,
  max,
  boolAnd,
  boolOr,
  every,
  stringAgg,
  stddev,
  stddevSamp,
  stddevPop,
  variance,
  varSamp,
  varPop,
  bitAnd,
  bitOr,
  anyValue,
]) {
  aggregates.set(a.name, a);
}

export function lookupAggregate(name: string): AggregateFunction | undefined {
  return aggregates.get(name.toLowerCase());
}

export function isAggregateName(name: string): boolean {
  return aggregates.has(name.toLowerCase());
}

export function aggregateNames(): string[] {
  return [...aggregates.keys()].sort();
}
