/**
 * Global half of the Local/Global Top-N split (see topn-partial.ts).
 *
 * FinalTopN collects the partial results (each already sorted, at most offset+limit(+ties) rows) as
 * sorted runs, merges them (earlier partitions win ties, so the result equals one Top-N over the
 * partitions concatenated in order) and applies OFFSET / LIMIT / WITH TIES on the merged stream. Memory
 * is O(partitions × (offset+limit)).
 *
 * ConcatPartitions is the plain union used by the per-partition Top-N split: the final TopNRanking reads
 * the partial TopNRankings' outputs one after another.
 */
import { concatBatches, type Batch } from '../../common/column.js';
import { checkCancel, type ExecContext } from '../../execution/context.js';
import { PhysicalOperator } from '../operator.js';
import { compileComparator, describeKeys, type Comparator, type SortKey } from '../sort-key.js';
import { Limit } from './limit.js';
import { emitRuns, identity, type SortedRun } from './sort.js';

/** Merges the sorted outputs of its children. */
class MergeRuns extends PhysicalOperator {
  readonly name = 'MergeRuns';
  constructor(
    readonly inputs: readonly PhysicalOperator[],
    readonly cmp: Comparator,
  ) {
    super(inputs[0]!.schema);
  }
  children(): readonly PhysicalOperator[] {
    return this.inputs;
  }
  describe(): string {
    return '';
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const types = this.schema.map((f) => f.type);
    // Partials are read concurrently: a remote partition's server-side work overlaps the others'.
    const collected = await Promise.all(
      this.inputs.map(async (input) => {
        const bs: Batch[] = [];
        for await (const b of input.execute(ctx)) if (b.length > 0) bs.push(b);
        return bs;
      }),
    );
    checkCancel(ctx);
    const runs: SortedRun[] = [];
    for (const bs of collected) {
      if (bs.length === 0) continue;
      const batch = concatBatches(types, bs);
      runs.push({ batch, order: identity(batch.length) });
    }
    yield* emitRuns(runs, this.cmp);
  }
}

export class FinalTopN extends PhysicalOperator {
  readonly name = 'FinalTopN';
  private readonly limit: Limit;

  constructor(
    readonly inputs: readonly PhysicalOperator[],
    readonly keys: readonly SortKey[],
    readonly count: number,
    readonly offset: number,
    readonly withTies: boolean,
  ) {
    super(inputs[0]!.schema);
    const merged = new MergeRuns(inputs, compileComparator(keys));
    this.limit = new Limit(merged, count, offset, withTies ? keys.map((k) => k.col) : null);
  }

  children(): readonly PhysicalOperator[] {
    return this.inputs;
  }

  describe(): string {
    const names = this.schema.map((f) => f.name);
    return `keys: ${describeKeys(this.keys, names)}, limit: ${this.count}, offset: ${this.offset}${this.withTies ? ', with ties' : ''}, partitions: ${this.inputs.length}`;
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    yield* this.limit.execute(ctx);
  }
}

export class ConcatPartitions extends PhysicalOperator {
  readonly name = 'ConcatPartitions';
  constructor(readonly inputs: readonly PhysicalOperator[]) {
    super(inputs[0]!.schema);
  }
  children(): readonly PhysicalOperator[] {
    return this.inputs;
  }
  describe(): string {
    return `partitions: ${this.inputs.length}`;
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    for (const input of this.inputs) yield* input.execute(ctx);
  }
}
