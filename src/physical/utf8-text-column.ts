/**
 * A text column held as UTF-8 bytes (one buffer, an offset per row) instead of JS strings, for a Sort
 * whose text key is mostly distinct text made by the query ('k' || n::text, lower(s), …).
 *
 * Held as strings, every one of a million such values lives until the sort is done: the young
 * generation's collector copies each of them (and scans the arrays pointing at them) before promoting
 * it, and the old generation grows by tens of megabytes a query, which costs more than the sort itself.
 * Copied into bytes as its batch arrives, each string dies young; only the rows the Sort emits are
 * decoded back into strings (ORDER BY … OFFSET emits few).
 *
 * Only values the sort's normalized key images exactly are taken: at most `maxBytes` UTF-8 bytes, no
 * U+0000 (the key's padding) and no lone surrogate (no UTF-8 form). A batch holding another is refused
 * whole, so the caller can fall back to strings for everything.
 */
import { Buffer } from 'node:buffer';
import { makeColumn, type Column } from '../common/column.js';
import type { DataType, Value } from '../common/types.js';
import { give, takeU32 } from '../execution/scratch.js';

export class Utf8TextColumn {
  /** Row r's bytes are bytes[offsets[r], offsets[r + 1]). */
  private bytes: Uint8Array<ArrayBuffer>;
  private offsets: Uint32Array<ArrayBuffer>;
  /** 1 = NULL; null until the first NULL arrives. */
  private nullMask: Uint8Array | null = null;
  private text: Buffer;
  length = 0;
  /** UTF-8 length of the longest value. */
  longest = 0;
  /** Every byte below 0x80, so a value decodes as Latin-1. */
  private ascii = true;

  constructor(
    readonly type: DataType,
    private readonly maxBytes: number,
  ) {
    // Pooled (execution/scratch.ts) and given back by release(): a million rows need megabytes of both.
    this.offsets = takeU32(1 << 12);
    this.offsets[0] = 0;
    this.bytes = new Uint8Array(takeU32(1 << 14).buffer);
    this.text = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
  }

  get nulls(): Uint8Array | null {
    return this.nullMask;
  }

  /** The UTF-8 bytes and row offsets (valid until the next append). */
  get image(): { readonly bytes: Uint8Array; readonly offsets: Uint32Array; readonly nulls: Uint8Array | null } {
    return { bytes: this.bytes, offsets: this.offsets, nulls: this.nullMask };
  }

  /**
   * Appends rows [0, n) of a text column; false (and nothing appended) when a value cannot be held
   * exactly (see the header) or is not a string.
   */
  append(data: readonly Value[], nulls: Uint8Array | null, n: number): boolean {
    this.reserve(this.length + n, this.offsets[this.length]! + n * this.maxBytes);
    const r = encodeRows(data, nulls, n, this.bytes, this.offsets, this.length, this.maxBytes);
    if (r < 0) return false;
    if (nulls !== null || r >= NULL_SEEN) {
      const mask = (this.nullMask ??= new Uint8Array(this.offsets.length));
      for (let i = 0; i < n; i++) mask[this.length + i] = (nulls !== null && nulls[i] === 1) || data[i] === null ? 1 : 0;
    } else if (this.nullMask !== null) this.nullMask.fill(0, this.length, this.length + n);
    const longest = r & LONGEST_BITS;
    if (longest > this.longest) this.longest = longest;
    if ((r & NON_ASCII) !== 0) this.ascii = false;
    this.length += n;
    return true;
  }

  /** Row r's value (r must not be NULL). */
  string(r: number): string {
    return this.text.toString(this.ascii ? 'latin1' : 'utf8', this.offsets[r], this.offsets[r + 1]);
  }

