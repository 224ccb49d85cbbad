/**
 * Columnar batches: the unit every physical operator consumes and produces.
 *
 * A column is typed storage plus a null byte map. Typed arrays hold bool (u8), int2/int4 (i32) and the
 * f64-representable types; int8 stays in a Float64Array until a value leaves the safe-integer range,
 * at which point that one column switches to a plain array (exactness beats speed for the rare case).
 */
import { storageKind, type DataType, type Value } from './types.js';
import { encodeText, type DictCodes, type TextDictionary } from './text-dictionary.js';
import { packedMap } from './packed-map.js';
import { Numeric } from './numeric.js';

export type ColumnData = Uint8Array | Int32Array | Float64Array | Value[];

export interface Column {
  readonly type: DataType;
  readonly data: ColumnData;
  /** 1 = null. Absent when the column has no nulls, so null-free loops skip the test entirely. */
  readonly nulls: Uint8Array | null;
  /**
   * Text only: the rows' codes in a shared dictionary (text-dictionary.ts), beside `data`, which still
   * holds the strings. Keys may be compared as codes; operators that cannot carry the codes along drop
   * them. Optional so that columns built as literals still type-check; makeColumn always sets it, so
   * columns share one shape.
   */
  readonly dict?: DictCodes | null;
}

export interface Batch {
  readonly columns: readonly Column[];
  readonly length: number;
}

export const BATCH_SIZE = 4096;

/** `cols[idx[0]], cols[idx[1]], …` as a packed array in every tier (see packedMap). */
export function pickColumns(cols: readonly Column[], idx: readonly number[]): Column[] {
  const out: Column[] = [];
  for (let i = 0; i < idx.length; i++) out.push(cols[idx[i]!]!);
  return out;
}

export function emptyBatch(types: readonly DataType[]): Batch {
  return { columns: types.map((t) => makeColumn(t, allocData(t, 0), null)), length: 0 };
}

/**
 * Columns are built by a constructor, not an object literal: V8 decides per literal site whether to
 * allocate its objects straight in the old generation (allocation-site pretenuring), and one literal
 * serving both stored columns (long-lived) and every batch's transient columns got pretenured; a dead
 * old-generation column then kept its young values (a million strings a query) alive through every
 * scavenge until the next full collection. Constructed objects carry no allocation site.
 */
class ColumnObject implements Column {
  // Fields declared, not initialized in the class body (ES2022 would define each one in an
  // initializer run before the constructor, then assign it again): a one-row commit makes six of
  // these, and through its first few thousand commits that runs interpreted.
  declare readonly type: DataType;
  declare readonly nulls: Uint8Array | null;
  declare readonly dict: DictCodes | null;
  /** Null until first read for text made by codedTextColumn, prefixColumn or scaledNumericColumn: built then. */
  declare private values: ColumnData | null;
  /** scaledNumericColumn's values, kept after `data` is built (readers of doubles still use them); null for other columns. */
  declare readonly scaled: ScaledNumbers | null;
  /**
   * prefixColumn's row slots, which the values are copied from on first read (until then null
   * `values` does not mean codes only); null once copied, and for every other column.
   */
  declare private prefixOf: Value[] | null;
  declare private readonly prefixRows: number;
  /** What storage recorded about the column once stored (columnStats), or null. */
  declare stats: object | null;
  constructor(
    type: DataType,
    data: ColumnData | null,
    nulls: Uint8Array | null,
    dict: DictCodes | null,
    prefixOf: Value[] | null = null,
    prefixRows = 0,
    scaled: ScaledNumbers | null = null,
  ) {
    this.type = type;
    this.nulls = nulls;
    this.dict = dict;
    this.values = data;
    this.prefixOf = prefixOf;
    this.prefixRows = prefixRows;
    this.scaled = scaled;
    this.stats = null;
  }
  get data(): ColumnData {
    return this.values ?? (this.values = this.build());
  }
  private build(): ColumnData {
    if (this.scaled !== null) return numericsOf(this.scaled, this.nulls);
    const from = this.prefixOf;
    if (from === null) return textOfCodes(this.dict!, this.nulls);
    this.prefixOf = null;
    return from.slice(0, this.prefixRows);
  }
  /** Whether `data` is still to be built from codes (only the codes exist). */
  get pending(): boolean {
    return this.values === null && this.prefixOf === null && this.scaled === null;
  }
  /** Whether `data` is still to be built from the scaled doubles. */
  get numericsPending(): boolean {
    return this.values === null && this.scaled !== null;
  }
  /** Whether `data` is still to be copied from prefixColumn's row slots. */
  get unbuiltPrefix(): boolean {
    return this.prefixOf !== null;
  }
}

