/**
 * Sort keys over dictionary codes: a text key whose column carries codes (text-dictionary.ts) is replaced
 * by an int4 column of each row's rank in the dictionary's text order, NULLs kept in place. Ranks order
 * exactly as the strings do, so the integer paths (radix, packed and normalized-key sorts) give the same
 * stable order the text comparator would, with no prefix cut and no comparator fallback.
 */
import { T } from '../common/types.js';
import { makeColumn, type Batch, type Column } from '../common/column.js';
import type { SortKey } from './sort-key.js';

/** The batch and keys to sort on instead of `b` and `keys`, or null when no key carries codes. */
export function rankKeys(b: Batch, keys: readonly SortKey[]): { batch: Batch; keys: SortKey[] } | null {
  let columns: Column[] | null = null;
  let out: SortKey[] | null = null;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const c = b.columns[k.col]!;
    const dc = c.dict;
    if (dc == null || (k.type.name !== 'text' && k.type.name !== 'varchar') || dc.codes.length < b.length) continue;
    columns ??= b.columns.slice();
    out ??= keys.slice();
    // A new column at the end, so a column used by two keys, or also as output, keeps its strings.
    out[i] = { col: columns.length, type: T.int4, desc: k.desc, nullsFirst: k.nullsFirst };
    columns.push(makeColumn(T.int4, ranksOf(dc.codes, dc.dictionary.rank(), b.length), c.nulls));
  }
  return columns === null || out === null ? null : { batch: { columns, length: b.length }, keys: out };
}

function ranksOf(codes: Int32Array, rank: Int32Array, n: number): Int32Array {
  const r = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const code = codes[i]!;
    r[i] = code < 0 ? 0 : rank[code]!;
  }
  return r;
}
