/**
 * A fast path for read_parquet: one flat (non-nested) column chunk of one row group decoded straight
 * into Quire's column storage (Int32Array, Float64Array, or an array of strings) plus a null map.
 *
 * hyparquet's generic reader rebuilds every value through its Dremel list assembler, pushing each value
 * (or null) into a plain JS array, reads definition levels into a JS array even when a page has no
 * NULLs, and turns every INT64 into a bigint before our parsers see it. For a flat column none of that
 * is needed: definition levels are 0/1, a page whose levels are one run of 1s has no NULLs (its levels
 * are skipped; other levels become NULL flags a run at a time), PLAIN numbers are copied as typed
 * arrays, INT64s are read as two 32-bit halves, and a dictionary is decoded once per column chunk, its
 * indices mapped to the same number or string objects. A text dictionary also becomes a TextDictionary,
 * so its rows reach the operators with codes (grouped and joined without hashing strings). PLAIN text
 * stays bytes (PlainText) and DECIMAL its unscaled integers, their strings and Numerics made a batch at
 * a time.
 *
 * Page headers are read by hyparquet's module exports, pages decompressed by parquet-codecs.ts; the RLE/bit-packed hybrid (indexes
 * and levels) is decoded here, bit-packed runs by an unpacker compiled per bit width. Columns decoded
 * after a row filter are decoded at the passing rows only (see readFlatColumn; passing rows that come in
 * stretches are decoded stretch by stretch from the encoding, see pickStretches; many scattered ones on a
page with NULLs are found by rank, see parquet-ranked-pick.ts); a filter column that is
 * not output is filtered page by page without storing its values (readFilterColumn), and a page of
 * another column with the same definition levels as its page takes its NULL flags (FilterLevels).
 * Encodings this file does not decode (DELTA_*, BYTE_STREAM_SPLIT, …) and values the storage cannot
 * hold exactly throw FlatFallback: the caller reads that column chunk through hyparquet's general path.
 */
import type { AsyncBuffer, ColumnChunk, CompressionCodec, FileMetaData, RowGroup, SchemaElement, SchemaTree } from 'hyparquet';
import { lazyModule } from '../../common/lazy-module.js';
import { decompressDataPage, decompressDictionaryPage, decompressPrefix } from './parquet-codecs.js';
import { Numeric } from '../../common/numeric.js';
import type { Value } from '../../common/types.js';
import { TextDictionary, allDistinct, type DictCodes } from '../../common/text-dictionary.js';
import { integerInterval, narrowRange, narrowSelection, type NumberRowFilter, type RowFilter, type TextRowFilter } from './parquet-row-filter.js';
import { keepDictionary, keptDictionary, type KeptDictionary, type LazyEntries } from './parquet-dictionary-cache.js';
import type { ParquetValuePool } from './parquet-value-pool.js';
import { PageRanks, pickNullBits, pickPackedCodes, pickPackedF64, pickPackedI32, pickRankedCodes, pickRankedF64, pickRankedI32 } from './parquet-ranked-pick.js';
import { PackedStream } from './parquet-packed-stream.js';
import { PageRuns, pickRunCodes, pickRunsF64, pickRunsI32 } from './parquet-page-runs.js';
import { headerEnd, readRunValue, runHeader } from './parquet-run-header.js';
import { bytesPass, leadingLiteral, LiteralWords, stringPasses, trailingLiteral, validUtf8 } from './parquet-text-filter.js';

const hyparquetColumn = lazyModule<typeof import('hyparquet/src/column.js')>('hyparquet/src/column.js');
const hyparquetSchema = lazyModule<typeof import('hyparquet/src/schema.js')>('hyparquet/src/schema.js');

/**
 * A file's column chunks: hyparquet's AsyncBuffer, optionally with a synchronous read whose bytes stay
 * valid only until the next read (the decoders here use them before returning).
 */
export interface ChunkSource extends AsyncBuffer {
  readRange?(start: number, end: number): Uint8Array;
  /** The file's identity (fileIdentity in parquet-dictionary-cache.ts): its dictionaries may be kept across queries. */
  readonly identity?: string;
}

/** This chunk needs hyparquet's general path (an encoding not decoded here, or a value out of range). */
export class FlatFallback extends Error {}

export interface FlatColumnData {
  /**
   * Rows of the whole row group: Int32Array for int2/int4, Float64Array for the other numbers, and for
   * text and numeric the Int32Array of each row's index into `objects`.
   */
  readonly values: Int32Array | Float64Array;
  /** Text and numeric only: the chunk's decoded values (a dictionary's entries, then PLAIN pages' values). */
  readonly objects: Value[] | null;
  readonly nulls: Uint8Array | null;
  /**
   * Text from a dictionary page: its entries (the first entries of `objects`) as a TextDictionary, so
   * `values` double as dictionary codes (-1 on NULL rows) for grouping, joining and sorting by code. A
   * row whose index is at or past the dictionary's size came from a PLAIN page (a writer's fallback
   * when the dictionary grew too large) and has no code.
   */
  readonly dictionary: TextDictionary | null;
  /**
   * DECIMAL read as its unscaled integers (`values`, a Float64Array, each below 2^53 in magnitude): the
   * numeric's scale, batches carry them as doubles, Numerics built only if read (scaledNumericColumn); -1 for other columns.
   */
  readonly decimalScale: number;
  /**
   * Text from PLAIN data pages, kept as bytes: a row whose index is `plain.base` or more is value
   * index - base there, its string built with its batch's (materializeObjects); null when no page was PLAIN.
   */
  readonly plain: PlainText | null;
}

/**
 * A chunk's PLAIN-encoded text values as their bytes, each page's values copied in one piece with their
 * 4-byte length prefixes (value j is bytes [starts[j], starts[j+1] - 4)). A row group's strings made
 * while its pages are decoded live until its last batch is cut, long enough for the collector to
 * promote them (and the array holding them) and then collect them in a full collection; made a batch
 * at a time they die young. Rows the scan never hands out (a filter on other columns drops them) get
 * no string at all.
 */
export class PlainText {
  bytes: Uint8Array;
  /** The same memory, four bytes to a word, for the ASCII test. */
  private words: Uint32Array;
  private latin1: Buffer;
  private view: DataView;
  /** Value j starts at starts[j]; starts[count] is 4 past the last value's end. */
  starts: Int32Array;
  count = 0;
  /** Bytes used. */
  used = 0;
  constructor(
    /** Index of the first value (the chunk's dictionary entries come before). */
    readonly base: number,
    capacity: number,
    values: number,
  ) {
    this.bytes = new Uint8Array((capacity + 3) & ~3);
    this.words = new Uint32Array(this.bytes.buffer);
    this.latin1 = Buffer.from(this.bytes.buffer);
    this.view = new DataView(this.bytes.buffer);
    this.starts = new Int32Array(values + 1);
  }

  /** Room for n more bytes and v more values. */
  reserve(n: number, v: number): void {
    if (this.used + n > this.bytes.length) {
      const grown = new Uint8Array((Math.max(this.used + n, this.bytes.length * 2) + 3) & ~3);
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
      this.words = new Uint32Array(grown.buffer);
      this.latin1 = Buffer.from(grown.buffer);
      this.view = new DataView(grown.buffer);
    }
    if (this.count + v + 1 > this.starts.length) {
      const grown = new Int32Array(Math.max(this.count + v + 1, this.starts.length * 2));
      grown.set(this.starts.subarray(0, this.count + 1));
      this.starts = grown;
    }
  }

  /**
   * The values of a page that start at src[at[0]], src[at[1]], … (n of them, each after its 4-byte
   * length prefix, which is copied with it), appended in that order.
   */
  appendValues(src: Uint8Array, view: DataView, at: Int32Array, n: number): void {
    let total = 0;
    for (let i = 0; i < n; i++) total += 4 + view.getUint32(at[i]! - 4, true);
    this.reserve(total, n);
    const bytes = this.bytes;
    const out = this.view;
    const starts = this.starts;
    let u = this.used;
    let j = this.count;
    for (let i = 0; i < n; i++) {
      const a = at[i]! - 4;
      const len = 4 + view.getUint32(a, true);
      if (len <= 32) {
        // Short values four bytes at a time, the last word overlapping the one before (a value is at
        // least its 4-byte prefix): a set() call per value, or a loop per byte, cost 2-4x as much.
        let k = 0;
        for (; k + 4 <= len; k += 4) out.setInt32(u + k, view.getInt32(a + k, true), true);
        if (k < len) out.setInt32(u + len - 4, view.getInt32(a + len - 4, true), true);
      } else bytes.set(src.subarray(a, a + len), u);
      starts[j++] = u + 4;
      u += len;
    }
    this.used = u;
    this.count = j;
    starts[j] = u + 4;
  }

  /** Whether bytes [from, to) are all below 0x80. */
  ascii(from: number, to: number): boolean {
    const bytes = this.bytes;
    let high = 0;
    let i = from;
    for (; i < to && (i & 3) !== 0; i++) high |= bytes[i]!;
    const words = this.words;
    let w = 0;
    const last = to >>> 2;
    for (let k = i >>> 2; k < last; k++) w |= words[k]!;
    for (i = Math.max(i, last << 2); i < to; i++) high |= bytes[i]!;
    return ((high | w | (w >>> 8) | (w >>> 16) | (w >>> 24)) & 0x80) === 0;
  }

  /** Bytes [from, to) as Latin-1 (for ASCII bytes, their text). */
  latin1Of(from: number, to: number): string {
    return this.latin1.toString('latin1', from, to);
  }

  /** Value j's string, as materializeObjects builds it. */
  valueText(j: number): string {
    return asciiOrUtf8(this.bytes, this.starts[j]!, this.starts[j + 1]! - 4);
  }

  private validUpTo = -1;
  private valid = true;

  /** Whether every value is valid UTF-8 (then its bytes can be tested for what its string would pass). */
  validUtf8(): boolean {
    if (this.validUpTo === this.count) return this.valid;
    // Length prefixes below 128 are ASCII too: one pass over all the bytes then settles it.
    let valid = this.ascii(0, this.used);
    if (!valid) {
      valid = true;
      const starts = this.starts;
      for (let j = 0; j < this.count && valid; j++) valid = validUtf8(this.bytes, starts[j]!, starts[j + 1]! - 4);
    }
    this.valid = valid;
    this.validUpTo = this.count;
    return valid;
  }
}

/** PLAIN text values of a data page into `plain`, their indexes (base + value number) into dst[at …at+n). */
function readPlainText(r: Reader, n: number, dst: Int32Array, at: number, plain: PlainText): void {
  const view = r.view;
  const from = r.offset;
  const end = view.byteLength;
  plain.reserve(0, n);
  const starts = plain.starts;
  // Where the page's values land in the pool: offsets within the page shift by `shift`.
  const shift = plain.used - from;
  let j = plain.count;
  const first = plain.base + j;
  let o = from;
  for (let i = 0; i < n; i++) {
    if (o + 4 > end) throw new Error('page ends inside its values');
    const len = view.getUint32(o, true);
    o += 4;
    if (len > end - o) throw new Error('page ends inside its values');
    starts[j++] = o + shift;
    dst[at + i] = first + i;
    o += len;
  }
  plain.reserve(o - from, 0);
  plain.bytes.set(new Uint8Array(view.buffer, view.byteOffset + from, o - from), plain.used);
  plain.used += o - from;
  plain.count = j;
  plain.starts[j] = plain.used + 4;
  r.offset = o;
}

/**
 * A text or numeric column's rows [from, to) as an array of values. Built per batch: filling a short array is
 * cheap, while an array as long as a row group is slow in V8 (preallocated it starts in dictionary
 * mode; grown by push it is copied and write-barriered all the way).
 */
export function materializeObjects(d: FlatColumnData, from: number, to: number): Value[] {
  if (d.plain !== null) return materializeText(d, d.plain, from, to);
  const out = new Array<Value>(to - from);
  const idx = d.values;
  const objects = d.objects!;
  const nulls = d.nulls;
  for (let i = from; i < to; i++) out[i - from] = nulls !== null && nulls[i] === 1 ? null : objects[idx[i]!]!;
  return out;
}

/**
 * materializeObjects of a chunk with PLAIN text. The batch's PLAIN values lie in one stretch of the
 * pool (rows are in page order); when it is all ASCII it is decoded once as Latin-1 and short values
 * cut from it (V8 copies substrings below 13 characters, so none keeps the batch's string alive).
 */
function materializeText(d: FlatColumnData, plain: PlainText, from: number, to: number): Value[] {
  const out = new Array<Value>(to - from);
  const idx = d.values;
  const objects = d.objects!;
  const nulls = d.nulls;
  const base = plain.base;
  const starts = plain.starts;
  let firstValue = -1;
  let lastValue = -1;
  let plainRows = 0;
  for (let i = from; i < to; i++) {
    if (idx[i]! >= base && (nulls === null || nulls[i] !== 1)) {
      if (firstValue < 0) firstValue = idx[i]! - base;
      lastValue = idx[i]! - base;
      plainRows++;
    }
  }
  let text: string | null = null;
  let lo = 0;
  // Rows a filter picked here and there: their stretch is mostly values no row wants, not worth decoding.
  if (firstValue >= 0 && lastValue - firstValue < 2 * plainRows) {
    lo = starts[firstValue]!;
    const hi = starts[lastValue + 1]! - 4;
    if (plain.ascii(lo, hi)) text = plain.latin1Of(lo, hi);
  }
  const bytes = plain.bytes;
  for (let i = from; i < to; i++) {
    if (nulls !== null && nulls[i] === 1) {
      out[i - from] = null;
      continue;
    }
    const k = idx[i]!;
    if (k < base) {
      out[i - from] = objects[k]!;
      continue;
    }
    const a = starts[k - base]!;
    const b = starts[k - base + 1]! - 4;
    out[i - from] = text !== null && b - a <= SHORT_STRING ? text.substring(a - lo, b - lo) : asciiOrUtf8(bytes, a, b);
  }
  return out;
}

/**
 * Rows [from, to) of a text column as dictionary codes, or null when the chunk had no dictionary or a
 * row of the range came from a PLAIN page (a batch's codes must cover all its rows).
 */
export function dictCodes(d: FlatColumnData, from: number, to: number): DictCodes | null {
  const dictionary = d.dictionary;
  if (dictionary === null) return null;
  const codes = d.values.subarray(from, to) as Int32Array;
  // Every index is a dictionary entry unless PLAIN pages added values after the entries.
  if (d.plain !== null || d.objects!.length > dictionary.size) {
    const size = dictionary.size;
    for (let i = 0; i < codes.length; i++) if (codes[i]! >= size) return null;
  }
  return { codes, dictionary };
}

/** Rows of a row group per dictionary entry below which its text goes without codes. */
const CODED_ROWS_PER_ENTRY = 64;

/** The dictionary's entries as a TextDictionary, or null when two entries are equal (codes would not be the indexes). */
function textDictionary(entries: readonly Value[]): TextDictionary | null {
  const strings = entries as readonly string[];
  return allDistinct(strings) ? TextDictionary.ofDistinct(strings) : null;
}

/** Quire types this path produces. */
export const FLAT_FAST_TYPES = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'date', 'timestamp', 'timestamptz', 'text', 'numeric']);

/** How a chunk's physical values become Quire values. */
type Conversion =
  | { kind: 'i32' } // INT32 → int2/int4
  | { kind: 'i32f' } // INT32 → float storage (date as days)
  | { kind: 'i64'; unit: 'int' | 'millis' | 'micros' | 'nanos' }
  | { kind: 'f64' }
  | { kind: 'f32' }
  | { kind: 'str' }
  | Decimal
  // DECIMAL as its unscaled integers in float storage; DecimalWide at a value of 2^53 or more.
  | { kind: 'decn'; scale: number; physical: Decimal['physical']; width: number };

/** DECIMAL as one Numeric object per value (what a chunk holding a value of 2^53 or more is read as). */
type Decimal = { kind: 'dec'; scale: number; physical: 'INT32' | 'INT64' | 'FIXED_LEN_BYTE_ARRAY' | 'BYTE_ARRAY'; width: number };

/** A DECIMAL chunk has a value a double cannot hold exactly: it is read again as Numeric objects. */
class DecimalWide extends Error {}

export interface FlatChunk {
  readonly chunk: ColumnChunk;
  readonly element: SchemaElement;
  readonly conversion: Conversion;
  readonly optional: boolean;
}

