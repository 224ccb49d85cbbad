/**
 * A hash set of composite row keys stored as bytes: DISTINCT over several columns without building a
 * JavaScript string per row.
 *
 * Each row's key is written column by column into one byte string, equal exactly when the SQL values are
 * equal (PostgreSQL equality: NULL = NULL here, NaN = NaN, -0 = 0, numeric 1.0 = 1.00, bpchar without
 * trailing blanks). Per column: a tag byte (0 NULL, 1 value), then bool 1 byte, int2/int4 4 bytes,
 * int8 8 bytes of the 64-bit integer (number or bigint alike), the other f64-stored types 8 bytes of the
 * canonical double, text a 4-byte length and its UTF-16 units; any other type its canonical hash key
 * (compare.ts hashKey) with a kind byte. Every field has a fixed length or a length in front, so two
 * different tuples never share a byte string.
 *
 * Keys live in one growing arena; an open-addressing table (linear probing, at most half full) holds
 * entry numbers, with each entry's 32-bit hash beside it in the table, so a probe reads one cache line
 * and most mismatches cost no byte comparison.
 */
import { hashKey } from '../common/compare.js';
import { storageKind, type DataType, type Value } from '../common/types.js';
import type { Batch, Column } from '../execution/column.js';
import { anchorShape } from '../execution/shape-anchor.js';
import { int8High, int8Low } from './normalized-key.js';

type FieldKind = 'bool' | 'i32' | 'int8' | 'f64' | 'text' | 'bpchar' | 'other';

function fieldKind(t: DataType): FieldKind {
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
      return 'other';
  }
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function rtrimLength(s: string): number {
  let n = s.length;
  while (n > 0 && s.charCodeAt(n - 1) === 32) n--;
  return n;
}

export class RowKeySet {
  private readonly kinds: FieldKind[];
  private arena = new Uint8Array(1 << 16);
  private used = 0;
  /** Entry e's key is arena[start[e], start[e + 1]). */
  private start = new Uint32Array(1024);
  private count = 0;
  /** Per slot: entry + 1 (0 = empty), then the entry's hash, side by side so a probe reads one line. */
  private table = new Int32Array(2 * 2048);
  private mask = 2047;

