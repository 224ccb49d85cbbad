/**
 * Nested Parquet columns as Quire values: a LIST (or a repeated field) reads as an array of its
 * element's type, a group as a record whose fields carry the group's names and types, so `l[1]`,
 * `(s).a`, `unnest(l)` and comparisons work on them as on PostgreSQL's arrays and composites. The
 * shapes Quire has no type for read as their JSON text: a MAP (PostgreSQL has no map type), and a
 * list of lists (Quire's arrays have one dimension, and a Parquet list of lists may be ragged).
 *
 * The mapping follows the schema tree the way hyparquet assembles rows, so the value it hands over
 * for a column has the shape its type says: a JS array for a list, an object keyed by field name for
 * a group, a leaf's decoded value (bigint for INT64, µs for timestamps, days for dates).
 */
import type { SchemaElement, SchemaTree } from 'hyparquet';
import { parseValue } from '../../common/parse-value.js';
import { Numeric } from '../../common/numeric.js';
import { RecordValue } from '../../common/record-value.js';
import { arrayTypeOf, fieldRecordType, T, type DataType, type Value } from '../../common/types.js';
import { normMicros, type Micros } from '../../common/datetime-calendar.js';
import { nestedJson } from './nested-json.js';

/** How a nested column's values become Quire values. */
export interface NestedMapping {
  readonly type: DataType;
  readonly convert: (v: unknown) => Value;
}

/**
 * A Parquet timestamp in microseconds (per = µs per unit, 0n for nanoseconds, which round down), exactly.
 * int64's extremes are how writers (DuckDB, COPY TO) store ±infinity.
 */
export function parquetMicros(raw: bigint, per: bigint): Micros {
  if (raw === 9223372036854775807n) return Infinity;
  if (raw === -9223372036854775808n) return -Infinity;
  if (per !== 0n) return normMicros(raw * per);
  const q = raw / 1000n;
  return normMicros(raw < 0n && q * 1000n !== raw ? q - 1n : q);
}

/** One decoded leaf value (not null) in the representation of Quire type `t`. */
export function leafValue(t: DataType, v: unknown): Value {
  switch (t.name) {
    case 'bool':
      return Boolean(v);
    case 'int2':
    case 'int4':
    case 'float8':
    case 'date':
      return Number(v);
    case 'float4':
      return Math.fround(Number(v));
    case 'int8': {
      if (typeof v === 'number') return v;
      const b = BigInt(v as bigint);
      return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
    }
    case 'timestamp':
    case 'timestamptz':
      return typeof v === 'number' ? v : v instanceof Date ? v.getTime() * 1000 : parquetMicros(BigInt(v as bigint), 1n);
    case 'numeric':
      // Read exactly already (read-parquet.ts's exactDecimals).
      if (v instanceof Numeric) return v;
      return parseValue(typeof v === 'number' && !Number.isFinite(v) ? 'NaN' : String(v), t);
    default:
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      return typeof v === 'string' ? v : String(v);
  }
}

const JSON_TEXT: NestedMapping = { type: T.text, convert: nestedJson };

/** Same as hyparquet's test: a LIST-annotated group over one repeated group or leaf. */
function isList(n: SchemaTree): boolean {
  if (n.element.converted_type !== 'LIST' || n.children.length !== 1) return false;
  const rep = n.children[0]!;
  return rep.children.length <= 1 && rep.element.repetition_type === 'REPEATED';
}

function isMap(n: SchemaTree): boolean {
  return n.element.converted_type === 'MAP' || n.element.converted_type === 'MAP_KEY_VALUE' || n.element.logical_type?.type === 'MAP';
}

/**
 * The type and converter of a column whose schema node is `n` (a group, or a repeated leaf), given
 * `leafType` for a leaf's element; null only for a plain (non-repeated) leaf, which is not nested.
 */
export function nestedMapping(n: SchemaTree, leafType: (e: SchemaElement) => DataType): NestedMapping | null {
  if (n.children.length === 0) {
    if (n.element.repetition_type !== 'REPEATED') return null;
    return listOf(leafMapping(n, leafType));
  }
  return nodeMapping(n, leafType);
}

function leafMapping(n: SchemaTree, leafType: (e: SchemaElement) => DataType): NestedMapping {
  const t = leafType(n.element);
  return { type: t, convert: (v) => (v === null || v === undefined ? null : leafValue(t, v)) };
}

/** The mapping of any node inside a nested column (a leaf here is a plain value, its repetition handled by its list). */
function nodeMapping(n: SchemaTree, leafType: (e: SchemaElement) => DataType): NestedMapping {
  if (n.element.logical_type?.type === 'VARIANT') return JSON_TEXT;
  if (isMap(n)) return JSON_TEXT;
  if (isList(n)) {
    const rep = n.children[0]!;
    const element = rep.children.length === 1 ? rep.children[0]! : rep;
    if (element.children.length === 0 && element !== rep && element.element.repetition_type === 'REPEATED') return JSON_TEXT;
    const inner = element === rep ? leafMapping(rep, leafType) : nodeMapping(element, leafType);
    return listOf(inner);
  }
  if (n.children.length === 0) return leafMapping(n, leafType);
  if (n.element.converted_type === 'LIST') return JSON_TEXT; // a LIST annotation hyparquet does not assemble as a list
  return groupMapping(n, leafType);
}

/** A repeated node's element: the node itself read as one value (a leaf, or a group as a record). */
function leafOrGroup(n: SchemaTree, leafType: (e: SchemaElement) => DataType): NestedMapping {
  return n.children.length === 0 ? leafMapping(n, leafType) : groupMapping(n, leafType);
}

/** A group as a record of its fields; a repeated field inside it (no LIST annotation) is a list of its element. */
function groupMapping(n: SchemaTree, leafType: (e: SchemaElement) => DataType): NestedMapping {
  const names = n.children.map((c) => c.element.name);
  const maps = n.children.map((c) => (c.element.repetition_type === 'REPEATED' ? listOf(leafOrGroup(c, leafType)) : nodeMapping(c, leafType)));
  const types = maps.map((m) => m.type);
  return {
    type: fieldRecordType(names.map((name, i) => ({ name, type: types[i]! }))),
    convert: (v) => {
      if (v === null || v === undefined) return null;
      const o = v as Record<string, unknown>;
      const fields = new Array<Value>(maps.length);
      for (let i = 0; i < maps.length; i++) fields[i] = maps[i]!.convert(o[names[i]!]);
      return new RecordValue(fields, types);
    },
  };
}

/** A list of `inner`: an array of its type, or JSON text where Quire has no such array (lists of lists). */
function listOf(inner: NestedMapping): NestedMapping {
  const at = arrayTypeOf(inner.type);
  if (at === null || inner === JSON_TEXT) return JSON_TEXT;
  return {
    type: at,
    convert: (v) => {
      if (v === null || v === undefined) return null;
      const a = v as readonly unknown[];
      const out = new Array<Value>(a.length);
      for (let i = 0; i < a.length; i++) out[i] = inner.convert(a[i]);
      return out;
    },
  };
}