/** Where a chunk's dictionary may be kept across queries: the file's identity and the chunk's offset in it. */
interface KeptAt {
  readonly identity: string;
  readonly start: number;
}

function keptAt(file: ChunkSource, start: number): KeptAt | null {
  return file.identity === undefined ? null : { identity: file.identity, start };
}

/** The key of a conversion's numbers in a kept dictionary; null: not kept (text is kept as strings, decimals not at all). */
function conversionKey(c: Conversion): string | null {
  return c.kind === 'i64' ? `i64 ${c.unit}` : c.kind === 'str' || c.kind === 'dec' ? null : c.kind;
}

function emptyKept(entries: number, pageSize: number): KeptDictionary {
  return { entries, pageSize, numbers: new Map(), strings: null, distinct: false, lazy: null };
}

/** Keeps a dictionary's numbers beside what is kept of the page already. */
function keepNumbers(keep: KeptAt, pageAt: number, kept: KeptDictionary | null, n: number, pageSize: number, ck: string, numbers: Dense): void {
  const base = kept ?? emptyKept(n, pageSize);
  keepDictionary(keep.identity, keep.start + pageAt, { ...base, numbers: new Map([...base.numbers, [ck, numbers]]) });
}

function conversionOf(e: SchemaElement, quireType: string): Conversion | null {
  const lt = e.logical_type;
  const ct = e.converted_type;
  if (ct === 'DECIMAL' || lt?.type === 'DECIMAL') {
    // Exact: the unscaled integer becomes the coefficient (hyparquet's own path divides into a double).
    const scale = lt?.type === 'DECIMAL' ? lt.scale : (e.scale ?? 0);
    if (quireType !== 'numeric' || scale < 0) return null;
    if (e.type === 'INT32' || e.type === 'INT64' || e.type === 'BYTE_ARRAY') return { kind: 'decn', scale, physical: e.type, width: 0 };
    if (e.type === 'FIXED_LEN_BYTE_ARRAY' && (e.type_length ?? 0) > 0) return { kind: 'decn', scale, physical: e.type, width: e.type_length! };
    return null;
  }
  switch (e.type) {
    case 'INT32':
      if (quireType === 'int4' || quireType === 'int2') return { kind: 'i32' };
      if (quireType === 'date') return { kind: 'i32f' };
      return null;
    case 'INT64':
      if (quireType === 'int8') return { kind: 'i64', unit: 'int' };
      if (quireType === 'timestamp' || quireType === 'timestamptz') {
        if (lt?.type === 'TIMESTAMP') return { kind: 'i64', unit: lt.unit === 'MILLIS' ? 'millis' : lt.unit === 'NANOS' ? 'nanos' : 'micros' };
        if (ct === 'TIMESTAMP_MILLIS') return { kind: 'i64', unit: 'millis' };
        if (ct === 'TIMESTAMP_MICROS') return { kind: 'i64', unit: 'micros' };
      }
      return null;
    case 'DOUBLE':
      return quireType === 'float8' ? { kind: 'f64' } : null;
    case 'FLOAT':
      return quireType === 'float4' ? { kind: 'f32' } : null;
    case 'BYTE_ARRAY': {
      // Only annotated strings: unannotated bytes become hex text on the general path.
      const text = ct === 'UTF8' || ct === 'ENUM' || ct === 'JSON' || lt?.type === 'STRING' || lt?.type === 'ENUM' || lt?.type === 'JSON';
      return quireType === 'text' && text ? { kind: 'str' } : null;
    }
    default:
      return null;
  }
}

/** The column chunk of `name` in `rowGroup` and its schema element when the column is flat, else null. */
function flatLeaf(metadata: FileMetaData, rowGroup: RowGroup, name: string): { chunk: ColumnChunk; element: SchemaElement } | null {
  const chunk = rowGroup.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === name);
  const md = chunk?.meta_data;
  if (!chunk || !md || chunk.file_path) return null;
  const schemaPath: SchemaTree[] = hyparquetSchema().getSchemaPath(metadata.schema, [name]);
  // Root + one leaf that is not repeated: definition levels 0/1 at most, no repetition levels.
  if (schemaPath.length !== 2) return null;
  const leaf = schemaPath[1]!;
  if (leaf.children.length > 0 || leaf.element.repetition_type === 'REPEATED') return null;
  return { chunk, element: leaf.element };
}

/** The column chunk of `name` in `rowGroup` when it is flat and decodable here, else null. */
export function flatColumnChunk(metadata: FileMetaData, rowGroup: RowGroup, name: string, quireType: string): FlatChunk | null {
  const leaf = flatLeaf(metadata, rowGroup, name);
  if (leaf === null) return null;
  const conversion = conversionOf(leaf.element, quireType);
  if (conversion === null) return null;
  return { chunk: leaf.chunk, element: leaf.element, conversion, optional: leaf.element.repetition_type === 'OPTIONAL' };
}

/** A flat column chunk read for its NULLs only (any physical type: its values are never decoded). */
export interface PresenceChunk {
  readonly chunk: ColumnChunk;
  readonly optional: boolean;
}

export function presenceChunk(metadata: FileMetaData, rowGroup: RowGroup, name: string): PresenceChunk | null {
  const leaf = flatLeaf(metadata, rowGroup, name);
  return leaf === null ? null : { chunk: leaf.chunk, optional: leaf.element.repetition_type === 'OPTIONAL' };
}

type Reader = { view: DataView; offset: number };
type Dense = Int32Array | Float64Array;

function allocDense(c: Conversion, n: number): Dense {
  return c.kind === 'i32' || c.kind === 'str' || c.kind === 'dec' ? new Int32Array(n) : new Float64Array(n);
}

const TWO32 = 4294967296;

/** A 64-bit integer from its halves as a Quire number in the chunk's unit; ±infinity at int64's ends for timestamps. */
function int64Value(lo: number, hi: number, unit: 'int' | 'millis' | 'micros' | 'nanos'): number {
  if (unit !== 'int') {
    // Writers (DuckDB, our COPY TO) store ±infinity as int64's extremes.
    if (hi === 0x7fffffff && lo === 0xffffffff) return Infinity;
    if (hi === -0x80000000 && lo === 0) return -Infinity;
  }
  if (unit === 'nanos') {
    // Floor division by 1000 of hi·2^32 + lo without losing the low digits.
    const hq = Math.floor(hi / 1000);
    const hr = hi - hq * 1000;
    const v = hq * TWO32 + Math.floor((hr * TWO32 + lo) / 1000);
    if (!Number.isSafeInteger(v)) throw new FlatFallback();
    return v;
  }
  if (hi >= 0x200000 || hi < -0x200000) throw new FlatFallback();
  const v = hi * TWO32 + lo;
  if (unit === 'millis') {
    const m = v * 1000;
    if (!Number.isSafeInteger(m)) throw new FlatFallback();
    return m;
  }
  return v;
}

// A value's leading U+FEFF is data (PostgreSQL and DuckDB keep it); a default decoder would drop it.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A big-endian two's-complement integer of bytes [from, to). */
export function bigEndianSigned(bytes: Uint8Array, from: number, to: number): bigint {
  let v = 0n;
  for (let i = from; i < to; i++) v = (v << 8n) | BigInt(bytes[i]!);
  const bits = BigInt(8 * (to - from));
  return to > from && bytes[from]! >= 0x80 ? v - (1n << bits) : v;
}

function readDecimals(r: Reader, c: Decimal, n: number, dst: Int32Array, at: number, objects: Value[]): void {
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let o = r.offset;
  for (let i = 0; i < n; i++) {
    let coef: bigint;
    if (c.physical === 'INT32') {
      coef = BigInt(view.getInt32(o, true));
      o += 4;
    } else if (c.physical === 'INT64') {
      coef = view.getBigInt64(o, true);
      o += 8;
    } else {
      let len = c.width;
      if (c.physical === 'BYTE_ARRAY') {
        len = view.getUint32(o, true);
        o += 4;
      }
      if (o + len > view.byteLength) throw new Error('page ends inside its values');
      coef = bigEndianSigned(bytes, o, o + len);
      o += len;
    }
    dst[at + i] = objects.length;
    objects.push(Numeric.of(coef, c.scale));
  }
  r.offset = o;
}

const TWO53 = 9007199254740992;

/** int32Words' copy of a page's values that do not start at a multiple of 4 bytes. */
let wordScratch = new Int32Array(0);

/**
 * The n 64-bit values at byte o of the page as 2n int32 words (low word first): a view of the page
 * when it is aligned, else a copy (one memcpy). Indexed loads of the two halves took a sixth less per
 * value than a DataView read of each; at a million rows the decode is bound by memory traffic more than
 * by either.
 */
function int32Words(view: DataView, o: number, n: number): Int32Array {
  const base = view.byteOffset + o;
  if (!LITTLE_ENDIAN) {
    if (wordScratch.length < 2 * n) wordScratch = new Int32Array(2 * n);
    for (let k = 0; k < 2 * n; k++) wordScratch[k] = view.getInt32(o + 4 * k, true);
    return wordScratch;
  }
  if (base % 4 === 0) return new Int32Array(view.buffer, base, 2 * n);
  if (wordScratch.length < 2 * n) wordScratch = new Int32Array(Math.max(2 * n, 2 * wordScratch.length));
  new Uint8Array(wordScratch.buffer, 0, 8 * n).set(new Uint8Array(view.buffer, base, 8 * n));
  return wordScratch;
}

/** DECIMAL values as their unscaled integers into dst[at …at+n); DecimalWide when one is 2^53 or more in magnitude. */
function readDecimalNumbers(r: Reader, c: Extract<Conversion, { kind: 'decn' }>, n: number, dst: Float64Array, at: number): void {
  const view = r.view;
  const end = view.byteLength;
  let o = r.offset;
  if (c.physical === 'INT32') {
    if (o + 4 * n > end) throw new Error('page ends inside its values');
    for (let i = 0; i < n; i++, o += 4) dst[at + i] = view.getInt32(o, true);
  } else if (c.physical === 'INT64') {
    if (o + 8 * n > end) throw new Error('page ends inside its values');
    const w = int32Words(view, o, n);
    // A value too wide is noted and the page refused after the loop (dst is then not used): a throw
    // inside it cost a quarter of the loop's time (4.5 against 3.4 ns a value).
    let wide = false;
    for (let i = 0; i < n; i++) {
      const hi = w[2 * i + 1]!;
      // |hi·2^32 + lo| < 2^53 when hi is in (-2^21, 2^21): one unsigned test. Values from -2^53 to
      // -2^53 + 2^32 are left to the Numerics as well, -2^53 itself being out of the promised range.
      wide ||= (hi + 0x1fffff) >>> 0 >= 0x3fffff;
      dst[at + i] = hi * TWO32 + (w[2 * i]! >>> 0);
    }
    if (wide) throw new DecimalWide();
    o += 8 * n;
  } else {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    const variable = c.physical === 'BYTE_ARRAY';
    for (let i = 0; i < n; i++) {
      let len = c.width;
      if (variable) {
        if (o + 4 > end) throw new Error('page ends inside its values');
        len = view.getUint32(o, true);
        o += 4;
      }
      if (o + len > end) throw new Error('page ends inside its values');
      // Big-endian two's complement: a negative value is -(its complemented magnitude) - 1, so every
      // partial sum is a whole number below 2^53 (exact) until one is not.
      const neg = len > 0 && bytes[o]! >= 0x80;
      const flip = neg ? 0xff : 0;
      let m = 0;
      for (let k = o; k < o + len; k++) {
        m = m * 256 + (bytes[k]! ^ flip);
        if (m >= TWO53 - 1) throw new DecimalWide();
      }
      dst[at + i] = neg ? -m - 1 : m;
      o += len;
    }
  }
  r.offset = o;
}

/** PLAIN values into dst[at …at+n); text and numeric values are appended to `objects`, their indexes go to dst. */
function readPlainInto(r: Reader, c: Conversion, n: number, dst: Dense, at: number, strings: Value[]): void {
  if (c.kind === 'dec') return readDecimals(r, c, n, dst as Int32Array, at, strings);
  if (c.kind === 'decn') return readDecimalNumbers(r, c, n, dst as Float64Array, at);
  const view = r.view;
  const need = c.kind === 'i64' || c.kind === 'f64' ? 8 : c.kind === 'str' ? 0 : 4;
  if (r.offset + need * n > view.byteLength) throw new Error('page ends inside its values');
  const base = view.byteOffset + r.offset;
  switch (c.kind) {
    case 'i32': {
      const d = dst as Int32Array;
      if (base % 4 === 0) d.set(new Int32Array(view.buffer, base, n), at);
      else for (let i = 0; i < n; i++) d[at + i] = view.getInt32(r.offset + 4 * i, true);
      r.offset += 4 * n;
      return;
    }
    case 'i32f': {
      const d = dst as Float64Array;
      for (let i = 0; i < n; i++) d[at + i] = view.getInt32(r.offset + 4 * i, true);
      r.offset += 4 * n;
      return;
    }
    case 'f64': {
      const d = dst as Float64Array;
      if (base % 8 === 0) d.set(new Float64Array(view.buffer, base, n), at);
      else d.set(new Float64Array(view.buffer.slice(base, base + 8 * n)), at);
      r.offset += 8 * n;
      return;
    }
    case 'f32': {
      const d = dst as Float64Array;
      for (let i = 0; i < n; i++) d[at + i] = view.getFloat32(r.offset + 4 * i, true);
      r.offset += 4 * n;
      return;
    }
    case 'i64': {
      const d = dst as Float64Array;
      const unit = c.unit;
      let o = r.offset;
      for (let i = 0; i < n; i++, o += 8) d[at + i] = int64Value(view.getUint32(o, true), view.getInt32(o + 4, true), unit);
      r.offset = o;
      return;
    }
    case 'str': {
      const d = dst as Int32Array;
      const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      const start = r.offset;
      let o = start;
      // Short ASCII values are cut from the rest of the page decoded once as Latin-1 (one allocation
      // each, where building them a character at a time cost one per character). V8 copies a substring
      // this short rather than pointing into the page's string, so no value keeps the page alive.
      let page: string | null = null;
      for (let i = 0; i < n; i++) {
        if (o + 4 > view.byteLength) throw new Error('page ends inside its values');
        const len = view.getUint32(o, true);
        o += 4;
        if (o + len > view.byteLength) throw new Error('page ends inside its values');
        d[at + i] = strings.length;
        let high = 0;
        if (len <= SHORT_STRING) for (let k = o; k < o + len; k++) high |= bytes[k]!;
        if (len <= SHORT_STRING && high < 0x80) {
          page ??= Buffer.from(view.buffer, view.byteOffset + start, view.byteLength - start).toString('latin1');
          strings.push(page.substring(o - start, o - start + len));
        } else strings.push(asciiOrUtf8(bytes, o, o + len));
        o += len;
      }
      r.offset = o;
      return;
    }
  }
}

/**
 * A PLAIN text dictionary page of `size` entries for decodeWantedEntries: each entry's offset found.
 * `shared`: the entries decoded are kept for later chunks reading the same page (the dictionary cache).
 */
function lazyEntriesOf(page: Uint8Array, size: number, shared: boolean): LazyEntries {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const starts = new Int32Array(size);
  let o = 0;
  for (let i = 0; i < size; i++) {
    if (o + 4 > page.length) throw new Error('page ends inside its values');
    starts[i] = o;
    o += 4 + view.getUint32(o, true);
    if (o > page.length) throw new Error('page ends inside its values');
  }
  return { page, starts, decoded: shared ? new Array<Value>(size) : [] };
}

/**
 * The entries of a PLAIN text dictionary page that `codes` use (NULL rows aside; codes at or past
 * its size are PLAIN pages' values, already in place), into strings[code]; entries decoded by an
 * earlier chunk over the same kept page are taken as they are.
 */
function decodeWantedEntries(lazy: LazyEntries, codes: Int32Array, nulls: Uint8Array | null, strings: Value[]): void {
  const { page, starts, decoded } = lazy;
  const size = starts.length;
  const keep = decoded.length === size;
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  for (let j = 0; j < codes.length; j++) {
    if (nulls !== null && nulls[j] === 1) continue;
    const c = codes[j]!;
    if (c < 0 || c >= size || strings[c] !== undefined) continue;
    let s = keep ? decoded[c] : undefined;
    if (s === undefined) {
      const at = starts[c]! + 4;
      s = asciiOrUtf8(page, at, at + view.getUint32(at - 4, true));
      if (keep) decoded[c] = s;
    }
    strings[c] = s;
  }
}

