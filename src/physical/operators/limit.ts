/**
 * Limit: OFFSET m LIMIT k over a stream. Stops pulling from its child as soon as it has emitted enough
 * rows: leaving the `for await` loop returns the child's generator, which releases the child's resources
 * and stops upstream work.
 *
 * WITH TIES (FETCH FIRST k ROWS WITH TIES) needs the input already ordered by the tie keys: after the k-th
 * row it keeps emitting rows equal to it on those keys and stops at the first different one.
 */
import { QuireError } from '../../common/errors.js';
import { sliceBatch, takeBatch, type Batch } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { compileComparator, describeKeys, equalityKeys, type Comparator, type KeyView, type SortKey } from '../sort-key.js';

export class Limit extends PhysicalOperator {
  readonly name = 'Limit';
  private readonly tieCmp: Comparator | null;

  /**
   * @param count  rows to return; null = no limit (LIMIT ALL / LIMIT NULL)
   * @param offset rows to skip first; null = 0
   * @param tieCols WITH TIES: columns (of the input) whose equality defines peers; null without WITH TIES
   */
  constructor(
    readonly input: PhysicalOperator,
    readonly count: number | null,
    readonly offset: number | null = null,
    readonly tieCols: readonly number[] | null = null,
  ) {
    super(input.schema);
    if (count !== null && (!Number.isInteger(count) || count < 0)) {
      throw new QuireError('2201W', 'LIMIT must not be negative');
    }
    if (offset !== null && (!Number.isInteger(offset) || offset < 0)) {
      throw new QuireError('2201X', 'OFFSET must not be negative');
    }
    this.tieCmp =
      tieCols === null
        ? null
        : compileComparator(
            equalityKeys(
              tieCols,
              tieCols.map((c) => input.schema[c]!.type),
            ),
          );
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  override outputOrdering(): readonly SortKey[] {
    return this.input.outputOrdering();
  }

  describe(): string {
    const parts: string[] = [];
    if (this.count !== null) parts.push(`limit: ${this.count}`);
    if (this.offset !== null && this.offset > 0) parts.push(`offset: ${this.offset}`);
    if (this.tieCmp !== null) {
      parts.push(`with ties: ${describeKeys(this.tieCmp.keys, this.schema.map((f) => f.name))}`);
    }
    return parts.join(', ');
  }
  override explainNode(): ExplainNode {
    return { label: 'Limit', details: [] };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const count = this.count;
    // LIMIT 0 needs no input at all (WITH TIES too: there is no last row to tie with).
    if (count === 0) return;
    let skip = this.offset ?? 0;
    let left = count ?? Infinity;
    const tieCmp = this.tieCmp;
    // WITH TIES: a one-row batch holding the last row emitted inside the limit.
    let last: KeyView | null = null;
    for await (const b of this.input.execute(ctx)) {
      let start = 0;
      const n = b.length;
      if (skip > 0) {
        if (skip >= n) {
          skip -= n;
          continue;
        }
        start = skip;
        skip = 0;
      }
      if (last !== null) {
        // Peer run of the k-th row continues into this batch?
        const eq = tieCmp!.cross(tieCmp!.view(b), last);
        let e = start;
        while (e < n && eq(e, 0) === 0) e++;
        if (e > start) yield sliceBatch(b, start, e);
        if (e < n) return;
        continue;
      }
      const avail = n - start;
      if (avail <= left) {
        left -= avail;
        yield start === 0 ? b : sliceBatch(b, start, n);
        if (left === 0) {
          if (tieCmp === null) return;
          last = tieCmp.view(takeBatch(b, [n - 1], 1));
        }
        continue;
      }
      // The limit ends inside this batch.
      let e = start + left;
      if (tieCmp !== null) {
        const v = tieCmp.view(b);
        const eq = tieCmp.rows(v);
        const k = e - 1;
        while (e < n && eq(e, k) === 0) e++;
        if (e === n) {
          // Peers may continue in the next batch.
          yield sliceBatch(b, start, e);
          last = tieCmp.view(takeBatch(b, [k], 1));
          left = 0;
          continue;
        }
      }
      yield sliceBatch(b, start, e);
      return;
    }
  }
}
