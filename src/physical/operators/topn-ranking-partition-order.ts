/**
 * The order in which the per-partition Top-N (topn-ranking.ts) emits its partitions when it promises
 * rows sorted by (partition keys ASC NULLS LAST, order keys): the partitions that keep rows, sorted by
 * their key values. Only one row per partition is sorted, so the Window above needs no sort of the
 * kept rows at all.
 */
import type { DataType } from '../../common/types.js';
import { compileComparator, equalityKeys } from '../sort-key.js';
import type { RankingHeaps } from './topn-ranking-store.js';

/** 2^31: shifts an int4 key to a non-negative number. */
const INT_SHIFT = 2147483648;
/** Partition ids below 2^21 fit beside a shifted int4 key (32 bits) in a double's 53 bits. */
const PACK = 2097152;

export function partitionOrder(heaps: RankingHeaps, partitionCols: readonly number[], types: readonly DataType[]): Int32Array {
  const groups = heaps.groups;
  const reps = new Int32Array(groups);
  let n = 0;
  for (let g = 0; g < groups; g++) if (heaps.firstSlot(g) >= 0) reps[n++] = g;
  const store = heaps.store.asBatch();
  if (partitionCols.length === 1 && groups <= PACK) {
    const col = store.columns[partitionCols[0]!]!;
    const d = col.data;
    if (d instanceof Int32Array) {
      // (key, partition) packed into one double: a native numeric sort, no comparator calls.
      const nulls = col.nulls;
      const packed = new Float64Array(n);
      let m = 0;
      let nullGroup = -1;
      for (let j = 0; j < n; j++) {
        const g = reps[j]!;
        const slot = heaps.firstSlot(g);
        if (nulls !== null && nulls[slot] === 1) nullGroup = g;
        else packed[m++] = (d[slot]! + INT_SHIFT) * PACK + g;
      }
      const sorted = packed.subarray(0, m).sort();
      const out = new Int32Array(n);
      for (let j = 0; j < m; j++) out[j] = sorted[j]! % PACK;
      if (nullGroup >= 0) out[m] = nullGroup;
      return out;
    }
  }
  const cmp = compileComparator(
    equalityKeys(
      partitionCols,
      partitionCols.map((c) => types[c]!),
    ),
  );
  // Sorted by slot, then mapped back: each slot is the representative of exactly one partition.
  const perm = new Uint32Array(n);
  const partOf = new Int32Array(store.length);
  for (let j = 0; j < n; j++) {
    const g = reps[j]!;
    const slot = heaps.firstSlot(g);
    perm[j] = slot;
    partOf[slot] = g;
  }
  const sorted = cmp.sort(perm, cmp.view(store));
  const out = new Int32Array(n);
  for (let j = 0; j < n; j++) out[j] = partOf[sorted[j]!]!;
  return out;
}
