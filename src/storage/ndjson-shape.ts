/**
 * Reading NDJSON records that repeat one line's shape through ndjson-shape-kernel.ts: the shape is
 * learnt from a record (the bytes between its values, which hold the keys, become literals the
 * kernel compares), and the kernel's typed slots become column values here. Where the kernel
 * stops (another shape, a value it does not take) or a value does not fit its column, the caller
 * reads the line with scanRecord or the general path, exactly as without the kernel.
 */
import type { Value } from '../common/types.js';
import { mantissaOverPow10 } from './decimal-digits-to-double.js';
import { type NdjsonColumns, type NdjsonSchema } from './ndjson-scanner.js';
import { ndjsonKernels } from './ndjson-kernels.js';
import { KEY_BYTES, KEY_BYTES_AT, KEY_ENTRY, KEY_SLOTS, KEY_TABLE_AT, keySlot } from './ndjson-key-kernel.js';
import { CACHE_EMPTY, CACHE_SLOTS, SHAPE_CACHES, SHAPE_LITERAL_BYTES, SHAPE_ROWS, SHAPE_SLOTS, SHAPE_VALUES, SHAPE_WINDOW, SLOT_BYTES, Tag, TAG_HIGH, TAG_NEGATIVE, type ShapeKernel } from './ndjson-shape-kernel.js';

const enum Out {
  Skip = 0,
  Num = 1,
  Int = 2,
  Bool = 3,
  Text = 4,
}

/** As NdjsonSchema's cache: ASCII strings up to this length go through its short-string cache. */
const SHORT = 24;
const I32_PER_SLOT = SLOT_BYTES / 4;

// Per value: a string's leading U+FEFF is data, which a default decoder would drop.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/** The end of the string whose opening quote is at i (the index after its closing quote), or -1. */
function stringEnd(b: Buffer, i: number, e: number): number {
  i++;
  while (i < e) {
    const c = b[i]!;
    if (c === 34) return i + 1;
    i += c === 92 ? 2 : 1;
  }
  return -1;
}

/**
 * The end of the object or array at i (the index after its closing bracket), or -1: brackets
 * counted outside strings, nothing else checked (the kernel checks the value as JSON).
 */
