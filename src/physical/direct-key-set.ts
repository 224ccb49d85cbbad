/**
 * A set of composite keys over small domains kept as a bitmap indexed by the key itself: DISTINCT over
 * dictionary-coded text and narrow integer columns (the common "distinct pairs of a category and a code")
 * without hashing, probing or storing any key. A row costs a few array reads and one bit test.
 *
 * Each key column maps its values to digits in [0, span): NULL is 0, a text value its dictionary code + 1,
 * an int2/int4/bool value its distance from the column's low bound + 1. The key's cell is the mixed-radix
 * number of its digits. Equal SQL values have equal digits: a dictionary holds each string once (text and
 * varchar compare by code point, so equal strings are identical), and int2/int4/bool equality is that of
 * their stored integers. NULLs are one value here, as DISTINCT wants.
 *
 * Domains are learnt from the data: integer bounds from the rows seen (with slack), text from the size of
 * the dictionary. A batch outside them widens the layout and moves the set bits over, as long as the
 * bitmap stays within MAX_CELLS and the keys held are few enough to move in one step; otherwise (or for
 * a batch without codes, or codes of another dictionary) insert() refuses, and the caller moves to a
 * hash table, seeding it from keys().
 */
import type { Batch, Column } from '../common/column.js';
import { makeColumn } from '../common/column.js';
import type { TextDictionary } from '../common/text-dictionary.js';
import type { DataType } from '../common/types.js';

/** Cells at most (one bit each: 8 MiB), far less than a hash table of the keys such a domain can hold. */
export const MAX_CELLS = 1 << 26;

/**
 * Keys held at most when the layout widens: moving them is one synchronous step (a few tens of
 * nanoseconds a key), so a larger set moves to the hash table instead, which takes its keys in batches
 * between yields.
 */
const RELAYOUT_MAX_KEYS = 1 << 18;

/** Keys decoded per batch of keys(). */
const KEYS_BATCH = 2048;

type Kind = 'code' | 'int' | 'bool';

function kindOf(t: DataType): Kind | null {
  switch (t.name) {
    case 'text':
    case 'varchar':
      return 'code';
    case 'int2':
    case 'int4':
      return 'int';
    case 'bool':
      return 'bool';
    default:
      return null;
  }
}

/** Whether every key column has a type whose values can be digits here. */
export function directKeyTypes(types: readonly DataType[]): boolean {
  return types.length > 0 && types.every((t) => kindOf(t) !== null);
}

export class DirectKeySet {
  private readonly kinds: Kind[];
  /** Per column: the value of digit 1 (ints), the number of digits, and the weight of a digit in a cell. */
  private readonly low: number[];
  private readonly span: number[];
  private readonly stride: number[];
  private dictionary: (TextDictionary | null)[];
  private bits: Int32Array;
  private cells = 0;
  /** Keys held. */
  size = 0;
  /** Per-batch scratch: each row's cell. */
  private cell = new Int32Array(0);

  private constructor(readonly types: readonly DataType[]) {
    this.kinds = types.map((t) => kindOf(t)!);
    this.low = types.map(() => 0);
    this.span = types.map(() => 1);
    this.stride = types.map(() => 1);
    this.dictionary = types.map(() => null);
    this.bits = new Int32Array(0);
  }

  /** A set laid out for this first batch, or null when its key columns do not fit one. */
  static create(types: readonly DataType[], cols: readonly Column[], n: number): DirectKeySet | null {
    if (!directKeyTypes(types)) return null;
    const s = new DirectKeySet(types);
    return s.relayout(cols, n) ? s : null;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.bits.length * 4 + this.cell.length * 4;
  }

  /**
   * Adds the keys of rows [0, n) of `cols`; writes the rows whose key was new to `fresh` and returns their
   * number, or -1 (nothing added) when a row's key does not fit any layout this set may take.
   */
  insert(cols: readonly Column[], n: number, fresh: Uint32Array): number {
    if (!this.cellsOf(cols, n) && (!this.relayout(cols, n) || !this.cellsOf(cols, n))) return -1;
    const cell = this.cell;
    const bits = this.bits;
    let w = 0;
    for (let i = 0; i < n; i++) {
      const c = cell[i]!;
      const word = c >>> 5;
      const bit = 1 << (c & 31);
      const x = bits[word]!;
      if ((x & bit) === 0) {
        bits[word] = x | bit;
        fresh[w++] = i;
      }
    }
    this.size += w;
    return w;
  }

