/**
 * Late materialization for read_parquet: comparisons of a numeric column with a constant, and tests of
 * a text column against constants (parquet-text-filter.ts), checked on the decoded filter columns of a
 * row group before its other columns are decoded. A range where no row passes is skipped without
 * decoding the rest; the others hand on only the rows that pass (and a PLAIN text column builds the
 * strings of those rows only).
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
import { likeEscape } from '../../functions/scalar/support/like.js';
import { bytesPass, compareTest, inTest, leadingLiteral, likeTest, LiteralWords, stringPasses, trailingLiteral, wellFormed, type TextOp, type TextTest } from './parquet-text-filter.js';

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

export interface NumberRowFilter {
  readonly kind: 'number';
  /** Column name in the file. */
  readonly column: string;
  /** Position of the conjunct it checks in the list it was built from. */
  readonly conjunct: number;
  readonly op: Op;
  readonly value: number;
  readonly text: string;
}

export interface TextRowFilter {
  readonly kind: 'text';
  readonly column: string;
  readonly conjunct: number;
  readonly test: TextTest;
  readonly text: string;
}

export type RowFilter = NumberRowFilter | TextRowFilter;

/** The setting that switches the text row filters off (`SET quire.parquet_text_filters = off`). */
export const TEXT_FILTERS_SETTING = 'quire.parquet_text_filters';

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

/** The conjuncts usable as row filters (others are left to the Filter above); text ones unless `text` is false. */
export function parquetRowFilters(conjuncts: readonly Expr[], schema: readonly { name: string; type: string }[], text = true): RowFilter[] {
  const out: RowFilter[] = [];
  for (let ci = 0; ci < conjuncts.length; ci++) {
    const c = conjuncts[ci]!;
    if (text) {
      const t = textRowFilter(c, ci, schema);
      if (t !== null) {
        out.push(t);
        continue;
      }
    }
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
    out.push({ kind: 'number', column: col, conjunct: ci, op, value: kv.value, text: `${col} ${op} ${kv.value}` });
  }
  // IS [NOT] NULL alone is cheaper as a presence-only column (its values never decoded): only beside
  // another test of the column, which decodes it anyway.
  const tested = new Set(out.filter((f) => f.kind === 'number' || f.test.kind !== 'null').map((f) => f.column));
  return out.filter((f) => f.kind === 'number' || f.test.kind !== 'null' || tested.has(f.column));
}

const TEXT_TYPES = new Set(['text', 'varchar']);

/** A text or varchar column (through casts between the two), or null. */
function textColumnName(e: Expr, schema: readonly { name: string; type: string }[]): string | null {
  let x = e;
  while (x.kind === 'cast' && TEXT_TYPES.has(x.type.name) && TEXT_TYPES.has(x.arg.type.name)) x = x.arg;
  if (x.kind !== 'column') return null;
  const c = schema[x.index];
  return c !== undefined && TEXT_TYPES.has(c.type) ? c.name : null;
}

/** A text constant (through casts among text, varchar and unknown), or null: NULL, a parameter, a column. */
function textConstant(e: Expr): string | null {
  let x = e;
  while (x.kind === 'cast' && (TEXT_TYPES.has(x.type.name) || x.type.name === 'unknown') && (TEXT_TYPES.has(x.arg.type.name) || x.arg.type.name === 'unknown')) x = x.arg;
  return x.kind === 'const' && typeof x.value === 'string' && wellFormed(x.value) ? x.value : null;
}

/** A pattern: a constant, or like_escape over constants (LIKE … ESCAPE), whose own errors stay the operator's. */
function likePattern(e: Expr): string | null {
  if (e.kind === 'call' && e.name === 'like_escape' && e.args.length === 2) {
    const p = textConstant(e.args[0]!);
    const esc = textConstant(e.args[1]!);
    if (p === null || esc === null) return null;
    try {
      return likeEscape(p, esc);
    } catch {
      return null;
    }
  }
  return textConstant(e);
}

const LIKE_OPS: Record<string, { negated: boolean; fold: boolean; name: string }> = {
  '~~': { negated: false, fold: false, name: 'LIKE' },
  '!~~': { negated: true, fold: false, name: 'NOT LIKE' },
  '~~*': { negated: false, fold: true, name: 'ILIKE' },
  '!~~*': { negated: true, fold: true, name: 'NOT ILIKE' },
};

const quoted = (s: string): string => `'${s.replaceAll("'", "''")}'`;