/** Longest value cut from a page's Latin-1 string: V8 copies substrings below 13 characters. */
const SHORT_STRING = 12;

/** Short ASCII strings are built directly: a TextDecoder call costs more than the bytes. */
function asciiOrUtf8(bytes: Uint8Array, from: number, to: number): string {
  if (to - from <= 16) {
    let s = '';
    for (let i = from; i < to; i++) {
      const b = bytes[i]!;
      if (b >= 0x80) return utf8.decode(bytes.subarray(from, to));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return utf8.decode(bytes.subarray(from, to));
}

function readVarInt(r: Reader): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = r.view.getUint8(r.offset++);
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return result;
    shift += 7;
  }
}

/**
 * Dictionary indexes in the RLE / bit-packed hybrid encoding into `out`, reading at most `len` bytes;
 * r.offset ends after them. With `dict`, each index is looked up as it is unpacked and `out` gets the
 * dictionary's entries (no pass over an array of indexes; an index out of range stores a wrong value,
 * which the caller's check of the returned largest index refuses before it is seen).
 * Returns the largest index, so a caller checks them against a dictionary's size without a pass of its
 * own (an index of 2^31 or more, which no dictionary has, is stored negative but returned as it is).
 */
function readIndexes(r: Reader, width: number, out: Dense, len: number, dict: Dense | null): number {
  if (width > 32) throw new Error(`bit width ${width} of encoded values is over 32`);
  const end = r.offset + len;
  const n = out.length;
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (end > bytes.length) throw new Error('encoded values extend past their page');
  const mask = 2 ** width - 1;
  const valueBytes = (width + 7) >> 3;
  let max = 0;
  let seen = 0;
  let p = r.offset;
  while (seen < n) {
    const header = runHeader(bytes, p, end);
    if (header < 0) throw new Error('encoded values end early');
    p = headerEnd;
    if ((header & 1) === 0) {
      const count = Math.min(header / 2, n - seen);
      if (p + valueBytes > end) throw new Error('encoded values extend past their page');
      const v = readRunValue(bytes, p, valueBytes);
      p += valueBytes;
      out.fill(dict === null ? v : dict[v]!, seen, seen + count);
      max = v > max ? v : max;
      seen += count;
    } else {
      const groups = Math.floor(header / 2);
      const runEnd = p + groups * width;
      if (runEnd > end) throw new Error('encoded values extend past their page');
      const count = Math.min(groups * 8, n - seen);
      const m = unpackRun(view, bytes, p, width, mask, out, seen, count, dict);
      max = m > max ? m : max;
      seen += count;
      p = runEnd;
    }
  }
  r.offset = end;
  return max;
}

/**
 * The rows [row, row+n) of a page without NULLs whose dictionary index (RLE / bit-packed hybrid, `len`
 * bytes from r.offset) has a 1 in `pass`, appended to sel[w …]; returns the new end of sel. An index
 * at or past pass.length (a corrupt page) is refused once the page is read.
 */
function selectIndexes(r: Reader, width: number, len: number, n: number, pass: Int32Array, row: number, sel: Int32Array, w: number): number {
  if (width > 32) throw new Error(`bit width ${width} of encoded values is over 32`);
  const end = r.offset + len;
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (end > bytes.length) throw new Error('encoded values extend past their page');
  const valueBytes = (width + 7) >> 3;
  const max = selectMax;
  max[0] = 0;
  let seen = 0;
  let p = r.offset;
  while (seen < n) {
    const header = runHeader(bytes, p, end);
    if (header < 0) throw new Error('encoded values end early');
    p = headerEnd;
    if ((header & 1) === 0) {
      const count = Math.min(header / 2, n - seen);
      if (p + valueBytes > end) throw new Error('encoded values extend past their page');
      const v = readRunValue(bytes, p, valueBytes);
      p += valueBytes;
      if (v > max[0]!) max[0] = v;
      if (pass[v] === 1) w = appendRows(sel, w, row + seen, count);
      seen += count;
    } else {
      const groups = Math.floor(header / 2);
      const runEnd = p + groups * width;
      if (runEnd > end) throw new Error('encoded values extend past their page');
      const count = Math.min(groups * 8, n - seen);
      // Whole groups whose last 4-byte load stays inside the buffer (see unpackRun); the rest unpacked first.
      const room = view.byteLength - (width > 25 ? 5 : 4) - p - ((7 * width) >>> 3);
      const whole = room < 0 ? 0 : Math.min(count >>> 3, Math.floor(room / width) + 1);
      if (whole > 0) w = groupSelector(width)(view, p, sel, row + seen, whole, pass, w, max);
      const done = whole * 8;
      if (done < count) {
        const tail = indexesFor(count - done);
        const m = unpackIndexes(view, bytes, p + whole * width, width, 2 ** width - 1, tail, 0, count - done, null);
        if (m > max[0]!) max[0] = m;
        const at = row + seen + done;
        for (let i = 0; i < tail.length; i++) {
          sel[w] = at + i;
          w += pass[tail[i]!] ?? 0;
        }
      }
      seen += count;
      p = runEnd;
    }
  }
  if (n > 0 && max[0]! >= pass.length) throw new Error('dictionary index out of range');
  r.offset = end;
  return w;
}

/** The largest index selectIndexes met (shared: decoding is synchronous). */
const selectMax = new Float64Array(1);

function appendRows(sel: Int32Array, w: number, from: number, count: number): number {
  for (let i = 0; i < count; i++) sel[w + i] = from + i;
  return w + count;
}

/**
 * Unpacks `groups` groups of 8 values of one bit width from byte p into out[at …], or their entries in
 * `dict`; returns the largest value unpacked.
 */
type GroupUnpacker = (view: DataView, p: number, out: Dense, at: number, groups: number, dict: Dense | null) => number;

const groupUnpackers: (GroupUnpacker | undefined)[] = [];

/**
 * The group unpacker for `width` (1..32), compiled on first use: 8 values of a width take exactly
 * `width` bytes, so each value's byte offset and shift within a group are constants of the code. With
 * the width fixed the loop body is straight-line loads, shifts and masks (about twice as fast per value
 * as the loop over a variable width, whose position arithmetic is per value).
 */
function groupUnpacker(width: number, dict: Dense | null): GroupUnpacker {
  // One compiled copy per kind of output, so each one's typed-array accesses stay monomorphic.
  const key = width * 3 + (dict === null ? 0 : dict instanceof Int32Array ? 1 : 2);
  let f = groupUnpackers[key];
  if (f !== undefined) return f;
  const store = dict === null ? 'v' : 'dict[v]';
  let body = `let max = 0;\nfor (let g = 0; g < groups; g++, p += ${width}, at += 8) {\n  let v;\n`;
  for (let k = 0; k < 8; k++) body += `  v = ${packedValue(width, k)}; out[at + ${k}] = ${store}; max = v > max ? v : max;\n`;
  body += '}\nreturn max;';
  f = new Function('view', 'p', 'out', 'at', 'groups', 'dict', body) as GroupUnpacker;
  groupUnpackers[key] = f;
  return f;
}

/**
 * Value k (0..7) of the group of 8 `width`-bit values at byte p, as code: each value's byte offset and
 * shift within a group are constants.
 */
function packedValue(width: number, k: number): string {
  const bit = k * width;
  const at = bit >>> 3;
  const shift = bit & 7;
  // Past 25 bits a value can reach into a fifth byte; 32-bit values stay unsigned (>>> 0).
  let load = `(view.getUint32(p + ${at}, true) >>> ${shift})`;
  if (shift + width > 32) load = `(${load} | (view.getUint8(p + ${at + 4}) << ${32 - shift}))`;
  return width === 32 ? `${load} >>> 0` : `${load} & ${2 ** width - 1}`;
}

/**
 * Appends the rows of `groups` groups of 8 indexes (the first row numbered `at`) whose entry in `pass`
 * is 1 to sel[w …]; returns the new end of sel, and the largest index in max[0].
 */
type GroupSelector = (view: DataView, p: number, sel: Int32Array, at: number, groups: number, pass: Int32Array, w: number, max: Float64Array) => number;

const groupSelectors: (GroupSelector | undefined)[] = [];

/**
 * The group selector for `width`, compiled on first use like groupUnpacker. Every row is written to
 * sel[w] and w advances by its pass flag: no branch per row, and no array of flags written and read
 * again (a filter column's rows were unpacked to flags, then selected in a second pass that cost more
 * than the unpacking).
 */
function groupSelector(width: number): GroupSelector {
  let f = groupSelectors[width];
  if (f !== undefined) return f;
  let body = `let m = 0;\nfor (let g = 0; g < groups; g++, p += ${width}, at += 8) {\n  let v;\n`;
  for (let k = 0; k < 8; k++) body += `  v = ${packedValue(width, k)}; sel[w] = at + ${k}; w += pass[v]; m = v > m ? v : m;\n`;
  body += '}\nif (m > max[0]) max[0] = m;\nreturn w;';
  f = new Function('view', 'p', 'sel', 'at', 'groups', 'pass', 'w', 'max', body) as GroupSelector;
  groupSelectors[width] = f;
  return f;
}

/**
 * A bit-packed run's `count` values from byte p on; returns the largest. Whole groups whose last 4-byte
 * load stays inside the buffer go through the width's compiled unpacker, the rest through unpackIndexes.
 */
function unpackRun(view: DataView, bytes: Uint8Array, p: number, width: number, mask: number, out: Dense, at: number, count: number, dict: Dense | null): number {
  // The last load of a group starts at byte floor(7·width / 8) of it and reads 4 bytes, or 5 when wide.
  const room = view.byteLength - (width > 25 ? 5 : 4) - p - ((7 * width) >>> 3);
  const groups = room < 0 ? 0 : Math.min(count >>> 3, Math.floor(room / width) + 1);
  let max = 0;
  if (groups > 0) max = groupUnpacker(width, dict)(view, p, out, at, groups, dict);
  const done = groups * 8;
  if (done < count) {
    const m = unpackIndexes(view, bytes, p + groups * width, width, mask, out, at + done, count - done, dict);
    max = m > max ? m : max;
  }
  return max;
}

/**
 * `count` values of `width` bits packed from byte p on; returns the largest. Each value is one unaligned
 * 32-bit little-endian load, shifted and masked (no per-value byte loop: V8 compiles DataView loads to
 * single moves); the last few values, whose 4-byte window would pass the buffer's end, take the
 * byte-at-a-time loop.
 */
function unpackIndexes(view: DataView, bytes: Uint8Array, p: number, width: number, mask: number, out: Dense, at: number, count: number, dict: Dense | null): number {
  if (width > 24) return unpackWide(bytes, p, width, out, at, count, dict);
  let i = 0;
  let max = 0;
  const room = view.byteLength - 4 - p;
  const safe = room < 0 ? 0 : Math.min(count, Math.floor((room * 8) / width) + 1);
  const base = p * 8;
  for (let bit = base; i < safe; i++, bit += width) {
    const v = (view.getUint32(bit >>> 3, true) >>> (bit & 7)) & mask;
    out[at + i] = dict === null ? v : dict[v]!;
    max = v > max ? v : max;
  }
  // The byte loop below starts on a byte boundary: the last multiple of 8 values done (redoing a few).
  i &= ~7;
  p = (base + i * width) >>> 3;
  let buf = 0;
  let bits = 0;
  for (; i < count; i++) {
    while (bits < width) {
      buf |= bytes[p++]! << bits;
      bits += 8;
    }
    const v = buf & mask;
    out[at + i] = dict === null ? v : dict[v]!;
    max = v > max ? v : max;
    buf >>>= width;
    bits -= width;
  }
  return max;
}

/**
 * unpackIndexes for widths over 24 bits, whose values span up to five bytes: each assembled in a double
 * (exact to 2^53) from the bytes that exist. Only the last few values of such a run come here.
 */
function unpackWide(bytes: Uint8Array, p: number, width: number, out: Dense, at: number, count: number, dict: Dense | null): number {
  let max = 0;
  for (let i = 0; i < count; i++) {
    const bit = p * 8 + i * width;
    const q = bit >>> 3;
    let w = 0;
    for (let k = 0; k < 5 && q + k < bytes.length; k++) w += bytes[q + k]! * 2 ** (8 * k);
    const v = Math.floor(w / 2 ** (bit & 7)) % 2 ** width;
    out[at + i] = dict === null ? v : dict[v]!;
    max = v > max ? v : max;
  }
  return max;
}

/** Set bits per byte value. */
const POPCOUNT = new Uint8Array(256);
for (let b = 1; b < 256; b++) POPCOUNT[b] = (b & 1) + POPCOUNT[b >> 1]!;

/**
 * The NULL flags of 8 rows from a byte of 1-bit definition levels, as two little-endian 32-bit words
 * (rows 0-3, rows 4-7), and as one 64-bit store (NULL_FLAGS_8): where flags bit by bit took eight
 * shifts and stores.
 */
const NULL_FLAGS_LO = new Uint32Array(256);
const NULL_FLAGS_HI = new Uint32Array(256);
for (let b = 0; b < 256; b++) {
  for (let k = 0; k < 4; k++) {
    NULL_FLAGS_LO[b]! |= (((b >> k) & 1) ^ 1) << (8 * k);
    NULL_FLAGS_HI[b]! |= (((b >> (k + 4)) & 1) ^ 1) << (8 * k);
  }
}
/**
 * The same 8 flags as one little-endian 64-bit pattern held in a double, for a single store: bytes of
 * 0 and 1 never make a NaN (whose bits a store could change), only normal or subnormal numbers, which
 * loads and stores keep bit for bit.
 */
const NULL_FLAGS_8 = new Float64Array(256);
{
  const bytes = new DataView(new ArrayBuffer(8));
  for (let b = 0; b < 256; b++) {
    bytes.setUint32(0, NULL_FLAGS_LO[b]!, true);
    bytes.setUint32(4, NULL_FLAGS_HI[b]!, true);
    NULL_FLAGS_8[b] = bytes.getFloat64(0, true);
  }
}

/**
 * Whether the definition levels of a flat optional column (bit width 1) at r.offset are one run of 1s
 * covering `count` rows: no NULLs, the common case, known without touching a row.
 */
function allPresent(r: Reader, count: number): boolean {
  const peek: Reader = { view: r.view, offset: r.offset };
  const header = readVarInt(peek);
  return (header & 1) === 0 && header / 2 >= count && r.view.getUint8(peek.offset) === 1;
}

/**
 * Definition levels of a flat optional column (bit width 1, `len` bytes from r.offset) as NULL flags in
 * nulls[row …row+count), which must be zero there: a run of 0s is one fill, a run of 1s is skipped, and
 * bit-packed levels are inverted a byte (8 rows) at a time. Returns how many rows are present.
 */
function readNullFlags(r: Reader, len: number, count: number, nulls: Uint8Array, row: number): number {
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const end = r.offset + len;
  if (end > bytes.length) throw new Error('definition levels extend past their page');
  const flags = new DataView(nulls.buffer, nulls.byteOffset, nulls.byteLength);
  let present = 0;
  let seen = 0;
  let p = r.offset;
  while (seen < count) {
    const header = runHeader(bytes, p, end);
    if (header < 0) throw new Error('definition levels end early');
    p = headerEnd;
    if ((header & 1) === 0) {
      const n = Math.min(header / 2, count - seen);
      const level = bytes[p++]!;
      if (level === 0) nulls.fill(1, row + seen, row + seen + n);
      else present += n;
      seen += n;
    } else {
      const groups = Math.floor(header / 2);
      if (p + groups > end) throw new Error('definition levels extend past their page');
      const n = Math.min(groups * 8, count - seen);
      let o = row + seen;
      const full = p + (n >> 3);
      for (; p < full; p++, o += 8) {
        const b = bytes[p]!;
        present += POPCOUNT[b]!;
        if (b === 255) continue;
        flags.setFloat64(o, NULL_FLAGS_8[b]!, true);
      }
      const rest = n & 7;
      if (rest > 0) {
        const b = bytes[p]!;
        for (let k = 0; k < rest; k++) {
          const bit = (b >> k) & 1;
          present += bit;
          nulls[o + k] = bit ^ 1;
        }
      }
      p += groups - (n >> 3);
      seen += n;
    }
  }
  r.offset = end;
  return present;
}