export function makeColumn(type: DataType, data: ColumnData, nulls: Uint8Array | null, dict: DictCodes | null = null): Column {
  return new ColumnObject(type, data, nulls, dict);
}

/**
 * A column of plain values (text, numeric, …) whose rows are the first `n` of `rows`, an array that
 * only ever grows past them (a table's open batch, memory-table.ts): they are copied into the
 * column's own array on its first read, so a commit that publishes a new, longer batch over the same
 * slots copies nothing, and of the batches each one-row commit publishes only those still read (a
 * table's last, a scan's, a snapshot's) ever copy.
 */
export function prefixColumn(type: DataType, rows: Value[], n: number, nulls: Uint8Array | null): Column {
  return new ColumnObject(type, null, nulls, null, rows, n);
}

/**
 * The slot storage records facts about a stored column in (execution/column-stats.ts): a field of the
 * column, not a WeakMap entry, because every small commit stores new column objects and a WeakMap
 * entry per column was a tenth of a one-row commit's CPU (the insert and the collector's ephemeron
 * work). Undefined for a column not made by makeColumn (the caller keeps such facts elsewhere).
 */
export function columnStats(c: Column): object | null | undefined {
  return c instanceof ColumnObject ? c.stats : undefined;
}

/** Sets columnStats(c); false when the column has no slot. */
export function setColumnStats(c: Column, stats: object): boolean {
  if (!(c instanceof ColumnObject)) return false;
  c.stats = stats;
  return true;
}

/** Whether the column is a prefixColumn not read yet (its values are plain, never a typed array). */
export function unbuiltPrefix(c: Column): boolean {
  return c instanceof ColumnObject && c.unbuiltPrefix;
}

/**
 * A text column held as dictionary codes only (every row's code is an entry, -1 on NULL rows): its
 * strings are built on the first read of `data`. Operators that group, join or sort by code never read
 * it, and then no row's string is stored (a scan of a dictionary-encoded file would otherwise fill an
 * array per batch that nothing reads). Anything else reads `data` as from any column.
 */
export function codedTextColumn(type: DataType, codes: DictCodes, nulls: Uint8Array | null): Column {
  return new ColumnObject(type, null, nulls, codes);
}

/** Whether the column's strings are not built yet (codedTextColumn): copies then carry the codes alone. */
export function textPending(c: Column): boolean {
  return c instanceof ColumnObject && c.pending;
}

/**
 * A numeric column's values as integers with one scale: row i is unscaled[i] / 10^scale. Every
 * unscaled value is a whole number of magnitude below 2^53, so it is exact; a row's value is
 * meaningless where the column's NULL flag is set.
 */
export interface ScaledNumbers {
  readonly unscaled: Float64Array;
  readonly scale: number;
}

/**
 * A numeric column of unscaled doubles and one scale (a Parquet DECIMAL read as integers): its
 * Numeric objects are built only when something reads `data`. Summing, averaging, counting and
 * comparing read the doubles (scaledNumbers) and build none, which was most of such a query's time.
 * The caller guarantees every value is a whole number below 2^53 in magnitude.
 */
export function scaledNumericColumn(type: DataType, unscaled: Float64Array, scale: number, nulls: Uint8Array | null): Column {
  return new ColumnObject(type, null, nulls, null, null, 0, { unscaled, scale });
}

