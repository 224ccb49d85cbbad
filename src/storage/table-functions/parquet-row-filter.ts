/**
 * Late materialization for read_parquet: comparisons of a numeric column with a constant, checked on
 * the decoded filter columns of a row group before its other columns are decoded. A range where no
 * row passes is skipped without decoding the rest; the others hand on only the rows that pass.
 *
 * The comparisons are exact, as PostgreSQL evaluates them (NULL never passes; NaN equals only NaN and
 * orders above every number, and the constant is never NaN), and every row of the scan goes through
 * them (a column the flat decoder cannot read is compared as the scan outputs it), so the conjuncts
 * they come from leave the Filter above the scan.
 */
import type { Expr } from '../../logical/expr.js';
import { castValue } from '../../common/cast.js';
import type { DataType, Value } from '../../common/types.js';
import type { SchemaElement, Statistics } from 'hyparquet';
import type { FlatColumnData } from './parquet-flat-column.js';

/** Quire types whose decoded flat values are plain numbers in the order of their SQL values. */
const NUMBER_TYPES = new Set(['int2', 'int4', 'int8', 'float8', 'date', 'timestamp', 'timestamptz']);
/** Casts that keep every value of the column exactly (so comparing the raw value is the same). */
const EXACT_WIDENING: Record<string, readonly string[]> = {
  int2: ['int4', 'int8', 'float8'],
  int4: ['int8', 'float8'],
  date: [],
  int8: [],
  float8: [],
  timestamp: [],
  timestamptz: [],
};

type Op = '=' | '<>' | '<' | '<=' | '>' | '>=';
const FLIP: Record<Op, Op> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

export interface RowFilter {
  /** Column name in the file. */
  readonly column: string;
  /** Position of the conjunct it checks in the list it was built from. */
  readonly conjunct: number;
  readonly op: Op;
  readonly value: number;
  readonly text: string;
}

function columnName(e: Expr, schema: readonly { name: string; type: string }[]): string | null {
  let x = e;
  while (x.kind === 'cast') {
    const from = x.arg.type.name;
    if (!(EXACT_WIDENING[from] ?? []).includes(x.type.name) && from !== x.type.name) return null;
    x = x.arg;
  }
  if (x.kind !== 'column') return null;
  const c = schema[x.index];
  return c !== undefined && NUMBER_TYPES.has(c.type) ? c.name : null;
}

/** Casts between these types give the same value whatever the session's settings (no time zone, no date style). */
const FOLDABLE_CASTS = new Set(['unknown', 'text', 'numeric', 'int2', 'int4', 'int8', 'float4', 'float8']);

/**
 * A constant, or casts over one (`v > 0.25` on a double column binds as v > CAST(CAST('0.25' AS numeric)
 * AS double precision)), as its value and type; null for anything else or a cast that fails.
 */
export function constantOf(e: Expr): { value: Value; type: DataType } | null {
  if (e.kind === 'const') return { value: e.value, type: e.type };
  if (e.kind !== 'cast' || !FOLDABLE_CASTS.has(e.type.name) || !FOLDABLE_CASTS.has(e.arg.type.name)) return null;
  const inner = constantOf(e.arg);
  if (inner === null) return null;
  try {
    return { value: castValue(inner.value, inner.type, e.type), type: e.type };
  } catch {
    // The Filter above raises the cast's error when it evaluates the conjunct.
    return null;
  }
}

/** The conjuncts usable as row filters (others are left to the Filter above). */
export function parquetRowFilters(conjuncts: readonly Expr[], schema: readonly { name: string; type: string }[]): RowFilter[] {
  const out: RowFilter[] = [];
  for (let ci = 0; ci < conjuncts.length; ci++) {
    const c = conjuncts[ci]!;
    if (c.kind !== 'compare') continue;
    let op = c.op as Op;
    if (!(op in FLIP)) continue;
    let col = columnName(c.left, schema);
    let k = c.right;
    if (col === null) {
      col = columnName(c.right, schema);
      k = c.left;
      op = FLIP[op];
    }
    const kv = col === null ? null : constantOf(k);
    if (col === null || kv === null || typeof kv.value !== 'number' || Number.isNaN(kv.value)) continue;
    // The constant must compare as a number of the column's kind (no text or numeric comparison).
    if (!NUMBER_TYPES.has(kv.type.name)) continue;
    out.push({ column: col, conjunct: ci, op, value: kv.value, text: `${col} ${op} ${kv.value}` });
  }
  return out;
}