// One function per storage type: a loop over either kind of typed array runs several times slower.
function lookupF64(dict: Float64Array, idx: Int32Array, out: Float64Array, at: number): void {
  for (let i = 0; i < idx.length; i++) out[at + i] = dict[idx[i]!]!;
}

function lookupI32(dict: Int32Array, idx: Int32Array, out: Int32Array, at: number): void {
  for (let i = 0; i < idx.length; i++) out[at + i] = dict[idx[i]!]!;
}

/** Present rows' values (dense, in order) spread over rows [row, row+count), skipping the NULLs. */
function spreadF64(dense: Float64Array, nulls: Uint8Array, count: number, out: Float64Array, row: number): void {
  let v = 0;
  for (let i = row; i < row + count; i++) if (nulls[i] === 0) out[i] = dense[v++]!;
}

/** spreadF64 for Int32Array rows; `none` marks NULL rows (-1 for indexes into `objects`, which double as codes). */
function spreadI32(dense: Int32Array, nulls: Uint8Array, count: number, out: Int32Array, row: number, none: number): void {
  let v = 0;
  for (let i = row; i < row + count; i++) out[i] = nulls[i] === 0 ? dense[v++]! : none;
}

/** Dictionary entries of the present rows spread over rows [row, row+count) in one pass. */
function lookupSpreadF64(dict: Float64Array, idx: Int32Array, nulls: Uint8Array, count: number, out: Float64Array, row: number): void {
  let v = 0;
  for (let i = row; i < row + count; i++) if (nulls[i] === 0) out[i] = dict[idx[v++]!]!;
}

function lookupSpreadI32(dict: Int32Array, idx: Int32Array, nulls: Uint8Array, count: number, out: Int32Array, row: number): void {
  let v = 0;
  for (let i = row; i < row + count; i++) if (nulls[i] === 0) out[i] = dict[idx[v++]!]!;
}

/**
 * Rows only[from …to) of a page whose first row is `row`, into out[from …to). A row's value is at its
 * offset in the page, or, when the page has NULLs (pageNulls), at the count of present rows before it.
 * One function per storage type: a loop over either kind of typed array runs several times slower.
 */
function pickLookupF64(dict: Float64Array, idx: Int32Array, pageNulls: Uint8Array | null, row: number, only: Int32Array, from: number, to: number, out: Float64Array, outNulls: Uint8Array | null): void {
  if (pageNulls === null) {
    for (let j = from; j < to; j++) out[j] = dict[idx[only[j]! - row]!]!;
    return;
  }
  let i = 0;
  let v = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    v += presentIn(pageNulls, i, t);
    i = t > i ? t : i;
    if (pageNulls[t] === 1) outNulls![j] = 1;
    else out[j] = dict[idx[v]!]!;
  }
}

function pickLookupI32(dict: Int32Array, idx: Int32Array, pageNulls: Uint8Array | null, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array | null): void {
  if (pageNulls === null) {
    for (let j = from; j < to; j++) out[j] = dict[idx[only[j]! - row]!]!;
    return;
  }
  let i = 0;
  let v = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    v += presentIn(pageNulls, i, t);
    i = t > i ? t : i;
    if (pageNulls[t] === 1) outNulls![j] = 1;
    else out[j] = dict[idx[v]!]!;
  }
}

/** Consecutive wanted rows from which a pick copies them as one stretch. */
const STRETCH = 16;

/**
 * Whether most of the wanted rows only[from …to) lie in stretches of STRETCH consecutive rows or more,
 * judged at up to 32 evenly spaced places.
 */
function clustered(only: Int32Array, from: number, to: number): boolean {
  const n = to - from;
  if (n < 2 * STRETCH) return false;
  const step = Math.max(1, Math.floor((n - STRETCH) / 32));
  let hits = 0;
  let tries = 0;
  for (let j = from; j + STRETCH <= to && tries < 32; j += step, tries++) if (only[j + STRETCH - 1]! - only[j]! === STRETCH - 1) hits++;
  return hits * 2 >= tries;
}

function pickF64(src: Float64Array, pageNulls: Uint8Array | null, row: number, only: Int32Array, from: number, to: number, out: Float64Array, outNulls: Uint8Array | null): void {
  if (pageNulls === null) {
    // Stretches of consecutive rows copied whole, as in pickI32.
    let j = from;
    while (j < to) {
      if (j + STRETCH <= to && only[j + STRETCH - 1]! - only[j]! === STRETCH - 1) {
        const t = only[j]! - row;
        let e = j + STRETCH;
        while (e < to && only[e] === only[e - 1]! + 1) e++;
        out.set(src.subarray(t, t + e - j), j);
        j = e;
      } else {
        out[j] = src[only[j]! - row]!;
        j++;
      }
    }
    return;
  }
  let i = 0;
  let v = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    v += presentIn(pageNulls, i, t);
    i = t > i ? t : i;
    if (pageNulls[t] === 1) outNulls![j] = 1;
    else out[j] = src[v]!;
  }
}

/** pickF64 for Int32Array values; `none` marks NULL rows (-1 for indexes into `objects`, which double as codes). */
function pickI32(src: Int32Array, pageNulls: Uint8Array | null, row: number, only: Int32Array, from: number, to: number, out: Int32Array, outNulls: Uint8Array | null, none: number): void {
  if (pageNulls === null) {
    // Wanted rows come in stretches of consecutive rows (a range filter, or blocks of a clustered
    // column): each stretch is one copy. Rows are increasing, so STRETCH rows spanning STRETCH - 1 are
    // consecutive: one test per row finds a stretch's start, and scattered rows pay no more than that.
    let j = from;
    while (j < to) {
      if (j + STRETCH <= to && only[j + STRETCH - 1]! - only[j]! === STRETCH - 1) {
        const t = only[j]! - row;
        let e = j + STRETCH;
        while (e < to && only[e] === only[e - 1]! + 1) e++;
        out.set(src.subarray(t, t + e - j), j);
        j = e;
      } else {
        out[j] = src[only[j]! - row]!;
        j++;
      }
    }
    return;
  }
  let i = 0;
  let v = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    v += presentIn(pageNulls, i, t);
    i = t > i ? t : i;
    if (pageNulls[t] === 1) {
      outNulls![j] = 1;
      out[j] = none;
    } else out[j] = src[v]!;
  }
}

/**
 * Dictionary indexes of rows only[from …to) of a page whose first row is `row`, straight from the RLE /
 * bit-packed hybrid encoding (widths up to 24 bits): run headers are walked in order and each wanted
 * value is read at its bit position, so the rows between are never unpacked. codes[j - from] gets row
 * only[j]'s index (0 on a NULL row, which is flagged in outNulls). Returns the largest index read.
 */
function pickIndexes(r: Reader, width: number, len: number, present: number, pageNulls: Uint8Array | null, row: number, only: Int32Array, from: number, to: number, codes: Int32Array, outNulls: Uint8Array | null): number {
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const end = Math.min(r.offset + len, bytes.length);
  const mask = (1 << width) - 1;
  const valueBytes = (width + 7) >> 3;
  let p = r.offset;
  // The current run holds values [runStart, runEnd): one repeated value, or bit-packed from bitBase on.
  let runStart = 0;
  let runEnd = 0;
  let rle = true;
  let rleValue = 0;
  let bitBase = 0;
  let max = 0;
  let i = 0;
  let v = 0;
  for (let j = from; j < to; j++) {
    const t = only[j]! - row;
    let vn = t;
    if (pageNulls !== null) {
      v += presentIn(pageNulls, i, t);
      i = t > i ? t : i;
      if (pageNulls[t] === 1) {
        outNulls![j] = 1;
        codes[j - from] = 0;
        continue;
      }
      vn = v;
    }
    if (vn >= present) throw new Error('encoded values end early');
    while (vn >= runEnd) {
      const header = runHeader(bytes, p, end);
      if (header < 0) throw new Error('encoded values end early');
      p = headerEnd;
      runStart = runEnd;
      // Integer run lengths keep the position arithmetic below in small integers.
      const half = header < 0x80000000 ? header >>> 1 : Math.min(Math.floor(header / 2), present);
      if ((header & 1) === 0) {
        if (p + valueBytes > end) throw new Error('encoded values extend past their page');
        rle = true;
        rleValue = readRunValue(bytes, p, valueBytes);
        p += valueBytes;
        runEnd = runStart + half;
      } else {
        const groups = half;
        rle = false;
        bitBase = p * 8;
        p += groups * width;
        if (p > end) throw new Error('encoded values extend past their page');
        runEnd = runStart + groups * 8;
      }
    }
    let x = rleValue;
    if (!rle) {
      const bit = bitBase + (vn - runStart) * width;
      const q = bit >>> 3;
      if (q + 4 <= bytes.length) x = (view.getUint32(q, true) >>> (bit & 7)) & mask;
      else {
        // Near the buffer's end: the bytes that exist, a byte at a time.
        let w = 0;
        for (let k = 0; k < 4 && q + k < bytes.length; k++) w |= bytes[q + k]! << (8 * k);
        x = (w >>> (bit & 7)) & mask;
      }
    }
    codes[j - from] = x;
    max = x > max ? x : max;
  }
  return max;
}

/**
 * Whether most wanted rows only[from …to) of a page lie in stretches of STRETCH rows that are
 * consecutive among the page's present rows (so consecutive in its encoded values): rows of a range or
 * of a clustered filter, with the page's NULL rows (pageNulls, or the present bits in `pr` when the
 * levels went there) in between. Judged at up to 32 places.
 */
function clusteredPresent(only: Int32Array, from: number, to: number, row: number, pageNulls: Uint8Array | null, pr: PageRanks | null = null): boolean {
  if (pageNulls === null && pr === null) return clustered(only, from, to);
  const n = to - from;
  if (n < 2 * STRETCH) return false;
  const step = Math.max(1, Math.floor((n - STRETCH) / 32));
  let hits = 0;
  let tries = 0;
  for (let j = from; j + STRETCH <= to && tries < 32; j += step, tries++) {
    const a = only[j]! - row;
    const b = only[j + STRETCH - 1]! - row;
    // STRETCH distinct wanted rows spanning exactly STRETCH present rows: the present ones are consecutive values.
    if (b - a + 1 > 8 * STRETCH) continue;
    let present = 0;
    if (pr !== null) present = pr.rankAt(b + 1) - pr.rankAt(a);
    else for (let i = a; i <= b; i++) present += pageNulls![i]! ^ 1;
    if (present === STRETCH) hits++;
  }
  return hits * 2 >= tries;
}

/*
 * The run of a hybrid-encoded page that decodeValues is in: its values [runFirst, runLast), one repeated
 * value (runValue, when runBits < 0) or bit-packed from byte runBits on; the next run's header at runNext.
 * Module cells rather than an object: decoding is synchronous, and the walk is per stretch of rows.
 */
let runNext = 0;
let runFirst = 0;
let runLast = 0;
let runValue = 0;
let runBits = -1;

/**
 * The values at positions [d, d+n) of a page's RLE / bit-packed hybrid encoding (bytes up to `end`;
 * positions only move forward between calls, the runs walked once per page from where pickStretches starts them) into
 * out[at …at+n), or their entries in `dict`; returns the largest value. A bit-packed stretch is unpacked
 * a value at a time up to its first whole group of 8, then by the width's compiled group unpacker.
 */
function decodeValues(view: DataView, bytes: Uint8Array, end: number, width: number, present: number, d: number, n: number, out: Dense, at: number, dict: Dense | null): number {
  const valueBytes = (width + 7) >> 3;
  let max = 0;
  while (n > 0) {
    while (d >= runLast) {
      const header = runHeader(bytes, runNext, end);
      if (header < 0) throw new Error('encoded values end early');
      let p = headerEnd;
      runFirst = runLast;
      // Integer run lengths keep the position arithmetic in small integers (no run holds more than the page).
      const half = header < 0x80000000 ? header >>> 1 : Math.min(Math.floor(header / 2), present);
      if ((header & 1) === 0) {
        if (p + valueBytes > end) throw new Error('encoded values extend past their page');
        runValue = readRunValue(bytes, p, valueBytes);
        p += valueBytes;
        runBits = -1;
        runLast = runFirst + half;
      } else {
        runBits = p;
        p += half * width;
        if (p > end) throw new Error('encoded values extend past their page');
        runLast = runFirst + half * 8;
      }
      runNext = p;
    }
    const c = Math.min(n, runLast - d);
    if (runBits < 0) {
      const v = runValue;
      out.fill(dict === null ? v : dict[v]!, at, at + c);
      max = v > max ? v : max;
    } else {
      const m = unpackFrom(view, bytes, runBits, width, d - runFirst, c, out, at, dict);
      max = m > max ? m : max;
    }
    d += c;
    at += c;
    n -= c;
  }
  return max;
}

/** Values first …first+count of the bit-packed run at byte `base` into out[at …], or their entries in dict; returns the largest. */
function unpackFrom(view: DataView, bytes: Uint8Array, base: number, width: number, first: number, count: number, out: Dense, at: number, dict: Dense | null): number {
  let max = 0;
  let k = first;
  const head = Math.min(first + count, (first + 7) & ~7);
  const mask = 2 ** width - 1;
  for (; k < head; k++, at++) {
    // Only the few values before a group boundary: one unaligned 32-bit load where the value fits in
    // it and the load stays inside the buffer (each stretch of a pick starts with a few), else the
    // value's up to five bytes assembled in a double (exact).
    const bit = base * 8 + k * width;
    const q = Math.floor(bit / 8);
    let v: number;
    if (width <= 24 && q + 4 <= view.byteLength) v = (view.getUint32(q, true) >>> (bit & 7)) & mask;
    else {
      let w = 0;
      for (let b = 0; b < 5 && q + b < bytes.length; b++) w += bytes[q + b]! * 2 ** (8 * b);
      v = Math.floor(w / 2 ** (bit & 7)) % 2 ** width;
    }
    out[at] = dict === null ? v : dict[v]!;
    max = v > max ? v : max;
  }
  const rest = first + count - k;
  if (rest > 0) {
    const m = unpackRun(view, bytes, base + (k / 8) * width, width, 2 ** width - 1, out, at, rest, dict);
    max = m > max ? m : max;
  }
  return max;
}

/**
 * Dictionary-encoded rows only[from …to) of a page whose first row is `row` into out[from …to) (their
 * entries in `dict`, or the indexes themselves when dict is null), for wanted rows that come in
 * stretches consecutive among the page's present rows (clusteredPresent): each stretch is decoded from
 * its place in the encoding straight into its place in out, so the page's other rows are never unpacked
 * and nothing is copied twice. A NULL row is flagged in outNulls and gets `none`. `len` bytes of
 * encoded indexes from r.offset; returns the largest index decoded (-1 when none was).
 */
function pickStretches(r: Reader, width: number, len: number, present: number, pageNulls: Uint8Array | null, row: number, only: Int32Array, from: number, to: number, out: Dense, outNulls: Uint8Array | null, dict: Dense | null, none: number): number {
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const end = Math.min(r.offset + len, bytes.length);
  runNext = r.offset;
  runFirst = 0;
  runLast = 0;
  runBits = -1;
  let max = -1;
  // Present rows before row i of the page: v.
  let i = 0;
  let v = 0;
  let j = from;
  while (j < to) {
    const t = only[j]! - row;
    let d = t;
    let e = j + 1;
    if (pageNulls === null) {
      // Rows are increasing: 64 rows spanning 63 are consecutive, one test for the lot; then row by row.
      while (e + 63 < to && only[e + 63]! - only[e - 1]! === 64) e += 64;
      while (e < to && only[e] === only[e - 1]! + 1) e++;
    } else {
      v += presentIn(pageNulls, i, t);
      i = t > i ? t : i;
      if (pageNulls[t] === 1) {
        outNulls![j] = 1;
        out[j] = none;
        j++;
        continue;
      }
      d = v;
      // The stretch goes on while the rows between two wanted rows are all NULL and the next one is present.
      let prev = t;
      for (; e < to; e++) {
        const u = only[e]! - row;
        if (pageNulls[u] === 1) break;
        let q = prev + 1;
        while (q < u && pageNulls[q] === 1) q++;
        if (q < u) break;
        prev = u;
      }
    }
    if (d + (e - j) > present) throw new Error('encoded values end early');
    const m = decodeValues(view, bytes, end, width, present, d, e - j, out, j, dict);
    max = m > max ? m : max;
    if (pageNulls !== null) {
      // The stretch's last row is present and counted: the walk to the next wanted row resumes after it.
      i = only[e - 1]! - row + 1;
      v = d + (e - j);
    }
    j = e;
  }
  return max;
}

