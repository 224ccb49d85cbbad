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
import { Filter } from './operators/filter.js';
import { HashAggregate, type HashAggregateConfig } from './operators/hash-aggregate.js';
import { Project } from './operators/project.js';
import { TableFunctionScan } from './operators/table-function-scan.js';
import type { Sort } from './operators/sort.js';
import { HybridHashAggregate } from './operators/hybrid-hash-aggregate.js';
import type { SortKey } from './sort-key.js';

export function makeSort(input: PhysicalOperator, keys: readonly SortKey[], offset = 0, groupPrefix = 0): Sort {
  return new ExternalSort(input, keys, offset, groupPrefix);
}

export function makeAggregate(input: PhysicalOperator, config: HashAggregateConfig, schema: Schema | undefined, ctx: ExecContext): PhysicalOperator {
  if (config.keyCount > 0 && memoryLimitExplicit(ctx)) return new HybridHashAggregate(input, config, schema);
  markBatchesDropped(input, config);
  return new HashAggregate(input, config, schema);
}

/**
 * Aggregates whose state takes values out of each batch (numbers, or strings and objects the batch
 * shares) and keeps no reference to a batch's arrays: checked one by one, so a new aggregate is left
 * out until it is.
 */
const DROPPING_AGGREGATES = new Set(['count', 'count(row)', 'sum', 'avg', 'min', 'max']);

/**
 * A HashAggregate (not the spilling form, which may hold batches in its partitions) over a table
 * function, through Filters and Projects that pass each batch on before pulling the next, is done with
 * each batch before it pulls the next when its aggregates keep nothing of their input: the function
 * may then decode into arrays it reuses (read_parquet's row groups). Any other operator on the way
 * (a join, a sort, a window, a union) leaves the function's batches valid for good.
 */
function markBatchesDropped(input: PhysicalOperator, config: HashAggregateConfig): void {
  for (const a of config.aggs) {
    if (a.distinct || a.orderBy.length > 0 || a.filterCol !== null || a.impl.retainsInput === true || !DROPPING_AGGREGATES.has(a.impl.name)) return;
  }
  let op = input;
  while (op instanceof Filter || op instanceof Project) op = op.input;
  if (op instanceof TableFunctionScan) op.dropsBatches = true;
}
