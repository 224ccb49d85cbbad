/**
 * Bounded-fan-in multi-pass merge of sorted spill runs.
 *
 * A merge holds one decoded batch and one read buffer per input run, so the fan-in is what the memory
 * budget allows (the caller reserves it before merging). While there are more runs than the fan-in,
 * consecutive groups of `fanIn` runs are merged into new runs on disk (one pass); each input run is
 * deleted as soon as its group is written, so disk use stays near one copy of the data. The final pass
 * streams to the consumer.
 */
import type { DataType } from '../../common/types.js';
import type { Batch } from '../../common/column.js';
import type { SpillManager } from '../spill/spill-manager.js';
import { RunReader, type SpillRun } from '../spill/run-file.js';
import { mergeGroups, mergeSorted, type MergeComparator, type MergeOptions } from './k-way-merge.js';

/** Merges passes until at most `fanIn` runs remain; returns them in order, with the number of passes. */
export async function reduceRuns<V>(
  spill: SpillManager,
  runs: readonly SpillRun[],
  cmp: MergeComparator<V>,
  types: readonly DataType[],
  fanIn: number,
  opts: MergeOptions,
): Promise<{ runs: SpillRun[]; passes: number }> {
  if (fanIn < 2) throw new Error('reduceRuns: fan-in must be at least 2');
  let cur = [...runs];
  let passes = 0;
  while (cur.length > fanIn) {
    passes++;
    const next: SpillRun[] = [];
    for (const group of mergeGroups(cur, fanIn)) {
      if (group.length === 1) {
        next.push(group[0]!);
        continue;
      }
      const w = await spill.createRun(types);
      for await (const b of mergeSorted(
        group.map((r) => new RunReader(r, opts.readChunk)),
        cmp,
        types,
        opts,
      )) {
        await w.append(b);
      }
      next.push(await spill.finishRun(w));
      for (const r of group) await spill.delete(r);
    }
    cur = next;
  }
  return { runs: cur, passes };
}

/** Final pass: merged rows of `runs`, deleting the run files once they are consumed. */
export async function* streamRuns<V>(
  spill: SpillManager,
  runs: readonly SpillRun[],
  cmp: MergeComparator<V>,
  types: readonly DataType[],
  opts: MergeOptions,
): AsyncGenerator<Batch> {
  try {
    yield* mergeSorted(
      runs.map((r) => new RunReader(r, opts.readChunk)),
      cmp,
      types,
      opts,
    );
  } finally {
    for (const r of runs) await spill.delete(r);
  }
}
