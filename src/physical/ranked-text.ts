/**
 * A sorted text column rebuilt from its sorted dictionary ranks instead of gathered through the sort's
 * permutation.
 *
 * A sort on a text key with dictionary codes sorts the codes' ranks (rank-keys.ts), and the integer
 * sorts hand back the rank column already in sorted order. Gathering the strings (and their codes)
 * through the permutation reads a random row of a million-entry array per output row; mapping each
 * sorted rank back to its entry reads the ranks in sequence and a dictionary of a few thousand entries
 * that stays in cache. The rows come out with their codes, so a consumer can keep comparing codes.
 *
 * Only the emitted rows are rebuilt (ORDER BY … OFFSET emits few), a slice at a time.
 */
import { makeColumn, type Column } from '../common/column.js';
import type { TextDictionary } from '../common/text-dictionary.js';
import type { DataType, Value } from '../common/types.js';

/** A text column in sorted order, held as its ranks. */
export interface RankedText {
  readonly type: DataType;
  /** Rank of each row in sorted order (ignored where `nulls` is 1). */
  readonly ranks: Int32Array;
  readonly nulls: Uint8Array | null;
  /** The dictionary code of each rank. */
  readonly codeOfRank: Int32Array;
  readonly dictionary: TextDictionary;
}

/**
 * The text column `type` whose sorted ranks are `sorted` (a decoded rank column, copied here: the sort's
 * arrays may go back to a pool) under `rank` (the dictionary's ranks the sort used), or null when the
 * column is not held as numbers.
 */
export function rankedText(type: DataType, sorted: Column, dictionary: TextDictionary, rank: Int32Array): RankedText | null {
  const codeOfRank = new Int32Array(rank.length);
  for (let code = 0; code < rank.length; code++) codeOfRank[rank[code]!] = code;
  const d = sorted.data;
  const n = d.length;
  let ranks: Int32Array;
  if (d instanceof Int32Array) ranks = d.slice();
  else if (d instanceof Float64Array) ranks = copyF64(d, n);
  else return null;
  const nulls = sorted.nulls === null ? null : sorted.nulls.slice(0, n);
  return { type, ranks, nulls, codeOfRank, dictionary };
}

function copyF64(d: Float64Array, n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = d[i]!;
  return out;
}

/** Rows [from, to) of `t` as a column of strings with their dictionary codes. */
export function rankedTextSlice(t: RankedText, from: number, to: number): Column {
  const n = to - from;
  const data = new Array<Value>(n);
  const codes = new Int32Array(n);
  const mask = t.nulls;
  let nulls: Uint8Array | null = null;
  if (mask !== null) {
    for (let i = 0; i < n; i++) {
      if (mask[from + i] === 1) (nulls ??= new Uint8Array(n))[i] = 1;
    }
  }
  if (nulls === null) fillDense(t.ranks, t.codeOfRank, t.dictionary.values, from, n, codes, data);
  else fillSparse(t.ranks, t.codeOfRank, t.dictionary.values, nulls, from, n, codes, data);
  return makeColumn(t.type, data, nulls, { codes, dictionary: t.dictionary });
}

function fillDense(ranks: Int32Array, codeOfRank: Int32Array, values: readonly string[], from: number, n: number, codes: Int32Array, data: Value[]): void {
  for (let i = 0; i < n; i++) codes[i] = codeOfRank[ranks[from + i]!]!;
  for (let i = 0; i < n; i++) data[i] = values[codes[i]!]!;
}

function fillSparse(
  ranks: Int32Array,
  codeOfRank: Int32Array,
  values: readonly string[],
  nulls: Uint8Array,
  from: number,
  n: number,
  codes: Int32Array,
  data: Value[],
): void {
  for (let i = 0; i < n; i++) {
    if (nulls[i] === 1) {
      codes[i] = -1;
      data[i] = null;
    } else {
      const code = codeOfRank[ranks[from + i]!]!;
      codes[i] = code;
      data[i] = values[code]!;
    }
  }
}
