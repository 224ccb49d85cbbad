/**
 * A hash table of composite keys held as fixed-width tuples of 32-bit words in typed arrays: group ids for
 * hash aggregation, the set of DISTINCT, the build side of a hash join. No object or string is made per row.
 *
 * Each key column becomes one or two words, computed a column at a time over a whole batch:
 *   - int2/int4 and bool: the value;
 *   - int8: its high and low 32 bits (the same for a number and a bigint of equal value);
 *   - other types stored as doubles (float, date, timestamp): the bits of the canonical double (one NaN,
 *     -0 as 0), so equal SQL values share words;
 *   - text, varchar, bpchar (trailing blanks removed) and every other type: a dense id from a per-column
 *     dictionary (a Map on the value or its canonical hash key, compare.ts hashKey), so each string is
 *     hashed once per row by the engine and compared as one word afterwards.
 * The first words hold one bit per key column that is NULL (that column's words are then 0), so NULL is a value
 * of its own here: one group for GROUP BY and DISTINCT; joins skip rows whose mask is not 0.
 *
 * Entries get ids 0, 1, 2, … in insertion order; their words live in one growing Int32Array. The table
 * (open addressing, linear probing, at most half full) keeps each slot's entry id + 1 beside the entry's
 * hash, so a probe reads one cache line and most mismatches compare no words.
 */
import { hashKey } from '../common/compare.js';
import { storageKind, type DataType, type Value } from '../common/types.js';
import type { Column } from '../execution/column.js';
import type { DictCodes, TextDictionary } from '../execution/text-dictionary.js';
import { anchorShape } from '../execution/shape-anchor.js';
import { HASH_ENTRY_BYTES } from '../execution/memory-pool.js';

type WordKind = 'i32' | 'bool' | 'int8' | 'f64' | 'text' | 'bpchar' | 'dict';

function wordKind(t: DataType): WordKind {
  switch (t.name) {
    case 'int8':
      return 'int8';
    case 'text':
    case 'varchar':
    case 'unknown':
      return 'text';
    case 'bpchar':
      return 'bpchar';
  }
  switch (storageKind(t)) {
    case 'u8':
      return 'bool';
    case 'i32':
      return 'i32';
    case 'f64':
      return 'f64';
    default:
      return 'dict';
  }
}

function kindWords(k: WordKind): number {
  return k === 'int8' || k === 'f64' ? 2 : 1;
}

/** Whether a join between key columns of these types can use one KeyTable (same word encoding). */
export function sameKeyEncoding(a: DataType, b: DataType): boolean {
  const ka = wordKind(a);
  const kb = wordKind(b);
  if (ka !== kb) return false;
  // Dictionary ids only match when both sides canonicalize values the same way, i.e. the same type.
  return ka !== 'dict' || a.name === b.name;
}

const f64 = new Float64Array(1);
const u32 = new Int32Array(f64.buffer);

function rtrim(s: string): string {
  let n = s.length;
  while (n > 0 && s.charCodeAt(n - 1) === 32) n--;
  return n === s.length ? s : s.slice(0, n);
}

/** Marks rows whose key cannot be in the table (a probe value missing from a dictionary). */
export const MISS = -2;

export class KeyTable {
  private readonly kinds: WordKind[];
  /** First word of each key column within a tuple (the NULL mask words come first). */
  private readonly at: number[];
  private readonly maskWords: number;
  /** Words per key tuple. */
  readonly width: number;
  private readonly dicts: (Map<unknown, number> | null)[];
  private dictBytes = 0;
  /**
   * Text key columns with dictionary codes: per key column and dictionary, each code's id + 1 in `dicts`
   * (0 = not looked up yet), so a row costs an array read instead of hashing its string.
   */
  private readonly codeIds: (Map<TextDictionary, Int32Array> | null)[];

  /** Key words of entries [0, count): entry e at [e * width, (e + 1) * width). */
  private keys: Int32Array;
  private count = 0;
  /** Per slot: entry id + 1 (0 = empty), then the entry's hash. */
  private table: Int32Array;
  private mask: number;

  /** Per-batch scratch: the rows' key words (row-major), hashes, and probe misses. */
  private words = new Int32Array(0);
  private hashes = new Int32Array(0);
  private miss = new Uint8Array(0);
  private out = new Int32Array(0);