  /** Cells of rows [0, n) into `cell`; false when a value falls outside the layout. */
  private cellsOf(cols: readonly Column[], n: number): boolean {
    if (this.cell.length < n) this.cell = new Int32Array(Math.max(n, 1024));
    const cell = this.cell;
    cell.fill(0, 0, n);
    for (let c = 0; c < this.kinds.length; c++) {
      const col = cols[c]!;
      const stride = this.stride[c]!;
      const span = this.span[c]!;
      const nulls = col.nulls;
      if (this.kinds[c] === 'code') {
        const dc = col.dict;
        if (dc == null || dc.dictionary !== this.dictionary[c] || dc.codes.length < n) return false;
        if (!addCodes(cell, dc.codes, nulls, n, span, stride)) return false;
        continue;
      }
      const d = col.data;
      if (!(d instanceof Int32Array || d instanceof Uint8Array)) return false;
      if (!addInts(cell, d, nulls, n, this.low[c]!, span, stride)) return false;
    }
    return true;
  }

  /**
   * Widens the layout to cover rows [0, n) of `cols` as well as every key held, moving the set bits to
   * their new cells; false (layout unchanged) when that would exceed MAX_CELLS or a column cannot be
   * laid out (no codes, or codes of a different dictionary than the keys held).
   */
  private relayout(cols: readonly Column[], n: number): boolean {
    if (this.size > RELAYOUT_MAX_KEYS) return false;
    const k = this.kinds.length;
    const low: number[] = [];
    const span: number[] = [];
    const dicts: (TextDictionary | null)[] = [];
    for (let c = 0; c < k; c++) {
      const col = cols[c]!;
      if (this.kinds[c] === 'code') {
        const dc = col.dict;
        if (dc == null || dc.codes.length < n) return false;
        if (this.dictionary[c] !== null && this.dictionary[c] !== dc.dictionary) return false;
        dicts.push(dc.dictionary);
        low.push(0);
        // Room for entries added to the dictionary later, so a growing one does not relayout each batch.
        const size = dc.dictionary.size;
        span.push(size + 1 + (size >> 3));
        continue;
      }
      dicts.push(null);
      const d = col.data;
      if (!(d instanceof Int32Array || d instanceof Uint8Array)) return false;
      if (this.kinds[c] === 'bool') {
        low.push(0);
        span.push(3);
        continue;
      }
      let lo = Infinity;
      let hi = -Infinity;
      const nulls = col.nulls;
      for (let i = 0; i < n; i++) {
        if (nulls !== null && nulls[i] === 1) continue;
        const v = d[i]!;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      if (this.size > 0 && this.span[c]! > 1) {
        // Keep every value the held keys can have.
        lo = Math.min(lo, this.low[c]!);
        hi = Math.max(hi, this.low[c]! + this.span[c]! - 2);
      }
      if (lo === Infinity) {
        low.push(0);
        span.push(1);
        continue;
      }
      const slack = Math.floor((hi - lo) / 4);
      low.push(lo - slack);
      span.push(hi - lo + 2 * slack + 2);
    }
    let cells = 1;
    for (const s of span) cells *= s;
    if (cells > MAX_CELLS) return false;
    const stride: number[] = new Array(k);
    let m = 1;
    for (let c = k - 1; c >= 0; c--) {
      stride[c] = m;
      m *= span[c]!;
    }
    const bits = new Int32Array(Math.ceil(cells / 32));
    if (this.size > 0) {
      // Each held key's digits, re-weighted; an integer digit also moves by the change of its low bound.
      const oldBits = this.bits;
      const oldStride = this.stride;
      const oldLow = this.low;
      for (let wi = 0; wi < oldBits.length; wi++) {
        let x = oldBits[wi]!;
        while (x !== 0) {
          const b = 31 - Math.clz32(x & -x);
          x &= x - 1;
          let rest = wi * 32 + b;
          let to = 0;
          for (let c = 0; c < k; c++) {
            const digit = Math.floor(rest / oldStride[c]!);
            rest -= digit * oldStride[c]!;
            const moved = digit === 0 || this.kinds[c] !== 'int' ? digit : digit + oldLow[c]! - low[c]!;
            to += moved * stride[c]!;
          }
          bits[to >>> 5]! |= 1 << (to & 31);
        }
      }
    }
    for (let c = 0; c < k; c++) {
      this.low[c] = low[c]!;
      this.span[c] = span[c]!;
      this.stride[c] = stride[c]!;
    }
    this.dictionary = dicts;
    this.bits = bits;
    this.cells = cells;
    return true;
  }

  /** Every key held, as batches of key columns (for moving them to a hash table). */
  *keys(): Generator<Batch> {
    const k = this.kinds.length;
    const bits = this.bits;
    let cells: number[] = [];
    const flush = (): Batch => {
      const m = cells.length;
      const columns: Column[] = [];
      for (let c = 0; c < k; c++) {
        const nulls = new Uint8Array(m);
        let anyNull = false;
        const digits = new Int32Array(m);
        for (let i = 0; i < m; i++) {
          const digit = Math.floor(cells[i]! / this.stride[c]!) % this.span[c]!;
          digits[i] = digit;
          if (digit === 0) {
            nulls[i] = 1;
            anyNull = true;
          }
        }
        const t = this.types[c]!;
        const kind = this.kinds[c]!;
        if (kind === 'code') {
          const values = this.dictionary[c]!.values;
          const data: (string | null)[] = new Array(m);
          const codes = new Int32Array(m);
          for (let i = 0; i < m; i++) {
            codes[i] = digits[i]! - 1;
            data[i] = digits[i] === 0 ? null : values[digits[i]! - 1]!;
          }
          columns.push(makeColumn(t, data, anyNull ? nulls : null, { codes, dictionary: this.dictionary[c]! }));
        } else {
          const data = kind === 'bool' ? new Uint8Array(m) : new Int32Array(m);
          for (let i = 0; i < m; i++) data[i] = digits[i] === 0 ? 0 : digits[i]! - 1 + this.low[c]!;
          columns.push(makeColumn(t, data, anyNull ? nulls : null));
        }
      }
      return { columns, length: m };
    };
    for (let wi = 0; wi < bits.length; wi++) {
      let x = bits[wi]!;
      while (x !== 0) {
        const b = 31 - Math.clz32(x & -x);
        x &= x - 1;
        cells.push(wi * 32 + b);
        if (cells.length === KEYS_BATCH) {
          yield flush();
          cells = [];
        }
      }
    }
    if (cells.length > 0) yield flush();
  }

  /** Cells of the layout (for tests and plans). */
  get cellCount(): number {
    return this.cells;
  }
}

function addCodes(cell: Int32Array, codes: Int32Array, nulls: Uint8Array | null, n: number, span: number, stride: number): boolean {
  for (let i = 0; i < n; i++) {
    const code = codes[i]!;
    // A NULL row's code is -1: digit 0.
    const digit = nulls !== null && nulls[i] === 1 ? 0 : code + 1;
    if (digit >= span) return false;
    cell[i] += digit * stride;
  }
  return true;
}

function addInts(cell: Int32Array, d: Int32Array | Uint8Array, nulls: Uint8Array | null, n: number, low: number, span: number, stride: number): boolean {
  if (nulls === null) {
    for (let i = 0; i < n; i++) {
      const digit = d[i]! - low + 1;
      if (digit < 1 || digit >= span) return false;
      cell[i] += digit * stride;
    }
    return true;
  }
  for (let i = 0; i < n; i++) {
    if (nulls[i] === 1) continue;
    const digit = d[i]! - low + 1;
    if (digit < 1 || digit >= span) return false;
    cell[i] += digit * stride;
  }
  return true;
}