/**
 * Whether a row group's statistics for the filter's column prove that every one of its rows passes, so
 * the column need not be decoded for the filter: no NULLs (counted, not assumed) and min/max bounds on
 * the right side of the constant. Bounds are lower and upper bounds even when inexact. Only signed
 * integers, dates, microsecond timestamps and doubles qualify (an unsigned column's bounds may be stored
 * as negative numbers; other units' bounds are not converted as their values are); for doubles only > and >=, which NaN passes whatever the bounds say (the statistics leave
 * NaN out).
 */
/** Physical and logical types whose decoded statistics are in the filter's value domain. */
function boundsComparable(e: SchemaElement): boolean {
  const ct = e.converted_type;
  const lt = e.logical_type;
  if (lt?.type === 'INTEGER') return lt.isSigned;
  switch (e.type) {
    case 'INT32':
      return ct === undefined || ct === 'DATE' || ct === 'INT_8' || ct === 'INT_16' || ct === 'INT_32';
    case 'INT64':
      if (lt?.type === 'TIMESTAMP') return lt.unit === 'MICROS';
      return ct === undefined || ct === 'INT_64' || ct === 'TIMESTAMP_MICROS';
    case 'DOUBLE':
      return ct === undefined;
    default:
      return false;
  }
}

export function passesByStatistics(f: RowFilter, element: SchemaElement, stats: Statistics | undefined): boolean {
  if (stats === undefined || stats.null_count === undefined || Number(stats.null_count) !== 0) return false;
  if (!boundsComparable(element)) return false;
  const physical = element.type;
  if (physical === 'DOUBLE' && f.op !== '>' && f.op !== '>=') return false;
  const bound = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'bigint' && v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : null);
  const lo = bound(stats.min_value);
  const hi = bound(stats.max_value);
  const k = f.value;
  switch (f.op) {
    case '>':
      return lo !== null && lo > k;
    case '>=':
      return lo !== null && lo >= k;
    case '<':
      return hi !== null && hi < k;
    case '<=':
      return hi !== null && hi <= k;
    case '=':
      return lo !== null && hi !== null && lo === k && hi === k;
    case '<>':
      return (lo !== null && lo > k) || (hi !== null && hi < k);
  }
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * The filters on one integer column (int32 values) as one closed interval [lo, hi] of int32 values:
 * a conjunction of comparisons with constants is an interval over the integers (`id BETWEEN a AND b`
 * is two filters, one pass). lo > hi when no value passes. Null when a filter is `<>`, which is not.
 */
export function integerInterval(filters: readonly RowFilter[]): { lo: number; hi: number } | null {
  let lo = INT32_MIN;
  let hi = INT32_MAX;
  for (const f of filters) {
    const k = f.value;
    switch (f.op) {
      case '=':
        if (!Number.isInteger(k)) return { lo: 1, hi: 0 };
        lo = Math.max(lo, k);
        hi = Math.min(hi, k);
        break;
      case '<':
        hi = Math.min(hi, Math.ceil(k) - 1);
        break;
      case '<=':
        hi = Math.min(hi, Math.floor(k));
        break;
      case '>':
        lo = Math.max(lo, Math.floor(k) + 1);
        break;
      case '>=':
        lo = Math.max(lo, Math.ceil(k));
        break;
      default:
        return null;
    }
  }
  return lo > hi ? { lo: 1, hi: 0 } : { lo, hi };
}

/**
 * Narrows `sel` (row offsets within the column's rows, ascending) to the rows that may pass `f`;
 * returns how many remain at the front of `sel`. One loop per operator: a switch inside the row loop
 * was most of a pruned scan's filtering time.
 */