/** The values of a scaledNumericColumn as doubles and a scale, whether or not `data` was built; null for other columns. */
export function scaledNumbers(c: Column): ScaledNumbers | null {
  return c instanceof ColumnObject ? c.scaled : null;
}

/** Whether the column is a scaledNumericColumn whose Numerics are not built yet. */
export function numericsPending(c: Column): boolean {
  return c instanceof ColumnObject && c.numericsPending;
}

function numericsOf(sn: ScaledNumbers, nulls: Uint8Array | null): Value[] {
  const u = sn.unscaled;
  const scale = sn.scale;
  const n = u.length;
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) out[i] = nulls !== null && nulls[i] === 1 ? null : Numeric.of(BigInt(u[i]!), scale);
  return out;
}

/** A scaled column's rows [start, end) or rows sel[0..n), in the same form. */
function scaledPart(c: Column, sn: ScaledNumbers, unscaled: Float64Array, nulls: Uint8Array | null): Column {
  return new ColumnObject(c.type, null, nulls, null, null, 0, { unscaled, scale: sn.scale });
}

function textOfCodes(dc: DictCodes, nulls: Uint8Array | null): Value[] {
  const codes = dc.codes;
  const entries = dc.dictionary.values;
  const n = codes.length;
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const code = codes[i]!;
    out[i] = code < 0 || (nulls !== null && nulls[i] === 1) ? null : entries[code]!;
  }
  return out;
}

/** A pending text column's rows [start, end), or its rows sel[0..n), still pending. */
function pendingSlice(c: Column, codes: Int32Array, nulls: Uint8Array | null): Column {
  return new ColumnObject(c.type, null, nulls, { codes, dictionary: c.dict!.dictionary });
}

export function allocData(t: DataType, n: number): ColumnData {
  switch (storageKind(t)) {
    case 'u8':
      return new Uint8Array(n);
    case 'i32':
      return new Int32Array(n);
    case 'f64':
      return new Float64Array(n);
    default:
      return new Array<Value>(n).fill(null);
  }
}

export function getValue(c: Column, i: number): Value {
  if (c.nulls !== null && c.nulls[i] === 1) return null;
  // One value of a scaled column without building the batch's Numerics.
  if (numericsPending(c)) {
    const sn = (c as ColumnObject).scaled!;
    return Numeric.of(BigInt(sn.unscaled[i]!), sn.scale);
  }
  const d = c.data;
  if (d instanceof Uint8Array) return d[i] === 1;
  return d[i] as Value;
}

/** A column of one repeated value, used for constants and for padding outer joins. */
export function constantColumn(t: DataType, v: Value, n: number): Column {
  const b = new ColumnBuilder(t, n);
  for (let i = 0; i < n; i++) b.push(v);
  return b.finish();
}

/**
 * Rows per chunk once a builder outgrows one. Growing one typed array by doubling copies everything
 * written so far into fresh memory in one synchronous step, and fresh memory costs a page fault per
 * 4 KiB on first touch (milliseconds per megabyte on some virtual machines): a builder of a few million
 * values would hold the event loop for 100 ms or more. Past this size a builder seals the chunk it
 * filled and starts another, so no step copies or touches more than one chunk. A multiple of BATCH_SIZE,
 * so batch-sized slices of a chunked column fall inside one chunk.
 */
export const BUILDER_CHUNK_ROWS = 1 << 16;

/** Growable column; push() takes engine values (boolean for bool, number|bigint for int8, …). */
/**
 * The column a ColumnBuilder of `t` makes of the one value `v` (not null), without the builder: a
 * one-row INSERT builds a column per value, and the builder's own fields were most of what such a
 * statement allocated. Null for a value the builder would store otherwise (a bigint, which widens a
 * float-stored column to plain values).
 */