  constructor(readonly types: readonly DataType[]) {
    this.kinds = types.map(wordKind);
    this.at = [];
    this.maskWords = Math.max(1, Math.ceil(types.length / 32));
    let w = this.maskWords;
    for (const k of this.kinds) {
      this.at.push(w);
      w += kindWords(k);
    }
    this.width = w;
    this.dicts = this.kinds.map((k) => (k === 'text' || k === 'bpchar' || k === 'dict' ? new Map<unknown, number>() : null));
    this.codeIds = this.kinds.map(() => null);
    this.keys = new Int32Array(1024 * w);
    this.table = new Int32Array(2 * 2048);
    this.mask = 2047;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held (tuples, table, dictionaries), for memory accounting. */
  get bytes(): number {
    return this.keys.length * 4 + this.table.length * 4 + this.dictBytes;
  }

  /**
   * Group ids for rows [0, n) of `cols` (the key columns, in order), inserting new keys; the result is
   * reused by the next call. When `fresh` is given, the rows that created an entry are written to it and
   * their number is returned in `freshCount`.
   */
  insert(cols: readonly Column[], n: number, fresh?: Uint32Array): Int32Array {
    this.encode(cols, n, true);
    const out = this.scratchOut(n);
    const words = this.words;
    const hashes = this.hashes;
    const W = this.width;
    let w = 0;
    for (let i = 0; i < n; i++) {
      const before = this.count;
      const g = this.findOrAdd(words, i * W, hashes[i]!);
      out[i] = g;
      if (fresh !== undefined && g === before) fresh[w++] = i;
    }
    this.freshCount = w;
    return out;
  }

  freshCount = 0;

  /** Entry of each row of `cols`, or -1 when the key is absent; result reused by the next call. */
  find(cols: readonly Column[], n: number): Int32Array {
    this.encode(cols, n, false);
    const out = this.scratchOut(n);
    const words = this.words;
    const hashes = this.hashes;
    const miss = this.miss;
    const W = this.width;
    for (let i = 0; i < n; i++) out[i] = miss[i] === 1 ? -1 : this.lookup(words, i * W, hashes[i]!);
    return out;
  }

  /** Row i of the last insert()/find() had a NULL in some key column. */
  hasNull(i: number): boolean {
    const p = i * this.width;
    for (let j = 0; j < this.maskWords; j++) if (this.words[p + j] !== 0) return true;
    return false;
  }

  private scratchOut(n: number): Int32Array {
    if (this.out.length < n) this.out = new Int32Array(Math.max(n, 4096));
    return this.out;
  }

  private lookup(words: Int32Array, p: number, h: number): number {
    const table = this.table;
    const keys = this.keys;
    const mask = this.mask;
    const W = this.width;
    let slot = h & mask;
    for (;;) {
      const t = table[2 * slot]!;
      if (t === 0) return -1;
      if (table[2 * slot + 1] === h) {
        const q = (t - 1) * W;
        let j = 0;
        while (j < W && keys[q + j] === words[p + j]) j++;
        if (j === W) return t - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  private findOrAdd(words: Int32Array, p: number, h: number): number {
    const table = this.table;
    const keys = this.keys;
    const mask = this.mask;
    const W = this.width;
    let slot = h & mask;
    for (;;) {
      const t = table[2 * slot]!;
      if (t === 0) break;
      if (table[2 * slot + 1] === h) {
        const q = (t - 1) * W;
        let j = 0;
        while (j < W && keys[q + j] === words[p + j]) j++;
        if (j === W) return t - 1;
      }
      slot = (slot + 1) & mask;
    }
    const e = this.count++;
    let ks = keys;
    if ((e + 1) * W > ks.length) {
      ks = new Int32Array(ks.length * 2);
      ks.set(this.keys);
      this.keys = ks;
    }
    const q = e * W;
    for (let j = 0; j < W; j++) ks[q + j] = words[p + j]!;
    table[2 * slot] = e + 1;
    table[2 * slot + 1] = h;
    if (this.count * 2 > mask + 1) this.rehash();
    return e;
  }

  private rehash(): void {
    const old = this.table;
    const size = (this.mask + 1) * 2;
    const table = new Int32Array(2 * size);
    const mask = size - 1;
    for (let o = 0; o < old.length; o += 2) {
      const t = old[o]!;
      if (t === 0) continue;
      const h = old[o + 1]!;
      let slot = h & mask;
      while (table[2 * slot] !== 0) slot = (slot + 1) & mask;
      table[2 * slot] = t;
      table[2 * slot + 1] = h;
    }
    this.table = table;
    this.mask = mask;
  }

  /** Key words and hashes of rows [0, n), a column at a time. */
  private encode(cols: readonly Column[], n: number, adding: boolean): void {
    const W = this.width;
    if (this.words.length < n * W) this.words = new Int32Array(Math.max(n, 4096) * W);
    if (this.hashes.length < n) {
      this.hashes = new Int32Array(Math.max(n, 4096));
      this.miss = new Uint8Array(Math.max(n, 4096));
    }
    const words = this.words;
    const miss = this.miss;
    const M = this.maskWords;
    for (let i = 0; i < n; i++) for (let j = 0; j < M; j++) words[i * W + j] = 0;
    if (!adding) miss.fill(0, 0, n);
    for (let c = 0; c < this.kinds.length; c++) {
      const col = cols[c]!;
      const at = this.at[c]!;
      // The column's NULL bit, as an offset into the tuple (mask word) and a bit within it.
      const mw = c >> 5;
      const bit = 1 << (c & 31);
      switch (this.kinds[c]!) {
        case 'i32':
        case 'bool':
          encodeI32(col, n, words, W, at, mw, bit);
          break;
        case 'int8':
          encodeInt8(col, n, words, W, at, mw, bit);
          break;
        case 'f64':
          encodeF64(col, n, words, W, at, mw, bit);
          break;
        default:
          this.encodeDict(c, col, n, words, W, at, mw, bit, adding, miss);
      }
    }
    const hashes = this.hashes;
    for (let i = 0; i < n; i++) {
      const p = i * W;
      let h = 0x9747b28c ^ W;
      for (let j = 0; j < W; j++) {
        h = Math.imul(h ^ words[p + j]!, 0x5bd1e995);
        h ^= h >>> 13;
      }
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
      h ^= h >>> 13;
      hashes[i] = h;
    }
  }

  private encodeDict(c: number, col: Column, n: number, words: Int32Array, W: number, at: number, mw: number, bit: number, adding: boolean, miss: Uint8Array): void {
    const dict = this.dicts[c]!;
    const kind = this.kinds[c]!;
    if (kind === 'text' && col.dict != null && col.dict.codes.length >= n) {
      this.encodeCodes(c, col.dict, col.data as Value[], n, words, W, at, mw, bit, adding, miss);
      return;
    }
    const t = this.types[c]!;
    const d = col.data as Value[];
    const nulls = col.nulls;
    for (let i = 0; i < n; i++) {
      const p = i * W;
      const v = d[i];
      if ((nulls !== null && nulls[i] === 1) || v === null || v === undefined) {
        words[p + mw] |= bit;
        words[p + at] = 0;
        continue;
      }
      const key = kind === 'text' ? v : kind === 'bpchar' ? rtrim(v as string) : hashKey(v, t);
      let id = dict.get(key);
      if (id === undefined) {
        if (!adding) {
          miss[i] = 1;
          words[p + at] = 0;
          continue;
        }
        id = dict.size;
        dict.set(key, id);
        this.dictBytes += HASH_ENTRY_BYTES + (typeof key === 'string' ? 2 * key.length : 8);
      }
      words[p + at] = id;
    }
  }

  /** encodeDict for a text column with dictionary codes: each distinct code is looked up in `dicts` once. */
  private encodeCodes(c: number, dc: DictCodes, d: Value[], n: number, words: Int32Array, W: number, at: number, mw: number, bit: number, adding: boolean, miss: Uint8Array): void {
    const dict = this.dicts[c]!;
    const perDict = (this.codeIds[c] ??= new Map());
    let ids = perDict.get(dc.dictionary);
    if (ids === undefined || ids.length < dc.dictionary.size) {
      // The dictionary grew since: ids found for its older entries stay valid (codes never change).
      const grown = new Int32Array(Math.max(dc.dictionary.size, 16));
      if (ids !== undefined) grown.set(ids);
      this.dictBytes += 4 * (grown.length - (ids?.length ?? 0));
      ids = grown;
      perDict.set(dc.dictionary, ids);
    }
    const codes = dc.codes;
    for (let i = 0; i < n; i++) {
      const p = i * W;
      const code = codes[i]!;
      if (code < 0) {
        words[p + mw] |= bit;
        words[p + at] = 0;
        continue;
      }
      let id = ids[code]! - 1;
      if (id < 0) {
        const v = d[i] as string;
        const found = dict.get(v);
        if (found === undefined) {
          if (!adding) {
            miss[i] = 1;
            words[p + at] = 0;
            continue;
          }
          id = dict.size;
          dict.set(v, id);
          this.dictBytes += HASH_ENTRY_BYTES + 2 * v.length;
        } else id = found;
        ids[code] = id + 1;
      }
      words[p + at] = id;
    }
  }
}

function encodeI32(col: Column, n: number, words: Int32Array, W: number, at: number, mw: number, bit: number): void {
  if (Array.isArray(col.data)) {
    encodeBoxed(col, n, words, W, at, mw, bit, false);
    return;
  }
  const d = col.data as Int32Array | Uint8Array;
  const nulls = col.nulls;
  if (nulls === null) {
    for (let i = 0; i < n; i++) words[i * W + at] = d[i]!;
    return;
  }
  for (let i = 0; i < n; i++) {
    const p = i * W;
    if (nulls[i] === 1) {
      words[p + mw] |= bit;
      words[p + at] = 0;
    } else words[p + at] = d[i]!;
  }
}

function encodeF64(col: Column, n: number, words: Int32Array, W: number, at: number, mw: number, bit: number): void {
  if (Array.isArray(col.data)) {
    encodeBoxed(col, n, words, W, at, mw, bit, true);
    return;
  }
  const d = col.data as Float64Array;
  const nulls = col.nulls;
  for (let i = 0; i < n; i++) {
    const p = i * W;
    if (nulls !== null && nulls[i] === 1) {
      words[p + mw] |= bit;
      words[p + at] = 0;
      words[p + at + 1] = 0;
      continue;
    }
    const v = d[i]!;
    // One NaN and one zero, so equal values share words.
    f64[0] = v !== v ? NaN : v === 0 ? 0 : v;
    words[p + at] = u32[0]!;
    words[p + at + 1] = u32[1]!;
  }
}

function encodeInt8(col: Column, n: number, words: Int32Array, W: number, at: number, mw: number, bit: number): void {
  const d = col.data as Float64Array | (number | bigint | null)[];
  const nulls = col.nulls;
  for (let i = 0; i < n; i++) {
    const p = i * W;
    const v = d[i];
    if ((nulls !== null && nulls[i] === 1) || v === null || v === undefined) {
      words[p + mw] |= bit;
      words[p + at] = 0;
      words[p + at + 1] = 0;
      continue;
    }
    if (typeof v === 'number') {
      const hi = Math.floor(v / 4294967296);
      words[p + at] = hi;
      words[p + at + 1] = v - hi * 4294967296;
    } else {
      words[p + at] = Number(BigInt.asIntN(32, v >> 32n));
      words[p + at + 1] = Number(BigInt.asIntN(32, v));
    }
  }
}

/**
 * A column of a typed kind that arrives as a plain array (a value per row, null for NULL): the same
 * words as its typed form. Booleans are stored as true/false there.
 */
function encodeBoxed(col: Column, n: number, words: Int32Array, W: number, at: number, mw: number, bit: number, double: boolean): void {
  const d = col.data as Value[];
  const nulls = col.nulls;
  for (let i = 0; i < n; i++) {
    const p = i * W;
    const v = d[i];
    if ((nulls !== null && nulls[i] === 1) || v === null || v === undefined) {
      words[p + mw] |= bit;
      words[p + at] = 0;
      if (double) words[p + at + 1] = 0;
      continue;
    }
    const x = typeof v === 'boolean' ? (v ? 1 : 0) : (v as number);
    if (!double) {
      words[p + at] = x;
      continue;
    }
    f64[0] = x !== x ? NaN : x === 0 ? 0 : x;
    words[p + at] = u32[0]!;
    words[p + at + 1] = u32[1]!;
  }
}

anchorShape(new KeyTable([]));