/**
 * pickStretches for a page where no wanted row is NULL, given the page's NULL flags and block ranks
 * (FilterLevels): wanted rows whose positions among the values are consecutive form a stretch. Tested
 * 64 at a time (positions of distinct present rows ascend, so 64 steps spanning 64 are all steps of
 * one), then row by row (consecutive when the rows between are all NULL).
 */
function pickRankedStretches(r: Reader, width: number, len: number, present: number, blocks: Int32Array, flags: Uint8Array, row: number, only: Int32Array, from: number, to: number, out: Dense, dict: Dense | null): number {
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const end = Math.min(r.offset + len, bytes.length);
  runNext = r.offset;
  runFirst = 0;
  runLast = 0;
  runBits = -1;
  let max = -1;
  let j = from;
  while (j < to) {
    const d = rankAt(blocks, flags, only[j]! - row);
    let e = j + 1;
    while (e + 63 < to && rankAt(blocks, flags, only[e + 63]! - row) - d === e + 63 - j) e += 64;
    for (; e < to; e++) {
      const u = only[e]! - row;
      let q = only[e - 1]! - row + 1;
      while (q < u && flags[q] === 1) q++;
      if (q < u) break;
    }
    if (d + (e - j) > present) throw new Error('encoded values end early');
    const m = decodeValues(view, bytes, end, width, present, d, e - j, out, j, dict);
    max = m > max ? m : max;
    j = e;
  }
  return max;
}

/** clustered() for a page where no wanted row is NULL: stretches of consecutive positions among the values. */
function clusteredRanks(blocks: Int32Array, flags: Uint8Array, only: Int32Array, from: number, to: number, row: number): boolean {
  const n = to - from;
  if (n < 2 * STRETCH) return false;
  const step = Math.max(1, Math.floor((n - STRETCH) / 32));
  let hits = 0;
  let tries = 0;
  for (let j = from; j + STRETCH <= to && tries < 32; j += step, tries++) {
    if (rankAt(blocks, flags, only[j + STRETCH - 1]! - row) - rankAt(blocks, flags, only[j]! - row) === STRETCH - 1) hits++;
  }
  return hits * 2 >= tries;
}

/** out[j] = dict[codes[j - from]] for j in [from, to), skipping rows flagged in outNulls (when given). */
function lookupAtF64(dict: Float64Array, codes: Int32Array, outNulls: Uint8Array | null, from: number, to: number, out: Float64Array): void {
  if (outNulls === null) for (let j = from; j < to; j++) out[j] = dict[codes[j - from]!]!;
  else for (let j = from; j < to; j++) if (outNulls[j] === 0) out[j] = dict[codes[j - from]!]!;
}

function lookupAtI32(dict: Int32Array, codes: Int32Array, outNulls: Uint8Array | null, from: number, to: number, out: Int32Array): void {
  if (outNulls === null) for (let j = from; j < to; j++) out[j] = dict[codes[j - from]!]!;
  else for (let j = from; j < to; j++) if (outNulls[j] === 0) out[j] = dict[codes[j - from]!]!;
}

/** The indexes themselves (text and numeric rows point into `objects`), -1 on NULL rows. */
function copyCodesAt(codes: Int32Array, outNulls: Uint8Array | null, from: number, to: number, out: Int32Array): void {
  if (outNulls === null) for (let j = from; j < to; j++) out[j] = codes[j - from]!;
  else for (let j = from; j < to; j++) out[j] = outNulls[j] === 1 ? -1 : codes[j - from]!;
}

/** Rows in [from, to) not flagged NULL. */
function countPresent(nulls: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let j = from; j < to; j++) n += nulls[j]! ^ 1;
  return n;
}

type ColumnMeta = NonNullable<ColumnChunk['meta_data']>;
type PageHeader = ReturnType<typeof import('hyparquet/src/column.js')['parquetHeader']>;

/**
 * Bytes [start, end) of a chunk read synchronously, or null when the source has no synchronous read.
 * Read and decoded in one synchronous step: the bytes are in a buffer shared by every chunk, valid
 * until the next read (nothing decoded keeps a reference to them).
 */
function readChunk(file: ChunkSource, md: ColumnMeta, start: number, end: number): Uint8Array | null {
  if (file.readRange === undefined) return null;
  return checkedChunk(file.readRange(start, end), md, start, end);
}

async function sliceChunk(file: ChunkSource, md: ColumnMeta, start: number, end: number): Promise<Uint8Array> {
  return checkedChunk(new Uint8Array(await file.slice(start, end)), md, start, end);
}

function checkedChunk(bytes: Uint8Array, md: ColumnMeta, start: number, end: number): Uint8Array {
  if (bytes.byteLength < end - start) throw new Error(`column ${md.path_in_schema.join('.')} extends past the end of the file`);
  return bytes;
}

/** The header and (still compressed) bytes of the page at reader.offset; the reader moves past both. */
function nextPage(reader: Reader, bytes: Uint8Array, md: ColumnMeta): { header: PageHeader; raw: Uint8Array } {
  const header = hyparquetColumn().parquetHeader(reader);
  if (reader.offset + header.compressed_page_size > bytes.byteLength) throw new Error(`column ${md.path_in_schema.join('.')} has a truncated page`);
  const raw = bytes.subarray(reader.offset, reader.offset + header.compressed_page_size);
  reader.offset += header.compressed_page_size;
  return { header, raw };
}

/** A data page of a flat column opened by openDataPage. */
interface DataPage {
  /** Its rows (at most the rows left in the row group). */
  readonly count: number;
  readonly encoding: string;
  /** Rows with a value: `count` when no row is NULL. */
  readonly present: number;
  /** Its values, after the levels. */
  readonly r: Reader;
  /**
   * Its encoded definition levels when a row is NULL and they are RLE/bit-packed (a view valid until
   * the next page is decompressed), else null.
   */
  readonly levels: Uint8Array | null;
  /**
   * The page of `seen` with the same levels (its NULL flags not written: see FilterLevels.copyFlags and
   * ranksOf), or -1. No row the filters passed is NULL here.
   */
  readonly shared: number;
  /** Whether the levels went into openDataPage's `ranks` (present bits and ranks) and no NULL flags were written. */
  readonly ranked: boolean;
}

/**
 * A version 1 or 2 data page decompressed, its definition levels read: when a row is NULL, the page's
 * NULL flags are written to flagsFor(count) (an array zero there, and the index of the page's first
 * row in it), unless `seen` has a page at `row` with the same encoded levels (DataPage.shared), or
 * into `ranks` when given (DataPage.ranked). Null for pages that carry no values (index pages).
 */