export function oneValueColumn(t: DataType, v: Value): Column | null {
  switch (storageKind(t)) {
    case 'u8': {
      const d = new Uint8Array(1);
      d[0] = v === true ? 1 : 0;
      return makeColumn(t, d, null);
    }
    case 'i32': {
      const d = new Int32Array(1);
      d[0] = v as number;
      return makeColumn(t, d, null);
    }
    case 'f64': {
      if (typeof v === 'bigint') return null;
      const d = new Float64Array(1);
      d[0] = v as number;
      return makeColumn(t, d, null);
    }
    default:
      return makeColumn(t, [v], null);
  }
}

export class ColumnBuilder {
  readonly type: DataType;
  /** The chunk being filled; its index 0 is row `base`. */
  private data: ColumnData;
  private nulls: Uint8Array | null = null;
  length = 0;
  private base = 0;
  /** Filled chunks, as one-column batches, in row order (null until the first one is sealed). */
  private sealed: Batch[] | null = null;
  private readonly kind: ReturnType<typeof storageKind>;

  constructor(type: DataType, capacity = 16) {
    this.type = type;
    this.kind = storageKind(type);
    this.data = allocData(type, Math.max(capacity, 1));
  }

  /** Room for index `min - 1` of the current chunk: double up to a chunk, then start a new chunk. */
  private grow(min: number): void {
    const d = this.data;
    if (Array.isArray(d) || d.length >= BUILDER_CHUNK_ROWS) {
      this.seal();
      return;
    }
    const cap = Math.min(Math.max(min, d.length * 2), BUILDER_CHUNK_ROWS);
    const nd = new (d.constructor as { new (n: number): Uint8Array | Int32Array | Float64Array })(cap);
    nd.set(d as never);
    this.data = nd;
    if (this.nulls !== null) {
      const nn = new Uint8Array(cap);
      nn.set(this.nulls);
      this.nulls = nn;
    }
  }

  private seal(): void {
    (this.sealed ??= []).push(this.current());
    this.base = this.length;
    this.data = allocData(this.type, BUILDER_CHUNK_ROWS);
    this.nulls = null;
  }

  /** The current chunk's rows as a one-column batch (views, no copy). */
  private current(): Batch {
    const n = this.length - this.base;
    const d = this.data;
    let data: ColumnData;
    if (Array.isArray(d)) {
      if (d.length > n) d.length = n;
      data = d;
    } else {
      data = d.length === n ? d : d.subarray(0, n);
    }
    let nulls: Uint8Array | null = null;
    if (this.nulls !== null) {
      nulls = this.nulls.length >= n ? this.nulls.subarray(0, n) : padNulls(this.nulls, n);
    }
    return { columns: [makeColumn(this.type, data, nulls)], length: n };
  }

  /** Rows the current chunk can take before grow(): plain arrays extend themselves up to a chunk. */
  private capacity(): number {
    const d = this.data;
    return Array.isArray(d) ? Math.max(d.length, BUILDER_CHUNK_ROWS) : d.length;
  }

  private markNull(i: number): void {
    if (this.nulls === null) {
      this.nulls = new Uint8Array(Array.isArray(this.data) ? Math.max(16, i + 1) : this.data.length);
    } else if (this.nulls.length <= i) {
      const nn = new Uint8Array(Math.max(i + 1, this.nulls.length * 2));
      nn.set(this.nulls);
      this.nulls = nn;
    }
    this.nulls[i] = 1;
  }

  push(v: Value): void {
    let i = this.length - this.base;
    if (i >= this.capacity()) {
      this.grow(i + 1);
      i = this.length - this.base;
    }
    if (v === null) {
      this.markNull(i);
      if (Array.isArray(this.data)) this.data[i] = null;
      this.length++;
      return;
    }
    switch (this.kind) {
      case 'u8':
        (this.data as Uint8Array)[i] = v === true ? 1 : 0;
        break;
      case 'i32':
        (this.data as Int32Array)[i] = v as number;
        break;
      case 'f64':
        if (typeof v === 'bigint') {
          this.widen();
          (this.data as Value[])[i] = v;
        } else if (Array.isArray(this.data)) {
          this.data[i] = v;
        } else {
          (this.data as Float64Array)[i] = v as number;
        }
        break;
      default:
        (this.data as Value[])[i] = v;
    }
    if (this.nulls !== null && this.nulls.length > i) this.nulls[i] = 0;
    this.length++;
  }