  constructor(
    private readonly types: readonly DataType[],
    private readonly cols: readonly number[],
  ) {
    this.kinds = cols.map((c) => fieldKind(types[c]!));
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the set holds (arena, entry arrays and table), for memory accounting. */
  get bytes(): number {
    return this.arena.length + this.start.length * 4 + this.table.length * 4;
  }

  /**
   * Adds the keys of every row of `b`; writes the indexes of rows whose key was new (first occurrence,
   * also within the batch) to `sel` and returns how many.
   */
  addBatch(b: Batch, sel: Uint32Array): number {
    const n = b.length;
    const { bytes, offsets } = this.encode(b);
    let w = 0;
    for (let i = 0; i < n; i++) {
      const s = offsets[i]!;
      const e = offsets[i + 1]!;
      const h = hashBytes(bytes, s, e);
      if (this.insert(bytes, s, e, h)) sel[w++] = i;
    }
    return w;
  }

  private insert(bytes: Uint8Array, s: number, e: number, h: number): boolean {
    const table = this.table;
    const mask = this.mask;
    const len = e - s;
    let slot = h & mask;
    for (;;) {
      const t = table[2 * slot]!;
      if (t === 0) break;
      if (table[2 * slot + 1] === h) {
        const entry = t - 1;
        const a = this.start[entry]!;
        if (this.start[entry + 1]! - a === len && sameBytes(this.arena, a, bytes, s, len)) return false;
      }
      slot = (slot + 1) & mask;
    }
    // New key: append it to the arena and the entry offsets, then claim the empty slot found above.
    let used = this.used;
    if (used + len > this.arena.length) {
      const grown = new Uint8Array(Math.max(this.arena.length * 2, used + len));
      grown.set(this.arena.subarray(0, used));
      this.arena = grown;
    }
    const arena = this.arena;
    for (let j = s; j < e; j++) arena[used++] = bytes[j]!;
    const entry = this.count++;
    if (this.count + 1 >= this.start.length) {
      const st = new Uint32Array(this.start.length * 2);
      st.set(this.start);
      this.start = st;
    }
    this.start[entry + 1] = used;
    this.used = used;
    table[2 * slot] = entry + 1;
    table[2 * slot + 1] = h;
    if (this.count * 2 > mask + 1) this.rehash();
    return true;
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

  /** The key bytes of every row of `b` (row i at offsets[i]..offsets[i + 1]). */
  private encode(b: Batch): { bytes: Uint8Array; offsets: Uint32Array } {
    const n = b.length;
    const lens = new Uint32Array(n + 1);
    const others: (Value[] | null)[] = [];
    for (let k = 0; k < this.cols.length; k++) {
      const c = b.columns[this.cols[k]!]!;
      const kind = this.kinds[k]!;
      others.push(kind === 'other' ? canonical(c, this.types[this.cols[k]!]!, n) : null);
      addLengths(c, kind, n, lens, others[k]!);
    }
    // Prefix sums: lens becomes the offsets.
    let total = 0;
    for (let i = 0; i < n; i++) {
      const l = lens[i]!;
      lens[i] = total;
      total += l;
    }
    lens[n] = total;
    const offsets = lens;
    const bytes = new Uint8Array(total);
    // pos[i]: where row i's next field goes.
    const pos = offsets.slice(0, n);
    for (let k = 0; k < this.cols.length; k++) {
      writeField(b.columns[this.cols[k]!]!, this.kinds[k]!, n, bytes, pos, others[k]!);
    }
    return { bytes, offsets };
  }
}

/** Canonical hash keys (compare.ts) of a column of a type without a fixed field form. */
function canonical(c: Column, t: DataType, n: number): Value[] {
  const d = c.data as Value[];
  const out: Value[] = new Array(n);
  for (let i = 0; i < n; i++) {
    if (c.nulls !== null && c.nulls[i] === 1) {
      out[i] = null;
      continue;
    }
    const k = hashKey(d[i]!, t);
    out[i] = typeof k === 'bigint' ? `b${k}` : k;
  }
  return out;
}

function addLengths(c: Column, kind: FieldKind, n: number, lens: Uint32Array, other: Value[] | null): void {
  const nulls = c.nulls;
  const fixed = kind === 'bool' ? 1 : kind === 'i32' ? 4 : kind === 'int8' || kind === 'f64' ? 8 : -1;
  if (fixed >= 0) {
    for (let i = 0; i < n; i++) lens[i] += nulls !== null && nulls[i] === 1 ? 1 : 1 + fixed;
    return;
  }
  if (kind === 'text' || kind === 'bpchar') {
    const d = c.data as Value[];
    for (let i = 0; i < n; i++) {
      if (nulls !== null && nulls[i] === 1) lens[i] += 1;
      else {
        const s = d[i] as string;
        lens[i] += 5 + 2 * (kind === 'bpchar' ? rtrimLength(s) : s.length);
      }
    }
    return;
  }
  // other: tag, kind byte, then 1 (boolean), 8 (number) or 4 + 2 * length (string).
  for (let i = 0; i < n; i++) {
    const v = other![i];
    if (v === null) lens[i] += 1;
    else if (typeof v === 'boolean') lens[i] += 3;
    else if (typeof v === 'number') lens[i] += 10;
    else lens[i] += 6 + 2 * (v as string).length;
  }
}

function put32(bytes: Uint8Array, p: number, v: number): void {
  bytes[p] = v >>> 24;
  bytes[p + 1] = (v >>> 16) & 255;
  bytes[p + 2] = (v >>> 8) & 255;
  bytes[p + 3] = v & 255;
}

function putNumber(bytes: Uint8Array, p: number, v: number): void {
  // One NaN and one zero, so equal values share bytes.
  f64[0] = v !== v ? NaN : v === 0 ? 0 : v;
  put32(bytes, p, u32[1]!);
  put32(bytes, p + 4, u32[0]!);
}

function putString(bytes: Uint8Array, p: number, s: string, len: number): number {
  put32(bytes, p, len);
  p += 4;
  for (let j = 0; j < len; j++) {
    const u = s.charCodeAt(j);
    bytes[p++] = u >>> 8;
    bytes[p++] = u & 255;
  }
  return p;
}

function writeField(c: Column, kind: FieldKind, n: number, bytes: Uint8Array, pos: Uint32Array, other: Value[] | null): void {
  const nulls = c.nulls;
  const d = c.data;
  for (let i = 0; i < n; i++) {
    let p = pos[i]!;
    if ((nulls !== null && nulls[i] === 1) || (other !== null && other[i] === null)) {
      bytes[p] = 0;
      pos[i] = p + 1;
      continue;
    }
    bytes[p++] = 1;
    switch (kind) {
      case 'bool': {
        const v = d[i];
        bytes[p++] = v === 1 || v === true ? 1 : 0;
        break;
      }
      case 'i32':
        put32(bytes, p, (d[i] as number) >>> 0);
        p += 4;
        break;
      case 'int8': {
        const v = d[i] as number | bigint;
        const hi = int8High(v);
        const lo = int8Low(v, hi);
        put32(bytes, p, hi >>> 0);
        put32(bytes, p + 4, lo >>> 0);
        p += 8;
        break;
      }
      case 'f64':
        putNumber(bytes, p, d[i] as number);
        p += 8;
        break;
      case 'text':
      case 'bpchar': {
        const s = d[i] as string;
        p = putString(bytes, p, s, kind === 'bpchar' ? rtrimLength(s) : s.length);
        break;
      }
      default: {
        const v = other![i]!;
        if (typeof v === 'boolean') {
          bytes[p++] = 0;
          bytes[p++] = v ? 1 : 0;
        } else if (typeof v === 'number') {
          bytes[p++] = 1;
          putNumber(bytes, p, v);
          p += 8;
        } else {
          bytes[p++] = 2;
          const s = v as string;
          p = putString(bytes, p, s, s.length);
        }
      }
    }
    pos[i] = p;
  }
}

/** 32-bit hash of bytes[s, e): FNV-1a over 32-bit words (with a byte tail) and a final avalanche. */
function hashBytes(bytes: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5 ^ (e - s);
  let p = s;
  for (; p + 4 <= e; p += 4) {
    const w = bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24);
    h = Math.imul(h ^ w, 0x01000193);
    h ^= h >>> 15;
  }
  for (; p < e; p++) h = Math.imul(h ^ bytes[p]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

function sameBytes(a: Uint8Array, p: number, b: Uint8Array, q: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (a[p + j] !== b[q + j]) return false;
  return true;
}

anchorShape(new RowKeySet([], []));