function openDataPage(header: PageHeader, raw: Uint8Array, md: ColumnMeta, optional: boolean, row: number, rowsLeft: number, flagsFor: (count: number) => readonly [Uint8Array, number], seen: FilterLevels | null = null, ranks: PageRanks | null = null): DataPage | null {
  if (header.type === 'DATA_PAGE') {
    const h = header.data_page_header!;
    const count = Math.min(h.num_values, rowsLeft);
    const page = decompressDataPage(md.codec, raw, Number(header.uncompressed_page_size));
    const r: Reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
    let present = count;
    let levels: Uint8Array | null = null;
    let shared = -1;
    let ranked = false;
    if (optional) {
      const len = r.view.getUint32(0, true);
      r.offset = 4;
      if (!allPresent(r, count)) {
        if (h.definition_level_encoding === 'RLE' && 4 + len <= page.length) levels = page.subarray(4, 4 + len);
        shared = seen === null || levels === null ? -1 : seen.find(row, count, levels);
        if (shared >= 0) present = seen!.presentOf(shared);
        else if (ranks !== null) {
          if (4 + len > page.length) throw new Error('definition levels extend past their page');
          present = ranks.fromLevels(page, 4, 4 + len, count);
          ranked = true;
        } else {
          const [flags, at] = flagsFor(count);
          present = readNullFlags(r, len, count, flags, at);
        }
      }
      r.offset = 4 + len;
    }
    return { count, encoding: h.encoding, present, r, levels, shared, ranked };
  }
  if (header.type === 'DATA_PAGE_V2') {
    const h = header.data_page_header_v2!;
    const count = Math.min(h.num_values, rowsLeft);
    const repLen = h.repetition_levels_byte_length;
    const defLen = h.definition_levels_byte_length;
    let present = count;
    let levels: Uint8Array | null = null;
    let shared = -1;
    let ranked = false;
    if (optional && h.num_nulls > 0) {
      if (repLen + defLen > raw.length) throw new Error('definition levels extend past their page');
      levels = raw.subarray(repLen, repLen + defLen);
      shared = seen === null ? -1 : seen.find(row, count, levels);
      if (shared >= 0) present = seen!.presentOf(shared);
      else if (ranks !== null) {
        present = ranks.fromLevels(raw, repLen, repLen + defLen, count);
        ranked = true;
      } else {
        const [flags, at] = flagsFor(count);
        present = readNullFlags({ view: new DataView(raw.buffer, raw.byteOffset, raw.byteLength), offset: repLen }, defLen, count, flags, at);
      }
    }
    const body = raw.subarray(repLen + defLen);
    const page = h.is_compressed === false ? body : decompressDataPage(md.codec, body, Number(header.uncompressed_page_size) - repLen - defLen);
    return { count, encoding: h.encoding, present, r: { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, levels, shared, ranked };
  }
  return null;
}

/**
 * The definition levels of a row group's filter column, page by page, as readFilterColumn decoded them
 * (its pages with a NULL only): their encoded bytes and NULL flags, by the page's first row. Every row
 * the filters pass is present there (a comparison never passes NULL). A page of another flat column of
 * that row group over the same rows whose encoded levels are the same bytes has the same NULLs, so none
 * of the passing rows is NULL in it either: a column read for its NULLs only decodes nothing there, a
 * column read at the passing rows takes these flags instead of decoding its own and flags no row. Rows
 * missing several columns at once (an outer join's output, sparse records) make such pages; a page
 * whose levels differ in one byte, or that starts or ends elsewhere, is decoded as before.
 * Owned by one scan and filled again for each row group it filters; its buffers are reused.
 */
export class FilterLevels {
  private starts: number[] = [];
  private counts: number[] = [];
  private presents: number[] = [];
  /** Page i's levels are bytes[levelAt[i] …levelAt[i + 1]), its flags flags[flagAt[i] …+counts[i]). */
  private levelAt: number[] = [0];
  private flagAt: number[] = [];
  private bytes: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  private flags: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  private flagEnd = 0;
  /** The flags four to a word (each page's start at a multiple of 8). */
  private words = new Uint32Array(0);
  /** blockRanksOf's arrays, at an eighth of the pages' flags' places; ranked[i]: page i's are made. */
  private ranks = new Int32Array(0);
  private ranked: boolean[] = [];

  clear(): void {
    this.starts.length = 0;
    this.counts.length = 0;
    this.presents.length = 0;
    this.levelAt.length = 1;
    this.flagAt.length = 0;
    this.flagEnd = 0;
    this.ranked.length = 0;
  }

  record(row: number, count: number, present: number, levels: Uint8Array, flags: Uint8Array, at: number): void {
    const l = this.levelAt[this.levelAt.length - 1]!;
    if (this.bytes.length < l + levels.length) this.bytes = grownBytes(this.bytes, l + levels.length);
    this.bytes.set(levels, l);
    const f = (this.flagEnd + 7) & ~7;
    if (this.flags.length < f + count + 8) {
      this.flags = grownBytes(this.flags, f + count + 8);
      this.words = new Uint32Array(this.flags.buffer, 0, this.flags.length >>> 2);
    }
    this.flags.set(flags.subarray(at, at + count), f);
    this.starts.push(row);
    this.counts.push(count);
    this.presents.push(present);
    this.levelAt.push(l + levels.length);
    this.flagAt.push(f);
    this.flagEnd = f + count;
  }

  /** The recorded page of rows [row, row+count) whose levels are these bytes, or -1. */
  find(row: number, count: number, levels: Uint8Array): number {
    const i = this.starts.indexOf(row);
    if (i < 0 || this.counts[i] !== count) return -1;
    const from = this.levelAt[i]!;
    if (this.levelAt[i + 1]! - from !== levels.length) return -1;
    return sameBytes(this.bytes, from, levels) ? i : -1;
  }

  presentOf(i: number): number {
    return this.presents[i]!;
  }

  /** Page i's NULL flags into out[at …]. */
  copyFlags(i: number, out: Uint8Array, at: number): void {
    const from = this.flagAt[i]!;
    out.set(this.flags.subarray(from, from + this.counts[i]!), at);
  }

  /** Page i's NULL flags (a view). */
  flagsOf(i: number): Uint8Array {
    const from = this.flagAt[i]!;
    return this.flags.subarray(from, from + this.counts[i]!);
  }

  /**
   * Page i's present rows before each of its rows 0, 8, 16, …: with the flags, a present row's position
   * among the page's values (rankAt). Made on first use, once for all the columns that share the page.
   */
  blockRanksOf(i: number): Int32Array {
    const blocks = this.flags.length >>> 3;
    if (this.ranks.length < blocks) {
      this.ranks = new Int32Array(blocks);
      this.ranked.length = 0;
    }
    const from = this.flagAt[i]! >>> 3;
    const n = (this.counts[i]! + 7) >>> 3;
    if (this.ranked[i] !== true) {
      fillBlockRanks(this.words, from, n, this.ranks);
      this.ranked[i] = true;
    }
    return this.ranks.subarray(from, from + n);
  }
}

/**
 * Present rows before each block of 8 flags: blocks [from, from+n) of `words` (8 flags in two words;
 * NULL flags of 0 and 1 summed a byte lane each, so the lanes never carry).
 */
function fillBlockRanks(words: Uint32Array, from: number, n: number, out: Int32Array): void {
  let c = 0;
  for (let b = from; b < from + n; b++) {
    out[b] = c;
    c += 8 - (Math.imul(words[2 * b]! + words[2 * b + 1]!, 0x01010101) >>> 24);
  }
}

/** Row t's position among its page's values (t present): block ranks plus the present rows before it in its block. */
function rankAt(blocks: Int32Array, flags: Uint8Array, t: number): number {
  let c = blocks[t >>> 3]!;
  for (let q = t & ~7; q < t; q++) c += flags[q]! ^ 1;
  return c;
}

/** Whether a[from …from+b.length) holds b's bytes: compared four at a time where both are aligned alike. */
function sameBytes(a: Uint8Array, from: number, b: Uint8Array): boolean {
  const n = b.length;
  let k = 0;
  if (((a.byteOffset + from - b.byteOffset) & 3) === 0 && n >= 64) {
    for (; ((b.byteOffset + k) & 3) !== 0; k++) if (a[from + k] !== b[k]) return false;
    const words = (n - k) >>> 2;
    const x = new Int32Array(a.buffer, a.byteOffset + from + k, words);
    const y = new Int32Array(b.buffer, b.byteOffset + k, words);
    for (let w = 0; w < words; w++) if (x[w] !== y[w]) return false;
    k += 4 * words;
  }
  for (; k < n; k++) if (a[from + k] !== b[k]) return false;
  return true;
}

function grownBytes(a: Uint8Array, n: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(Math.max(n, 2 * a.length, 1 << 12));
  b.set(a);
  return b;
}

/**
 * Decodes the chunk's rows. With `only` (ascending row numbers, the first `onlyCount` of them), it
 * decodes just those rows, in that order (row `only[j]` becomes row j): data pages holding none of them
 * are skipped undecompressed, and the others are unpacked into scratch arrays from which only the wanted
 * rows are looked up and copied (so a late-decoded column costs no gather of its own). With `pool`,
 * the rows' values go into an array taken from it for row group `group` (see parquet-value-pool.ts).
 */
export async function readFlatColumn(
  file: ChunkSource,
  rowGroup: RowGroup,
  found: FlatChunk,
  only?: Int32Array,
  onlyCount = 0,
  pool: ParquetValuePool | null = null,
  group = -1,
  seen: FilterLevels | null = null,
): Promise<FlatColumnData> {
  const md = found.chunk.meta_data!;
  const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
  const end = start + Number(md.total_compressed_size);
  const bytes = readChunk(file, md, start, end) ?? (await sliceChunk(file, md, start, end));
  const keep = keptAt(file, start);
  try {
    return decodeFlatChunk(bytes, Number(rowGroup.num_rows), found, only, onlyCount, pool, group, seen, keep);
  } catch (e) {
    if (!(e instanceof DecimalWide) || found.conversion.kind !== 'decn') throw e;
    // Decoding is synchronous, so the chunk's bytes are still the ones read.
    const objects: FlatChunk = { ...found, conversion: { ...found.conversion, kind: 'dec' } };
    return decodeFlatChunk(bytes, Number(rowGroup.num_rows), objects, only, onlyCount, pool, group, seen, keep);
  }
}

/**
 * The chunk's NULL flags only (null when no row is NULL), for a column the query tests for NULL and
 * counts but never reads: its values, dictionary and indexes are never decoded. A required column, or
 * one whose statistics count no NULLs, is answered from the footer without reading a byte; otherwise
 * only the definition levels of each page are read (of the pages holding wanted rows, with `only`, as
 * readFlatColumn does).
 */
export async function readFlatNulls(file: ChunkSource, rowGroup: RowGroup, found: PresenceChunk, only?: Int32Array, onlyCount = 0, seen: FilterLevels | null = null): Promise<Uint8Array | null> {
  const md = found.chunk.meta_data!;
  if (!found.optional) return null;
  const rows = Number(rowGroup.num_rows);
  const nullCount = md.statistics?.null_count;
  if (nullCount !== undefined && nullCount !== null && Number(nullCount) === 0) return null;
  if (nullCount !== undefined && nullCount !== null && Number(nullCount) === rows && rows > 0) return new Uint8Array(only === undefined ? rows : onlyCount).fill(1);
  // The dictionary page, when there is one, comes first and is skipped unread.
  const start = Number(md.data_page_offset);
  const end = Number(md.dictionary_page_offset ?? md.data_page_offset) + Number(md.total_compressed_size);
  const bytes = readChunk(file, md, start, end) ?? (await sliceChunk(file, md, start, end));
  return decodeFlatNulls(bytes, rows, found, only, onlyCount, seen);
}

const EMPTY_FLAGS = new Uint8Array(0);

function decodeFlatNulls(bytes: Uint8Array, rows: number, found: PresenceChunk, only: Int32Array | undefined, onlyCount: number, seen: FilterLevels | null): Uint8Array | null {
  const md = found.chunk.meta_data!;
  const reader: Reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  let nulls: Uint8Array | null = null;
  let row = 0;
  let want = 0;
  let wantEnd = 0;
  while (row < rows && reader.offset < bytes.byteLength) {
    const { header, raw } = nextPage(reader, bytes, md);
    if (header.type !== 'DATA_PAGE' && header.type !== 'DATA_PAGE_V2') continue;
    const v1 = header.type === 'DATA_PAGE';
    const count = Math.min(v1 ? header.data_page_header!.num_values : header.data_page_header_v2!.num_values, rows - row);
    if (only !== undefined) {
      want = lowerBound(only, want, onlyCount, row);
      wantEnd = lowerBound(only, want, onlyCount, row + count);
      if (wantEnd === want) {
        row += count;
        continue;
      }
    }
    // Many wanted rows: the levels become present bits (pageRanks), each wanted row's flag read there,
    // and no flag is written for the rows between.
    const byRank = only !== undefined && (wantEnd - want) * 8 >= count;
    const flags = only === undefined ? (nulls ??= new Uint8Array(rows)) : byRank ? EMPTY_FLAGS : pageNullScratch.take(count);
    const at = only === undefined ? row : 0;
    let present = count;
    if (v1) {
      // Levels other than RLE/bit-packed hybrid (the deprecated BIT_PACKED) go through the general path.
      if (header.data_page_header!.definition_level_encoding !== 'RLE') throw new FlatFallback();
      // Version 1 pages compress their levels with the values, in front of them: only as much of the
      // page is decompressed as the levels take (a Snappy page stops there; other codecs go whole).
      const size = Number(header.uncompressed_page_size);
      if (size < 4) throw new Error(`column ${md.path_in_schema.join('.')} has a data page too short for its definition levels`);
      // Other codecs decode a page whole whatever prefix is asked for: once, not for the length and again.
      const whole = md.codec === 'SNAPPY' ? null : decompressPrefix(md.codec, raw, size, size);
      const head = whole ?? decompressPrefix(md.codec, raw, size, 4);
      const len = (head[0]! | (head[1]! << 8) | (head[2]! << 16)) + head[3]! * 16777216;
      if (len + 4 > size) throw new Error(`column ${md.path_in_schema.join('.')} has definition levels longer than their page`);
      const page = whole ?? decompressPrefix(md.codec, raw, size, 4 + len);
      const r: Reader = { view: new DataView(page.buffer, page.byteOffset, 4 + len), offset: 4 };
      // Levels the filter column has on the same rows: no picked row is NULL (see FilterLevels).
      if (!allPresent(r, count) && (only === undefined || seen === null || seen.find(row, count, page.subarray(4, 4 + len)) < 0)) present = byRank ? pageRanks.fromLevels(page, 4, 4 + len, count) : readNullFlags(r, len, count, flags, at);
    } else {
      const h = header.data_page_header_v2!;
      const levels = h.repetition_levels_byte_length + h.definition_levels_byte_length <= raw.length ? raw.subarray(h.repetition_levels_byte_length, h.repetition_levels_byte_length + h.definition_levels_byte_length) : null;
      if (h.num_nulls > 0 && (only === undefined || seen === null || levels === null || seen.find(row, count, levels) < 0)) {
        if (!byRank) present = readNullFlags({ view: new DataView(raw.buffer, raw.byteOffset, raw.byteLength), offset: h.repetition_levels_byte_length }, h.definition_levels_byte_length, count, flags, at);
        else if (levels === null) throw new Error('definition levels extend past their page');
        else present = pageRanks.fromLevels(levels, 0, levels.length, count);
      }
    }
    if (only !== undefined && present !== count) {
      if (byRank) pickNullBits(pageRanks, row, only, want, wantEnd, (nulls ??= pickedNullScratch.take(onlyCount)));
      else pickFlags(flags, row, only, want, wantEnd, (nulls ??= pickedNullScratch.take(onlyCount)));
    }
    row += count;
  }
  if (row !== rows) throw new Error(`column ${md.path_in_schema.join('.')} has ${row} values in a row group of ${rows} rows`);
  return withoutNulls(nulls, only);
}

/**
 * Null instead of picked rows' NULL flags none of which is set: the flags are made when a page holding
 * picked rows has NULLs, but a filter often keeps none of them (x > c drops x's NULL rows, and the NULLs
 * of other columns often fall on the same rows). Operators take their faster paths on a column without
 * flags (an aggregate groups and sums in one generated loop). Picked rows' flags are made in the
 * shared scratch (pickedNullScratch) and copied out only when one is set: a fresh array per row group and
 * column, most often dropped, was memory the system mapped afresh in each of a process's first queries.
 */
function withoutNulls(nulls: Uint8Array | null, only: Int32Array | undefined): Uint8Array | null {
  if (nulls === null || only === undefined) return nulls;
  return anyFlagged(nulls) ? nulls.slice() : null;
}

/**
 * Whether a flag is set: the picked rows' scratch is read 8 flags to a double (bytes of 0 and 1 make
 * +0 only when all are 0, never -0 or NaN), 2.6 times as fast as indexOf; other flags by indexOf.
 */
function anyFlagged(flags: Uint8Array): boolean {
  if (!pickedNullScratch.holds(flags)) return flags.indexOf(1) >= 0;
  const words = pickedNullScratch.words;
  const n = flags.length;
  const whole = n >>> 3;
  for (let i = 0; i < whole; i++) if (words[i] !== 0) return true;
  for (let i = whole << 3; i < n; i++) if (flags[i] !== 0) return true;
  return false;
}

function pickFlags(pageNulls: Uint8Array, row: number, only: Int32Array, from: number, to: number, out: Uint8Array): void {
  for (let j = from; j < to; j++) out[j] = pageNulls[only[j]! - row]!;
}

/** The first position in sorted[from …to) whose value is at least `v` (`to` when none is). */
function lowerBound(sorted: Int32Array, from: number, to: number, v: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Scratch arrays reused by every chunk decoded (decoding is synchronous once the bytes are read). */
let indexScratch = new Int32Array(0);
let denseF64Scratch = new Float64Array(0);
let denseI32Scratch = new Int32Array(0);
/**
 * A reused buffer of NULL flags, zeroed at each take, and the same bytes as words for the loops that
 * read several flags at once; `holds(a)` says whether `a` is a take of it (its bytes from the start).
 */
class FlagScratch<W extends Float64Array | Uint32Array> {
  bytes = new Uint8Array(0);
  words: W;
  constructor(private readonly Words: { new (b: ArrayBuffer): W; readonly BYTES_PER_ELEMENT: number }) {
    this.words = new Words(new ArrayBuffer(0));
  }
  take(n: number): Uint8Array {
    if (this.bytes.length < n) {
      // A whole number of words.
      const w = this.Words.BYTES_PER_ELEMENT;
      this.bytes = new Uint8Array((Math.max(n, 1 << 16) + w - 1) & -w);
      this.words = new this.Words(this.bytes.buffer as ArrayBuffer);
    }
    const a = this.bytes.subarray(0, n);
    a.fill(0);
    return a;
  }
  holds(a: Uint8Array): boolean {
    return a.buffer === this.bytes.buffer && a.byteOffset === 0;
  }
}
/** The present bits and ranks of a page whose wanted rows are picked by rank (parquet-ranked-pick.ts). */
const pageRanks = new PageRanks();
/** A page's bit-packed indexes end to end (parquet-packed-stream.ts). */
const packedStream = new PackedStream();
/** The runs of a page picked a run at a time (parquet-page-runs.ts). */
const pageRuns = new PageRuns();

/** A page's NULL flags from the present bits fromLevels left in pageRanks, in the page scratch. */
function flagsOfRanks(count: number): Uint8Array {
  const flags = pageNullScratch.take(count);
  pageRanks.flagsInto(flags, count);
  return flags;
}
/** A page's NULL flags, read four to a 32-bit word by presentIn and selectFlagged. */
const pageNullScratch = new FlagScratch(Uint32Array);
/**
 * A chunk's picked rows' NULL flags, valid until the next chunk is decoded (decoding is synchronous):
 * withoutNulls copies them out when one is set; anyFlagged reads them eight to a double.
 */
const pickedNullScratch = new FlagScratch(Float64Array);

function indexesFor(n: number): Int32Array {
  if (indexScratch.length < n) indexScratch = new Int32Array(Math.max(n, 1 << 16));
  return indexScratch.subarray(0, n);
}

function denseI32For(n: number): Int32Array {
  if (denseI32Scratch.length < n) denseI32Scratch = new Int32Array(Math.max(n, 1 << 16));
  return denseI32Scratch.subarray(0, n);
}

function denseFor(c: Conversion, n: number): Dense {
  if (c.kind === 'i32' || c.kind === 'str' || c.kind === 'dec') {
    if (denseI32Scratch.length < n) denseI32Scratch = new Int32Array(Math.max(n, 1 << 16));
    return denseI32Scratch.subarray(0, n);
  }
  if (denseF64Scratch.length < n) denseF64Scratch = new Float64Array(Math.max(n, 1 << 16));
  return denseF64Scratch.subarray(0, n);
}

/**
 * Rows in [from, to) of a page's NULL flags (0/1 bytes) that are not NULL. The pickers walk from one
 * wanted row to the next counting present rows, and between the stretches a filter keeps lie most of
 * a page's rows: the page scratch's flags are summed four to a 32-bit word (each byte lane of the sum
 * stays below 256 over 63 words), other flags a byte at a time.
 */
function presentIn(flags: Uint8Array, from: number, to: number): number {
  if (to <= from) return 0;
  // Small enough for V8 to inline into the pickers, which call it once a wanted row: where most rows
  // are wanted the gap is a few flags, and a call (with the scratch check) per row cost more than the
  // count (a third of a query whose columns have NULLs on rows of their own).
  if (to - from < 32) {
    let nulls = 0;
    for (let i = from; i < to; i++) nulls += flags[i]!;
    return to - from - nulls;
  }
  return presentInWords(flags, from, to);
}

function presentInWords(flags: Uint8Array, from: number, to: number): number {
  let nulls = 0;
  let i = from;
  if (pageNullScratch.holds(flags) && to - from >= 16) {
    for (; (i & 3) !== 0; i++) nulls += flags[i]!;
    const words = pageNullScratch.words;
    const last = (to >>> 2) - 1;
    let k = i >>> 2;
    while (k <= last) {
      const stop = Math.min(last + 1, k + 63);
      let lanes = 0;
      for (; k < stop; k++) lanes += words[k]!;
      nulls += (lanes & 0xff) + ((lanes >>> 8) & 0xff) + ((lanes >>> 16) & 0xff) + (lanes >>> 24);
    }
    i = k << 2;
  }
  for (; i < to; i++) nulls += flags[i]!;
  return to - from - nulls;
}

function decodeFlatChunk(bytes: Uint8Array, rows: number, found: FlatChunk, only: Int32Array | undefined, onlyCount: number, pool: ParquetValuePool | null, group: number, seen: FilterLevels | null, keep: KeptAt | null): FlatColumnData {
  const md = found.chunk.meta_data!;
  const reader: Reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const conv = found.conversion;
  const coded = conv.kind === 'str' || conv.kind === 'dec';
  const n = only === undefined ? rows : onlyCount;
  const values = pool === null ? allocDense(conv, n) : (pool.take(conv.kind === 'i32' || conv.kind === 'str' || conv.kind === 'dec', n, rows, group) as Dense);
  let nulls: Uint8Array | null = null;
  let dictionary: Dense | null = null;
  let dictSize = 0;
  let textDict: TextDictionary | null = null;
  let strings: Value[] = [];
  let plain: PlainText | null = null;
  // A text dictionary read for a few picked rows: its entries are decoded at the end, those rows' only.
  let lazyEntries: LazyEntries | null = null;
  let row = 0;
  // The wanted rows of the current page are only[want …wantEnd).
  let want = 0;
  let wantEnd = 0;
  const noDictionary = (): never => {
    throw new Error(`column ${md.path_in_schema.join('.')} has a dictionary-encoded page without a dictionary`);
  };
  while (row < rows && reader.offset < bytes.byteLength) {
    const pageAt = reader.offset;
    const { header, raw } = nextPage(reader, bytes, md);
    if (header.type === 'DICTIONARY_PAGE') {
      const n = header.dictionary_page_header!.num_values;
      const pageSize = Number(header.uncompressed_page_size);
      dictSize = n;
      const kept = keep === null ? null : keptDictionary(keep.identity, keep.start + pageAt, n, pageSize);
      if (only !== undefined && conv.kind === 'str' && n * CODED_ROWS_PER_ENTRY > rows && onlyCount < n) {
        // No codes for this dictionary (too many entries), and fewer rows wanted than it has entries.
        dictionary = allocDense(conv, 0);
        if (kept?.strings != null) {
          // Every entry was decoded for an earlier query: nothing to decode.
          strings = kept.strings.slice();
          continue;
        }
        strings = new Array<Value>(n);
        if (kept?.lazy != null) lazyEntries = kept.lazy;
        else {
          const page = decompressDictionaryPage(md.codec, raw, pageSize);
          // Kept: an owned copy (the decompressed page is a scratch buffer the next page reuses).
          lazyEntries = lazyEntriesOf(keep === null ? page : page.slice(), n, keep !== null);
          if (keep !== null) keepDictionary(keep.identity, keep.start + pageAt, { ...(kept ?? emptyKept(n, pageSize)), lazy: lazyEntries });
        }
        continue;
      }
      const ck = conversionKey(conv);
      if (conv.kind === 'str' && kept?.strings != null) {
        // Copied: PLAIN pages after the dictionary append this chunk's own values to its array.
        strings = kept.strings.slice();
        dictionary = allocDense(conv, 0);
        if (n * CODED_ROWS_PER_ENTRY <= rows) textDict = kept.distinct ? TextDictionary.ofDistinct(strings as string[]) : null;
        continue;
      }
      const numbers = ck === null ? undefined : kept?.numbers.get(ck);
      if (numbers !== undefined) {
        dictionary = numbers;
        continue;
      }
      const page = decompressDictionaryPage(md.codec, raw, pageSize);
      dictionary = allocDense(conv, n);
      // A text dictionary's entries are the first `n` strings: its indexes map to themselves.
      readPlainInto({ view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, conv, n, dictionary, 0, strings);
      // Codes pay where operators' work per dictionary (a Top-N ranks its entries, a join looks each up)
      // is small next to the rows: a dictionary of many entries per row group is left without them.
      if (conv.kind === 'str' && strings.length === n && n * CODED_ROWS_PER_ENTRY <= rows) textDict = textDictionary(strings);
      if (keep !== null && conv.kind === 'str' && strings.length === n) {
        keepDictionary(keep.identity, keep.start + pageAt, { ...(kept ?? emptyKept(n, pageSize)), strings: strings.slice(), distinct: textDict !== null || allDistinct(strings as string[]), lazy: null });
      } else if (keep !== null && ck !== null) keepNumbers(keep, pageAt, kept, n, pageSize, ck, dictionary);
      continue;
    }
    // Many wanted rows of a dictionary page: its levels become present bits and ranks (pageRanks), which
    // the pickers by rank read, rather than a NULL flag per row folded into them afterwards.
    let byRank = false;
    if (only !== undefined && (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2')) {
      const h = header.type === 'DATA_PAGE' ? header.data_page_header! : header.data_page_header_v2!;
      // A flat column's page holds one value slot per row: num_values rows from `row` on.
      const pageRows = Math.min(h.num_values, rows - row);
      // Binary searches: a page holds thousands of wanted rows, and a step per row was a visible cost.
      want = lowerBound(only, want, onlyCount, row);
      wantEnd = lowerBound(only, want, onlyCount, row + pageRows);
      if (wantEnd === want) {
        row += pageRows;
        continue;
      }
      byRank = (wantEnd - want) * 8 >= pageRows && (h.encoding === 'RLE_DICTIONARY' || h.encoding === 'PLAIN_DICTIONARY');
    }
    // NULL flags go straight into the chunk's rows, or, when picking rows, into a page scratch first.
    let pageNulls: Uint8Array | null = null;
    const opened = openDataPage(header, raw, md, found.optional, row, rows - row, (n) => (only === undefined ? [(nulls ??= new Uint8Array(rows)), row] : [(pageNulls = pageNullScratch.take(n)), 0]), only === undefined ? null : seen, byRank ? pageRanks : null);
    if (opened === null) continue; // index pages carry no values
    const { count, encoding, present, r } = opened;
    const withNulls = present !== count;
    if (!withNulls) pageNulls = null;
    // The levels are in pageRanks, and no NULL flags were written: a path that reads flags makes them first.
    const fromRanks = opened.ranked && withNulls;
    // NULLs the filter column shares: no wanted row is NULL, none is flagged (the pickers flag NULL rows only).
    const outNulls = only !== undefined && withNulls && opened.shared < 0 ? (nulls ??= pickedNullScratch.take(onlyCount)) : null;
    const shared = opened.shared;
    if (encoding === 'RLE_DICTIONARY' || encoding === 'PLAIN_DICTIONARY') {
      if (dictionary === null) noDictionary();
      const width = r.view.getUint8(r.offset++);
      if (shared >= 0) {
        // Every wanted row is present: a stretch is rows whose positions among the values are consecutive.
        const blocks = seen!.blockRanksOf(shared);
        const flags = seen!.flagsOf(shared);
        if (width > 0 && width <= 32 && (wantEnd - want) * 8 >= count && clusteredRanks(blocks, flags, only!, want, wantEnd, row)) {
          const max = pickRankedStretches(r, width, r.view.byteLength - r.offset, present, blocks, flags, row, only!, want, wantEnd, values, coded ? null : dictionary);
          if (max >= dictSize) throw new Error('dictionary index out of range');
          row += count;
          continue;
        }
        seen!.copyFlags(shared, (pageNulls = pageNullScratch.take(count)), 0);
      }
      // A few wanted rows: read at their positions; many: unpacked page-wide (a tight loop) and picked.
      if (only !== undefined && width > 0 && width <= 24 && (wantEnd - want) * 8 < count) {
        const codes = indexesFor(wantEnd - want);
        const max = pickIndexes(r, width, r.view.byteLength - r.offset, present, pageNulls, row, only, want, wantEnd, codes, outNulls);
        if (max >= dictSize && (dictSize > 0 || outNulls === null || countPresent(outNulls, want, wantEnd) > 0)) throw new Error('dictionary index out of range');
        const flagged = pageNulls === null ? null : outNulls;
        if (coded) copyCodesAt(codes, flagged, want, wantEnd, values as Int32Array);
        else if (values instanceof Float64Array) lookupAtF64(dictionary as Float64Array, codes, flagged, want, wantEnd, values);
        else lookupAtI32(dictionary as Int32Array, codes, flagged, want, wantEnd, values);
        row += count;
        continue;
      }
      // Picked rows in stretches of consecutive values (NULL rows between them aside): each stretch
      // decoded from the encoding straight into its place, the rows between never unpacked.
      if (only !== undefined && width > 0 && width <= 32 && clusteredPresent(only, want, wantEnd, row, pageNulls, fromRanks ? pageRanks : null)) {
        if (fromRanks) pageNulls = flagsOfRanks(count);
        const max = pickStretches(r, width, r.view.byteLength - r.offset, present, pageNulls, row, only, want, wantEnd, values, outNulls, coded ? null : dictionary, coded ? -1 : 0);
        if (max >= dictSize) throw new Error('dictionary index out of range');
        row += count;
        continue;
      }
      // Numbers of a page without NULLs: looked up as they are unpacked, straight into place.
      if (only === undefined && !coded && !withNulls && width > 0) {
        const into = values.subarray(row, row + count);
        const max = readIndexes(r, width, into, r.view.byteLength - r.offset, dictionary);
        if (count > 0 && (max < 0 || max >= dictSize)) throw new Error('dictionary index out of range');
        row += count;
        continue;
      }
      // Many wanted rows in no stretches, NULLs of the page's own, and indexes only in bit-packed runs:
      // each wanted row's index read at its rank from the packed bits, the page never unpacked.
      const ranked = only !== undefined && outNulls !== null && dictSize > 0 && (fromRanks || (LITTLE_ENDIAN && pageNulls !== null && pageNullScratch.holds(pageNulls)));
      if (fromRanks && !ranked) pageNulls = flagsOfRanks(count);
      if (ranked && !fromRanks) pageRanks.build(pageNullScratch.words, pageNulls!, count);
      // The page's bytes, for the run and packed-bits readers below.
      const pageBytes = new Uint8Array(r.view.buffer, r.view.byteOffset, r.view.byteLength);
      // The same, with the indexes mostly in RLE runs: each wanted row takes its run's value.
      if (ranked && width > 0 && width <= 32) {
        const max = pageRuns.read(pageBytes, r.offset, pageBytes.length, width, present, pageRanks, count);
        if (max >= 0) {
          if (max >= dictSize) throw new Error('dictionary index out of range');
          if (coded) pickRunCodes(pageRuns, pageRanks.bits, row, only, want, wantEnd, values as Int32Array, outNulls);
          else if (values instanceof Float64Array) pickRunsF64(dictionary as Float64Array, pageRuns, pageRanks.bits, row, only, want, wantEnd, values, outNulls);
          else pickRunsI32(dictionary as Int32Array, pageRuns, pageRanks.bits, row, only, want, wantEnd, values, outNulls);
          row += count;
          continue;
        }
      }
      if (ranked && width > 0 && width <= 25 && present * width < 2 ** 31 && packedStream.gather(pageBytes, r.offset, pageBytes.length, width, present)) {
        const packed = packedStream.view;
        const max = coded
          ? pickPackedCodes(packed, width, pageRanks, row, only, want, wantEnd, values as Int32Array, outNulls)
          : values instanceof Float64Array
            ? pickPackedF64(dictionary as Float64Array, packed, width, pageRanks, row, only, want, wantEnd, values, outNulls)
            : pickPackedI32(dictionary as Int32Array, packed, width, pageRanks, row, only, want, wantEnd, values, outNulls);
        if (max >= dictSize) throw new Error('dictionary index out of range');
        row += count;
        continue;
      }
      // Text and numeric rows without NULLs are indexes into the entries: decoded straight into place.
      // Picked rows' indexes keep a slot past the present ones, which pickRanked* may read (see there).
      const idx = only === undefined && coded && !withNulls ? (values as Int32Array).subarray(row, row + count) : indexesFor(present + 1).subarray(0, present);
      if (width === 0) idx.fill(0);
      else {
        const max = readIndexes(r, width, idx, r.view.byteLength - r.offset, null);
        if (present > 0 && (max < 0 || max >= dictSize)) throw new Error('dictionary index out of range');
      }
      if (dictSize === 0 && present > 0) throw new Error('dictionary index out of range');
      // Many wanted rows in no stretches, and NULLs of the page's own: each wanted row found by its rank,
      // at the same cost wherever it lies (a count of the flags between wanted rows varied with the gap).
      if (ranked) {
        const slots = indexesFor(present + 1);
        slots[present] = 0;
        if (coded) pickRankedCodes(slots, pageRanks, row, only, want, wantEnd, values as Int32Array, outNulls);
        else if (values instanceof Float64Array) pickRankedF64(dictionary as Float64Array, slots, pageRanks, row, only, want, wantEnd, values, outNulls);
        else pickRankedI32(dictionary as Int32Array, slots, pageRanks, row, only, want, wantEnd, values, outNulls);
      } else if (only !== undefined) {
        if (coded) pickI32(idx, pageNulls, row, only, want, wantEnd, values as Int32Array, outNulls, -1);
        else if (values instanceof Float64Array) pickLookupF64(dictionary as Float64Array, idx, pageNulls, row, only, want, wantEnd, values, outNulls);
        else pickLookupI32(dictionary as Int32Array, idx, pageNulls, row, only, want, wantEnd, values, outNulls);
      } else if (coded) {
        if (withNulls) spreadI32(idx, nulls!, count, values as Int32Array, row, -1);
      } else if (values instanceof Float64Array) {
        if (withNulls) lookupSpreadF64(dictionary as Float64Array, idx, nulls!, count, values, row);
        else lookupF64(dictionary as Float64Array, idx, values, row);
      } else if (withNulls) lookupSpreadI32(dictionary as Int32Array, idx, nulls!, count, values, row);
      else lookupI32(dictionary as Int32Array, idx, values, row);
    } else if (encoding === 'PLAIN') {
      if (fromRanks) pageNulls = flagsOfRanks(count);
      if (shared >= 0) seen!.copyFlags(shared, (pageNulls = pageNullScratch.take(count)), 0);
      // Values go straight into place when the page has no NULLs, else densely first and then spread.
      if (conv.kind === 'str') plain ??= new PlainText(strings.length, Number(md.total_uncompressed_size), only === undefined ? rows : Math.min(rows, onlyCount * 2));
      if (only === undefined && !withNulls) {
        if (plain !== null) readPlainText(r, count, values as Int32Array, row, plain);
        else readPlainInto(r, conv, count, values, row, strings);
      } else {
        const dense = denseFor(conv, present);
        if (plain !== null) readPlainText(r, present, dense as Int32Array, 0, plain);
        else readPlainInto(r, conv, present, dense, 0, strings);
        if (only !== undefined) {
          if (values instanceof Float64Array) pickF64(dense as Float64Array, pageNulls, row, only, want, wantEnd, values, outNulls);
          else pickI32(dense as Int32Array, pageNulls, row, only, want, wantEnd, values, outNulls, coded ? -1 : 0);
        } else if (values instanceof Float64Array) spreadF64(dense as Float64Array, nulls!, count, values, row);
        else spreadI32(dense as Int32Array, nulls!, count, values, row, coded ? -1 : 0);
      }
    } else throw new FlatFallback();
    row += count;
  }
  if (row !== rows) throw new Error(`column ${md.path_in_schema.join('.')} has ${row} values in a row group of ${rows} rows`);
  if (lazyEntries !== null) decodeWantedEntries(lazyEntries, values as Int32Array, nulls, strings);
  return { values, objects: coded ? strings : null, nulls: withoutNulls(nulls, only), dictionary: textDict, decimalScale: conv.kind === 'decn' ? conv.scale : -1, plain };
}

/**
 * The rows of a whole row group that pass every one of `filters` (all over this chunk's column), into
 * sel[0 …) as offsets from the group's first row; returns how many. For a filter column the query does
 * not output: its values are never stored for the group. A dictionary page's entries are tested once
 * and each row's index looked up in the table of passing entries as it is unpacked; a PLAIN page is
 * decoded into a page-long scratch array and filtered there. Numbers only; FlatFallback as
 * readFlatColumn throws it.
 */
export async function readFilterColumn(file: ChunkSource, rowGroup: RowGroup, found: FlatChunk, filters: readonly RowFilter[], sel: Int32Array, levels: FilterLevels | null = null, kept: PlainText | null = null): Promise<number> {
  const md = found.chunk.meta_data!;
  const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
  const end = start + Number(md.total_compressed_size);
  const bytes = readChunk(file, md, start, end) ?? (await sliceChunk(file, md, start, end));
  levels?.clear();
  return filterFlatChunk(bytes, Number(rowGroup.num_rows), found, filters, sel, levels, keptAt(file, start), kept);
}

/**
 * Whether readFilterColumn can keep the passing values of this chunk (its `kept`): text whose pages
 * are all PLAIN, as the footer says (a dictionary page found anyway is a FlatFallback there).
 */
export function keepsPassingText(found: FlatChunk): boolean {
  const md = found.chunk.meta_data!;
  return found.conversion.kind === 'str' && md.dictionary_page_offset === undefined && !md.encodings.some((e) => e === 'PLAIN_DICTIONARY' || e === 'RLE_DICTIONARY');
}

/**
 * A text filter column's passing rows, as readFilterColumn with `kept` left them: row i of the
 * selection is value i of the kept values (no NULLs: no filter that keeps values passes a NULL).
 */
export function keptTextColumn(kept: PlainText, values: Int32Array): FlatColumnData {
  for (let i = 0; i < values.length; i++) values[i] = i;
  return { values, objects: [], nulls: null, dictionary: null, decimalScale: -1, plain: kept };
}

/**
 * Whether a chunk of this conversion can be filtered by readFilterColumn by these filters: numbers the
 * row filters compare, or text under text filters none of which passes NULL rows (IS NULL).
 */
export function filterableChunk(found: FlatChunk, filters: readonly RowFilter[]): boolean {
  const k = found.conversion.kind;
  if (k === 'str') return filters.every((f) => f.kind === 'text' && !(f.test.kind === 'null' && !f.test.negated));
  return (k === 'i32' || k === 'i32f' || k === 'i64' || k === 'f64') && filters.every((f) => f.kind === 'number');
}

/** Offsets into `values` (with `nulls`) of [0, n) passing every filter, into out; returns how many. */
function passing(filters: readonly NumberRowFilter[], values: Dense, nulls: Uint8Array | null, n: number, out: Int32Array): number {
  const d: FlatColumnData = { values, objects: null, nulls, dictionary: null, decimalScale: -1, plain: null };
  let count = narrowRange(filters[0]!, d, 0, n, out);
  for (let i = 1; i < filters.length && count > 0; i++) count = narrowSelection(filters[i]!, d, out, count);
  return count;
}

let pageSelScratch = new Int32Array(0);
let rowValuesI32Scratch = new Int32Array(0);
let rowValuesF64Scratch = new Float64Array(0);

function pageSelFor(n: number): Int32Array {
  if (pageSelScratch.length < n) pageSelScratch = new Int32Array(Math.max(n, 1 << 16));
  return pageSelScratch;
}

/** A page's values by row (NULL rows left as they were): scratch of the conversion's storage. */
function rowValuesFor(c: Conversion, n: number): Dense {
  if (c.kind === 'i32') {
    if (rowValuesI32Scratch.length < n) rowValuesI32Scratch = new Int32Array(Math.max(n, 1 << 16));
    return rowValuesI32Scratch.subarray(0, n);
  }
  if (rowValuesF64Scratch.length < n) rowValuesF64Scratch = new Float64Array(Math.max(n, 1 << 16));
  return rowValuesF64Scratch.subarray(0, n);
}

/**
 * Rows [row, row+count) whose flag in pass (one per present value, in order, and with NULLs one more,
 * 0) is 1, appended at sel[w].
 */
function selectFlagged(pass: Int32Array, pageNulls: Uint8Array | null, count: number, row: number, sel: Int32Array, w: number): number {
  if (pageNulls === null) {
    for (let i = 0; i < count; i++) {
      sel[w] = row + i;
      w += pass[i]!;
    }
    return w;
  }
  // Without a branch per row: a NULL row is written and not kept, and takes no flag (pass has one
  // flag past the present rows, so that the read at a trailing NULL row stays inside it).
  let v = 0;
  let i = 0;
  if (LITTLE_ENDIAN && pageNullScratch.holds(pageNulls)) {
    // The page scratch's flags four to a word: four rows without a NULL take their flags in order,
    // with no test per row (1.4 against 2.1 ns a row with a NULL every seventh row).
    const words = pageNullScratch.words;
    for (const q = count >>> 2; i >>> 2 < q; i += 4) {
      const x = words[i >>> 2]!;
      if (x === 0) {
        sel[w] = row + i;
        w += pass[v]!;
        sel[w] = row + i + 1;
        w += pass[v + 1]!;
        sel[w] = row + i + 2;
        w += pass[v + 2]!;
        sel[w] = row + i + 3;
        w += pass[v + 3]!;
        v += 4;
      } else {
        let p = (x & 1) ^ 1;
        sel[w] = row + i;
        w += pass[v]! & p;
        v += p;
        p = ((x >>> 8) & 1) ^ 1;
        sel[w] = row + i + 1;
        w += pass[v]! & p;
        v += p;
        p = ((x >>> 16) & 1) ^ 1;
        sel[w] = row + i + 2;
        w += pass[v]! & p;
        v += p;
        p = (x >>> 24) ^ 1;
        sel[w] = row + i + 3;
        w += pass[v]! & p;
        v += p;
      }
    }
  }
  for (; i < count; i++) {
    const present = pageNulls[i]! ^ 1;
    sel[w] = row + i;
    w += pass[v]! & present;
    v += present;
  }
  return w;
}

/** Whether a word's first byte in memory is its lowest (selectFlagged reads flags by lane). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Rows [row, row+count) of a PLAIN INT32 page whose value lies in [lo, hi], appended at sel[w]. The
 * values are read in place when aligned. (x - lo) >>> 0 <= hi - lo tests both bounds at once (exact
 * for int32 x, lo and hi: a value below lo wraps to above hi - lo). A branch per row rather than a
 * store per row: as fast at half the rows passing, and 1.6x faster when few do (a narrow range).
 */
function selectInterval(r: Reader, count: number, present: number, pageNulls: Uint8Array | null, lo: number, hi: number, row: number, sel: Int32Array, w: number): number {
  const view = r.view;
  if (r.offset + 4 * present > view.byteLength) throw new Error('page ends inside its values');
  if (lo > hi) {
    r.offset += 4 * present;
    return w;
  }
  const span = hi - lo;
  const base = view.byteOffset + r.offset;
  let src: Int32Array;
  if (base % 4 === 0) src = new Int32Array(view.buffer, base, present);
  else {
    src = denseI32For(present);
    for (let i = 0; i < present; i++) src[i] = view.getInt32(r.offset + 4 * i, true);
  }
  r.offset += 4 * present;
  if (pageNulls === null) {
    for (let i = 0; i < count; i++) if (((src[i]! - lo) >>> 0) <= span) sel[w++] = row + i;
    return w;
  }
  let v = 0;
  for (let i = 0; i < count; i++) {
    if (pageNulls[i] === 1) continue;
    sel[w] = row + i;
    w += ((src[v++]! - lo) >>> 0) <= span ? 1 : 0;
  }
  return w;
}

/** 1 for each dictionary entry (decoded now, or kept from an earlier query) that passes every text filter. */
function textPassTable(kept: readonly Value[] | null, codec: CompressionCodec, raw: Uint8Array, pageSize: number, conv: Conversion, n: number, filters: readonly TextRowFilter[]): Int32Array {
  let strings: Value[];
  if (kept !== null) strings = kept as Value[];
  else {
    const page = decompressDictionaryPage(codec, raw, pageSize);
    strings = [];
    readPlainInto({ view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, conv, n, allocDense(conv, n), 0, strings);
  }
  const table = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let pass = 1;
    for (let f = 0; f < filters.length && pass === 1; f++) pass = stringPasses(filters[f]!.test, strings[i] as string) ? 1 : 0;
    table[i] = pass;
  }
  return table;
}

let keptAtScratch = new Int32Array(0);

/**
 * Rows [row, row+count) of a PLAIN text page passing every filter, appended at sel[w]: each value tested
 * in the page as its bytes (as narrowText does on a chunk's pool), never copied nor made a string but
 * where only its string can tell. With `kept`, the passing values are appended to it, in row order.
 */
function selectPlainText(r: Reader, count: number, present: number, pageNulls: Uint8Array | null, filters: readonly TextRowFilter[], row: number, sel: Int32Array, w: number, kept: PlainText | null): number {
  const view = r.view;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const end = view.byteLength;
  const anyBytes = filters.every((f) => f.test.anyBytes);
  // One flag past the present rows, 0: selectFlagged reads it at trailing NULL rows.
  const flags = indexesFor(present + 1);
  flags[present] = 0;
  // Where each passing value starts (kept only), written for every value and advanced by its flag.
  if (kept !== null && keptAtScratch.length < present + 1) keptAtScratch = new Int32Array(Math.max(present + 1, 1 << 16));
  const keptAt = kept === null ? null : keptAtScratch;
  let kc = 0;
  let o = r.offset;
  const t0 = filters.length === 1 ? filters[0]!.test : null;
  const single = t0 === null ? null : leadingLiteral(t0);
  const trailing = t0 === null || single !== null ? null : trailingLiteral(t0);
  const placed = single ?? trailing;
  if (placed !== null && anyBytes && pageNulls === null && placed.lit.length >= 1 && placed.lit.length <= 8) {
    const w0 = w;
    const where = trailing !== null ? LiteralAt.End : single!.whole ? LiteralAt.Whole : LiteralAt.Start;
    w = selectPlaced(r, present, placed.lit, where, placed.negated, row, sel, w, keptAt);
    if (kept !== null) kept.appendValues(bytes, view, keptAt!, w - w0);
    return w;
  }
  if (placed !== null && anyBytes) {
    // = / LIKE 'lit%' / LIKE '%lit' alone: the literal compared in place (no call per value to the general test).
    const words = new LiteralWords(placed.lit);
    const n = placed.lit.length;
    const whole = single !== null && single.whole;
    const atEnd = trailing !== null;
    const flip = placed.negated ? 1 : 0;
    for (let i = 0; i < present; i++) {
      if (o + 4 > end) throw new Error('page ends inside its values');
      const len = view.getUint32(o, true);
      o += 4;
      if (len > end - o) throw new Error('page ends inside its values');
      const flag = ((whole ? len === n : len >= n) && words.at(view, bytes, atEnd ? o + len - n : o) ? 1 : 0) ^ flip;
      flags[i] = flag;
      if (keptAt !== null) {
        keptAt[kc] = o;
        kc += flag;
      }
      o += len;
    }
  } else {
    for (let i = 0; i < present; i++) {
      if (o + 4 > end) throw new Error('page ends inside its values');
      const len = view.getUint32(o, true);
      o += 4;
      if (len > end - o) throw new Error('page ends inside its values');
      const a = o;
      const b = o + len;
      o = b;
      let pass = 1;
      if (!anyBytes && !validUtf8(bytes, a, b)) pass = -1;
      for (let f = 0; f < filters.length && pass === 1; f++) pass = bytesPass(filters[f]!.test, bytes, a, b);
      if (pass < 0) {
        // The string the reader would make (asciiOrUtf8), tested by the operators' own evaluation.
        const s = asciiOrUtf8(bytes, a, b);
        pass = 1;
        for (let f = 0; f < filters.length && pass === 1; f++) pass = stringPasses(filters[f]!.test, s) ? 1 : 0;
      }
      flags[i] = pass;
      if (keptAt !== null) {
        keptAt[kc] = a;
        kc += pass;
      }
    }
  }
  r.offset = o;
  if (kept !== null) kept.appendValues(bytes, view, keptAt!, kc);
  return selectFlagged(flags, pageNulls, count, row, sel, w);
}

/** Where selectPlaced looks for its literal in a value. */
const enum LiteralAt {
  Start,
  End,
  Whole,
}

/**
 * selectPlainText of one literal test alone (= / <>, LIKE 'lit%', LIKE '%lit', or their NOT) over a
 * page without NULLs, lit of 1 to 8 bytes: the rows passing are written to sel at once (no flags), and
 * with keptAt where their values start. The literal is compared as the word ending where it would end
 * (the value's end, or its start plus the literal's length) and, past 4 bytes, the word where it
 * starts: once the length is checked both lie inside the value or its length prefix, never past the
 * page. A loop per value through LiteralWords (a call, its cases, a load past the value's end that
 * must be checked against the page's) was most of such a scan's time.
 */
function selectPlaced(r: Reader, present: number, lit: Uint8Array, where: LiteralAt, negated: boolean, row: number, sel: Int32Array, w: number, keptAt: Int32Array | null): number {
  const view = r.view;
  const end = view.byteLength;
  const n = lit.length;
  const litView = new DataView(new Uint8Array(8).buffer);
  // The literal's last bytes as the high bytes of the word ending where it ends, and the mask over them.
  const short = n < 4;
  for (let k = 0; k < Math.min(n, 4); k++) litView.setUint8(4 - Math.min(n, 4) + k, lit[n - Math.min(n, 4) + k]!);
  const wEnd = litView.getInt32(0, true);
  const mask = short ? ~((1 << (8 * (4 - n))) - 1) : -1;
  // Past 4 bytes: the word where the literal starts (overlapping the other).
  for (let k = 0; k < 4 && n > 4; k++) litView.setUint8(4 + k, lit[k]!);
  const wStart = n > 4 ? litView.getInt32(4, true) : 0;
  const back = n > 4 ? n : 4;
  const atEnd = where === LiteralAt.End;
  const whole = where === LiteralAt.Whole;
  const flip = negated ? 1 : 0;
  const base = w;
  let o = r.offset;
  for (let i = 0; i < present; i++) {
    if (o + 4 > end) throw new Error('page ends inside its values');
    const len = view.getUint32(o, true);
    o += 4;
    if (len > end - o) throw new Error('page ends inside its values');
    const e = o + len;
    const at = atEnd ? e : o + n;
    const m = (whole ? len === n : len >= n) && (((view.getInt32(at - 4, true) & mask) ^ wEnd) | (n > 4 ? view.getInt32(at - back, true) ^ wStart : 0)) === 0;
    const pass = (m ? 1 : 0) ^ flip;
    if (keptAt !== null) keptAt[w - base] = o;
    sel[w] = row + i;
    w += pass;
    o = e;
  }
  r.offset = o;
  return w;
}

function appendShifted(src: Int32Array, n: number, by: number, sel: Int32Array, w: number): number {
  for (let i = 0; i < n; i++) sel[w + i] = src[i]! + by;
  return w + n;
}

function filterFlatChunk(bytes: Uint8Array, rows: number, found: FlatChunk, all: readonly RowFilter[], sel: Int32Array, levels: FilterLevels | null, keep: KeptAt | null, keepText: PlainText | null): number {
  const md = found.chunk.meta_data!;
  const reader: Reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const conv = found.conversion;
  const text = conv.kind === 'str';
  const filters = text ? [] : (all as readonly NumberRowFilter[]);
  const textFilters = text ? (all as readonly TextRowFilter[]) : [];
  // 1 for each dictionary entry that passes every filter: the "dictionary" rows' indexes are looked up in.
  let passTable: Int32Array | null = null;
  // INT32 pages: every filter at once, as one interval, straight from the page's bytes.
  const interval = conv.kind === 'i32' || conv.kind === 'i32f' ? integerInterval(filters) : null;
  let row = 0;
  let w = 0;
  while (row < rows && reader.offset < bytes.byteLength) {
    const pageAt = reader.offset;
    const { header, raw } = nextPage(reader, bytes, md);
    if (header.type === 'DICTIONARY_PAGE') {
      const n = header.dictionary_page_header!.num_values;
      const pageSize = Number(header.uncompressed_page_size);
      const ck = conversionKey(conv);
      const kept = keep === null ? null : keptDictionary(keep.identity, keep.start + pageAt, n, pageSize);
      // Kept values are PLAIN ones only (keepsPassingText): the caller reads the chunk its own way.
      if (keepText !== null) throw new FlatFallback();
      if (text) {
        passTable = textPassTable(kept?.strings ?? null, md.codec, raw, pageSize, conv, n, textFilters);
        continue;
      }
      let entries = ck === null ? undefined : kept?.numbers.get(ck);
      if (entries === undefined) {
        const page = decompressDictionaryPage(md.codec, raw, pageSize);
        entries = allocDense(conv, n);
        readPlainInto({ view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, conv, n, entries, 0, []);
        if (keep !== null && ck !== null) keepNumbers(keep, pageAt, kept, n, pageSize, ck, entries);
      }
      const passed = new Int32Array(n);
      const k = passing(filters, entries, null, n, passed);
      passTable = new Int32Array(n);
      for (let i = 0; i < k; i++) passTable[passed[i]!] = 1;
      continue;
    }
    let pageNulls: Uint8Array | null = null;
    const opened = openDataPage(header, raw, md, found.optional, row, rows - row, (n) => [(pageNulls = pageNullScratch.take(n)), 0]);
    if (opened === null) continue; // index pages carry no values
    const { count, encoding, present, r } = opened;
    if (present === count) pageNulls = null;
    else if (levels !== null && opened.levels !== null) levels.record(row, count, present, opened.levels, pageNulls!, 0);
    if (keepText !== null && encoding !== 'PLAIN') throw new FlatFallback();
    if (encoding === 'RLE_DICTIONARY' || encoding === 'PLAIN_DICTIONARY') {
      if (passTable === null) throw new Error(`column ${md.path_in_schema.join('.')} has a dictionary-encoded page without a dictionary`);
      const width = r.view.getUint8(r.offset++);
      if (pageNulls === null && width > 0) {
        w = selectIndexes(r, width, r.view.byteLength - r.offset, count, passTable, row, sel, w);
        row += count;
        continue;
      }
      // One flag past the present rows, 0: selectFlagged reads it at trailing NULL rows.
      const flags = indexesFor(present + 1);
      flags[present] = 0;
      if (width === 0) flags.fill(passTable.length > 0 ? passTable[0]! : 0, 0, present);
      else {
        const max = readIndexes(r, width, flags.subarray(0, present), r.view.byteLength - r.offset, passTable);
        if (present > 0 && (max < 0 || max >= passTable.length)) throw new Error('dictionary index out of range');
      }
      if (passTable.length === 0 && present > 0) throw new Error('dictionary index out of range');
      w = selectFlagged(flags, pageNulls, count, row, sel, w);
    } else if (encoding === 'PLAIN' && text) {
      w = selectPlainText(r, count, present, pageNulls, textFilters, row, sel, w, keepText);
    } else if (encoding === 'PLAIN' && interval !== null) {
      w = selectInterval(r, count, present, pageNulls, interval.lo, interval.hi, row, sel, w);
    } else if (encoding === 'PLAIN') {
      const values = rowValuesFor(conv, count);
      if (pageNulls === null) readPlainInto(r, conv, count, values, 0, []);
      else {
        const dense = denseFor(conv, present);
        readPlainInto(r, conv, present, dense, 0, []);
        if (values instanceof Float64Array) spreadF64(dense as Float64Array, pageNulls, count, values, 0);
        else spreadI32(dense as Int32Array, pageNulls, count, values, 0, 0);
      }
      const pageSel = pageSelFor(count);
      w = appendShifted(pageSel, passing(filters, values, pageNulls, count, pageSel), row, sel, w);
    } else throw new FlatFallback();
    row += count;
  }
  if (row !== rows) throw new Error(`column ${md.path_in_schema.join('.')} has ${row} values in a row group of ${rows} rows`);
  return w;
}
