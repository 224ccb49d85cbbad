/**
 * Streaming k-way merge of sorted batch sources, and the bounded-fan-in multi-pass merge of spill runs.
 *
 * The comparator is structural (view + cross, as compiled by physical/sort-key.ts) so this layer does
 * not depend on the planner. A cross comparator is specialised to a pair of batches, so one is kept per
 * pair of sources and dropped when either source moves to its next batch: with k sources that is at
 * most 2k comparator instantiations per refill, against thousands of comparisons per batch.
 *
 * Stability: ties go to the lower source index, so merging runs in input order keeps equal keys in
 * input order, and merging consecutive groups of runs in a pass preserves that across passes.
 */
import type { DataType } from '../../common/types.js';
import { ColumnBuilder, type Batch } from '../../common/column.js';
import { packedMap } from '../../common/packed-map.js';
import { LoserTree } from './loser-tree.js';

export type RowCompare = (i: number, j: number) => number;

export interface MergeComparator<V> {
  view(b: Batch): V;
  cross(a: V, b: V): RowCompare;
}

export interface BatchSource {
  /** Next non-consumed batch, or null at the end. */
  next(): Promise<Batch | null>;
  close(): Promise<void>;
}

export interface MergeOptions {
  /** Rows per output batch. */
  readonly outRows: number;
  /** Called once per output batch (cancellation checks). */
  readonly check?: () => void;
  /** Read block size per input run (spill merges). */
  readonly readChunk?: number;
}

/** Merges sorted sources into sorted batches of `outRows` rows. Closes every source when done or abandoned. */
export async function* mergeSorted<V>(
  sources: readonly BatchSource[],
  cmp: MergeComparator<V>,
  types: readonly DataType[],
  opts: MergeOptions,
): AsyncGenerator<Batch> {
  const k = sources.length;
  try {
    if (k === 0) return;
    if (k === 1) {
      for (;;) {
        opts.check?.();
        const b = await sources[0]!.next();
        if (b === null) return;
        if (b.length > 0) yield b;
      }
    }
    const batch: (Batch | null)[] = new Array(k).fill(null);
    const views: (V | null)[] = new Array(k).fill(null);
    const pos = new Int32Array(k);
    const pair: (RowCompare | null)[] = new Array(k * k).fill(null);
    const load = async (s: number): Promise<void> => {
      for (;;) {
        const b = await sources[s]!.next();
        for (let j = 0; j < k; j++) {
          pair[s * k + j] = null;
          pair[j * k + s] = null;
        }
        pos[s] = 0;
        if (b === null) {
          batch[s] = null;
          views[s] = null;
          return;
        }
        if (b.length === 0) continue;
        batch[s] = b;
        views[s] = cmp.view(b);
        return;
      }
    };
    for (let s = 0; s < k; s++) await load(s);
    const beats = (a: number, b: number): boolean => {
      if (batch[a] === null) return false;
      if (batch[b] === null) return true;
      const at = a * k + b;
      let f = pair[at];
      if (f === null) f = pair[at] = cmp.cross(views[a]!, views[b]!);
      const c = f(pos[a]!, pos[b]!);
      return c < 0 || (c === 0 && a < b);
    };
    const tree = new LoserTree(k, beats);
    const nc = types.length;
    for (;;) {
      opts.check?.();
      const out = types.map((t) => new ColumnBuilder(t, opts.outRows));
      let count = 0;
      while (count < opts.outRows) {
        const w = tree.winner;
        const b = batch[w];
        if (b === null) break;
        const row = pos[w]!;
        const cols = b.columns;
        for (let c = 0; c < nc; c++) out[c]!.pushFrom(cols[c]!, row);
        count++;
        if (row + 1 >= b.length) await load(w);
        else pos[w] = row + 1;
        tree.replay();
      }
      if (count === 0) return;
      yield { columns: packedMap(out, (o) => o.finish()), length: count };
      if (count < opts.outRows) return;
    }
  } finally {
    for (const s of sources) await s.close();
  }
}

/** Groups of at most `fanIn` consecutive items (the plan of one merge pass). */
export function mergeGroups<X>(items: readonly X[], fanIn: number): X[][] {
  const groups: X[][] = [];
  for (let i = 0; i < items.length; i += fanIn) groups.push(items.slice(i, i + fanIn));
  return groups;
}