  /** Copy row i of column c (no boxing for typed storage). */
  pushFrom(c: Column, i: number): void {
    if (c.nulls !== null && c.nulls[i] === 1) {
      this.push(null);
      return;
    }
    const sd = c.data;
    const n = this.length - this.base;
    if (!Array.isArray(this.data) && !Array.isArray(sd) && n < this.data.length) {
      (this.data as Float64Array)[n] = (sd as Float64Array)[i]!;
      if (this.nulls !== null && this.nulls.length > n) this.nulls[n] = 0;
      this.length++;
      return;
    }
    this.push(getValue(c, i));
  }

  /** An int8 value past 2^53 arrived: the current chunk switches to a plain array (earlier chunks stay typed). */
  private widen(): void {
    if (Array.isArray(this.data)) return;
    const n = this.length - this.base;
    const arr: Value[] = new Array(n);
    const d = this.data as Float64Array;
    for (let j = 0; j < n; j++) arr[j] = d[j]!;
    this.data = arr;
  }

  /** Every row as one column. A builder that grew past one chunk concatenates them here. */
  finish(): Column {
    if (this.sealed !== null) return concatBatches([this.type], this.finishChunks()).columns[0]!;
    const n = this.length;
    let data: ColumnData;
    if (Array.isArray(this.data)) {
      this.data.length = n;
      data = this.data;
    } else {
      data = this.data.length === n ? this.data : this.data.slice(0, n);
    }
    let nulls: Uint8Array | null = null;
    if (this.nulls !== null) {
      nulls = new Uint8Array(n);
      nulls.set(this.nulls.subarray(0, Math.min(n, this.nulls.length)));
    }
    return makeColumn(this.type, data, nulls);
  }

  /**
   * The rows as the chunks they were written in (one-column batches, no copy), for callers that read
   * them in slices (ChunkedColumn) or concatenate them with yields (concatBatchesAsync).
   */
  finishChunks(): Batch[] {
    if (this.sealed === null) return this.length === 0 ? [] : [{ columns: [this.finish()], length: this.length }];
    const last = this.current();
    return last.length > 0 ? [...this.sealed, last] : [...this.sealed];
  }

  /** The rows as a column read in slices, without concatenating its chunks. */
  finishChunked(): ChunkedColumn {
    return new ChunkedColumn(this.type, this.finishChunks(), this.length);
  }
}

function padNulls(nulls: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  out.set(nulls);
  return out;
}

/**
 * A finished builder's rows held in its chunks. slice() of a range inside one chunk is a view; a range
 * across chunks is copied (small: callers slice batch-sized ranges).
 */
export class ChunkedColumn {
  constructor(
    readonly type: DataType,
    private readonly chunks: readonly Batch[],
    readonly length: number,
  ) {}

  slice(start: number, end: number): Column {
    if (end <= start) return makeColumn(this.type, allocData(this.type, 0), null);
    const parts: Batch[] = [];
    let off = 0;
    for (const c of this.chunks) {
      const cEnd = off + c.length;
      if (cEnd > start && off < end) parts.push(sliceBatch(c, Math.max(start, off) - off, Math.min(end, cEnd) - off));
      if (cEnd >= end) break;
      off = cEnd;
    }
    if (parts.length === 1) return parts[0]!.columns[0]!;
    return concatBatches([this.type], parts).columns[0]!;
  }
}

/**
 * Placeholder for a column that no operator downstream reads (the physical planner proves it and tells
 * copying operators through a `need` mask): zero-length storage, so gathering, slicing and concatenating
 * it cost nothing while the column still holds its place and every column index stays valid. A batch of
 * length n > 0 whose column has fewer than n entries is always such a placeholder.
 */
