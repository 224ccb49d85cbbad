/**
 * The order in which the per-partition Top-N (topn-ranking.ts) emits its partitions when it promises
 * rows sorted by (partition keys ASC NULLS LAST, order keys): the partitions that keep rows, sorted by
 * their key values. Only one row per partition is sorted, so the Window above needs no sort of the
 * kept rows at all.
 */
import type { DataType } from '../../common/types.js';
import type { Batch } from '../../common/column.js';
import { compileComparator, equalityKeys } from '../sort-key.js';
import type { RankingHeaps } from './topn-ranking-store.js';

/** 2^31: shifts an int4 key to a non-negative number. */
const INT_SHIFT = 2147483648;
/** Partition ids below 2^21 fit beside a shifted int4 key (32 bits) in a double's 53 bits. */
const PACK = 2097152;

export function partitionOrder(heaps: RankingHeaps, partitionCols: readonly number[], types: readonly DataType[]): Int32Array {
  const groups = heaps.groups;
  const parts = new Int32Array(groups);
  const reps = new Uint32Array(groups);
  let n = 0;
  for (let g = 0; g < groups; g++) {
    const slot = heaps.firstSlot(g);
    if (slot < 0) continue;
    parts[n] = g;
    reps[n++] = slot;
  }
  return orderPartitions(heaps.store.asBatch(), reps.subarray(0, n), parts.subarray(0, n), groups, partitionCols, types);
}

/**
 * Partitions `parts` sorted by their key values, read from row reps[j] of `rows` for partition parts[j]
 * (each row represents one partition). `groups` bounds the partition ids.
 */
export function orderPartitions(
  rows: Batch,
  reps: Uint32Array,
  parts: Int32Array,
  groups: number,
  partitionCols: readonly number[],
  types: readonly DataType[],
): Int32Array {
  const n = parts.length;
  if (partitionCols.length === 1 && groups <= PACK) {
    const col = rows.columns[partitionCols[0]!]!;
    const d = col.data;
    if (d instanceof Int32Array) {
      // (key, partition) packed into one double: a native numeric sort, no comparator calls.
      const nulls = col.nulls;
      const packed = new Float64Array(n);
      let m = 0;
      let nullGroup = -1;
      for (let j = 0; j < n; j++) {
        const g = parts[j]!;
        const r = reps[j]!;
        if (nulls !== null && nulls[r] === 1) nullGroup = g;
        else packed[m++] = (d[r]! + INT_SHIFT) * PACK + g;
      }
      const sorted = packed.subarray(0, m).sort();
      const out = new Int32Array(n);
      for (let j = 0; j < m; j++) out[j] = sorted[j]! % PACK;
      if (nullGroup >= 0) out[m] = nullGroup;
      return out;
    }
    const t = types[partitionCols[0]!]!.name;
    const dc = col.dict;
    // Text with dictionary codes: the dictionary's rank is the text order, so partitions sort as numbers.
    // Ranking a dictionary sorts all of its entries: only when it is ranked already or not much larger.
    if ((t === 'text' || t === 'varchar') && dc != null && dc.codes.length >= rows.length && (dc.dictionary.ranked || dc.dictionary.size <= 4 * n)) {
      const rank = dc.dictionary.rank();
      const codes = dc.codes;
      const packed = new Float64Array(n);
      let m = 0;
      let nullGroup = -1;
      for (let j = 0; j < n; j++) {
        const g = parts[j]!;
        const code = codes[reps[j]!]!;
        if (code < 0) nullGroup = g;
        else packed[m++] = rank[code]! * PACK + g;
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
  // Sorted by row, then mapped back: each row is the representative of exactly one partition.
  const perm = new Uint32Array(n);
  const partOf = new Int32Array(rows.length);
  for (let j = 0; j < n; j++) {
    perm[j] = reps[j]!;
    partOf[reps[j]!] = parts[j]!;
  }
  const sorted = cmp.sort(perm, cmp.view(rows));
  const out = new Int32Array(n);
  for (let j = 0; j < n; j++) out[j] = partOf[sorted[j]!]!;
  return out;
}
