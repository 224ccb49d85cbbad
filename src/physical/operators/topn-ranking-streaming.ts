/**
 * TopNRanking, streaming variant: for input already grouped by the partition keys (each partition's
 * rows are contiguous, e.g. below a Sort on those keys). Holds only the current partition's candidates
 * (O(k) memory), emits its kept rows as soon as the next partition starts, and never hashes a key: a
 * partition change is detected by comparing each row with the previous one. When the input is also
 * ordered by the order keys within each partition, every row after the first k fails the boundary
 * check at one comparison.
 *
 * Same output rows as the hashed variant (topn-ranking.ts) on the same input; rows come out in input order.
 */
import { takeBatch, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { compileComparator, equalityKeys, type KeyView, type SortKey } from '../sort-key.js';
import { TopNRanking } from './topn-ranking.js';
import { RankingHeaps } from './topn-ranking-store.js';

export class TopNRankingStreaming extends TopNRanking {
  override readonly name: string = 'TopNRanking';

  protected override strategyText(): string {
    return ', strategy: streaming';
  }

  /** Rows leave in input order (grouped by partition, not sorted within one). */
  override outputOrdering(): readonly SortKey[] {
    return [];
  }

  protected override async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const spec = this.spec;
    if (spec.k <= 0) return;
    const types = this.schema.map((f) => f.type);
    const heaps = new RankingHeaps(spec.kind, spec.k, types, this.cmp);
    heaps.ensureGroups(1);
    const store = heaps.store;
    const rejectTies = heaps.rejectTies;
    const pcmp =
      spec.partitionCols.length === 0
        ? null
        : compileComparator(
            equalityKeys(
              spec.partitionCols,
              spec.partitionCols.map((c) => types[c]!),
            ),
          );
    let last: KeyView | null = null;
    let seen = 0;
    let partitions = 0;
    let peak = 0;
    for await (const b of this.input.execute(ctx)) {
      await yieldIfDue(ctx);
      const n = b.length;
      if (n === 0) continue;
      const bv = this.cmp.view(b);
      let version = store.version;
      let x = this.cmp.cross(bv, store.view);
      const pv = pcmp === null ? null : pcmp.view(b);
      const within = pcmp === null ? null : pcmp.rows(pv!);
      const across = pcmp === null || last === null ? null : pcmp.cross(pv!, last);
      for (let i = 0; i < n; i++) {
        const boundary = pcmp !== null && (i === 0 ? across !== null && across(0, 0) !== 0 : within!(i, i - 1) !== 0);
        if (boundary) {
          if (store.live > peak) peak = store.live;
          partitions++;
          yield* this.emit(heaps, heaps.finish());
          heaps.clear();
          heaps.ensureGroups(1);
          version = store.version;
          x = this.cmp.cross(bv, store.view);
        }
        const bound = heaps.boundary(0);
        if (bound >= 0) {
          const c = x(i, bound);
          if (c > 0 || (c === 0 && rejectTies)) continue;
        }
        heaps.add(0, b, i, seen + i);
        if (store.version !== version) {
          version = store.version;
          x = this.cmp.cross(bv, store.view);
        }
      }
      seen += n;
      if (pcmp !== null) last = pcmp.view(takeBatch(b, [n - 1], 1));
    }
    if (store.live > peak) peak = store.live;
    if (seen > 0) partitions++;
    this.metrics.extra['partitions'] = partitions;
    this.metrics.extra['peak kept rows'] = peak;
    this.metrics.extra['peak kept bytes'] = heaps.retainedBytes();
    if (seen > 0) yield* this.emit(heaps, heaps.finish());
  }
}