function nestedEnd(b: Buffer, i: number, e: number): number {
  let depth = 0;
  while (i < e) {
    const c = b[i]!;
    if (c === 34) {
      i = stringEnd(b, i, e);
      if (i < 0) return -1;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

export class NdjsonShape {
  /** Where the record after the last one read starts (set by read() and scan()). */
  next = 0;
  private readonly reads: Int32Array;
  private readonly outs: Int32Array;
  private readonly kinds: Out[];
  /** Values not read whose strings may hold bytes of 128 and more: checked as UTF-8 as scanRecord does. */
  private readonly skipped: Int32Array;
  /** Per value, the schema field its key names (-1: none). */
  readonly fieldOf: readonly number[];
  /** Per value, its string cache in the kernel (1 …) when it is a text column read, else 0. */
  private readonly cacheOf: Int32Array;
  /** Where the window of the last scan() starts in its buffer (slot positions are relative to it). */
  private base = 0;

  /** Values per record (slots per row). */
  private readonly nv: number;

  private constructor(
    private readonly kernel: ShapeKernel,
    /** The literal before each value, and the one after the last; null for the key kernel, which is given keyTable. */
    private readonly literals: Buffer[] | null,
    fieldOf: number[],
    schema: NdjsonSchema,
    private readonly keyTable: { entries: Int32Array; bytes: Buffer } | null = null,
    /** False for sampling: scan() then runs without string caches (the key kernel takes them from its table). */
    private readonly useCaches = true,
  ) {
    this.fieldOf = fieldOf;
    this.nv = fieldOf.length;
    const reads: number[] = [];
    const outs: number[] = [];
    const skipped: number[] = [];
    this.kinds = [];
    fieldOf.forEach((f, v) => {
      const o = f < 0 ? -1 : schema.outOf[f]!;
      if (o < 0) skipped.push(v);
      else {
        reads.push(v);
        outs.push(o);
        this.kinds.push(schema.kinds[f]! as number as Out);
      }
    });
    this.reads = Int32Array.from(reads);
    this.outs = Int32Array.from(outs);
    this.cacheOf = new Int32Array(fieldOf.length);
    let caches = 0;
    reads.forEach((v, x) => {
      if (useCaches && this.kinds[x] === Out.Text && caches < SHAPE_CACHES) this.cacheOf[v] = ++caches;
    });
    this.skipped = Int32Array.from(skipped);
  }

  /**
   * A reader of the schema's fields in any key order through the key kernel (ndjson-key-kernel.ts):
   * value v is field v. Null without WebAssembly or when the names do not fit its table.
   */
  static byKeys(schema: NdjsonSchema, caches = true): NdjsonShape | null {
    const kernel = ndjsonKernels();
    const names = schema.names;
    if (kernel === null || names.length === 0 || names.length > SHAPE_VALUES) return null;
    const entries = new Int32Array((KEY_SLOTS * KEY_ENTRY) / 4);
    for (let e = 0; e < KEY_SLOTS; e++) entries[4 * e + 2] = -1;
    const parts: Buffer[] = [];
    let at = 0;
    for (let f = 0; f < names.length; f++) {
      const k = names[f]!;
      // A name JSON spells with an escape never matches the kernel's unescaped keys: its records go the general way.
      if (!schema.isPlainKey(f)) continue;
      // The field a name maps to is the schema's (a repeated name: its last field).
      if (schema.field(k, 0, k.length, -1) !== f) continue;
      if (at + k.length > KEY_BYTES) return null;
      let h = 0;
      for (let i = 0; i < k.length; i++) h = (Math.imul(h, 31) + k[i]!) | 0;
      let e = keySlot(h);
      while (entries[4 * e + 2] !== -1) e = (e + 1) & (KEY_SLOTS - 1);
      entries.set([h, KEY_BYTES_AT + at, k.length, f], 4 * e);
      parts.push(k);
      at += k.length;
    }
    // The constructor chooses the string caches: their numbers go into the entries after it.
    const shape = new NdjsonShape(kernel, null, names.map((_, f) => f), schema, { entries, bytes: Buffer.concat(parts) }, caches);
    for (let e = 0; e < KEY_SLOTS; e++) {
      if (entries[4 * e + 2] === -1) continue;
      const f = entries[4 * e + 3]!;
      entries[4 * e + 3] = f | (shape.cacheOf[f]! << 8);
    }
    return shape;
  }

  /**
   * The shape of the record on b[s, nl) (nl: its '\n'), or null when it has no shape the kernel
   * takes (a key with an escape, too many keys) or there is no WebAssembly.
   */
  static learn(b: Buffer, s: number, nl: number, schema: NdjsonSchema): NdjsonShape | null {
    const kernel = ndjsonKernels();
    if (kernel === null) return null;
    const literals: Buffer[] = [];
    const fieldOf: number[] = [];
    let i = s;
    let lit = s;
    while (i < nl && isWs(b[i]!)) i++;
    if (b[i] !== 123) return null;
    i++;
    while (i < nl && isWs(b[i]!)) i++;
    if (b[i] === 125) i++;
    else {
      for (;;) {
        if (b[i] !== 34) return null;
        const ks = i + 1;
        let ke = ks;
        while (ke < nl && b[ke] !== 34) {
          if (b[ke] === 92 || b[ke]! < 32) return null;
          ke++;
        }
        if (ke >= nl) return null;
        i = ke + 1;
        while (i < nl && isWs(b[i]!)) i++;
        if (b[i] !== 58) return null;
        i++;
        while (i < nl && isWs(b[i]!)) i++;
        if (i >= nl) return null;
        literals.push(b.subarray(lit, i));
        fieldOf.push(schema.field(b, ks, ke, -1));
        const c = b[i]!;
        if (c === 34) i = stringEnd(b, i, nl);
        else if (c === 123 || c === 91) i = nestedEnd(b, i, nl);
        else {
          // A number or literal word: the kernel checks it; here only its end is needed.
          while (i < nl && !isWs(b[i]!) && b[i] !== 44 && b[i] !== 125) i++;
        }
        if (i < 0 || i >= nl) return null;
        lit = i;
        while (i < nl && isWs(b[i]!)) i++;
        if (b[i] === 44) {
          i++;
          while (i < nl && isWs(b[i]!)) i++;
          continue;
        }
        if (b[i] !== 125) return null;
        i++;
        break;
      }
    }
    while (i < nl && isWs(b[i]!)) i++;
    if (i !== nl) return null;
    literals.push(b.subarray(lit, nl));
    let bytes = 0;
    for (const l of literals) bytes += l.length;
    if (fieldOf.length > SHAPE_VALUES || bytes > SHAPE_LITERAL_BYTES) return null;
    return new NdjsonShape(kernel, literals.map((l) => Buffer.from(l)), fieldOf, schema);
  }

  /**
   * Reads the records of this shape that start at b[s, e) into rows r, r + 1, … (at most max), and
   * sets next to where the first record it did not read starts. Returns the number read; 0 when
   * the record at s is not one it reads (the caller's then).
   */
  read(b: Buffer, s: number, e: number, schema: NdjsonSchema, out: NdjsonColumns, r: number, max: number): number {
    const n = this.scan(b, s, e, max, true);
    const done = this.convert(b, s, n, this.nv, schema, out, r);
    this.next = s + this.kernel.lines[done]!;
    return done;
  }

  /**
   * Runs the kernel over the records at b[s, e) (at most max) and sets next; returns the number
   * read, whose values sampleKind() then tells.
   */
  scan(b: Buffer, s: number, e: number, max: number, cache = false): number {
    const k = this.kernel;
    const len = Math.min(e - s, SHAPE_WINDOW);
    k.input.set(b.subarray(s, s + len), 0);
    k.input[len] = 0;
    const nv = this.nv;
    if (k.owner !== this) {
      // The kernel is shared: another reader may have put its literals or key table there since.
      k.owner = this;
      if (this.keyTable !== null) {
        new Int32Array(k.literals.buffer, KEY_TABLE_AT, this.keyTable.entries.length).set(this.keyTable.entries);
        k.literals.set(this.keyTable.bytes, KEY_BYTES_AT - KEY_TABLE_AT);
      } else {
        let at = 0;
        const literals = this.literals!;
        for (let j = 0; j <= nv; j++) {
          const l = literals[j]!;
          k.literals.set(l, at);
          k.steps[3 * j] = k.literalsAt + at;
          k.steps[3 * j + 1] = l.length;
          k.steps[3 * j + 2] = j < nv ? this.cacheOf[j]! : 0;
          at += l.length;
        }
      }
    }
    if (this.keyTable === null) {
      // Only read() turns the cache's Fresh entries into strings, so only it may have them made.
      for (let j = 0; j < nv; j++) k.steps[3 * j + 2] = cache ? this.cacheOf[j]! : 0;
    } else if (cache !== this.useCaches) {
      // The key kernel's caches are in its table, fixed when the reader is made.
      throw new Error(cache ? 'a key reader made for sampling cannot read' : 'a key reader made for reading cannot sample');
    }
    const maxRows = Math.min(max, SHAPE_ROWS, Math.floor(SHAPE_SLOTS / Math.max(nv, 1)));
    const n = this.keyTable === null ? k.run(0, len, nv, maxRows) : k.keys(0, len, nv, maxRows);
    if (cache && n < maxRows) {
      // The record the kernel stopped in may have filled cache entries before it failed: no
      // string is made for them, so they are emptied (slots it did not reach hold older tags,
      // and emptying their entries costs only a string made again).
      for (let v = 0; v < nv; v++) {
        const ci = this.cacheOf[v]!;
        if (ci > 0) this.forget((n * nv + v) * I32_PER_SLOT, 0, 0, 1, ci);
      }
    }
    this.base = s;
    this.next = s + k.lines[n]!;
    return n;
  }

  /**
   * The type read_json infers for value v of record `row` of the last scan(): as JSON.parse's value
   * would give it (a number is int8 when it is a safe integer, so 1.0 and 1e2 are).
   */
  sampleKind(b: Buffer, row: number, v: number): 'null' | 'bool' | 'int8' | 'float8' | 'text' {
    const at = (row * (this.nv) + v) * I32_PER_SLOT;
    const i32 = this.kernel.slotI32;
    const tagWord = i32[at + 4]!;
    let x: number;
    switch (tagWord & 15) {
      case Tag.Null:
        return 'null';
      case Tag.Ascii:
      case Tag.Utf8:
      case Tag.Nested:
        return 'text';
      case Tag.True:
      case Tag.False:
        return 'bool';
      case Tag.Int:
        return 'int8';
      case Tag.Exact:
        x = this.kernel.slotF64[at >> 1]!;
        break;
      case Tag.Wide:
        x = mantissaOverPow10(Math.abs(this.kernel.slotF64[at >> 1]!), i32[at + 5]!, tagWord >> 8);
        if (x !== x) x = Number(b.toString('latin1', this.base + i32[at + 2]!, this.base + i32[at + 3]!));
        break;
      default:
        x = Number(b.toString('latin1', this.base + i32[at + 2]!, this.base + i32[at + 3]!));
    }
    return Number.isSafeInteger(x) ? 'int8' : 'float8';
  }

  /**
   * Slots of n records into rows r…, a column at a time (one kind and one output array per loop);
   * returns the number of records converted: all n, or the first record with a value its column
   * does not take (the caller reads that line again the general way).
   */
  private convert(b: Buffer, s: number, n: number, nv: number, schema: NdjsonSchema, out: NdjsonColumns, r: number): number {
    const i32 = this.kernel.slotI32;
    const rowI32 = nv * I32_PER_SLOT;
    let limit = n;
    for (let x = 0; x < this.skipped.length; x++) {
      for (let row = 0, at = this.skipped[x]! * I32_PER_SLOT; row < limit; row++, at += rowI32) {
        const tagWord = i32[at + 4]!;
        if ((tagWord & 15) !== Tag.Utf8 && (tagWord & (15 | TAG_HIGH)) !== (Tag.Nested | TAG_HIGH)) continue;
        try {
          utf8.decode(b.subarray(s + i32[at + 2]!, s + i32[at + 3]!));
        } catch {
          limit = row;
        }
      }
    }
    for (let x = 0; x < this.reads.length; x++) {
      const o = this.outs[x]!;
      const first = this.reads[x]! * I32_PER_SLOT;
      switch (this.kinds[x]) {
        case Out.Num:
          limit = this.numbers(b, s, first, rowI32, limit, out.data[o] as Float64Array, out.nulls[o]!, r);
          break;
        case Out.Int:
          limit = this.integers(first, rowI32, limit, out.data[o] as Float64Array | Value[], out.nulls[o]!, r);
          break;
        case Out.Bool:
          limit = this.booleans(first, rowI32, limit, out.data[o] as Uint8Array, out.nulls[o]!, r);
          break;
        default: {
          const v = this.reads[x]!;
          const ci = this.cacheOf[v]!;
          const done = this.strings(b, s, first, rowI32, limit, schema, out.data[o] as Value[], out.nulls[o]!, r, ci);
          // Entries the kernel filled for records not converted get no string here: emptied, so
          // the kernel and the strings kept for its entries stay alike.
          if (ci > 0) this.forget(first, rowI32, done, n, ci);
          limit = done;
        }
      }
    }
    if (limit < n) {
      // Records from the refused one on were written in some columns: they start again as NULL, so
      // whatever reads those rows next leaves no value behind (the same lines land in the same rows,
      // but nothing here depends on that).
      for (let x = 0; x < this.outs.length; x++) out.nulls[this.outs[x]!]!.fill(1, r + limit, r + n);
    }
    return limit;
  }

  private numbers(b: Buffer, s: number, at: number, step: number, n: number, data: Float64Array, nulls: Uint8Array, r: number): number {
    const f64 = this.kernel.slotF64;
    const i32 = this.kernel.slotI32;
    for (let row = 0; row < n; row++, at += step) {
      const tagWord = i32[at + 4]!;
      const tag = tagWord & 15;
      let v: number;
      if (tag === Tag.Int || tag === Tag.Exact) v = f64[at >> 1]!;
      else if (tag === Tag.Null) {
        nulls[r + row] = 1;
        continue;
      } else if (tag === Tag.Wide) {
        v = mantissaOverPow10(Math.abs(f64[at >> 1]!), i32[at + 5]!, tagWord >> 8);
        if (v !== v) v = Number(b.toString('latin1', s + i32[at + 2]!, s + i32[at + 3]!));
        else if ((tagWord & TAG_NEGATIVE) !== 0) v = -v;
      } else if (tag === Tag.Text) v = Number(b.toString('latin1', s + i32[at + 2]!, s + i32[at + 3]!));
      else return row;
      data[r + row] = v;
      nulls[r + row] = 0;
    }
    return n;
  }

  private integers(at: number, step: number, n: number, data: Float64Array | Value[], nulls: Uint8Array, r: number): number {
    const f64 = this.kernel.slotF64;
    const i32 = this.kernel.slotI32;
    for (let row = 0; row < n; row++, at += step) {
      const tag = i32[at + 4]! & 15;
      if (tag === Tag.Int) {
        // + 0: the kernel negates, and -0 is no integer.
        data[r + row] = f64[at >> 1]! + 0;
        nulls[r + row] = 0;
      } else if (tag === Tag.Null) nulls[r + row] = 1;
      else return row;
    }
    return n;
  }

  private booleans(at: number, step: number, n: number, data: Uint8Array, nulls: Uint8Array, r: number): number {
    const i32 = this.kernel.slotI32;
    for (let row = 0; row < n; row++, at += step) {
      const tag = i32[at + 4]! & 15;
      if (tag === Tag.True || tag === Tag.False) {
        data[r + row] = tag === Tag.True ? 1 : 0;
        nulls[r + row] = 0;
      } else if (tag === Tag.Null) nulls[r + row] = 1;
      else return row;
    }
    return n;
  }

  private forget(at: number, step: number, from: number, n: number, ci: number): void {
    const i32 = this.kernel.slotI32;
    const base = (ci - 1) * CACHE_SLOTS;
    for (let row = from, a = at + from * step; row < n; row++, a += step) {
      if ((i32[a + 4]! & 15) === Tag.Fresh) this.kernel.cache[(base + i32[a + 5]!) * 32] = CACHE_EMPTY;
    }
  }

  private strings(b: Buffer, s: number, at: number, step: number, n: number, schema: NdjsonSchema, data: Value[], nulls: Uint8Array, r: number, ci: number): number {
    const i32 = this.kernel.slotI32;
    const kept = ci > 0 ? this.kernel.cacheStrings[ci - 1]! : null;
    for (let row = 0; row < n; row++, at += step) {
      const tag = i32[at + 4]! & 15;
      const vs = s + i32[at + 2]!;
      const ve = s + i32[at + 3]!;
      let str: string;
      if (tag === Tag.Cached) str = kept![i32[at + 5]!]!;
      else if (tag === Tag.Fresh) {
        str = b.toString('latin1', vs, ve);
        kept![i32[at + 5]!] = str;
      } else if (tag === Tag.Ascii) str = ve - vs <= SHORT ? schema.shortString(b, vs, ve, i32[at + 5]!) : b.toString('latin1', vs, ve);
      else if (tag === Tag.Null) {
        nulls[r + row] = 1;
        continue;
      } else if (tag === Tag.Utf8) {
        try {
          str = utf8.decode(b.subarray(vs, ve));
        } catch {
          return row;
        }
      } else if (tag === Tag.Nested) {
        // Its JSON text as JSON.stringify writes it, as the general path gives it.
        try {
          str = JSON.stringify(JSON.parse((i32[at + 4]! & TAG_HIGH) !== 0 ? utf8.decode(b.subarray(vs, ve)) : b.toString('latin1', vs, ve)));
        } catch {
          return row;
        }
      } else return row;
      data[r + row] = str;
      nulls[r + row] = 0;
    }
    return n;
  }
}
