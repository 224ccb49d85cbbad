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
 *
 * A large table doubles incrementally: the old slots stay readable beside the new table and move over a
 * slice per insert()/find() call, faster than new keys can fill the new table, so no call rehashes
 * millions of entries at once (that single step held the event loop for hundreds of milliseconds).
 * The next table is allocated early and its pages written a slice at a time while the current one
 * fills from a quarter to half: the first write to each page of a fresh allocation is a page fault,
 * and tens of thousands of them in one call cost as much as the rehash itself.
 */
import { hashKey } from '../common/compare.js';
import { microsFromPgEpoch } from '../common/datetime-calendar.js';
import { storageKind, type DataType, type Value } from '../common/types.js';
import type { Column } from '../common/column.js';
import type { DictCodes, TextDictionary } from '../common/text-dictionary.js';
import { anchorShape } from '../common/shape-anchor.js';
import { HASH_ENTRY_BYTES } from '../execution/memory-pool.js';

type WordKind = 'i32' | 'bool' | 'int8' | 'micros' | 'f64' | 'text' | 'bpchar' | 'dict';

function wordKind(t: DataType): WordKind {
  switch (t.name) {
    case 'int8':
    case 'money':
      return 'int8';
    case 'timestamp':
    case 'timestamptz':
      // A number, or a bigint past 2^53 microseconds: one exact integer image for both.
      return 'micros';
    case 'text':
    case 'varchar':
    case 'name':
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
  return k === 'int8' || k === 'micros' || k === 'f64' ? 2 : 1;
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

const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
/** Tables up to this many slots double in one step (well under a millisecond). */
const INCREMENTAL_SLOTS = 1 << 16;
/** 32-bit words per 4 KiB page. */
const PAGE_WORDS = 1024;
/** Pages of the next table written per insert() call besides those that keep pace with new keys. */
const PREFAULT_SLICE = 16;
/** Old slots moved per insert()/find() call besides those that keep pace with new keys. */
const MIGRATE_SLICE = 1 << 16;

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

  /**
   * Key words of entries [0, count), in chunks of CHUNK entries: entry e at
   * [(e & (CHUNK - 1)) * width, …) of chunk e >> CHUNK_BITS. The first chunk grows by doubling up to
   * CHUNK entries; after that a new chunk is added, so growing never copies millions of words at once.
   */
  private chunks: Int32Array[];
  private count = 0;
  /** Per slot: entry id + 1 (0 = empty), then the entry's hash. */
  private table: Int32Array;
  private mask: number;
  /** The table before the last doubling while its entries are still moving over; null otherwise. */
  private old: Int32Array | null = null;
  private oldMask = 0;
  /**
   * Old slots below this have moved to `table`. Slot moved - 1 is always empty, so every run of
   * occupied slots (the probe sequences) below it has moved whole.
   */
  private moved = 0;
  /** The table of the next doubling, allocated ahead; words below `touched` have been written. */
  private next: Int32Array | null = null;
  private touched = 0;

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
    this.chunks = [new Int32Array(1024 * w)];
    this.table = new Int32Array(2 * 2048);
    this.mask = 2047;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held (tuples, table, dictionaries), for memory accounting. */
  get bytes(): number {
    let keyWords = 0;
    for (const c of this.chunks) keyWords += c.length;
    return keyWords * 4 + this.table.length * 4 + (this.old?.length ?? 0) * 4 + this.dictBytes;
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
    const start = this.count;
    for (let i = 0; i < n; i++) {
      const before = this.count;
      const g = this.findOrAdd(words, i * W, hashes[i]!);
      out[i] = g;
      if (fresh !== undefined && g === before) fresh[w++] = i;
    }
    this.freshCount = w;
    // At least four old slots per new key keep the old table (half full at the doubling) moving over
    // before the new one is half full; more, so that the double probe of keys not yet moved is short-lived.
    if (this.old !== null) this.migrate(MIGRATE_SLICE + 8 * (this.count - start));
    if (this.count * 4 > this.mask + 1 && this.mask + 1 >= INCREMENTAL_SLOTS) this.prepare(this.count - start);
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
    if (this.old !== null) this.migrate(MIGRATE_SLICE);
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
    const e = this.probe(this.table, this.mask, words, p, h);
    if (e >= 0 || this.old === null || (h & this.oldMask) < this.moved) return e;
    return this.probe(this.old, this.oldMask, words, p, h);
  }

  /** Entry id with these key words in `table`, or -1. */
  private probe(table: Int32Array, mask: number, words: Int32Array, p: number, h: number): number {
    const chunks = this.chunks;
    const W = this.width;
    let slot = h & mask;
    for (;;) {
      const t = table[2 * slot]!;
      if (t === 0) return -1;
      if (table[2 * slot + 1] === h) {
        const keys = chunks[(t - 1) >> CHUNK_BITS]!;
        const q = ((t - 1) & (CHUNK - 1)) * W;
        let j = 0;
        while (j < W && keys[q + j] === words[p + j]) j++;
        if (j === W) return t - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  private findOrAdd(words: Int32Array, p: number, h: number): number {
    const table = this.table;
    const chunks = this.chunks;
    const mask = this.mask;
    const W = this.width;
    let slot = h & mask;
    for (;;) {
      const t = table[2 * slot]!;
      if (t === 0) break;
      if (table[2 * slot + 1] === h) {
        const keys = chunks[(t - 1) >> CHUNK_BITS]!;
        const q = ((t - 1) & (CHUNK - 1)) * W;
        let j = 0;
        while (j < W && keys[q + j] === words[p + j]) j++;
        if (j === W) return t - 1;
      }
      slot = (slot + 1) & mask;
    }
    // Not yet moved over from the old table: found there (it keeps its id and moves later). A key
    // whose home slot is below `moved` has moved if it is there at all (see migrate).
    if (this.old !== null && (h & this.oldMask) >= this.moved) {
      const o = this.probe(this.old, this.oldMask, words, p, h);
      if (o >= 0) return o;
    }
    const e = this.count++;
    const c = e >> CHUNK_BITS;
    let ks = chunks[c];
    const q = (e & (CHUNK - 1)) * W;
    if (ks === undefined) {
      ks = new Int32Array(CHUNK * W);
      chunks.push(ks);
    } else if (q + W > ks.length) {
      const grown = new Int32Array(Math.min(ks.length * 2, CHUNK * W));
      grown.set(ks);
      chunks[c] = grown;
      ks = grown;
    }
    for (let j = 0; j < W; j++) ks[q + j] = words[p + j]!;
    table[2 * slot] = e + 1;
    table[2 * slot + 1] = h;
    if (this.count * 2 > mask + 1) this.rehash();
    return e;
  }

  private rehash(): void {
    // A doubling that comes before the previous one has moved over (only under pathological hashes,
    // given the pace) finishes that one first, so there are never more than two tables.
    if (this.old !== null) this.migrate(Infinity);
    const old = this.table;
    const oldMask = this.mask;
    const size = (oldMask + 1) * 2;
    this.table = this.next !== null && this.next.length === 2 * size ? this.next : new Int32Array(2 * size);
    this.next = null;
    this.mask = size - 1;
    this.old = old;
    this.oldMask = oldMask;
    this.moved = 0;
    if (size <= INCREMENTAL_SLOTS) this.migrate(Infinity);
  }

  /**
   * Allocates the next table and writes a word on each of its pages, a slice per call: about two
   * pages per 64 new keys, so every page is written by the time the table is half full.
   */
  private prepare(added: number): void {
    const len = 4 * (this.mask + 1);
    if (this.next === null) {
      this.next = new Int32Array(len);
      this.touched = 0;
    }
    const next = this.next;
    const end = Math.min(len, this.touched + PAGE_WORDS * (PREFAULT_SLICE + (added >> 5)));
    for (let i = this.touched; i < end; i += PAGE_WORDS) next[i] = 0;
    this.touched = end;
  }

  /** Moves up to `slots` old slots into the table; drops the old table once all have moved. */
  private migrate(slots: number): void {
    const old = this.old!;
    const table = this.table;
    const mask = this.mask;
    const size = old.length >> 1;
    let end = Math.min(size, this.moved + slots);
    // Up to and including an empty slot, so no run of occupied slots is left half moved.
    while (end < size && old[2 * (end - 1)] !== 0) end++;
    for (let o = this.moved; o < end; o++) {
      const t = old[2 * o]!;
      if (t === 0) continue;
      const h = old[2 * o + 1]!;
      let slot = h & mask;
      while (table[2 * slot] !== 0) slot = (slot + 1) & mask;
      table[2 * slot] = t;
      table[2 * slot + 1] = h;
    }
    this.moved = end;
    if (end === size) this.old = null;
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
        case 'micros':
          encodeMicros(col, n, words, W, at, mw, bit);
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
      // Before `data`: a column held as codes only (codedTextColumn) then never builds its strings.
      this.encodeCodes(c, col.dict, n, words, W, at, mw, bit, adding, miss);
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
  private encodeCodes(c: number, dc: DictCodes, n: number, words: Int32Array, W: number, at: number, mw: number, bit: number, adding: boolean, miss: Uint8Array): void {
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
        const v = dc.dictionary.values[code]!;
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

/** Timestamps as int8 words; infinity and -infinity take the int8 extremes (no finite timestamp has them). */
function encodeMicros(col: Column, n: number, words: Int32Array, W: number, at: number, mw: number, bit: number): void {
  const d = col.data as Float64Array | (number | bigint | null)[];
  const nulls = col.nulls;
  for (let i = 0; i < n; i++) {
    const p = i * W;
    const t = d[i];
    if ((nulls !== null && nulls[i] === 1) || t === null || t === undefined) {
      words[p + mw] |= bit;
      words[p + at] = 0;
      words[p + at + 1] = 0;
      continue;
    }
    if (t === Infinity || t === -Infinity) {
      words[p + at] = t > 0 ? 0x7fffffff : -0x80000000;
      words[p + at + 1] = t > 0 ? -1 : 0;
      continue;
    }
    // Microseconds from 2000 (PostgreSQL's epoch), so every timestamp, 294276 AD included, fits an int8.
    const v = microsFromPgEpoch(t as number | bigint);
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