function textRowFilter(c: Expr, ci: number, schema: readonly { name: string; type: string }[]): TextRowFilter | null {
  const make = (column: string, test: TextTest, text: string): TextRowFilter => ({ kind: 'text', column, conjunct: ci, test, text });
  if (c.kind === 'call' && c.args.length === 2 && Object.hasOwn(LIKE_OPS, c.name)) {
    const op = LIKE_OPS[c.name]!;
    const col = textColumnName(c.args[0]!, schema);
    const p = col === null ? null : likePattern(c.args[1]!);
    if (col === null || p === null) return null;
    const test = likeTest(p, op.negated, op.fold);
    return test === null ? null : make(col, test, `${col} ${op.name} ${quoted(p)}`);
  }
  if (c.kind === 'compare' && c.op in FLIP) {
    let op = c.op as Op;
    let col = textColumnName(c.left, schema);
    let k = c.right;
    if (col === null) {
      col = textColumnName(c.right, schema);
      k = c.left;
      op = FLIP[op];
    }
    const v = col === null ? null : textConstant(k);
    if (col === null || v === null) return null;
    return make(col, compareTest(op as TextOp, v), `${col} ${op} ${quoted(v)}`);
  }
  if (c.kind === 'in-list') {
    const col = textColumnName(c.arg, schema);
    if (col === null) return null;
    const values: string[] = [];
    for (const x of c.list) {
      const v = textConstant(x);
      // A NULL in the list: IN passes what it would without it, NOT IN nothing (left to the Filter).
      if (v === null && x.kind === 'const' && x.value === null && !c.negated) continue;
      if (v === null) return null;
      values.push(v);
    }
    return make(col, inTest(values, c.negated), `${col} ${c.negated ? 'NOT IN' : 'IN'} (${values.length} values)`);
  }
  if (c.kind === 'is-null') {
    const col = textColumnName(c.arg, schema);
    return col === null ? null : make(col, { kind: 'null', negated: c.negated, anyBytes: true }, `${col} IS ${c.negated ? 'NOT ' : ''}NULL`);
  }
  return null;
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
  if (f.kind === 'text') return false;
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
export function integerInterval(filters: readonly NumberRowFilter[]): { lo: number; hi: number } | null {
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
  if (f.kind === 'text') return narrowText(f.test, d, sel, count, -1);
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
  if (f.kind === 'text') return narrowText(f.test, d, sel, n, at);
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
  let w = 0;
  if (f.kind === 'text') {
    const t = f.test;
    for (let i = 0; i < count; i++) {
      const r = sel[i]!;
      const x = values[r - base];
      const isNull = (nulls !== null && nulls[r - base] === 1) || x === null || x === undefined;
      if (isNull ? t.kind === 'null' && !t.negated : stringPasses(t, x as string)) sel[w++] = r;
    }
    return w;
  }
  const k = f.value;
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

/**
 * narrowRange (at >= 0: rows [at, at+count), written to sel) or narrowSelection (at < 0: the rows in
 * sel[0 …count)) of a text filter over a decoded text column. PLAIN values are tested as their bytes
 * (their strings are never built here); dictionary entries as strings, once each.
 */
function narrowText(t: TextTest, d: FlatColumnData, sel: Int32Array, count: number, at: number): number {
  const idx = d.values as Int32Array;
  const nulls = d.nulls;
  let w = 0;
  if (t.kind === 'null') {
    const want = t.negated ? 0 : 1;
    for (let i = 0; i < count; i++) {
      const r = at < 0 ? sel[i]! : at + i;
      if ((nulls === null ? 0 : nulls[r]!) === want) sel[w++] = r;
    }
    return w;
  }
  const objects = d.objects!;
  const plain = d.plain;
  const base = plain === null ? objects.length : plain.base;
  // Per dictionary entry: 1 passes, 0 not, -1 not tested yet.
  const entries = base > 0 ? new Int8Array(base).fill(-1) : null;
  // Bytes that are not valid UTF-8 are decoded with U+FFFD in their place: only strings tell then.
  const byBytes = plain !== null && (t.anyBytes || plain.validUtf8());
  const lead = byBytes ? leadingLiteral(t) : null;
  if (lead !== null) return narrowLiteral(lead.lit, false, !lead.whole, lead.negated, t, d, plain!, entries, sel, count, at);
  const trailing = byBytes ? trailingLiteral(t) : null;
  if (trailing !== null) return narrowLiteral(trailing.lit, true, false, trailing.negated, t, d, plain!, entries, sel, count, at);
  const starts = plain?.starts;
  const bytes = plain?.bytes;
  for (let i = 0; i < count; i++) {
    const r = at < 0 ? sel[i]! : at + i;
    if (nulls !== null && nulls[r] === 1) continue;
    const k = idx[r]!;
    let pass: number;
    if (k < base) pass = entryPasses(entries!, k, t, objects);
    else {
      const j = k - base;
      const a = starts![j]!;
      pass = byBytes ? bytesPass(t, bytes!, a, starts![j + 1]! - 4) : -1;
      if (pass < 0) pass = stringPasses(t, plain!.valueText(j)) ? 1 : 0;
    }
    if (pass === 1) sel[w++] = r;
  }
  return w;
}

/** Whether dictionary entry k passes t (1 or 0), tested as its string once per chunk (entries: -1 untested). */
function entryPasses(entries: Int8Array, k: number, t: TextTest, objects: readonly unknown[]): number {
  let pass = entries[k]!;
  if (pass < 0) entries[k] = pass = stringPasses(t, objects[k] as string) ? 1 : 0;
  return pass;
}

/**
 * narrowText of LIKE 'literal%' (rest), '%literal' (open), 'literal' or = 'literal' (and their
 * negations) on PLAIN values: the literal compared in place four bytes at a load (LiteralWords); a
 * byte-at-a-time loop cost three times as much, mostly in mispredicted exits on the first differing
 * byte.
 */
function narrowLiteral(lit: Uint8Array, open: boolean, rest: boolean, negated: boolean, t: TextTest, d: FlatColumnData, plain: PlainTextPool, entries: Int8Array | null, sel: Int32Array, count: number, at: number): number {
  const idx = d.values as Int32Array;
  const nulls = d.nulls;
  const objects = d.objects!;
  const base = plain.base;
  const starts = plain.starts;
  const bytes = plain.bytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = lit.length;
  const words = new LiteralWords(lit);
  const keep = negated ? 0 : 1;
  const exactLength = !open && !rest;
  if (at >= 0 && nulls === null && base === 0 && words.words.length === 2) return rangeOfTwoWords(view, starts, idx, at, count, n, words.words[0]!, words.words[1]!, open, exactLength, keep, sel);
  let w = 0;
  for (let i = 0; i < count; i++) {
    const r = at < 0 ? sel[i]! : at + i;
    if (nulls !== null && nulls[r] === 1) continue;
    const k = idx[r]!;
    let pass: number;
    if (k < base) pass = entryPasses(entries!, k, t, objects);
    else {
      const j = k - base;
      const a = starts[j]!;
      const len = starts[j + 1]! - 4 - a;
      // The words are read inside the value only: its length is checked first.
      const m = (exactLength ? len === n : len >= n) && words.at(view, bytes, open ? a + len - n : a);
      pass = m ? keep : keep ^ 1;
    }
    sel[w] = r;
    w += pass;
  }
  return w;
}

/**
 * narrowLiteral's common case: a range of PLAIN rows without NULLs, a literal of 4 to 8 bytes. Row r is
 * then value r (each row took the next value), so its bounds are read from `starts` alone, each start
 * once (it ends the value before).
 */
function rangeOfTwoWords(view: DataView, starts: Int32Array, idx: Int32Array, at: number, count: number, n: number, w0: number, w1: number, open: boolean, exactLength: boolean, keep: number, sel: Int32Array): number {
  let w = 0;
  const end = at + count;
  if (count === 0) return 0;
  const sequential = idx[at] === at && idx[end - 1] === end - 1;
  const flip = keep ^ 1;
  if (sequential && !open && !exactLength) {
    // LIKE 'literal%' over unique text: the case this loop is for.
    let a = starts[at]!;
    for (let r = at; r < end; r++) {
      const next = starts[r + 1]!;
      const m = next - 4 - a >= n && ((view.getInt32(a, true) ^ w0) | (view.getInt32(a + n - 4, true) ^ w1)) === 0;
      sel[w] = r;
      w += (m ? 1 : 0) ^ flip;
      a = next;
    }
    return w;
  }
  let a = starts[idx[at]!]!;
  for (let r = at; r < end; r++) {
    const j = sequential ? r : idx[r]!;
    if (!sequential) a = starts[j]!;
    const next = starts[j + 1]!;
    const len = next - 4 - a;
    const from = open ? a + len - n : a;
    sel[w] = r;
    w += (exactLength ? len === n : len >= n) && ((view.getInt32(from, true) ^ w0) | (view.getInt32(from + n - 4, true) ^ w1)) === 0 ? keep : flip;
    a = next;
  }
  return w;
}

/** What the text filters read of a chunk's PLAIN values (PlainText in parquet-flat-column.ts). */
export interface PlainTextPool {
  readonly base: number;
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  valueText(j: number): string;
  validUtf8(): boolean;
}
