/**
 * Dictionary-encoded text: a column's strings numbered by a dictionary shared by every batch of a stored
 * column, so keys can be grouped, joined, compared and sorted as 32-bit codes instead of strings.
 *
 * A dictionary only grows: an entry's code never changes, so codes written into a batch stay valid while
 * later batches add entries. The order of the entries (`rank`) is Quire's text order (compareStrings:
 * code point order) and is recomputed when entries were added since it was last asked for; a caller takes
 * one rank array for an operation, which covers every code of every batch it already holds.
 */
import { compareStrings } from './compare.js';
import type { Value } from './types.js';

export class TextDictionary {
  /** Entry `code` is `values[code]`; each string object is shared by every row holding it. */
  readonly values: string[] = [];
  /** Built on the first lookup for a dictionary made by ofDistinct (most are only read by code). */
  private indexMap: Map<string, number> | null = new Map<string, number>();
  private ranks: Int32Array | null = null;

  /**
   * A dictionary of `entries`, which the caller guarantees distinct (a file's dictionary page, checked by
   * allDistinct): entry i gets code i, and the string lookup table waits for a first lookup.
   */
  static ofDistinct(entries: readonly string[]): TextDictionary {
    const d = new TextDictionary();
    for (let i = 0; i < entries.length; i++) d.values.push(entries[i]!);
    d.indexMap = null;
    return d;
  }

  private get index(): Map<string, number> {
    if (this.indexMap === null) {
      const m = new Map<string, number>();
      const vals = this.values;
      for (let i = 0; i < vals.length; i++) m.set(vals[i]!, i);
      this.indexMap = m;
    }
    return this.indexMap;
  }

  get size(): number {
    return this.values.length;
  }

  /** The code of `s`, or -1 when it has no entry. */
  codeOf(s: string): number {
    return this.index.get(s) ?? -1;
  }

  /** The code of `s`, adding an entry when it has none. */
  add(s: string): number {
    const index = this.index;
    let code = index.get(s);
    if (code === undefined) {
      code = this.values.length;
      this.values.push(s);
      index.set(s, code);
    }
    return code;
  }

  /**
   * Position of each entry in text order: rank[a] < rank[b] exactly when compareStrings(values[a],
   * values[b]) < 0 (entries are distinct, so ranks are too).
   */
  /** Whether rank() is already computed for every entry (so calling it costs nothing). */
  get ranked(): boolean {
    return this.ranks !== null && this.ranks.length === this.values.length;
  }

  rank(): Int32Array {
    const n = this.values.length;
    if (this.ranks !== null && this.ranks.length === n) return this.ranks;
    const vals = this.values;
    const order = new Array<number>(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => compareStrings(vals[a]!, vals[b]!));
    const r = new Int32Array(n);
    for (let i = 0; i < n; i++) r[order[i]!] = i;
    this.ranks = r;
    return r;
  }

  /** Bytes held besides the strings themselves (codes are counted with their batches). */
  get bytes(): number {
    return this.values.length * 48;
  }
}

/**
 * Whether the strings are pairwise distinct: an open-addressing table of their positions over a
 * 32-bit FNV-1a hash of the UTF-16 code units (a Map of strings costs several times as much per entry,
 * which a file's dictionary of a few thousand entries per row group made visible).
 */
export function allDistinct(entries: readonly string[]): boolean {
  const n = entries.length;
  let cap = 16;
  while (cap < n * 2) cap <<= 1;
  const slots = new Int32Array(cap).fill(-1);
  const mask = cap - 1;
  for (let i = 0; i < n; i++) {
    const s = entries[i]!;
    let h = 0x811c9dc5;
    for (let j = 0; j < s.length; j++) h = Math.imul(h ^ s.charCodeAt(j), 0x01000193);
    let p = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const at = slots[p]!;
      if (at < 0) {
        slots[p] = i;
        break;
      }
      if (entries[at] === s) return false;
      p = (p + 1) & mask;
    }
  }
  return true;
}

/** A text column's codes: codes[i] is row i's entry in `dictionary`, -1 for NULL. */
export interface DictCodes {
  readonly codes: Int32Array;
  readonly dictionary: TextDictionary;
}

/**
 * Codes for rows [0, n) of a text column's values against `dictionary`, adding entries for new strings
 * when `grow` is set; the strings in `out` (when given) are replaced by the dictionary's shared objects,
 * so equal strings of a loaded column are held once. Null when a value is not a string, or (without
 * `grow`) a string has no entry: such a column stays without codes.
 */
export function encodeText(
  data: readonly Value[],
  nulls: Uint8Array | null,
  n: number,
  dictionary: TextDictionary,
  grow: boolean,
  out: Value[] | null = null,
): DictCodes | null {
  const codes = new Int32Array(n);
  const vals = dictionary.values;
  for (let i = 0; i < n; i++) {
    const v = data[i];
    if (nulls !== null && nulls[i] === 1) {
      codes[i] = -1;
      if (out !== null) out[i] = null;
      continue;
    }
    if (typeof v !== 'string') return null;
    const code = grow ? dictionary.add(v) : dictionary.codeOf(v);
    if (code < 0) return null;
    codes[i] = code;
    if (out !== null) out[i] = vals[code]!;
  }
  return { codes, dictionary };
}

/**
 * The share of distinct values among a computed text column's rows past which coding stops paying:
 * ranking and looking up nearly every row's own entry costs more than sorting the strings themselves.
 */
const CODING_MAX_DISTINCT_SHARE = 0.125;
/**
 * A first look after this many rows: when nearly all of them are distinct the column is taken to be
 * mostly unique and coding stops there rather than at rows / 8 entries (repetitive columns, even of
 * 10,000 values, stay well below the bound this early).
 */
const CODING_EARLY_ROWS = 1 << 14;
const CODING_EARLY_MAX_DISTINCT = CODING_EARLY_ROWS * 0.75;

/**
 * Codes for text computed without them (a cast, CASE, a function's result) in rows [from, to) of a
 * column of `rows` rows, written into `codes` against `dictionary` (a new one per column); NULLs (in
 * `nulls` or as null values) get -1 and a 1 in `nullsOut`. Returns false when a value is not a string,
 * or when the column holds so many distinct strings that sorting or grouping the strings directly is the
 * better plan (found out after CODING_EARLY_ROWS rows, or at most rows * CODING_MAX_DISTINCT_SHARE entries).
 */
export function codeComputedText(
  data: readonly Value[],
  nulls: Uint8Array | null,
  from: number,
  to: number,
  rows: number,
  dictionary: TextDictionary,
  codes: Int32Array,
  nullsOut: Uint8Array,
): boolean {
  const limit = rows * CODING_MAX_DISTINCT_SHARE;
  for (let i = from; i < to; i++) {
    const v = data[i];
    if (v === null || (nulls !== null && nulls[i] === 1)) {
      codes[i] = -1;
      nullsOut[i] = 1;
      continue;
    }
    if (typeof v !== 'string') return false;
    codes[i] = dictionary.add(v);
    if ((i & 1023) === 1023 && (dictionary.size > limit || (i === CODING_EARLY_ROWS - 1 && dictionary.size > CODING_EARLY_MAX_DISTINCT))) return false;
  }
  return dictionary.size <= limit;
}