  /** Rows sel[0..n) as a column of strings. */
  take(sel: Uint32Array, n: number): Column {
    const out: Value[] = new Array(n);
    const mask = this.nullMask;
    let nulls: Uint8Array | null = null;
    for (let i = 0; i < n; i++) {
      const r = sel[i]!;
      if (mask !== null && mask[r] === 1) {
        out[i] = null;
        (nulls ??= new Uint8Array(n))[i] = 1;
      } else out[i] = this.string(r);
    }
    return makeColumn(this.type, out, nulls);
  }

  /** Every row as a column of strings. */
  all(): Column {
    const sel = new Uint32Array(this.length);
    for (let i = 0; i < sel.length; i++) sel[i] = i;
    return this.take(sel, this.length);
  }

  /** Gives the buffers back to the scratch pool; the column must not be read afterwards. */
  release(): void {
    give(this.offsets, new Uint32Array(this.bytes.buffer));
  }

  private reserve(rows: number, bytes: number): void {
    if (rows + 1 > this.offsets.length) {
      const o = takeU32(Math.max(rows + 1, this.offsets.length * 2));
      o.set(this.offsets.subarray(0, this.length + 1));
      give(this.offsets);
      this.offsets = o;
      if (this.nullMask !== null) {
        const m = new Uint8Array(o.length);
        m.set(this.nullMask.subarray(0, this.length));
        this.nullMask = m;
      }
    }
    if (bytes > this.bytes.length) {
      const b = new Uint8Array(takeU32(Math.ceil(Math.max(bytes, this.bytes.length * 2) / 4)).buffer);
      b.set(this.bytes.subarray(0, this.offsets[this.length]));
      give(new Uint32Array(this.bytes.buffer));
      this.bytes = b;
      this.text = Buffer.from(b.buffer, 0, b.length);
    }
  }
}

/** encodeRows' result: the longest value's length in the low bits, flags above. */
const LONGEST_BITS = 0xffff;
const NON_ASCII = 1 << 16;
const NULL_SEEN = 1 << 17;

/**
 * Writes rows [0, n) of `data` from offsets[at] on, setting offsets[at + 1 .. at + n]. Returns -1 when a
 * value cannot be taken, else the longest value's byte length with NON_ASCII and NULL_SEEN flags.
 */
function encodeRows(data: readonly Value[], nulls: Uint8Array | null, n: number, bytes: Uint8Array, offsets: Uint32Array, at: number, maxBytes: number): number {
  let w = offsets[at]!;
  let longest = 0;
  let flags = 0;
  for (let i = 0; i < n; i++) {
    const v = data[i];
    if (v === null || (nulls !== null && nulls[i] === 1)) {
      if (v === null) flags |= NULL_SEEN;
      offsets[at + i + 1] = w;
      continue;
    }
    if (typeof v !== 'string' || v.length > maxBytes) return -1;
    const start = w;
    const len = v.length;
    for (let j = 0; j < len; j++) {
      let u = v.charCodeAt(j);
      if (u < 0x80) {
        if (u === 0) return -1;
        bytes[w++] = u;
        continue;
      }
      flags |= NON_ASCII;
      if (u < 0x800) {
        bytes[w++] = 0xc0 | (u >>> 6);
        bytes[w++] = 0x80 | (u & 63);
        continue;
      }
      if (u >= 0xd800 && u < 0xe000) {
        const lo = u < 0xdc00 && j + 1 < len ? v.charCodeAt(j + 1) : 0;
        if (lo < 0xdc00 || lo >= 0xe000) return -1;
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        j++;
        bytes[w++] = 0xf0 | (u >>> 18);
        bytes[w++] = 0x80 | ((u >>> 12) & 63);
        bytes[w++] = 0x80 | ((u >>> 6) & 63);
        bytes[w++] = 0x80 | (u & 63);
        continue;
      }
      bytes[w++] = 0xe0 | (u >>> 12);
      bytes[w++] = 0x80 | ((u >>> 6) & 63);
      bytes[w++] = 0x80 | (u & 63);
    }
    const size = w - start;
    if (size > maxBytes) return -1;
    if (size > longest) longest = size;
    offsets[at + i + 1] = w;
  }
  return longest | flags;
}