export function narrowSelection(f: RowFilter, d: FlatColumnData, sel: Int32Array, count: number): number {
  const v = d.values;
  const nulls = d.nulls;
  const k = f.value;
  let w = 0;
  if (nulls !== null) {
    // NULLs never pass; clearing them first keeps the comparison loops below free of the test.
    for (let i = 0; i < count; i++) {
      const r = sel[i]!;
      if (nulls[r] !== 1) sel[w++] = r;
    }
    count = w;
    w = 0;
  }
  switch (f.op) {
    case '=':
      for (let i = 0; i < count; i++) {
        const r = sel[i]!;
        if (v[r] === k) sel[w++] = r;
      }
      return w;
    case '<>':
      for (let i = 0; i < count; i++) {
        const r = sel[i]!;
        if (v[r] !== k) sel[w++] = r;
      }
      return w;
    case '<':
      for (let i = 0; i < count; i++) {
        const r = sel[i]!;
        if (v[r]! < k) sel[w++] = r;
      }
      return w;
    case '<=':
      for (let i = 0; i < count; i++) {
        const r = sel[i]!;
        if (v[r]! <= k) sel[w++] = r;
      }
      return w;
    case '>':
      for (let i = 0; i < count; i++) {
        const r = sel[i]!;
        const x = v[r]!;
        if (x > k || x !== x) sel[w++] = r;
      }
      return w;
    default:
      for (let i = 0; i < count; i++) {
        const r = sel[i]!;
        const x = v[r]!;
        if (x >= k || x !== x) sel[w++] = r;
      }
      return w;
  }
}

/**
 * narrowSelection over rows [at, at+n) of the column without a selection yet: the passing row offsets
 * are written to the front of `sel` straight from the values (no identity selection to fill and read).
 */
export function narrowRange(f: RowFilter, d: FlatColumnData, at: number, n: number, sel: Int32Array): number {
  const v = d.values;
  const nulls = d.nulls;
  const k = f.value;
  const end = at + n;
  if (nulls !== null) return narrowRangeNullable(f.op, k, v, nulls, at, end, sel);
  let w = 0;
  switch (f.op) {
    case '=':
      for (let r = at; r < end; r++) if (v[r] === k) sel[w++] = r;
      return w;
    case '<>':
      for (let r = at; r < end; r++) if (v[r] !== k) sel[w++] = r;
      return w;
    case '<':
      for (let r = at; r < end; r++) if (v[r]! < k) sel[w++] = r;
      return w;
    case '<=':
      for (let r = at; r < end; r++) if (v[r]! <= k) sel[w++] = r;
      return w;
    case '>':
      for (let r = at; r < end; r++) {
        const x = v[r]!;
        if (x > k || x !== x) sel[w++] = r;
      }
      return w;
    default:
      for (let r = at; r < end; r++) {
        const x = v[r]!;
        if (x >= k || x !== x) sel[w++] = r;
      }
      return w;
  }
}

/**
 * narrowRange over a column with NULLs (which never pass): every row is written to `sel` and the
 * write position advances by whether it passes, so NULLs scattered among the rows cost no mispredicted
 * branch (a pass over the non-NULL rows first, then the comparison, cost twice this).
 */
function narrowRangeNullable(op: Op, k: number, v: Int32Array | Float64Array, nulls: Uint8Array, at: number, end: number, sel: Int32Array): number {
  let w = 0;
  switch (op) {
    case '=':
      for (let r = at; r < end; r++) {
        sel[w] = r;
        w += (v[r] === k ? 1 : 0) & (nulls[r]! ^ 1);
      }
      return w;
    case '<>':
      for (let r = at; r < end; r++) {
        sel[w] = r;
        w += (v[r] !== k ? 1 : 0) & (nulls[r]! ^ 1);
      }
      return w;
    case '<':
      for (let r = at; r < end; r++) {
        sel[w] = r;
        w += (v[r]! < k ? 1 : 0) & (nulls[r]! ^ 1);
      }
      return w;
    case '<=':
      for (let r = at; r < end; r++) {
        sel[w] = r;
        w += (v[r]! <= k ? 1 : 0) & (nulls[r]! ^ 1);
      }
      return w;
    case '>':
      for (let r = at; r < end; r++) {
        const x = v[r]!;
        sel[w] = r;
        w += (x > k || x !== x ? 1 : 0) & (nulls[r]! ^ 1);
      }
      return w;
    default:
      for (let r = at; r < end; r++) {
        const x = v[r]!;
        sel[w] = r;
        w += (x >= k || x !== x ? 1 : 0) & (nulls[r]! ^ 1);
      }
      return w;
  }
}