export function deadColumn(t: DataType): Column {
  let c = deadColumns.get(t);
  if (c === undefined) {
    c = makeColumn(t, allocData(t, 0), null);
    deadColumns.set(t, c);
  }
  return c;
}
/** Placeholders hold nothing, so one per type object is shared. */
const deadColumns = new WeakMap<DataType, Column>();

function isDead(c: Column, n: number): boolean {
  const sn = scaledNumbers(c);
  return (sn !== null ? sn.unscaled.length : textPending(c) ? c.dict!.codes.length : c.data.length) < n;
}

/** Gather rows `sel[0..n)` of every column (only the columns `need` marks, when given; the rest become placeholders). */
export function takeBatch(b: Batch, sel: Uint32Array | number[], n: number, need: readonly boolean[] | null = null): Batch {
  if (need === null) return { columns: packedMap(b.columns, (c) => takeColumn(c, sel, n)), length: n };
  return { columns: packedMap(b.columns, (c, i) => (need[i] === false ? deadColumn(c.type) : takeColumn(c, sel, n))), length: n };
}

export function takeColumn(c: Column, sel: Uint32Array | number[], n: number): Column {
  const sn = scaledNumbers(c);
  if (sn !== null) {
    if (n > 0 && sn.unscaled.length === 0) return c;
    return scaledPart(c, sn, takeF64(sn.unscaled, sel, n), c.nulls === null ? null : takeNulls(c.nulls, sel, n));
  }
  if (textPending(c)) {
    const codes = c.dict!.codes;
    if (n > 0 && codes.length === 0) return c;
    return pendingSlice(c, takeI32(codes, sel, n), c.nulls === null ? null : takeNulls(c.nulls, sel, n));
  }
  const d = c.data;
  if (n > 0 && d.length === 0) return c;
  let out: ColumnData;
  // One loop per storage class keeps each element access monomorphic (a shared loop over
  // Int32Array/Float64Array/Array is several times slower once V8 sees all of them).
  if (d instanceof Float64Array) out = takeF64(d, sel, n);
  else if (d instanceof Int32Array) out = takeI32(d, sel, n);
  else if (d instanceof Uint8Array) out = takeU8(d, sel, n);
  else out = takeObj(d, sel, n);
  const nulls = c.nulls === null ? null : takeNulls(c.nulls, sel, n);
  const dc = c.dict;
  return makeColumn(c.type, out, nulls, dc != null ? { codes: takeI32(dc.codes, sel, n), dictionary: dc.dictionary } : null);
}

/** NULL flags of rows sel[0..n), or null when none of them is NULL. */
function takeNulls(nulls: Uint8Array, sel: Uint32Array | number[], n: number): Uint8Array | null {
  const o = takeU8(nulls, sel, n);
  for (let k = 0; k < n; k++) if (o[k] === 1) return o;
  return null;
}

function takeF64(d: Float64Array, sel: Uint32Array | number[], n: number): Float64Array {
  const o = new Float64Array(n);
  for (let k = 0; k < n; k++) o[k] = d[sel[k]!]!;
  return o;
}
function takeI32(d: Int32Array, sel: Uint32Array | number[], n: number): Int32Array {
  const o = new Int32Array(n);
  for (let k = 0; k < n; k++) o[k] = d[sel[k]!]!;
  return o;
}
function takeU8(d: Uint8Array, sel: Uint32Array | number[], n: number): Uint8Array {
  const o = new Uint8Array(n);
  for (let k = 0; k < n; k++) o[k] = d[sel[k]!]!;
  return o;
}
function takeObj(d: Value[], sel: Uint32Array | number[], n: number): Value[] {
  const o = new Array<Value>(n);
  for (let k = 0; k < n; k++) o[k] = d[sel[k]!]!;
  return o;
}

export function sliceBatch(b: Batch, start: number, end: number): Batch {
  if (start === 0 && end >= b.length) return b;
  return { columns: packedMap(b.columns, (c) => sliceColumn(c, start, end)), length: end - start };
}

