/**
 * Local half of the Local/Global Top-N split (Spark's LocalLimit / TakeOrdered, Trino's partial
 * TopNRanking): when a scan yields independent input partitions (connectors, files, parallel readers),
 * each partition runs its own bounded Top-N of offset+limit rows (plus ties), and FinalTopN
 * (topn-final.ts) merges the partial results. No partition ever holds more than offset+limit(+ties) rows,
 * and a connector can run the partial step next to its data.
 *
 * PartialTopN emits its rows sorted by the keys, equal keys in arrival order — the order FinalTopN's merge
 * relies on. The offset is not applied here: rows skipped globally may come from any partition.
 */
import type { Schema } from '../../common/types.js';
import { pickColumns, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { PhysicalOperator } from '../operator.js';
import { describeKeys, type SortKey } from '../sort-key.js';
import { TopN } from './topn.js';

export class PartialTopN extends PhysicalOperator {
  readonly name = 'PartialTopN';
  private readonly inner: TopN;

  constructor(
    readonly input: PhysicalOperator,
    readonly keys: readonly SortKey[],
    /** offset + limit of the query: what one partition may contribute at most (plus ties). */
    readonly keep: number,
    readonly withTies: boolean,
  ) {
    super(input.schema);
    this.inner = new TopN(input, keys, keep, 0, withTies);
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    return `keys: ${describeKeys(this.keys, this.schema.map((f) => f.name))}, keep: ${this.keep}${this.withTies ? ', with ties' : ''}`;
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    yield* this.inner.execute(ctx);
  }
}

/** A source whose rows come in independent partitions (see ScannableSource in table-scan.ts). */
export interface PartitionedSource {
  readonly name: string;
  /** One iterable per partition; concatenated in this order they are the table's scan order. */
  scanPartitions(): AsyncIterable<Batch>[];
  /** What partition i reads, for EXPLAIN (the connector: its remote SQL). */
  describePartition?(i: number): string;
}

export function isPartitionedSource(s: unknown): s is PartitionedSource {
  return typeof s === 'object' && s !== null && typeof (s as { scanPartitions?: unknown }).scanPartitions === 'function';
}

/**
 * Hands the PartitionScans of one plan the partitions of one scanPartitions() call: a source may tie
 * its partitions together (the connector's shared snapshot), so they must come from the same call. A
 * partition asked for a second time (the plan runs again) starts a new call.
 */
export class PartitionGroup {
  private current: AsyncIterable<Batch>[] | null = null;
  private readonly taken = new Set<number>();
  constructor(readonly source: PartitionedSource) {}
  take(i: number): AsyncIterable<Batch> | undefined {
    if (this.current === null || this.taken.has(i)) {
      this.current = this.source.scanPartitions();
      this.taken.clear();
    }
    this.taken.add(i);
    return this.current[i];
  }
}

/** Reads one partition of a partitioned source. */
export class PartitionScan extends PhysicalOperator {
  readonly name = 'PartitionScan';
  readonly source: PartitionedSource;
  constructor(
    schema: Schema,
    readonly group: PartitionGroup,
    readonly partition: number,
    readonly projection: readonly number[] | null,
  ) {
    super(schema);
    this.source = group.source;
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    const detail = this.source.describePartition?.(this.partition);
    return `table: ${this.source.name}, partition: ${this.partition}${detail === undefined ? '' : `, ${detail}`}`;
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const part = this.group.take(this.partition);
    if (part === undefined) return;
    const proj = this.projection;
    for await (const b of part) {
      await yieldIfDue(ctx);
      yield proj === null ? b : { columns: pickColumns(b.columns, proj), length: b.length };
    }
  }
}
