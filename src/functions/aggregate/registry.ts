/** Aggregate functions by (lower-case) name. */
import type { AggregateFunction } from './aggregate-function.js';
import { anyValue } from './any-value.js';
import { avg } from './avg.js';
import { bitAnd, bitOr, bitXor } from './bit.js';
import { boolAnd, boolOr, every } from './bool.js';
import { count, countRow } from './count.js';
import {
  corr,
  covarPop,
  covarSamp,
  regrAvgx,
  regrAvgy,
  regrCount,
  regrIntercept,
  regrR2,
  regrSlope,
  regrSxx,
  regrSxy,
  regrSyy,
} from './regression.js';
import { max, min } from './minmax.js';
import { hypotheticalCumeDist, hypotheticalDenseRank, hypotheticalPercentRank, hypotheticalRank } from './hypothetical-set.js';
import { arrayAgg } from './array-agg.js';
import { jsonAgg } from './json-agg.js';
import { mode } from './mode.js';
import { percentileCont } from './percentile-cont.js';
import { percentileDisc } from './percentile-disc.js';
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
  bitXor,
  anyValue,
  corr,
  covarPop,
  covarSamp,
  regrCount,
  regrAvgx,
  regrAvgy,
  regrSxx,
  regrSyy,
  regrSxy,
  regrSlope,
  regrIntercept,
  regrR2,
  jsonAgg,
  arrayAgg,
  percentileCont,
  percentileDisc,
  mode,
  hypotheticalRank,
  hypotheticalDenseRank,
  hypotheticalPercentRank,
  hypotheticalCumeDist,
]) {
  aggregates.set(a.name, a);
}

/** Aggregates the binder uses internally: found by lookupAggregate, but not callable by name. */
const internal = new Map<string, AggregateFunction>([[countRow.name, countRow]]);

export function lookupAggregate(name: string): AggregateFunction | undefined {
  return aggregates.get(name.toLowerCase()) ?? internal.get(name);
}

/**
 * An aggregate callable with OVER: WITHIN GROUP aggregates are not, and their names (rank, cume_dist, …)
 * are the window functions' there.
 */
export function lookupWindowAggregate(name: string): AggregateFunction | undefined {
  const a = lookupAggregate(name);
  return a?.withinGroup === undefined ? a : undefined;
}

export function isAggregateName(name: string): boolean {
  return aggregates.has(name.toLowerCase());
}

export function aggregateNames(): string[] {
  return [...aggregates.keys()].sort();
}