/**
 * narrowSelection over a column as the scan outputs it (a typed array, or values that may be bigints
 * beyond 2^53, which compare exactly with a number), for columns the flat decoder does not read.
 * sel holds row offsets `base` and up; values[r - base] is row r's value.
 */
export function narrowColumn(f: RowFilter, values: ArrayLike<unknown>, nulls: Uint8Array | null, base: number, sel: Int32Array, count: number): number {
  const k = f.value;
  let w = 0;
  for (let i = 0; i < count; i++) {
    const r = sel[i]!;
    if (nulls !== null && nulls[r - base] === 1) continue;
    const x = values[r - base] as number | bigint | null | undefined;
    if (x === null || x === undefined) continue;
    let pass: boolean;
    switch (f.op) {
      // Loose equality: a bigint equals a number of the same value only by ==.
      case '=':
        pass = x == k;
        break;
      case '<>':
        pass = x != k;
        break;
      case '<':
        pass = x < k;
        break;
      case '<=':
        pass = x <= k;
        break;
      case '>':
        pass = x > k || x !== x;
        break;
      default:
        pass = x >= k || x !== x;
    }
    if (pass) sel[w++] = r;
  }
  return w;
}

/** The selected rows of a decoded column, in order. */
export function gatherFlat(d: FlatColumnData, sel: Int32Array, count: number): FlatColumnData {
  const src = d.values;
  // One loop per array type: a loop over either kind runs several times slower.
  const values = src instanceof Int32Array ? gatherI32(src, sel, count) : gatherF64(src, sel, count);
  const nulls = d.nulls === null ? null : gatherU8(d.nulls, sel, count);
  return { values, objects: d.objects, nulls, dictionary: d.dictionary, decimalScale: d.decimalScale, plain: d.plain };
}

function gatherI32(src: Int32Array, sel: Int32Array, count: number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = src[sel[i]!]!;
  return out;
}

function gatherF64(src: Float64Array, sel: Int32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = src[sel[i]!]!;
  return out;
}

function gatherU8(src: Uint8Array, sel: Int32Array, count: number): Uint8Array {
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = src[sel[i]!]!;
  return out;
}

/**
 * gatherFlat into d's own arrays: the selected rows moved to the front, in order (sel ascends, so a
 * row is only ever moved down, onto rows already read). For a column decoded for one range alone,
 * whose arrays nothing else reads: no fresh arrays, which the system maps afresh for every row group
 * until the collector has returned some (a visible share of a process's first queries).
 */
export function compactFlat(d: FlatColumnData, sel: Int32Array, count: number): FlatColumnData {
  const src = d.values;
  const values = src instanceof Int32Array ? compactI32(src, sel, count) : compactF64(src, sel, count);
  const nulls = d.nulls === null ? null : compactU8(d.nulls, sel, count);
  return { values, objects: d.objects, nulls, dictionary: d.dictionary, decimalScale: d.decimalScale, plain: d.plain };
}

function compactI32(src: Int32Array, sel: Int32Array, count: number): Int32Array {
  for (let i = 0; i < count; i++) src[i] = src[sel[i]!]!;
  return src.subarray(0, count);
}

function compactF64(src: Float64Array, sel: Int32Array, count: number): Float64Array {
  for (let i = 0; i < count; i++) src[i] = src[sel[i]!]!;
  return src.subarray(0, count);
}

function compactU8(src: Uint8Array, sel: Int32Array, count: number): Uint8Array {
  for (let i = 0; i < count; i++) src[i] = src[sel[i]!]!;
  return src.subarray(0, count);
}

/** The selected rows of a column decoded by hyparquet's general path. */
export function gatherGeneral(d: ArrayLike<unknown>, sel: Int32Array, count: number): unknown[] {
  const out = new Array<unknown>(count);
  for (let i = 0; i < count; i++) out[i] = d[sel[i]!];
  return out;
}
