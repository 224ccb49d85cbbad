/**
 * Sort keys over dictionary codes: a text key whose column carries codes (text-dictionary.ts) is replaced
 * by an int4 column of each row's rank in the dictionary's text order, NULLs kept in place. Ranks order
 * exactly as the strings do, so the integer paths (radix, packed and normalized-key sorts) give the same
 * stable order the text comparator would, with no prefix cut and no comparator fallback.
 *
 * Text computed by the query (a cast such as g::text, CASE, a function's result) has no codes; when its
 * values repeat enough, a dictionary is built for the sort alone (one hash lookup per row, one sort of the
 * distinct strings), which costs far less than radix sorting the strings' bytes. Mostly distinct values
 * give up part way and keep the normalized-key sort.
 */
import { T, type Value } from '../common/types.js';
import { makeColumn, type Batch, type Column, type TypedAlloc } from '../common/column.js';
import { codeComputedText, TextDictionary } from '../common/text-dictionary.js';
import type { SortKey } from './sort-key.js';

/** Rows coded between two chances to yield. */
const SLICE_ROWS = 1 << 16;

/** A rank column added by rankKeys: which text column it ranks, and through which dictionary. */
export interface RankedColumn {
  /** The rank column's index in the ranked batch. */
  readonly rankCol: number;
  /** The text column's index in the input batch. */
  readonly col: number;
  readonly dictionary: TextDictionary;
  /** The ranks the column was sorted by (the dictionary's rank() then: it changes when entries are added). */
  readonly rank: Int32Array;
}

/** What rankKeys sorts on instead of the input: its batch with rank columns appended, the keys over them. */
export interface RankedKeys {
  readonly batch: Batch;
  readonly keys: SortKey[];
  readonly ranked: readonly RankedColumn[];
}

/** The batch and keys to sort on instead of `b` and `keys`, or null when no key carries codes. */
export function rankKeys(b: Batch, keys: readonly SortKey[]): RankedKeys | null {
  const steps = rankKeySteps(b, keys);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/** rankKeys in pieces: yields between slices of rows, so a caller can let the event loop run. */
export function* rankKeySteps(
  b: Batch,
  keys: readonly SortKey[],
  /** Where the rank (and computed code) arrays come from: pooled memory when the caller gives it back after the sort. */
  alloc?: TypedAlloc,
): Generator<void, RankedKeys | null> {
  let columns: Column[] | null = null;
  let out: SortKey[] | null = null;
  const rankedCols: RankedColumn[] = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const c = b.columns[k.col]!;
    if (k.type.name !== 'text' && k.type.name !== 'varchar') continue;
    let ranks: Column | null = null;
    let dictionary: TextDictionary | null = null;
    let rank: Int32Array | null = null;
    const dc = c.dict;
    if (dc != null && dc.codes.length >= b.length) {
      rank = dc.dictionary.rank();
      ranks = makeColumn(T.int4, ranksOf(dc.codes, rank, b.length, alloc), ownNulls(c.nulls, b.length, alloc));
      dictionary = dc.dictionary;
    } else if (Array.isArray(c.data) && b.length > 256) {
      const computed = yield* computedRanks(c.data as readonly Value[], c.nulls, b.length, alloc);
      if (computed !== null) ({ ranks, dictionary, rank } = computed);
    }
    if (ranks === null || dictionary === null || rank === null) continue;
    columns ??= b.columns.slice();
    out ??= keys.slice();
    // A new column at the end, so a column used by two keys, or also as output, keeps its strings.
    out[i] = { col: columns.length, type: T.int4, desc: k.desc, nullsFirst: k.nullsFirst };
    rankedCols.push({ rankCol: columns.length, col: k.col, dictionary, rank });
    columns.push(ranks);
  }
  return columns === null || out === null ? null : { batch: { columns, length: b.length }, keys: out, ranked: rankedCols };
}

/** Ranks of a computed text column through a dictionary of its own, or null when it does not pay. */
function* computedRanks(
  data: readonly Value[],
  nulls: Uint8Array | null,
  n: number,
  alloc: TypedAlloc | undefined,
): Generator<void, { ranks: Column; dictionary: TextDictionary; rank: Int32Array } | null> {
  const dictionary = new TextDictionary();
  // Every row's code is written, so pooled memory with stale contents will do.
  const codes = alloc === undefined ? new Int32Array(n) : (alloc('i32', n) as Int32Array);
  const nullsOut = new Uint8Array(n);
  for (let from = 0; from < n; from += SLICE_ROWS) {
    if (from > 0) yield;
    if (!codeComputedText(data, nulls, from, Math.min(n, from + SLICE_ROWS), n, dictionary, codes, nullsOut)) return null;
  }
  yield;
  const rank = dictionary.rank();
  const ranks = ranksOf(codes, rank, n, alloc);
  let anyNull = false;
  for (let i = 0; i < n; i++) {
    if (nullsOut[i] === 1) {
      anyNull = true;
      break;
    }
  }
  return { ranks: makeColumn(T.int4, ranks, anyNull ? nullsOut : null), dictionary, rank };
}

/**
 * The text column's NULL mask for its rank column. With pooled arrays the sort may decode the ranks over
 * their own arrays, NULL mask included: the rank column then needs a mask of its own, or decoding would
 * reorder the text column's.
 */
function ownNulls(nulls: Uint8Array | null, n: number, alloc: TypedAlloc | undefined): Uint8Array | null {
  if (nulls === null || alloc === undefined) return nulls;
  const own = alloc('u8', n) as Uint8Array;
  own.set(nulls.subarray(0, n));
  return own;
}

function ranksOf(codes: Int32Array, rank: Int32Array, n: number, alloc: TypedAlloc | undefined): Int32Array {
  const r = alloc === undefined ? new Int32Array(n) : (alloc('i32', n) as Int32Array);
  for (let i = 0; i < n; i++) {
    const code = codes[i]!;
    r[i] = code < 0 ? 0 : rank[code]!;
  }
  return r;
}