/** Rows [start, end) of a column, in the form it has (scaled doubles and pending codes stay unbuilt). */
function sliceColumn(c: Column, start: number, end: number): Column {
  const nulls = c.nulls === null ? null : c.nulls.subarray(start, end);
  const sn = scaledNumbers(c);
  if (sn !== null) return scaledPart(c, sn, sn.unscaled.subarray(start, end), nulls);
  if (textPending(c)) return pendingSlice(c, c.dict!.codes.subarray(start, end), nulls);
  return makeColumn(
    c.type,
    Array.isArray(c.data) ? c.data.slice(start, end) : c.data.subarray(start, end),
    nulls,
    c.dict != null ? { codes: c.dict.codes.subarray(start, end), dictionary: c.dict.dictionary } : null,
  );
}

/** Concatenate batches of the same schema into one (used by blocking operators). */
export function concatBatches(types: readonly DataType[], batches: readonly Batch[]): Batch {
  const steps = concatSteps(types, batches);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/**
 * Values copied between two chances to yield in concatBatchesAsync. A plain-array copy of this many
 * values costs about a millisecond; typed columns count an eighth of their rows (a block copy).
 */
const CONCAT_STEP = 1 << 16;

/** The work of concatBatches, pausing after about every CONCAT_STEP values copied. */
/**
 * Allocates a typed array of n elements for concatSteps, contents unspecified (every element is written).
 * Sort passes one that borrows pooled memory: first writes to fresh pages cost more than the copy.
 */
export type TypedAlloc = (kind: 'u8' | 'i32' | 'f64', n: number) => Uint8Array | Int32Array | Float64Array;

export function* concatSteps(types: readonly DataType[], batches: readonly Batch[], alloc?: TypedAlloc): Generator<void, Batch> {
  if (batches.length === 1) return batches[0]!;
  let n = 0;
  for (const b of batches) n += b.length;
  const cols: Column[] = [];
  let done = 0;
  for (let ci = 0; ci < types.length; ci++) {
    const t = types[ci]!;
    let wide = false;
    let anyNull = false;
    if (batches.some((b) => isDead(b.columns[ci]!, b.length))) {
      cols.push(deadColumn(t));
      continue;
    }
    const scale = commonScale(batches, ci);
    for (const b of batches) {
      const c = b.columns[ci]!;
      if (c.nulls !== null) anyNull = true;
      if (scale < 0 && Array.isArray(c.data)) wide = true;
    }
    let data: ColumnData;
    let unscaled: Float64Array | null = null;
    const boxed = wide || storageKind(t) === 'obj';
    if (scale >= 0) {
      // Scaled numerics of one scale stay doubles: their Numerics are still built only if read.
      const o = alloc === undefined ? new Float64Array(n) : (alloc('f64', n) as Float64Array);
      let off = 0;
      for (const b of batches) {
        o.set(scaledNumbers(b.columns[ci]!)!.unscaled.subarray(0, b.length), off);
        off += b.length;
        done += b.length >> 3;
        if (done >= CONCAT_STEP) {
          done = 0;
          yield;
        }
      }
      unscaled = o;
      data = o;
    } else if (boxed) {
      const o: Value[] = new Array(n);
      let off = 0;
      for (const b of batches) {
        const d = b.columns[ci]!.data;
        for (let i = 0; i < b.length; i++) o[off + i] = d[i] as Value;
        off += b.length;
        done += b.length;
        if (done >= CONCAT_STEP) {
          done = 0;
          yield;
        }
      }
      data = o;
    } else {
      const kind = storageKind(t) as 'u8' | 'i32' | 'f64';
      const o = alloc === undefined ? (allocData(t, n) as Uint8Array | Int32Array | Float64Array) : alloc(kind, n);
      let off = 0;
      for (const b of batches) {
        o.set((b.columns[ci]!.data as Float64Array).subarray(0, b.length), off);
        off += b.length;
        done += b.length >> 3;
        if (done >= CONCAT_STEP) {
          done = 0;
          yield;
        }
      }
      data = o;
    }
    let nulls: Uint8Array | null = null;
    if (anyNull) {
      nulls = alloc === undefined ? new Uint8Array(n) : (alloc('u8', n) as Uint8Array);
      let off = 0;
      for (const b of batches) {
        const nn = b.columns[ci]!.nulls;
        if (nn !== null) nulls.set(nn.subarray(0, b.length), off);
        else if (alloc !== undefined) nulls.fill(0, off, off + b.length);
        off += b.length;
      }
    }
    if (unscaled !== null) cols.push(scaledNumericColumn(t, unscaled, scale, nulls));
    else cols.push(makeColumn(t, data, nulls, storageKind(t) === 'obj' ? concatCodes(batches, ci, n, alloc) : null));
  }
  return { columns: cols, length: n };
}

/** The scale every batch's column ci is a scaledNumericColumn of, or -1 when they are not all such columns of one scale. */
function commonScale(batches: readonly Batch[], ci: number): number {
  let scale = -1;
  for (const b of batches) {
    const sn = scaledNumbers(b.columns[ci]!);
    if (sn === null || (scale >= 0 && sn.scale !== scale)) return -1;
    scale = sn.scale;
  }
  return scale;
}

/**
 * The codes of column ci over the concatenated batches, when every batch's rows have codes in one
 * dictionary. Batches without codes (rows appended one at a time, rewritten by UPDATE) are looked up in
 * it when they are few next to those with codes; one string it lacks drops the codes.
 */
function concatCodes(batches: readonly Batch[], ci: number, n: number, alloc: TypedAlloc | undefined): DictCodes | null {
  let dictionary: TextDictionary | null = null;
  let without = 0;
  for (const b of batches) {
    const dc = b.columns[ci]!.dict;
    if (dc == null) {
      without += b.length;
      continue;
    }
    if (dictionary === null) dictionary = dc.dictionary;
    else if (dictionary !== dc.dictionary) return null;
  }
  if (dictionary === null || without * 4 > n) return null;
  const codes = alloc === undefined ? new Int32Array(n) : (alloc('i32', n) as Int32Array);
  let off = 0;
  for (const b of batches) {
    const c = b.columns[ci]!;
    if (c.dict != null) {
      codes.set(c.dict.codes.subarray(0, b.length), off);
    } else {
      const looked = encodeText(c.data as Value[], c.nulls, b.length, dictionary, false);
      if (looked === null) return null;
      codes.set(looked.codes, off);
    }
    off += b.length;
  }
  return { codes, dictionary };
}

/** Row-major view of a batch, for result delivery and tests. */
export function batchRows(b: Batch): Value[][] {
  const n = b.length;
  const rows: Value[][] = new Array(n);
  const nc = b.columns.length;
  for (let i = 0; i < n; i++) rows[i] = new Array<Value>(nc);
  // Column by column, one loop per storage class: reading a value row by row through getValue sees
  // every column's array type at one load, which V8 cannot specialize.
  for (let c = 0; c < nc; c++) {
    const col = b.columns[c]!;
    const d = col.data;
    if (d instanceof Int32Array) rowsFromI32(rows, c, d, n);
    else if (d instanceof Float64Array) rowsFromF64(rows, c, d, n);
    else if (d instanceof Uint8Array) rowsFromBool(rows, c, d, n);
    else rowsFromValues(rows, c, d, n);
    const nulls = col.nulls;
    if (nulls !== null) for (let i = 0; i < n; i++) if (nulls[i] === 1) rows[i]![c] = null;
  }
  return rows;
}

function rowsFromI32(rows: Value[][], c: number, d: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) rows[i]![c] = d[i]!;
}

function rowsFromF64(rows: Value[][], c: number, d: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) rows[i]![c] = d[i]!;
}

function rowsFromBool(rows: Value[][], c: number, d: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) rows[i]![c] = d[i] === 1;
}

function rowsFromValues(rows: Value[][], c: number, d: readonly Value[], n: number): void {
  for (let i = 0; i < n; i++) rows[i]![c] = d[i] as Value;
}
