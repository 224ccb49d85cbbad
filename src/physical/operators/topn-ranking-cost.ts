/**
 * The cost guard of the hashed per-partition Top-N (topn-ranking.ts): after a probe of the input, is
 * pruning worth it, or is it cheaper to pass every row to the sort and the ranking filter above?
 *
 * Pruning costs one hash probe and usually one comparison per input row, and the rows it keeps are sorted
 * above anyway; passing through saves the probes but sorts every row. The sort costs several times a
 * probe per row, so pruning pays unless nearly every row would be kept, i.e. unless k × partitions comes
 * close to the input size. The number of partitions the whole input will have is estimated from the
 * probe: with rows spread over P partitions, n rows touch P·(1 − e^(−n/P)) of them on average, which is
 * solved for P; a partition of the full input then holds Poisson(N/P) rows, of which min(k, ·) are kept.
 */

/** Kept fraction of the input above which sorting everything is cheaper than pruning. */
export const SORT_AND_FILTER_ABOVE = 0.7;

export interface TopNRankingEstimate {
  /** Estimated partitions of the whole input. */
  partitions: number;
  /** Estimated rows kept out of `rows`. */
  kept: number;
  rows: number;
  /** True when pruning should stop (sort-and-filter). */
  sortAndFilter: boolean;
  /**
   * True when the estimate is far enough past the threshold to act on before the full probe (a partial
   * probe sees fewer repeats of each partition, so its estimate is rougher), and rests on repeated keys:
   * a probe that saw every key once may be reading the partitions in turn (keys cycling through the
   * input), which only the full probe can tell.
   */
  clearlySortAndFilter: boolean;
}

/** Kept fraction above which a partial probe may already give up on pruning. */
export const CLEARLY_SORT_AND_FILTER_ABOVE = 0.85;

/** Expected partitions overall, from `seenPartitions` distinct keys in the first `seenRows` rows. */
export function estimatePartitions(seenPartitions: number, seenRows: number): number {
  if (seenPartitions <= 0 || seenRows <= 0) return 0;
  // Nearly every row opened a partition: no evidence of a bound, assume one row per partition.
  if (seenPartitions >= seenRows * 0.995) return Infinity;
  const touched = (p: number): number => p * -Math.expm1(-seenRows / p);
  let lo = seenPartitions;
  let hi = seenPartitions * 2;
  while (touched(hi) < seenPartitions && hi < 1e15) hi *= 2;
  for (let i = 0; i < 60 && hi - lo > 0.5; i++) {
    const mid = (lo + hi) / 2;
    if (touched(mid) < seenPartitions) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** E[min(k, X)] for X ~ Poisson(lambda): the rows a partition keeps on average. */
function keptPerPartition(k: number, lambda: number): number {
  // Sum over j < k of P(X > j); terms vanish well before j = lambda + 40·sqrt(lambda) + 40.
  const last = Math.min(k, Math.ceil(lambda + 40 * Math.sqrt(lambda) + 40));
  let pmf = Math.exp(-lambda);
  let cdf = 0;
  let sum = 0;
  for (let j = 0; j < last; j++) {
    cdf += pmf;
    sum += Math.max(0, 1 - cdf);
    pmf *= lambda / (j + 1);
  }
  return sum;
}

/**
 * The decision after the probe: `keptNow` rows kept (after the cutoff) in `seenPartitions` partitions of
 * the first `seenRows` rows; the input is expected to have `expectedRows` rows in all (at least seenRows).
 */
export function estimateTopNRanking(k: number, seenPartitions: number, seenRows: number, keptNow: number, expectedRows: number): TopNRankingEstimate {
  const rows = Math.max(expectedRows, seenRows);
  const p = estimatePartitions(seenPartitions, seenRows);
  let kept: number;
  if (p === Infinity) kept = rows;
  else if (p === 0) kept = 0;
  else {
    kept = p * keptPerPartition(k, rows / p);
    // Ties (rank / dense_rank keep every peer) or skew keep more than the model says; peer groups grow
    // with the input, so the probe's surplus over the model is scaled up with it.
    const modelNow = p * keptPerPartition(k, seenRows / p);
    if (keptNow > modelNow) kept += (keptNow - modelNow) * (rows / seenRows);
    kept = Math.min(rows, kept);
  }
  return { partitions: p, kept, rows, sortAndFilter: kept > SORT_AND_FILTER_ABOVE * rows, clearlySortAndFilter: Number.isFinite(p) && kept > CLEARLY_SORT_AND_FILTER_ABOVE * rows };
}
