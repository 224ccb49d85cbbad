/**
 * read_parquet(path): Parquet files through hyparquet. `path` may be a glob; all matching files are
 * read in name order with the first file's schema (columns are matched by name, so files with the
 * columns in another order still line up).
 *
 * Streaming: one scan range (a row group, or the part of it the page index keeps) and one column at
 * a time, so memory is bounded by a row group's projected columns, not by the file.
 *
 * Pushdown (see push-into-table-function): only the projected columns are decoded, and simple
 * conjuncts (column <op> constant, IS [NOT] NULL, IN lists) become a hyparquet pruning filter that
 * skips row groups (and pages, with a page index) whose min/max statistics cannot match: pruning is
 * conservative, never exact. Numeric comparisons with a constant are also row filters
 * (parquet-row-filter.ts), checked exactly on every row, so their conjuncts leave the Filter above.
 *
 * Types: BOOLEAN → bool, INT32 → int4 (INT_8/INT_16 → int2, DATE → date, UINT_32 → int8),
 * INT64 → int8 (TIMESTAMP → timestamp, or timestamptz when adjusted to UTC), FLOAT → float4,
 * DOUBLE → float8, DECIMAL → numeric(p, s), strings/UUID/JSON/ENUM → text; lists → arrays, groups →
 * records, maps and lists of lists → their JSON text (parquet-nested.ts).
 */
