/**
 * Planner choices for memory-bounded execution, kept out of planner.ts so the wiring there is a couple
 * of calls:
 *
 *   - every Sort is an ExternalSort: without memory pressure it runs the in-memory sort unchanged, so it
 *     costs nothing, and under pressure it spills instead of exhausting the V8 heap;
 *   - GROUP BY becomes a HybridHashAggregate when the session set memory_limit explicitly (SET, library
 *     settings, `quire --set`): it streams like HashAggregate and writes hash partitions under pressure;
 *     aggregates whose state grows with the input (DISTINCT, ORDER BY inside the call, string_agg, …)
 *     buffer their input there first, so it is only used when the user asked for a bound.
 *     Aggregates without GROUP BY stay HashAggregate (constant state).
 *
 * plan-window.ts can use makeSort for the sort below a Window, so windows run over spilled sorted input
 * (the Window operator streams partition by partition and never holds more than the current one).
 */
import type { Schema } from '../common/types.js';
import type { ExecContext } from '../execution/context.js';
import { memoryLimitExplicit } from '../execution/memory-pool.js';
import type { PhysicalOperator } from './operator.js';
import { ExternalSort } from './operators/external-sort.js';
import { HashAggregate, type HashAggregateConfig } from './operators/hash-aggregate.js';
import type { Sort } from './operators/sort.js';
import { HybridHashAggregate } from './operators/hybrid-hash-aggregate.js';
import type { SortKey } from './sort-key.js';

export function makeSort(input: PhysicalOperator, keys: readonly SortKey[], offset = 0, groupPrefix = 0): Sort {
  return new ExternalSort(input, keys, offset, groupPrefix);
}

export function makeAggregate(input: PhysicalOperator, config: HashAggregateConfig, schema: Schema | undefined, ctx: ExecContext): PhysicalOperator {
  if (config.keyCount > 0 && memoryLimitExplicit(ctx)) return new HybridHashAggregate(input, config, schema);
  return new HashAggregate(input, config, schema);
}