import { closeSync, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import type { AsyncBuffer, FileMetaData, ParquetParsers, ParquetQueryFilter, ParquetScan, SchemaElement, SchemaTree } from 'hyparquet';
import { lazyModule } from '../../common/lazy-module.js';
import { filesToRead } from '../file-access.js';
import { QuireError } from '../../common/errors.js';
import { formatValue } from '../../common/format-value.js';
import { T, type, type DataType, type Field, type Value } from '../../common/types.js';
import { BATCH_SIZE, ColumnBuilder, codedTextColumn, makeColumn, scaledNumericColumn, type Batch, type Column } from '../../common/column.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { parseLike } from '../../functions/scalar/support/like.js';
import type { Expr } from '../../logical/expr.js';
import { fileOpenError } from '../csv.js';
import { reportProgress, type ProgressHandle } from '../progress.js';
import type { ExecContext } from '../../execution/context.js';
import { queryMemory, valueBytes, type MemoryReservation } from '../../execution/memory-pool.js';
import { PARQUET_DECOMPRESSORS, prepareZstd, UnsupportedCodec } from './parquet-codecs.js';
import { compactFlat, constantOf, gatherFlat, gatherGeneral, narrowColumn, narrowRange, narrowSelection, parquetRowFilters, passesByStatistics, TEXT_FILTERS_SETTING, type RowFilter } from './parquet-row-filter.js';
import { FLAT_FAST_TYPES, FilterLevels, FlatFallback, type ChunkSource, bigEndianSigned, dictCodes, filterableChunk, flatColumnChunk, keepsPassingText, keptTextColumn, materializeObjects, PlainText, presenceChunk, readFilterColumn, readFlatColumn, readFlatNulls, type FlatChunk, type FlatColumnData } from './parquet-flat-column.js';
import { leafValue, nestedMapping, parquetMicros } from './parquet-nested.js';
import { ParquetValuePool } from './parquet-value-pool.js';
import { fileIdentity } from './parquet-dictionary-cache.js';
import { Numeric } from '../../common/numeric.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

const hyparquet = lazyModule<typeof import('hyparquet')>('hyparquet');

const utf8KeepingBom = new TextDecoder('utf-8', { ignoreBOM: true });

/** Values in Quire's representation straight from the decoder (no Date objects, no lossy ms). */
export const QUIRE_PARQUET_PARSERS: Partial<ParquetParsers> = {
  // Exact: a number while safe, a bigint beyond 2^53 µs (see Micros); int64's ends are ±infinity.
  timestampFromMilliseconds: (v: bigint) => (v === null || v === undefined ? null : parquetMicros(BigInt(v), 1000n)),
  timestampFromMicroseconds: (v: bigint) => (v === null || v === undefined ? null : parquetMicros(BigInt(v), 1n)),
  timestampFromNanoseconds: (v: bigint) => (v === null || v === undefined ? null : parquetMicros(BigInt(v), 0n)),
  dateFromDays: (v: number) => (v === null || v === undefined ? null : v),
  // Strings (values and statistics) keep a leading U+FEFF: it is data, which a default decoder drops
  // (and then a row group whose greatest value starts with it would be pruned by the wrong bound).
  stringFromBytes: (b: Uint8Array) => (b === null || b === undefined ? b : utf8KeepingBom.decode(b)),
  // JSON columns stay text: Quire has no json type, and the text round-trips exactly.
  jsonFromBytes: (b: Uint8Array) => (b === null || b === undefined ? null : utf8KeepingBom.decode(b)),
};

/**
 * Parsed footers by path, checked against the file's device, inode, size, and modification and change
 * times: binding and the scan both need the footer, and a query repeated over the same file would
 * otherwise parse it again each time (for a query that statistics prune to one row group, most of its
 * fixed cost). The change time catches a file rewritten in place with the same size whose modification
 * time was put back (a copy preserving times): its old statistics would prune rows it now has.
 */
const footerCache = new Map<string, { stamp: string; meta: FileMetaData; bytes: number }>();
/**
 * Bounds of the cache. A glob of many small files is read footer by footer on every query, and with
 * fewer entries than files each query evicted the footers the next one needed (their scan plans too,
 * which are kept per footer). Footers are kept up to a total of their encoded sizes.
 */
const FOOTER_CACHE_ENTRIES = 4096;
const FOOTER_CACHE_BYTES = 8 << 20;
let footerCacheBytes = 0;

const footerStamp = (st: Stats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

/**
 * Synchronous footer read: binding fixes the schema and runs synchronously. A cached footer is checked
 * by one stat of the path; the file is opened only to read a footer not cached or changed. (A glob is
 * checked file by file at binding and again when the scan starts: open, fstat and close were three
 * system calls per file each time, a visible share of a glob of small files.)
 */
export function readParquetMetadataSync(file: string): FileMetaData {
  const cached = footerCache.get(file);
  if (cached !== undefined) {
    let st: Stats;
    try {
      st = statSync(file);
    } catch (e) {
      throw fileOpenError(file, e);
    }
    if (cached.stamp === footerStamp(st)) return cached.meta;
  }
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw fileOpenError(file, e);
  }
  try {
    // The stamp kept is that of the file read, not of the path stat above (it may have been replaced since).
    const st = fstatSync(fd);
    const size = st.size;
    const stamp = footerStamp(st);
    const tail = Buffer.alloc(8);
    if (size < 12 || readSync(fd, tail, 0, 8, size - 8) !== 8 || tail.toString('latin1', 4, 8) !== 'PAR1') {
      throw new QuireError('22P04', `file "${file}" is not a Parquet file`);
    }
    const metaLen = tail.readUInt32LE(0);
    if (metaLen + 8 > size) throw new QuireError('22P04', `Parquet file "${file}" has a corrupt footer`);
    const buf = Buffer.alloc(metaLen + 8);
    readSync(fd, buf, 0, metaLen + 8, size - metaLen - 8);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const meta = hyparquet().parquetMetadata(ab, { parsers: QUIRE_PARQUET_PARSERS });
    if (cached !== undefined) {
      footerCache.delete(file);
      footerCacheBytes -= cached.bytes;
    }
    // Oldest entries out first: Map keeps insertion order.
    while (footerCache.size > 0 && (footerCache.size >= FOOTER_CACHE_ENTRIES || footerCacheBytes + metaLen > FOOTER_CACHE_BYTES)) {
      const [oldest, entry] = footerCache.entries().next().value!;
      footerCache.delete(oldest);
      footerCacheBytes -= entry.bytes;
    }
    footerCache.set(file, { stamp, meta, bytes: metaLen });
    footerCacheBytes += metaLen;
    return meta;
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw new QuireError('22P04', `could not read Parquet metadata of "${file}": ${(e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** How a Parquet leaf (or nested group) maps onto a Quire column. */
interface ColumnPlan {
  readonly field: Field;
  /** INT64 without a logical type: bigint values. */
  readonly int64: boolean;
  /** A list, group or repeated leaf: its values come assembled (arrays, objects) and `convert` maps them. */
  readonly nested: boolean;
  readonly convert: ((v: unknown) => Value) | null;
}

function elementType(e: SchemaElement): DataType {
  const ct = e.converted_type;
  const lt = e.logical_type;
  if (ct === 'DECIMAL' || lt?.type === 'DECIMAL') {
    // numeric(p, s) when the file says: values keep their scale (1.50 stays 1.50), as in PostgreSQL.
    const p = lt?.type === 'DECIMAL' ? lt.precision : e.precision;
    const s = lt?.type === 'DECIMAL' ? lt.scale : (e.scale ?? 0);
    return p !== undefined && p >= 1 && p <= 1000 && s >= 0 && s <= p ? type('numeric', ((p << 16) | s) + 4) : T.numeric;
  }
  switch (e.type) {
    case 'BOOLEAN':
      return T.bool;
    case 'INT32':
      if (ct === 'DATE' || lt?.type === 'DATE') return T.date;
      if (ct === 'INT_8' || ct === 'INT_16' || ct === 'UINT_8' || ct === 'UINT_16') return T.int2;
      if (ct === 'UINT_32' || (lt?.type === 'INTEGER' && lt.bitWidth === 32 && !lt.isSigned)) return T.int8;
      return T.int4;
    case 'INT64':
      if (lt?.type === 'TIMESTAMP') return lt.isAdjustedToUTC ? T.timestamptz : T.timestamp;
      if (ct === 'TIMESTAMP_MICROS' || ct === 'TIMESTAMP_MILLIS') return T.timestamp;
      if (ct === 'UINT_64' || (lt?.type === 'INTEGER' && !lt.isSigned)) return T.numeric;
      return T.int8;
    case 'INT96':
      return T.timestamp;
    case 'FLOAT':
      return T.float4;
    case 'DOUBLE':
      return T.float8;
    default:
      if (lt?.type === 'FLOAT16') return T.float4;
      return T.text;
  }
}

/**
 * A footer whose top-level DECIMAL leaves stored as INT32, INT64 or FIXED_LEN_BYTE_ARRAY are left
 * unannotated, for hyparquet's general path (pages the flat decoder does not read, e.g. DELTA_BINARY_PACKED):
 * annotated, it divides each value into a double (inexact with a scale, or past 2^53); unannotated it
 * hands over the unscaled integers or bytes, which exactDecimals makes Numerics of with the column's scale.
 */
const rawDecimalFooters = new WeakMap<FileMetaData, { meta: FileMetaData; scales: Map<string, number> }>();

function rawDecimalFooter(meta: FileMetaData): { meta: FileMetaData; scales: Map<string, number> } {
  let raw = rawDecimalFooters.get(meta);
  if (raw !== undefined) return raw;
  const scales = new Map<string, number>();
  const leaves = new Set<SchemaElement>();
  for (const c of hyparquet().parquetSchema(meta).children) {
    const e = c.element;
    const decimal = e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL';
    if (!decimal || c.children.length > 0 || e.repetition_type === 'REPEATED') continue;
    if (e.type !== 'INT32' && e.type !== 'INT64' && e.type !== 'FIXED_LEN_BYTE_ARRAY') continue;
    const scale = e.logical_type?.type === 'DECIMAL' ? e.logical_type.scale : (e.scale ?? 0);
    if (scale < 0) continue;
    leaves.add(e);
    scales.set(e.name, scale);
  }
  const schema = leaves.size === 0 ? meta.schema : meta.schema.map((e) => (leaves.has(e) ? { ...e, converted_type: undefined, logical_type: undefined } : e));
  raw = { meta: leaves.size === 0 ? meta : { ...meta, schema }, scales };
  rawDecimalFooters.set(meta, raw);
  return raw;
}

/** Unscaled DECIMAL values (numbers, bigints or big-endian bytes) from hyparquet as exact Numerics. */
function exactDecimals(data: unknown, scale: number): Value[] {
  const raw = data as ArrayLike<unknown>;
  const out = new Array<Value>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i];
    if (v === null || v === undefined) out[i] = null;
    else if (v instanceof Uint8Array) out[i] = Numeric.of(bigEndianSigned(v, 0, v.length), scale);
    else out[i] = Numeric.of(BigInt(v as number | bigint), scale);
  }
  return out;
}

/** Column plans by footer: binding and every file a scan opens need them, and a footer stays cached while its file is unchanged. */
const columnPlans = new WeakMap<FileMetaData, readonly ColumnPlan[]>();
const columnNameSets = new WeakMap<FileMetaData, ReadonlySet<string>>();

/** The names of a footer's columns, by footer: each file of a glob is checked for the scan's columns. */
function columnNames(meta: FileMetaData): ReadonlySet<string> {
  let names = columnNameSets.get(meta);
  if (names === undefined) columnNameSets.set(meta, (names = new Set(parquetColumns(meta).map((c) => c.field.name))));
  return names;
}

export function parquetColumns(meta: FileMetaData): readonly ColumnPlan[] {
  let plans = columnPlans.get(meta);
  if (plans === undefined) columnPlans.set(meta, (plans = schemaColumns(meta)));
  return plans;
}

function schemaColumns(meta: FileMetaData): ColumnPlan[] {
  const tree: SchemaTree = hyparquet().parquetSchema(meta);
  return tree.children.map((c) => {
    const e = c.element;
    const m = nestedMapping(c, elementType);
    if (m !== null) return { field: { name: e.name, type: m.type }, int64: false, nested: true, convert: m.convert };
    const type = elementType(e);
    return { field: { name: e.name, type }, int64: e.type === 'INT64' && type.name === 'int8', nested: false, convert: null };
  });
}

/** Types whose decoded values are already Quire's numbers (dates as days, timestamps as µs, via our parsers). */
const FAST_NUMERIC = new Set(['int2', 'int4', 'float8', 'date', 'timestamp', 'timestamptz']);

/** hyparquet's decoded values (typed arrays or plain arrays with null/undefined) → a Quire column. */
function toColumn(plan: ColumnPlan, data: ArrayLike<unknown>, from: number, to: number): Column {
  const t = plan.field.type;
  const n = to - from;
  if (t.name === 'int4' && data instanceof Int32Array) return makeColumn(t, data.subarray(from, to), null);
  if (t.name === 'float8' && data instanceof Float64Array) return makeColumn(t, data.subarray(from, to), null);
  if (Array.isArray(data) && !plan.nested && FAST_NUMERIC.has(t.name)) {
    // Nullable columns decode to plain arrays (null where undefined): copy into typed storage directly.
    const out = t.name === 'int4' || t.name === 'int2' ? new Int32Array(n) : new Float64Array(n);
    let nulls: Uint8Array | null = null;
    let exact = true;
    for (let i = 0; i < n; i++) {
      const v = data[from + i] as number | bigint | null | undefined;
      if (v === null || v === undefined) (nulls ??= new Uint8Array(n))[i] = 1;
      else if (typeof v === 'bigint') {
        // A timestamp beyond 2^53 µs: the builder below widens the column.
        exact = false;
        break;
      } else out[i] = v;
    }
    if (exact) return makeColumn(t, out, nulls);
  }
  if (t.name === 'int8' && data instanceof BigInt64Array) {
    const out = new Float64Array(n);
    let safe = true;
    for (let i = 0; i < n; i++) {
      const v = data[from + i]!;
      if (v > 9007199254740991n || v < -9007199254740991n) {
        safe = false;
        break;
      }
      out[i] = Number(v);
    }
    if (safe) return makeColumn(t, out, null);
  }
  const b = new ColumnBuilder(t, n);
  for (let i = from; i < to; i++) b.push(convertValue(plan, data[i]));
  return b.finish();
}

function convertValue(plan: ColumnPlan, v: unknown): Value {
  if (v === null || v === undefined) return null;
  return plan.convert !== null ? plan.convert(v) : leafValue(plan.field.type, v);
}

// ---- filter pushdown ------------------------------------------------------------------------------

const OPS: Record<string, keyof ParquetFilterOps> = { '=': '$eq', '<': '$lt', '<=': '$lte', '>': '$gt', '>=': '$gte', '<>': '$ne' };
const FLIP: Record<string, string> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
interface ParquetFilterOps {
  $eq: unknown;
  $ne: unknown;
  $lt: unknown;
  $lte: unknown;
  $gt: unknown;
  $gte: unknown;
  $in: unknown;
}

/** Types whose Quire value compares like the statistics hyparquet decodes (with our parsers). */
const PRUNABLE = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'date', 'timestamp', 'timestamptz', 'text', 'varchar', 'bool']);

function columnOf(e: Expr, schema: readonly ColumnPlan[]): ColumnPlan | null {
  // Widening casts (int4 column compared with an int8 constant) keep the order of values.
  let x = e;
  while (x.kind === 'cast' && PRUNABLE.has(x.arg.type.name) && x.type.name !== 'text') x = x.arg;
  if (x.kind !== 'column') return null;
  const p = schema[x.index];
  return p !== undefined && !p.nested && PRUNABLE.has(p.field.type.name) ? p : null;
}

function statValue(p: ColumnPlan, v: Value): unknown {
  if (v === null || typeof v === 'object') return undefined;
  if (p.int64) {
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
    if (typeof v === 'bigint') return v;
    return undefined;
  }
  if (typeof v === 'bigint') return Number(v);
  return v;
}

/**
 * The range of strings a LIKE pattern's fixed ASCII prefix allows (before its first unescaped % or _):
 * [prefix, prefix with its last character incremented); null when the prefix is empty or not ASCII.
 * ASCII only: hyparquet compares statistics as JavaScript strings (UTF-16 units) and Parquet orders
 * them by UTF-8 bytes; the two orders agree wherever one side of the first difference is ASCII.
 */
export function likePrefixRange(pattern: string): { lo: string; hi: string | null } | null {
  const { pieces, trailingEscape } = parseLike(pattern);
  const first = pieces[0];
  if (first === undefined || first.kind !== 'literal') return null;
  // A trailing escape right after the prefix is an error LIKE raises when it gets there: no range.
  if (trailingEscape && pieces.length === 1) return null;
  const prefix = first.text;
  for (let i = 0; i < prefix.length; i++) if (prefix.charCodeAt(i) > 0x7e) return null;
  // '~' (0x7e) incremented would leave ASCII: the range then has no upper end.
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) === 0x7e) end--;
  const hi = end === 0 ? null : prefix.slice(0, end - 1) + String.fromCharCode(prefix.charCodeAt(end - 1) + 1);
  return { lo: prefix, hi };
}

/** The conjuncts hyparquet can prune by, as its filter object; unusable ones are left out. */
export function parquetPruningFilter(conjuncts: readonly Expr[], schema: readonly ColumnPlan[]): { filter: ParquetQueryFilter | null; used: string[] } {
  const parts: ParquetQueryFilter[] = [];
  const used: string[] = [];
  const fmtConst = (value: Value, t: DataType): string => (typeof value === 'string' ? `'${value}'` : (formatValue(value, t) ?? 'NULL'));
  const fmt = (e: Expr): string => (e.kind === 'column' ? e.name : e.kind === 'cast' ? fmt(e.arg) : e.kind === 'const' ? fmtConst(e.value, e.type) : '?');
  for (const c of conjuncts) {
    if (c.kind === 'compare' && c.op !== '<>') {
      let col = columnOf(c.left, schema);
      let k: Expr = c.right;
      let op: string = c.op;
      if (col === null) {
        col = columnOf(c.right, schema);
        k = c.left;
        op = FLIP[c.op]!;
      }
      const kc = col === null ? null : constantOf(k);
      if (col === null || kc === null) continue;
      const v = statValue(col, kc.value);
      if (v === undefined) continue;
      parts.push({ [col.field.name]: { [OPS[op]!]: v } } as ParquetQueryFilter);
      used.push(`${col.field.name} ${op} ${fmtConst(kc.value, kc.type)}`);
    } else if (c.kind === 'call' && c.name === '~~' && c.args.length === 2) {
      // LIKE 'abc%': the rows it can match lie in ['abc', 'abd'), a range row-group statistics prune by.
      const col = columnOf(c.args[0]!, schema);
      const kc = constantOf(c.args[1]!);
      if (col === null || kc === null || typeof kc.value !== 'string' || (col.field.type.name !== 'text' && col.field.type.name !== 'varchar')) continue;
      const range = likePrefixRange(kc.value);
      if (range === null) continue;
      parts.push({ [col.field.name]: { $gte: range.lo } } as ParquetQueryFilter);
      if (range.hi !== null) parts.push({ [col.field.name]: { $lt: range.hi } } as ParquetQueryFilter);
      used.push(`${col.field.name} >= '${range.lo}'${range.hi === null ? '' : ` AND ${col.field.name} < '${range.hi}'`}`);
    } else if (c.kind === 'in-list' && !c.negated) {
      const col = columnOf(c.arg, schema);
      if (col === null || !c.list.every((x) => x.kind === 'const')) continue;
      const vs = c.list.map((x) => statValue(col, (x as { value: Value }).value));
      if (vs.some((v) => v === undefined)) continue;
      parts.push({ [col.field.name]: { $in: vs } } as ParquetQueryFilter);
      used.push(`${col.field.name} IN (${vs.length} values)`);
    }
  }
  if (parts.length === 0) return { filter: null, used };
  return { filter: parts.length === 1 ? parts[0]! : { $and: parts }, used };
}

// ---- execution -----------------------------------------------------------------------------------

/**
 * hyparquet's AsyncBuffer over one open file handle: each slice is a single positioned read into a
 * fresh ArrayBuffer. (hyparquet's asyncBufferFromFile opens a read stream per slice, whose 64 KiB
 * chunks cost an event-loop turn each: most of a scan's time went to waiting.) The read is
 * synchronous: a slice is one column chunk (a few MB at most from the page cache), and a thread-pool
 * round trip per chunk left the decoder idle for longer than the read itself on a busy machine.
 */
function openFileBuffer(file: string): { buffer: ChunkSource; close(): void } {
  // Opened synchronously too: open, stat and close through the thread pool were three event-loop
  // round trips per file, a large part of a pruned scan that decodes one row group.
  const fd = openSync(file, 'r');
  const st = fstatSync(fd);
  const size = st.size;
  const identity = fileIdentity(file, st);
  const readAt = (view: Uint8Array, start: number): number => {
    let done = 0;
    while (done < view.length) {
      const bytesRead = readSync(fd, view, done, view.length - done, start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done;
  };
  return {
    buffer: {
      byteLength: size,
      identity,
      async slice(start: number, end?: number): Promise<ArrayBuffer> {
        const stop = Math.min(end ?? size, size);
        const ab = new ArrayBuffer(Math.max(0, stop - start));
        readAt(new Uint8Array(ab), start);
        return ab;
      },
      readRange(start: number, end: number): Uint8Array {
        const n = Math.max(0, Math.min(end, size) - start);
        // A fresh buffer per chunk is memory the system maps afresh (slow on virtual machines), and
        // a row group's chunks are read one after another: one buffer serves them all.
        const view = n > RANGE_SCRATCH_MAX ? new Uint8Array(n) : rangeScratch(n);
        return view.subarray(0, readAt(view, start));
      },
    },
    close: () => closeSync(fd),
  };
}

/** Chunks up to this size are read into the shared buffer (which keeps the largest size read). */
const RANGE_SCRATCH_MAX = 16 << 20;
let rangeBuffer = new Uint8Array(0);

function rangeScratch(n: number): Uint8Array {
  if (rangeBuffer.length < n) rangeBuffer = new Uint8Array(Math.max(n, Math.min(RANGE_SCRATCH_MAX, rangeBuffer.length * 2), 1 << 16));
  return rangeBuffer.subarray(0, n);
}

interface ScanSpec {
  readonly files: readonly string[];
  /** Columns of the first file's schema. */
  readonly all: readonly ColumnPlan[];
  /** Output columns (indexes into `all`). */
  readonly columns: readonly number[];
  readonly filter: ParquetQueryFilter | null;
  readonly filterText: readonly string[];
  /** Comparisons checked on decoded filter columns before the other columns are decoded. */
  readonly rowFilters: readonly RowFilter[];
  /** Columns (indexes into `all`) output as presence only: bool, true where the value is not NULL. */
  readonly presence: ReadonlySet<number>;
  readonly totalRows: number;
  /**
   * Rows at the start of the scan (over all files, in order) that are not output: an OFFSET pushed
   * down (withSkip). Whole files and row groups inside it are never read. Only without filters.
   */
  readonly skip: number;
  /**
   * Rows after the skip that the plan reads at most (a LIMIT above, withRowLimit), null: all. Ranges end
   * there, files past it are not opened, and a range that is a small part of its row group decodes the
   * pages holding its rows only. Only without filters.
   */
  readonly take: number | null;
}

/** A range this many times smaller than its row group, or more, is read at its rows (narrowRows). */
const NARROW_SHARE = 8;

/** The row group holding all of [start, end), or -1 when the range crosses groups. */
function groupOf(starts: readonly number[], start: number, end: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= start) lo = mid;
    else hi = mid - 1;
  }
  return end <= starts[lo + 1]! ? lo : -1;
}

// Row loops live outside the scan's async generator, which V8 optimizes late (no on-stack replacement).
function fillRange(sel: Int32Array, from: number, n: number): void {
  for (let i = 0; i < n; i++) sel[i] = from + i;
}

function rebase(sel: Int32Array, n: number, by: number): void {
  for (let i = 0; i < n; i++) sel[i] = sel[i]! - by;
}

function isFlat(d: unknown): d is FlatColumnData {
  return typeof d === 'object' && d !== null && !Array.isArray(d) && !ArrayBuffer.isView(d) && 'values' in d;
}

/** A presence-only column's NULL flags for the range's rows (null: none is NULL). */
interface PresenceData {
  readonly presenceNulls: Uint8Array | null;
}

function isPresence(d: unknown): d is PresenceData {
  return typeof d === 'object' && d !== null && 'presenceNulls' in d;
}

function gatherFlags(src: Uint8Array, sel: Int32Array, count: number): Uint8Array {
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = src[sel[i]!]!;
  return out;
}

/** Rows [from, to) of a presence-only column: true where present, NULL where the value is NULL. */
function presenceColumn(d: unknown, plan: ColumnPlan, from: number, to: number): Column {
  const ones = new Uint8Array(to - from).fill(1);
  if (isPresence(d)) return makeColumn(T.bool, ones, d.presenceNulls === null ? null : d.presenceNulls.subarray(from, to));
  if (isFlat(d)) return makeColumn(T.bool, ones, d.nulls === null ? null : d.nulls.subarray(from, to));
  // Read by the general path (or decoded in full as a row filter's column): its NULLs as they come.
  return makeColumn(T.bool, ones, toColumn(plan, d as ArrayLike<unknown>, from, to).nulls);
}

/**
 * What decoding a row group's projected columns keeps alive, from the footer, before decoding: each row
 * an 8-byte slot per column plus its null flag, and the chunk's uncompressed bytes once and a half (the
 * compressed chunk and a decompressed page are held while the column decodes; text becomes strings).
 */
function groupEstimate(rg: FileMetaData['row_groups'][number], wanted: ReadonlySet<string>, flagsOnly: ReadonlySet<string>): number {
  const rows = Number(rg.num_rows);
  let b = 0;
  for (const c of rg.columns) {
    const md = c.meta_data;
    if (md === undefined || !wanted.has(md.path_in_schema[0]!)) continue;
    // A presence-only column holds its NULL flags and one page at a time (its values are never decoded).
    if (flagsOnly.has(md.path_in_schema[0]!)) b += rows + Number(md.total_compressed_size);
    else b += rows * 9 + Math.ceil(Number(md.total_uncompressed_size) * 1.5);
  }
  return b;
}

/** Bytes one decoded column of the general path holds (typed arrays exactly, plain arrays per value). */
function decodedBytes(d: unknown): number {
  if (ArrayBuffer.isView(d)) return d.byteLength;
  if (!Array.isArray(d)) return 0;
  let b = d.length * 8;
  for (const v of d) if (v !== null && v !== undefined) b += typeof v === 'object' ? 64 : valueBytes(v as Value);
  return b;
}

/**
 * Selection buffers of finished scans, for the next. A row group's selection is half a megabyte, and
 * allocated per query it was most of what a pruned query's garbage collection had to do (buffers
 * outside the heap bring on full collections). Each running scan holds its own: scans interleave.
 */
const selectionPool: Int32Array[] = [];
const SELECTION_POOL_MAX = 4;
const NO_SELECTION = new Int32Array(0);

function takeSelection(n: number): Int32Array {
  for (let i = selectionPool.length - 1; i >= 0; i--) {
    const b = selectionPool[i]!;
    if (b.length >= n) {
      selectionPool.splice(i, 1);
      return b;
    }
  }
  return new Int32Array(n);
}

function giveBackSelection(b: Int32Array): void {
  if (b.length === 0) return;
  if (selectionPool.length >= SELECTION_POOL_MAX) selectionPool.shift();
  selectionPool.push(b);
}

/**
 * Per row group, the compressed bytes of the wanted columns' chunks (what progress counts), by footer
 * and column set: a footer stays cached while its file is unchanged, and the sums over every group's
 * chunks were a visible share of a pruned query's fixed cost.
 */
const groupByteCache = new WeakMap<FileMetaData, Map<string, number[]>>();

/** The key of a column set in groupByteCache: made once per scan, not per file. */
const wantedKey = (wanted: ReadonlySet<string>): string => [...wanted].sort().join('\u0000');

function groupByteSizes(meta: FileMetaData, wanted: ReadonlySet<string>, key = wantedKey(wanted)): number[] {
  let byColumns = groupByteCache.get(meta);
  if (byColumns === undefined) groupByteCache.set(meta, (byColumns = new Map()));
  let sizes = byColumns.get(key);
  if (sizes === undefined) {
    sizes = meta.row_groups.map((rg) => {
      let b = 0;
      for (const c of rg.columns) if (c.meta_data !== undefined && wanted.has(c.meta_data.path_in_schema[0]!)) b += Number(c.meta_data.total_compressed_size);
      return b;
    });
    byColumns.set(key, sizes);
  }
  return sizes;
}

/** Row offsets of each row group's first row, and the file's row count last, by footer. */
const groupStartCache = new WeakMap<FileMetaData, number[]>();

function groupStartsOf(meta: FileMetaData): number[] {
  let starts = groupStartCache.get(meta);
  if (starts === undefined) {
    starts = [];
    let acc = 0;
    for (const rg of meta.row_groups) {
      starts.push(acc);
      acc += Number(rg.num_rows);
    }
    starts.push(acc);
    groupStartCache.set(meta, starts);
  }
  return starts;
}

interface ScanRange {
  readonly rowStart: number;
  readonly rowEnd: number;
}

/**
 * The ranges hyparquet's pruning leaves, by footer and by filter and columns: a query repeated over an
 * unchanged file (its footer stays cached, see readParquetMetadataSync) gets the same ranges, and
 * pruning tested every row group's statistics (and read page indexes and bloom filters) each time.
 */
const scanRangeCache = new WeakMap<FileMetaData, Map<string, readonly ScanRange[]>>();
const SCAN_RANGES_PER_FOOTER = 32;

/** The filter's constants keep their type in the key: 5 and 5n prune differently. */
function scanPlanKey(filter: ParquetQueryFilter | null, columns: readonly string[]): string {
  const f = JSON.stringify(filter, (_k, v: unknown) => (typeof v === 'bigint' ? { bigint: v.toString() } : v));
  return `${JSON.stringify(columns)}|${f}`;
}

function scanRangesOf(meta: FileMetaData, key: string): readonly ScanRange[] | undefined {
  return scanRangeCache.get(meta)?.get(key);
}

function rememberScanRanges(meta: FileMetaData, key: string, ranges: readonly ScanRange[]): void {
  let byKey = scanRangeCache.get(meta);
  if (byKey === undefined) scanRangeCache.set(meta, (byKey = new Map()));
  if (byKey.size >= SCAN_RANGES_PER_FOOTER) byKey.delete(byKey.keys().next().value!);
  byKey.set(key, ranges.map((r) => ({ rowStart: r.rowStart, rowEnd: r.rowEnd })));
}

function canceled(): QuireError {
  return new QuireError('57014', 'canceling statement due to user request');
}

/**
 * One read_parquet scan's state, every field set in the constructor. The scan's async generator only
 * hands out batches; the work per range is in this class's methods. V8 optimizes a function as a
 * whole, and the generator that used to hold all of this (with closures per file and range) was
 * optimized, deoptimized on the next query's differently shaped objects, and optimized again: a
 * function that size cost up to a few hundred ms of compilation per query. Small methods over one
 * object shape compile cheaply and stay optimized.
 */
class ParquetScanState {
  readonly spec: ScanSpec;
  readonly out: ColumnPlan[];
  /** Per output column: output as presence only (bool). */
  readonly presenceOut: boolean[];
  /** Per row filter: the column it reads. */
  readonly filterPlans: ColumnPlan[];
  readonly allFilters: number[];
  /** Presence-only columns no row filter decodes in full. */
  readonly flagsOnly: Set<string>;
  /** The output columns and the row filters' columns, which are read whether or not they are output. */
  readonly wanted: Set<string>;
  readonly scanColumns: string[];
  /** groupByteSizes' key for `wanted`, and scanPlanKey's for the scan: the same for every file. */
  readonly wantedKey: string;
  readonly planKey: string;
  /**
   * Decoded row groups are held until their last batch is handed on: they reserve from the statement's
   * pool before decoding, so memory_limit refuses (53200) a row group too large for it.
   */
  readonly reservation: MemoryReservation | null;
  readonly metas: FileMetaData[];
  readonly progress: ProgressHandle;
  readonly signal: AbortSignal | null;
  /** Set by the signal's listener: the range loop reads a boolean, not the signal. */
  cancelled: boolean;
  readonly onAbort: () => void;

  // ---- the file being read ----
  file: string;
  metadata: FileMetaData;
  opened: { buffer: ChunkSource; close(): void } | null;
  /** hyparquet's scan of the file, once opened (see openScan). */
  scan: Promise<ParquetScan> | null;
  /** The file's row ranges left after pruning, in order. */
  ranges: readonly ScanRange[];
  /**
   * Decoded flat column chunks by row group and column: a group split into several ranges by the page
   * index is decoded once; the next group's chunks are started when this one is handed out.
   */
  readonly groupCache: Map<number, Map<string, Promise<FlatColumnData>>>;
  /** Bytes reserved per held row group. */
  readonly groupHeld: Map<number, number>;
  /** Per row group, the row filters its statistics leave undecided (the others pass every row there). */
  readonly undecided: Map<number, number[]>;
  groupStarts: number[];
  groupSizes: number[];
  fileRows: number;
  fileBytes: number;
  reported: number;
  rangeIndex: number;
  /** Bytes of the current range's columns read by hyparquet's general path (measured once decoded). */
  generalHeld: number;
  /**
   * One selection buffer per scan, taken from the pool on first need and given back when the scan
   * ends: a range's rows are gathered from it before the next range.
   */
  selBuffer: Int32Array;

  // ---- the range being read ----
  rangeStart: number;
  rangeEnd: number;
  /** Its row group, or -1 when it crosses groups. */
  group: number;
  /** The range is its whole row group. */
  wholeGroup: boolean;
  rangeRows: number;
  /** Rows passing the row filters (offsets from the range's start), or null when all pass. */
  picked: Int32Array | null;
  selected: number;
  /**
   * The current range's rows (offsets from its row group's start), when it is a small part of the group
   * and no filter runs: every column is read at these rows only, as at a filter's selection.
   */
  narrowRows: Int32Array | null;
  /** Rows of spec.take not yet in a range (null: no limit). */
  takeLeft: number | null;
  activePlans: ColumnPlan[];
  /** Per output column: its data for the rows to output. */
  readonly data: unknown[];
  /** Per output column: read at the selected rows only, so already gathered. */
  readonly gathered: boolean[];
  /** Rows to output from the range. */
  rows: number;
  /** Arrays the row groups' values are decoded into, when the consumer drops each batch before the next. */
  readonly values: ParquetValuePool | null;
  /** The pool's number of the open file's row group 0: group g is groupBase + g (unique over the scan's files). */
  groupBase: number;
  nextGroupBase: number;
  /** Filled by the current range's filter column as its pages are filtered (see FilterLevels). */
  readonly filterLevels: FilterLevels;
  /** filterLevels when the current range's selection was made by that column, else null. */
  sharedLevels: FilterLevels | null;
  /** Rows of spec.skip not yet passed over. */
  skipLeft: number;
  /** The current range's text column whose passing values its filters kept (keptTextChunk), at the selected rows. */
  keptText: { column: string; data: FlatColumnData } | null;

  constructor(spec: ScanSpec, signal: AbortSignal | null, exec: ExecContext | undefined, dropsBatches: boolean) {
    this.spec = spec;
    this.values = dropsBatches ? new ParquetValuePool() : null;
    this.filterLevels = new FilterLevels();
    this.sharedLevels = null;
    this.skipLeft = spec.skip;
    this.takeLeft = spec.take;
    this.narrowRows = null;
    this.keptText = null;
    this.groupBase = 0;
    this.nextGroupBase = 0;
    this.out = spec.columns.map((i) => spec.all[i]!);
    this.presenceOut = spec.columns.map((i) => spec.presence.has(i));
    this.filterPlans = spec.rowFilters.map((f) => spec.all.find((c) => c.field.name === f.column)!);
    this.allFilters = this.filterPlans.map((_, fi) => fi);
    this.flagsOnly = new Set(this.out.filter((c, k) => this.presenceOut[k]! && !this.filterPlans.includes(c)).map((c) => c.field.name));
    const outNames = this.out.length > 0 ? this.out.map((c) => c.field.name) : [spec.all[0]!.field.name];
    this.wanted = new Set([...outNames, ...spec.rowFilters.map((f) => f.column)]);
    // The filter columns too: one the flat decoder cannot read is filtered through hyparquet's scan.
    this.scanColumns = [...new Set([...outNames, ...this.filterPlans.map((c) => c.field.name)])];
    this.wantedKey = wantedKey(this.wanted);
    this.planKey = scanPlanKey(spec.filter, this.scanColumns);
    // Footers before the reservation: a file unreadable since binding fails here, with nothing to free.
    this.metas = spec.files.map((f) => readParquetMetadataSync(f));
    this.reservation = exec === undefined ? null : queryMemory(exec).pool.register('read_parquet', false);
    // Progress counts the compressed bytes of the projected column chunks; pruned row groups leave the total.
    let totalBytes = 0;
    for (const m of this.metas) for (const b of groupByteSizes(m, this.wanted, this.wantedKey)) totalBytes += b;
    this.progress = reportProgress('read_parquet', totalBytes, 'bytes');
    this.signal = signal;
    this.cancelled = signal !== null && signal.aborted;
    this.onAbort = () => {
      this.cancelled = true;
    };
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.file = spec.files[0]!;
    this.metadata = this.metas[0]!;
    this.opened = null;
    this.scan = null;
    this.ranges = [];
    this.groupCache = new Map();
    this.groupHeld = new Map();
    this.undecided = new Map();
    this.groupStarts = [];
    this.groupSizes = [];
    this.fileRows = 0;
    this.fileBytes = 0;
    this.reported = 0;
    this.rangeIndex = 0;
    this.generalHeld = 0;
    this.selBuffer = NO_SELECTION;
    this.rangeStart = 0;
    this.rangeEnd = 0;
    this.group = -1;
    this.wholeGroup = false;
    this.rangeRows = 0;
    this.picked = null;
    this.selected = 0;
    this.activePlans = [];
    this.data = this.out.map(() => null);
    this.gathered = this.out.map(() => false);
    this.rows = 0;
  }

  async openFile(fi: number): Promise<void> {
    const file = this.spec.files[fi]!;
    this.file = file;
    const metadata = this.metas[fi]!;
    this.metadata = metadata;
    try {
      this.opened = openFileBuffer(file);
    } catch (e) {
      throw fileOpenError(file, e);
    }
    const zstd = prepareZstd(metadata);
    if (zstd !== null) await zstd;
    const names = columnNames(metadata);
    for (const c of this.out) {
      if (!names.has(c.field.name)) throw new QuireError('42703', `column "${c.field.name}" does not exist in Parquet file "${file}"`);
    }
    this.groupBase = this.nextGroupBase;
    this.nextGroupBase += metadata.row_groups.length + 1;
    const starts = groupStartsOf(metadata);
    this.groupStarts = starts;
    this.fileRows = starts[starts.length - 1]!;
    this.groupSizes = groupByteSizes(metadata, this.wanted, this.wantedKey);
    this.fileBytes = this.groupSizes.reduce((a, b) => a + b, 0);
    this.reported = 0;
    this.rangeIndex = 0;
    this.scan = null;
    const planKey = this.planKey;
    const known = scanRangesOf(metadata, planKey);
    if (known !== undefined) this.ranges = known;
    else {
      const scan = await this.openScan();
      this.ranges = scan.ranges;
      rememberScanRanges(metadata, planKey, scan.ranges);
    }
    if (this.skipLeft > 0) this.ranges = this.skipRows(this.ranges);
    if (this.takeLeft !== null) this.ranges = this.takeRows(this.ranges);
  }

  /** Whether the rows the plan reads are all in ranges already: the files after need not be opened. */
  taken(): boolean {
    return this.takeLeft !== null && this.takeLeft <= 0;
  }

  /** The ranges cut to the rows still to take (only unfiltered scans take: every range row is output). */
  takeRows(ranges: readonly ScanRange[]): ScanRange[] {
    const kept: ScanRange[] = [];
    for (const r of ranges) {
      const left = this.takeLeft!;
      if (left <= 0) break;
      const n = r.rowEnd - r.rowStart;
      kept.push(n <= left ? r : { rowStart: r.rowStart, rowEnd: r.rowStart + left });
      this.takeLeft = left - Math.min(n, left);
    }
    return kept;
  }

  /**
   * Whether file fi lies wholly inside the rows still to skip: then it is passed over unopened (its
   * footer, read when the scan began, gives its row count).
   */
  skipsFile(fi: number): boolean {
    const rows = Number(this.metas[fi]!.num_rows);
    if (this.skipLeft < rows) return false;
    this.skipLeft -= rows;
    let bytes = 0;
    for (const b of groupByteSizes(this.metas[fi]!, this.wanted, this.wantedKey)) bytes += b;
    this.progress.skip(bytes);
    return true;
  }

  /** The ranges left once the rows still to skip are taken off their front (only unfiltered scans skip). */
  skipRows(ranges: readonly ScanRange[]): ScanRange[] {
    const kept: ScanRange[] = [];
    for (const r of ranges) {
      const n = r.rowEnd - r.rowStart;
      if (this.skipLeft >= n) {
        this.skipLeft -= n;
        this.advance(Math.round((this.fileBytes * n) / Math.max(1, this.fileRows)));
        continue;
      }
      kept.push(this.skipLeft > 0 ? { rowStart: r.rowStart + this.skipLeft, rowEnd: r.rowEnd } : r);
      this.skipLeft = 0;
    }
    return kept;
  }

  /**
   * hyparquet's scan of the open file: it prunes row groups (and pages, through the page index) by the
   * filter, and reads the columns the flat decoder cannot. Opened on the file's first visit for its
   * ranges, later only when a column needs the general path.
   */
  openScan(): Promise<ParquetScan> {
    this.scan ??= hyparquet().parquetScan({
      file: this.opened!.buffer,
      metadata: rawDecimalFooter(this.metadata).meta,
      columns: this.scanColumns,
      parsers: QUIRE_PARQUET_PARSERS,
      compressors: PARQUET_DECOMPRESSORS,
      ...(this.spec.filter !== null ? { pruningFilter: this.spec.filter } : {}),
    });
    return this.scan;
  }

  /** Gives back what the file's row groups and general-path columns hold, and closes it. */
  closeFile(): void {
    for (const g of [...this.groupHeld.keys()]) this.releaseGroup(g);
    this.groupCache.clear();
    this.undecided.clear();
    if (this.reservation !== null) this.reservation.shrink(this.generalHeld);
    this.generalHeld = 0;
    this.data.fill(null);
    this.scan = null;
    this.ranges = [];
    const opened = this.opened;
    this.opened = null;
    opened?.close();
  }

  /** The file's ranges all read: pruned row groups leave the progress total. */
  fileDone(): void {
    this.progress.skip(this.fileBytes - this.reported);
  }

  finish(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.values?.finish();
    giveBackSelection(this.selBuffer);
    this.selBuffer = NO_SELECTION;
    if (this.reservation !== null) this.reservation.free();
    this.progress.done();
  }

  filtersOf(g: number): number[] {
    if (g < 0) return this.allFilters;
    let list = this.undecided.get(g);
    if (list === undefined) {
      const metadata = this.metadata;
      const rg = metadata.row_groups[g]!;
      list = [];
      for (const fi of this.allFilters) {
        const f = this.spec.rowFilters[fi]!;
        const name = f.column;
        const chunk = rg.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === name);
        const element = metadata.schema.find((e) => e.name === name && e.num_children === undefined);
        if (chunk === undefined || element === undefined || !passesByStatistics(f, element, chunk.meta_data!.statistics)) list.push(fi);
      }
      this.undecided.set(g, list);
    }
    return list;
  }

  /** Reserves group g's estimate once; a prefetch that does not fit is skipped, a needed group raises 53200. */
  holdGroup(g: number, needed: boolean): boolean {
    const reservation = this.reservation;
    if (reservation === null || this.groupHeld.has(g)) return true;
    const bytes = groupEstimate(this.metadata.row_groups[g]!, this.wanted, this.flagsOnly);
    if (needed) reservation.grow(bytes, `row group ${g} of Parquet file "${this.file}"`);
    else if (!reservation.tryGrow(bytes)) return false;
    this.groupHeld.set(g, bytes);
    return true;
  }

  releaseGroup(g: number): void {
    this.groupCache.delete(g);
    const b = this.groupHeld.get(g);
    if (b !== undefined && this.reservation !== null) this.reservation.shrink(b);
    this.groupHeld.delete(g);
  }

  /** Groups before g, whether or not a column of theirs was cached (a filter-only column is not). */
  releaseBefore(g: number): void {
    for (const k of this.groupCache.keys()) if (k < g) this.releaseGroup(k);
    for (const k of this.groupHeld.keys()) if (k < g) this.releaseGroup(k);
  }

  flatChunk(g: number, c: ColumnPlan): Promise<FlatColumnData> | null {
    let cols = this.groupCache.get(g);
    if (cols === undefined) this.groupCache.set(g, (cols = new Map()));
    let p = cols.get(c.field.name);
    if (p === undefined) {
      const rg = this.metadata.row_groups[g]!;
      const flat = !c.nested && FLAT_FAST_TYPES.has(c.field.type.name) ? flatColumnChunk(this.metadata, rg, c.field.name, c.field.type.name) : null;
      if (flat === null) return null;
      p = readFlatColumn(this.opened!.buffer, rg, flat, undefined, 0, this.values, this.groupBase + g);
      // A prefetch may never be awaited (a LIMIT stops the scan): its failure must not go unhandled.
      p.catch(ignore);
      cols.set(c.field.name, p);
    }
    return p;
  }

  /** hyparquet's general path for column c over the current range. */
  async generalColumn(c: ColumnPlan): Promise<unknown> {
    const scan = await this.openScan();
    const data = await scan.readColumn({ column: c.field.name, rowStart: this.rangeStart, rowEnd: this.rangeEnd });
    const scale = rawDecimalFooter(this.metadata).scales.get(c.field.name);
    return scale === undefined ? data : exactDecimals(data, scale);
  }

  /** Reads the next range with rows to output (into `data` and `rows`); false when the file has no more. */
  async nextRange(): Promise<boolean> {
    const ranges = this.ranges;
    while (this.rangeIndex < ranges.length) {
      if (this.cancelled) throw canceled();
      const r = ranges[this.rangeIndex++]!;
      if (r.rowEnd === r.rowStart) continue;
      if (await this.readRange(r.rowStart, r.rowEnd)) return true;
    }
    return false;
  }

  /** Reads rows [start, end): false when the row filters pass none of them. */
  async readRange(start: number, end: number): Promise<boolean> {
    const n = end - start;
    const starts = this.groupStarts;
    // Columns of one range are decoded together; each is sliced into batches without copying.
    // Flat numeric columns of a range inside one row group take the typed-array path.
    const g = groupOf(starts, start, end);
    this.releaseBefore(g);
    // Every batch of the ranges before was handed on and dropped: only this group's arrays (decoded
    // ahead while the last range was handed out) are in use. A range across groups frees nothing.
    if (g >= 0) this.values?.releaseExcept(this.groupBase + g);
    if (g >= 0) this.holdGroup(g, true);
    this.rangeStart = start;
    this.rangeEnd = end;
    this.rangeRows = n;
    this.group = g;
    // A range that is its whole row group decodes each column once: columns not read by the filter
    // then skip the pages holding none of the surviving rows (uncached, as those pages stay undecoded).
    this.wholeGroup = g >= 0 && start === starts[g]! && end === starts[g + 1]!;
    const active = this.filtersOf(g);
    const activePlans: ColumnPlan[] = [];
    for (const fi of active) activePlans.push(this.filterPlans[fi]!);
    this.activePlans = activePlans;
    let sel: Int32Array | null = null;
    let selected = n;
    this.sharedLevels = null;
    this.keptText = null;
    if (active.length > 0) {
      // Offsets in `sel` count from the row group's start until rebased to the range's.
      const at = g >= 0 ? start - starts[g]! : 0;
      if (this.selBuffer.length < n) this.selBuffer = takeSelection(n);
      sel = this.selBuffer;
      selected = await this.narrow(active, at, n);
      if (selected === 0) {
        const skipped = g >= 0 ? Math.round((this.groupSizes[g]! * n) / Math.max(1, starts[g + 1]! - starts[g]!)) : Math.round((this.fileBytes * n) / Math.max(1, this.fileRows));
        this.advance(skipped);
        return false;
      }
      if (at !== 0) rebase(sel, selected, at);
      // Every row passes: the columns go on as they are.
      if (selected === n) sel = null;
    }
    this.picked = sel;
    this.selected = selected;
    this.narrowRows = null;
    if (active.length === 0 && g >= 0 && !this.wholeGroup && n * NARROW_SHARE <= starts[g + 1]! - starts[g]!) {
      const rows = new Int32Array(n);
      fillRange(rows, start - starts[g]!, n);
      this.narrowRows = rows;
    }
    const out = this.out;
    const gathered = this.gathered;
    gathered.fill(false);
    const reads: Promise<unknown>[] = [];
    for (let k = 0; k < out.length; k++) reads.push(this.readOutput(k));
    const data0 = await Promise.all(reads);
    const data = this.data;
    for (let k = 0; k < out.length; k++) {
      const d = data0[k];
      if (sel === null || gathered[k]!) data[k] = d;
      else if (isPresence(d)) data[k] = { presenceNulls: d.presenceNulls === null ? null : gatherFlags(d.presenceNulls, sel, selected) };
      else if (isFlat(d)) data[k] = this.ownsWhole(k, d) ? compactFlat(d, sel, selected) : gatherFlat(d, sel, selected);
      else data[k] = gatherGeneral(d as ArrayLike<unknown>, sel, selected);
    }
    this.rows = sel === null ? n : selected;
    const reservation = this.reservation;
    if (reservation !== null) {
      // Columns read by hyparquet's general path are measured once decoded.
      let general = 0;
      for (const d of data) if (!isFlat(d) && !isPresence(d)) general += decodedBytes(d);
      if (general > this.generalHeld) reservation.grow(general - this.generalHeld, `columns of Parquet file "${this.file}"`);
      else reservation.shrink(this.generalHeld - general);
      this.generalHeld = general;
    }
    this.prefetchAfter(g);
    return true;
  }

  /**
   * Late materialization: the filter columns first; the rest only when some rows pass. Every row goes
   * through every row filter (the Filter above no longer checks their conjuncts): from the flat
   * decoder's column, or, where it cannot read one, from the column as the scan outputs it. Leaves
   * the passing rows (offsets from the row group's start) in selBuffer; returns their count.
   */
  async narrow(active: readonly number[], at: number, n: number): Promise<number> {
    const g = this.group;
    const sel = this.selBuffer;
    const rowFilters = this.spec.rowFilters;
    let selected = n;
    // An output text column that every filter tests, its pages all PLAIN: the filters keep the passing
    // values as they test them (the column is never decoded whole, nor copied but for those values).
    const keeping = this.wholeGroup ? this.keptTextChunk(g, active) : null;
    if (keeping !== null) {
      const rg = this.metadata.row_groups[g]!;
      const kept = new PlainText(0, 1 << 12, 1 << 8);
      let k = -1;
      try {
        k = await readFilterColumn(this.opened!.buffer, rg, keeping, active.map((fi) => rowFilters[fi]!), sel, this.filterLevels, kept);
      } catch (e) {
        if (!(e instanceof FlatFallback)) throw e;
      }
      if (k >= 0) {
        this.sharedLevels = this.filterLevels;
        const values = this.values === null ? new Int32Array(k) : (this.values.take(true, k, k, this.groupBase + g) as Int32Array);
        this.keptText = { column: this.filterPlans[active[0]!]!.field.name, data: keptTextColumn(kept, values) };
        return k;
      }
    }
    // The first filter reads the range's rows directly; until then `sel` holds nothing.
    let narrowed = false;
    const done: boolean[] = [];
    for (let ai = 0; ai < active.length && (selected > 0 || !narrowed); ai++) {
      const fi = active[ai]!;
      if (done[fi] === true) continue;
      const plan = this.filterPlans[fi]!;
      const f = rowFilters[fi]!;
      // A column only the filters read, over a whole row group: all its filters are checked as its
      // pages are decoded, its values never stored (nor its dictionary looked up: see readFilterColumn).
      if (!narrowed && this.wholeGroup && !this.out.includes(plan) && !this.groupCache.get(g)?.has(plan.field.name) && !plan.nested && FLAT_FAST_TYPES.has(plan.field.type.name)) {
        const rg = this.metadata.row_groups[g]!;
        const fc = flatColumnChunk(this.metadata, rg, plan.field.name, plan.field.type.name);
        const same: number[] = [];
        const sameFilters: RowFilter[] = [];
        for (const fj of active) {
          if (rowFilters[fj]!.column !== f.column) continue;
          same.push(fj);
          sameFilters.push(rowFilters[fj]!);
        }
        if (fc !== null && filterableChunk(fc, sameFilters)) {
          let k: number;
          try {
            k = await readFilterColumn(this.opened!.buffer, rg, fc, sameFilters, sel, this.filterLevels);
          } catch (e) {
            if (!(e instanceof FlatFallback)) throw e;
            k = -1;
          }
          if (k >= 0) {
            selected = k;
            narrowed = true;
            // Rows later filters keep are among these: present in this column.
            this.sharedLevels = this.filterLevels;
            for (const fj of same) done[fj] = true;
            continue;
          }
        }
      }
      const whole = g >= 0 ? this.flatChunk(g, plan) : null;
      let d: FlatColumnData | null = null;
      if (whole !== null) {
        try {
          d = await whole;
        } catch (e) {
          if (!(e instanceof FlatFallback)) throw e;
        }
      }
      if (d !== null) {
        selected = narrowed ? narrowSelection(f, d, sel, selected) : narrowRange(f, d, at, n, sel);
      } else {
        const col = toColumn(plan, (await this.generalColumn(plan)) as ArrayLike<unknown>, 0, n);
        if (!narrowed) fillRange(sel, at, n);
        selected = narrowColumn(f, col.data as ArrayLike<unknown>, col.nulls, at, sel, narrowed ? selected : n);
      }
      narrowed = true;
    }
    return selected;
  }

  /**
   * The chunk of row group g whose filters can keep its passing values (narrow): every filter of
   * `active` tests it, the query outputs it, it is flat text of PLAIN pages only, and no decoded copy
   * of it is cached (a range of the group read before, or a prefetch); else null.
   */
  keptTextChunk(g: number, active: readonly number[]): FlatChunk | null {
    if (g < 0 || active.length === 0) return null;
    const plan = this.filterPlans[active[0]!]!;
    if (plan.nested || plan.field.type.name !== 'text' || !this.out.includes(plan) || this.groupCache.get(g)?.has(plan.field.name) === true) return null;
    if (!active.every((fi) => this.filterPlans[fi] === plan)) return null;
    const fc = flatColumnChunk(this.metadata, this.metadata.row_groups[g]!, plan.field.name, plan.field.type.name);
    return fc !== null && keepsPassingText(fc) && filterableChunk(fc, active.map((fi) => this.spec.rowFilters[fi]!)) ? fc : null;
  }

  /** Output column k over the current range (at the selected rows only, where it can). */
  async readOutput(k: number): Promise<unknown> {
    const c = this.out[k]!;
    if (this.keptText !== null && this.keptText.column === c.field.name) {
      this.gathered[k] = true;
      return this.keptText.data;
    }
    const g = this.group;
    const n = this.rangeRows;
    const picked = this.picked;
    const selected = this.selected;
    const filtered = this.activePlans.includes(c);
    const at = g >= 0 ? this.rangeStart - this.groupStarts[g]! : 0;
    // Rows to read the column at: a filter's selection over its whole group, or a small range's rows
    // (unless the group's chunk is decoded already, as an earlier range of the group left it).
    const rowsAt = picked !== null && this.wholeGroup ? picked : this.narrowRows !== null && !this.groupCache.get(g)?.has(c.field.name) ? this.narrowRows : null;
    if (this.presenceOut[k]! && g >= 0 && !filtered) {
      const rg = this.metadata.row_groups[g]!;
      const pc = presenceChunk(this.metadata, rg, c.field.name);
      if (pc !== null) {
        const sparse = rowsAt !== null;
        let nulls: Uint8Array | null;
        try {
          nulls = await readFlatNulls(this.opened!.buffer, rg, pc, rowsAt ?? undefined, selected, rowsAt !== null && rowsAt === picked ? this.sharedLevels : null);
        } catch (e) {
          if (e instanceof FlatFallback) return this.generalColumn(c);
          throw e;
        }
        if (sparse) this.gathered[k] = true;
        const d: PresenceData = { presenceNulls: nulls === null || sparse || (at === 0 && nulls.length === n) ? nulls : nulls.subarray(at, at + n) };
        return d;
      }
    }
    let whole: Promise<FlatColumnData> | null = null;
    let sparse = false;
    if (rowsAt !== null && !filtered && !this.groupCache.get(g)?.has(c.field.name)) {
      const rg = this.metadata.row_groups[g]!;
      const flat = !c.nested && FLAT_FAST_TYPES.has(c.field.type.name) ? flatColumnChunk(this.metadata, rg, c.field.name, c.field.type.name) : null;
      if (flat !== null) {
        whole = readFlatColumn(this.opened!.buffer, rg, flat, rowsAt, selected, this.values, this.groupBase + g, rowsAt === picked ? this.sharedLevels : null);
        sparse = true;
      }
    } else if (g >= 0) whole = this.flatChunk(g, c);
    if (whole === null) return this.generalColumn(c);
    let d: FlatColumnData;
    try {
      d = await whole;
    } catch (e) {
      // An encoding the fast path does not decode, or a value its storage cannot hold: the general path.
      if (e instanceof FlatFallback) return this.generalColumn(c);
      throw e;
    }
    if (sparse) {
      this.gathered[k] = true;
      return d;
    }
    if (at === 0 && n === d.values.length) return d;
    const part: FlatColumnData = { values: d.values.subarray(at, at + n), objects: d.objects, nulls: d.nulls === null ? null : d.nulls.subarray(at, at + n), dictionary: d.dictionary, decimalScale: d.decimalScale, plain: d.plain };
    return part;
  }

  /**
   * Whether output column k's data d, a number column decoded for the current range only, may be
   * gathered in place: the range is its whole row group (no other range reads the group's decoded
   * chunk), no other output position shares the column, and d is the chunk's arrays themselves.
   */
  ownsWhole(k: number, d: FlatColumnData): boolean {
    if (!this.wholeGroup || d.objects !== null || d.dictionary !== null || d.values.length !== this.rangeRows) return false;
    const c = this.out[k]!;
    return this.out.indexOf(c) === k && this.out.lastIndexOf(c) === k;
  }

  /** Starts decoding the next range's row group, when it is a new one and its estimate fits. */
  prefetchAfter(g: number): void {
    const ranges = this.ranges;
    const next = ranges[this.rangeIndex];
    const ng = next === undefined ? -1 : groupOf(this.groupStarts, next.rowStart, next.rowEnd);
    if (ng <= g || !this.holdGroup(ng, false)) return;
    const nextFilters = this.filtersOf(ng);
    if (nextFilters.length > 0) {
      // Columns only the filters read are left to readFilterColumn when the group comes, as are
      // output text columns whose filters keep their passing values.
      const keeping = next!.rowStart === this.groupStarts[ng] && next!.rowEnd === this.groupStarts[ng + 1] ? this.keptTextChunk(ng, nextFilters) : null;
      for (const fi of nextFilters) {
        const c = this.filterPlans[fi]!;
        if (this.out.includes(c) && keeping === null) this.flatChunk(ng, c);
      }
    } else {
      for (let k = 0; k < this.out.length; k++) if (!this.presenceOut[k]!) this.flatChunk(ng, this.out[k]!);
    }
  }

  /** Rows [from, to) of the current range's output as a batch. */
  batch(from: number, to: number): Batch {
    const out = this.out;
    const columns: Column[] = [];
    for (let k = 0; k < out.length; k++) {
      const c = out[k]!;
      const d = this.data[k];
      if (this.presenceOut[k]!) columns.push(presenceColumn(d, c, from, to));
      else if (isFlat(d)) columns.push(flatBatchColumn(d, c, from, to));
      else columns.push(toColumn(c, d as ArrayLike<unknown>, from, to));
    }
    return { columns, length: to - from };
  }

  /** The current range handed out: its share of its row group's bytes (across groups: the file's average). */
  rangeDone(): void {
    const g = this.group;
    const starts = this.groupStarts;
    const share = g >= 0 ? (this.groupSizes[g]! * this.rangeRows) / Math.max(1, starts[g + 1]! - starts[g]!) : (this.fileBytes * this.rangeRows) / Math.max(1, this.fileRows);
    this.advance(Math.round(share));
  }

  advance(bytes: number): void {
    const step = Math.min(this.fileBytes - this.reported, bytes);
    this.progress.advance(step);
    this.reported += step;
  }
}

function ignore(): void {}

function flatBatchColumn(d: FlatColumnData, c: ColumnPlan, from: number, to: number): Column {
  const nulls = d.nulls === null ? null : d.nulls.subarray(from, to);
  const codes = dictCodes(d, from, to);
  // Text whose rows are all dictionary entries goes as codes: its strings are built only if read.
  if (codes !== null) return codedTextColumn(c.field.type, codes, nulls);
  if (d.decimalScale >= 0) return scaledNumericColumn(c.field.type, d.values.subarray(from, to) as Float64Array, d.decimalScale, nulls);
  return makeColumn(c.field.type, d.objects !== null ? materializeObjects(d, from, to) : d.values.subarray(from, to), nulls, null);
}

function scanError(file: string, e: unknown): QuireError {
  if (e instanceof QuireError) return e;
  if (e instanceof UnsupportedCodec) {
    return new QuireError('0A000', `Parquet file "${file}" uses compression codec ${e.codec}, which is not supported`, {
      hint: 'Rewrite the file with SNAPPY, ZSTD, GZIP, BROTLI or LZ4_RAW compression, or uncompressed.',
    });
  }
  return new QuireError('XX001', `could not read Parquet file "${file}": ${(e as Error).message}`);
}

async function* scanParquet(spec: ScanSpec, signal: AbortSignal | undefined, exec: ExecContext | undefined, dropsBatches: boolean): AsyncGenerator<Batch> {
  const st = new ParquetScanState(spec, signal ?? null, exec, dropsBatches);
  try {
    for (let fi = 0; fi < spec.files.length && !st.taken(); fi++) {
      if (st.skipLeft > 0 && st.skipsFile(fi)) continue;
      try {
        await st.openFile(fi);
        while (await st.nextRange()) {
          const rows = st.rows;
          for (let s = 0; s < rows; s += BATCH_SIZE) yield st.batch(s, Math.min(rows, s + BATCH_SIZE));
          st.rangeDone();
        }
        st.fileDone();
      } finally {
        st.closeFile();
      }
    }
  } catch (e) {
    throw scanError(st.file, e);
  } finally {
    st.finish();
  }
}

function makeBinding(spec: ScanSpec): TableFunctionBinding {
  return {
    exactConjuncts: spec.rowFilters.map((f) => f.conjunct),
    schema: spec.columns.map((i) => (spec.presence.has(i) ? { name: spec.all[i]!.field.name, type: T.bool } : { ...spec.all[i]!.field })),
    argTypes: [T.text],
    estimatedRows: spec.totalRows,
    execute: (_args, _ctx, signal, exec, dropsBatches) => scanParquet(spec, signal, exec, dropsBatches === true),
    withProjection: (cols) => makeBinding({ ...spec, columns: cols.map((c) => spec.columns[c]!) }),
    withPresence: (cols) => {
      const add = cols.map((c) => spec.columns[c]!).filter((i) => !spec.presence.has(i));
      if (add.length === 0) return null;
      return makeBinding({ ...spec, presence: new Set([...spec.presence, ...add]) });
    },
    withFilter: (conjuncts, setting) => {
      // Conjuncts over a presence column would compare its bool, not the file's values; skipped rows
      // are counted before any filter.
      if (spec.filter !== null || spec.rowFilters.length > 0 || spec.presence.size > 0 || spec.skip > 0 || spec.take !== null) return null;
      // Conjunct column indexes address the current output schema.
      const visible = spec.columns.map((i) => spec.all[i]!);
      const f = parquetPruningFilter(conjuncts, visible);
      const text = setting?.(TEXT_FILTERS_SETTING) !== 'off';
      const rowFilters = parquetRowFilters(conjuncts, visible.map((c) => ({ name: c.field.name, type: c.nested ? 'nested' : c.field.type.name })), text);
      if (f.filter === null && rowFilters.length === 0) return null;
      return makeBinding({ ...spec, filter: f.filter, filterText: f.used, rowFilters });
    },
    withSkip: (rows) => {
      if (spec.filter !== null || spec.rowFilters.length > 0 || spec.take !== null) return null;
      return makeBinding({ ...spec, skip: spec.skip + rows });
    },
    withRowLimit: (rows) => {
      if (spec.filter !== null || spec.rowFilters.length > 0 || (spec.take !== null && spec.take <= rows)) return null;
      return makeBinding({ ...spec, take: rows });
    },
    describe: () => {
      const parts: string[] = [];
      if (spec.columns.length < spec.all.length) parts.push(`columns: [${spec.columns.map((i) => spec.all[i]!.field.name).join(', ')}]`);
      if (spec.filterText.length > 0) parts.push(`row group filter: ${spec.filterText.join(' AND ')}`);
      if (spec.rowFilters.length > 0) parts.push(`decoded first: ${spec.rowFilters.map((f) => f.text).join(' AND ')}`);
      if (spec.presence.size > 0) parts.push(`NULLs only: [${spec.columns.filter((i) => spec.presence.has(i)).map((i) => spec.all[i]!.field.name).join(', ')}]`);
      if (spec.files.length > 1) parts.push(`files: ${spec.files.length}`);
      if (spec.skip > 0) parts.push(`skip: ${spec.skip} rows`);
      if (spec.take !== null) parts.push(`reads at most: ${spec.take} rows`);
      return parts.join(', ');
    },
  };
}

export const readParquet: TableFunction = {
  name: 'read_parquet',
  bind(argTypes: readonly DataType[], constArgs: readonly (Value | undefined)[], ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding {
    if (argTypes.length !== 1) {
      throw new QuireError('42883', `function read_parquet(${argTypes.map((t) => t.name).join(', ')}) does not exist`, {
        hint: 'read_parquet takes one argument: the file path or glob.',
      });
    }
    for (const k of namedArgs.keys()) throw new QuireError('22023', `unrecognized read_parquet option "${k}"`);
    const p = constArgs[0];
    if (typeof p !== 'string') throw new QuireError('22023', 'read_parquet path must be a constant string');
    const files = filesToRead(p, ctx.files);
    const meta = readParquetMetadataSync(files[0]!);
    const all = parquetColumns(meta);
    if (all.length === 0) throw new QuireError('22P04', `Parquet file "${files[0]}" has no columns`);
    let totalRows = Number(meta.num_rows);
    for (const f of files.slice(1)) totalRows += Number(readParquetMetadataSync(f).num_rows);
    return makeBinding({ files, all, columns: all.map((_, i) => i), filter: null, filterText: [], rowFilters: [], presence: new Set(), totalRows, skip: 0, take: null });
  },
};
