/**
 * SQL data types and the JavaScript representation of their values.
 *
 * One representation per type, used everywhere (scalars, rows, column storage), so that
 * compiled expressions, operators and formatters agree without conversions:
 *
 *   bool                    boolean
 *   int2, int4              number (integer)
 *   int8                    number when |v| <= 2^53-1, otherwise bigint (never a bigint in the safe range)
 *   float4, float8          number (float4 values are Math.fround-ed)
 *   numeric                 Numeric (src/common/numeric.ts)
 *   text, varchar, bpchar   string
 *   name                    string of at most NAMEDATALEN-1 = 63 UTF-8 bytes (input truncates, as namein)
 *   date                    number: days since 1970-01-01, ±Infinity for ±infinity
 *   timestamp, timestamptz  microseconds since 1970-01-01 00:00:00 (UTC for timestamptz): number while a safe
 *                           integer (about 1685–2255) or ±Infinity, bigint beyond, as int8 (see Micros)
 *   interval                Interval {months, days, micros}
 *   time                    number: microseconds since midnight (0 ..= 86,400,000,000)
 *   timetz                  TimeTz {micros, offset} (src/common/time-of-day.ts)
 *   _int4, _text, … (T[])   ArrayValue: readonly (element value | null)[] (one dimension, lower bound 1)
 *   json                    string: the JSON text as given (validated on input), as PostgreSQL's json keeps it
 *   oid                     number: an unsigned 32-bit integer (0 ..= 4,294,967,295)
 *   bytea                   string: one UTF-16 unit per byte (code units 0..255), so that string order is
 *                           memcmp order and concatenation, hashing and spilling need no special case
 *   point                   Point {x, y} (src/common/point.ts)
 *   money                   as int8: a count of cents (lc_monetary C has two fraction digits), number while
 *                           safe, bigint beyond
 *   bit, varbit             string of '0'/'1', one character per bit (string order is bitcmp's order)
 *   record                  RecordValue: the field values and their types (an anonymous row value, ROW(a, b))
 *   unknown                 string (an untyped literal that has not been coerced yet) or null
 *   null                    null (any type)
 */
import { QuireError } from './errors.js';
import type { Numeric } from './numeric.js';
import type { Interval } from './interval.js';
import type { TimeTz } from './time-of-day.js';
import type { Point } from './point.js';
import type { RecordValue } from './record-value.js';

/** Types that can be array elements (every type but arrays and unknown). */
export type ElementTypeName =
  | 'bool'
  | 'int2'
  | 'int4'
  | 'int8'
  | 'float4'
  | 'float8'
  | 'numeric'
  | 'text'
  | 'varchar'
  | 'bpchar'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'interval'
  | 'time'
  | 'timetz'
  | 'json'
  | 'oid'
  | 'bytea'
  | 'bit'
  | 'varbit'
  | 'point'
  | 'money'
  | 'name';

/** PostgreSQL names an array type after its element type with a leading underscore (_int4 is int4[]). */
export type ArrayTypeName = `_${ElementTypeName}`;

/** `_record`: an array of a named composite type (anonymous records have no array type in Quire). */
export type TypeName = ElementTypeName | ArrayTypeName | 'record' | '_record' | 'unknown';

export const ELEMENT_TYPE_NAMES: readonly ElementTypeName[] = [
  'bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'varchar', 'bpchar', 'date', 'timestamp', 'timestamptz', 'interval', 'time', 'timetz', 'json', 'oid', 'bytea', 'bit', 'varbit', 'point', 'money', 'name',
];

export interface DataType {
  readonly name: TypeName;
  /** Type modifier (varchar(n) length, numeric precision/scale packed as PostgreSQL does), -1 if none. */
  readonly typmod: number;
  /** For `record` and `_record`: the named composite type (CREATE TYPE name AS (…)), absent for anonymous rows. */
  readonly composite?: CompositeType;
}

/** A named composite type: its values are records whose fields have these names and types. */
export interface CompositeType {
  readonly name: string;
  readonly oid: number;
  readonly fields: readonly Field[];
}

const compositeTypes = new WeakMap<CompositeType, { row: DataType; array: DataType }>();

/** The row type of a named composite type (one frozen DataType per definition, so identity compares). */
export function compositeType(c: CompositeType): DataType {
  return compositeEntry(c).row;
}

function compositeEntry(c: CompositeType): { row: DataType; array: DataType } {
  let e = compositeTypes.get(c);
  if (e === undefined) {
    e = { row: Object.freeze({ name: 'record', typmod: -1, composite: c }), array: Object.freeze({ name: '_record', typmod: -1, composite: c }) };
    compositeTypes.set(c, e);
  }
  return e;
}

/**
 * A record type with field names but no catalog entry (a Parquet group): sent and shown as
 * PostgreSQL's anonymous `record`, its fields named as the file names them. One type per shape, so
 * the groups of two files (or of a table stored from one) compare, union and join as one type;
 * bounded, past the cap a shape gets a type of its own.
 */
export function fieldRecordType(fields: readonly { readonly name: string; readonly type: DataType }[]): DataType {
  const key = JSON.stringify(fields.map((f) => [f.name, shapeKey(f.type)]));
  let c = fieldRecordShapes.get(key);
  if (c === undefined) {
    c = Object.freeze({ name: 'record', oid: RECORD_OID, fields: Object.freeze(fields.map((f) => Object.freeze({ name: f.name, type: f.type }))) });
    if (fieldRecordShapes.size < FIELD_RECORD_SHAPES) fieldRecordShapes.set(key, c);
  }
  return compositeEntry(c).row;
}

/** True for the composites fieldRecordType makes (self-described: a database directory can keep them). */
export function isFieldRecord(c: CompositeType): boolean {
  return c.oid === RECORD_OID;
}

const RECORD_OID = 2249;
const FIELD_RECORD_SHAPES = 4096;
const fieldRecordShapes = new Map<string, CompositeType>();

function shapeKey(t: DataType): unknown {
  const c = t.composite;
  if (c === undefined) return [t.name, t.typmod];
  return [t.name, isFieldRecord(c) ? c.fields.map((f) => [f.name, shapeKey(f.type)]) : c.oid];
}

export type Value = null | boolean | number | bigint | string | Numeric | Interval | TimeTz | ArrayValue | RecordValue | Point;

/**
 * An array value: one dimension with lower bound 1 (multidimensional arrays are refused), elements of
 * the element type's representation or null.
 */
export type ArrayValue = readonly Value[];

/** text[] values, for the functions that only take text arrays. */
export type TextArray = readonly (string | null)[];

export function isArrayType(t: DataType): boolean {
  return t.name.charCodeAt(0) === 95; // '_'
}

/** The element type of an array type; the array's typmod is its elements' (as PostgreSQL keeps it). */
export function elementType(t: DataType): DataType {
  if (t.composite !== undefined) return compositeEntry(t.composite).row;
  return type(t.name.slice(1) as ElementTypeName, t.typmod);
}

/** The array type over an element type (an untyped literal's array is text[]); null for arrays. */
export function arrayTypeOf(t: DataType): DataType | null {
  if (t.name === 'record' && t.composite !== undefined) return compositeEntry(t.composite).array;
  if (isArrayType(t) || t.name === 'record') return null;
  const name = t.name === 'unknown' ? 'text' : t.name;
  return type(`_${name}` as ArrayTypeName, t.typmod);
}

/** The array type over an element type; record values have none in Quire (PostgreSQL's record[]). */
export function arrayTypeFor(t: DataType): DataType {
  const a = arrayTypeOf(t);
  if (a === null) throw new QuireError('0A000', `arrays of type ${typeDisplayName(t)} are not supported`);
  return a;
}

const plain = new Map<TypeName, DataType>();
export function type(name: TypeName, typmod = -1): DataType {
  if (typmod === -1) {
    let t = plain.get(name);
    if (t === undefined) {
      t = Object.freeze({ name, typmod: -1 });
      plain.set(name, t);
    }
    return t;
  }
  return Object.freeze({ name, typmod });
}

export const T = {
  bool: type('bool'),
  int2: type('int2'),
  int4: type('int4'),
  int8: type('int8'),
  float4: type('float4'),
  float8: type('float8'),
  numeric: type('numeric'),
  text: type('text'),
  varchar: type('varchar'),
  bpchar: type('bpchar'),
  date: type('date'),
  timestamp: type('timestamp'),
  timestamptz: type('timestamptz'),
  interval: type('interval'),
  time: type('time'),
  timetz: type('timetz'),
  json: type('json'),
  oid: type('oid'),
  bytea: type('bytea'),
  bit: type('bit'),
  varbit: type('varbit'),
  point: type('point'),
  money: type('money'),
  name: type('name'),
  _bool: type('_bool'),
  _int2: type('_int2'),
  _int4: type('_int4'),
  _int8: type('_int8'),
  _float4: type('_float4'),
  _float8: type('_float8'),
  _numeric: type('_numeric'),
  _text: type('_text'),
  _varchar: type('_varchar'),
  _bpchar: type('_bpchar'),
  _date: type('_date'),
  _timestamp: type('_timestamp'),
  _timestamptz: type('_timestamptz'),
  _interval: type('_interval'),
  _time: type('_time'),
  _timetz: type('_timetz'),
  _json: type('_json'),
  _oid: type('_oid'),
  _bytea: type('_bytea'),
  _bit: type('_bit'),
  _varbit: type('_varbit'),
  _point: type('_point'),
  _money: type('_money'),
  _name: type('_name'),
  record: type('record'),
  _record: type('_record'),
  unknown: type('unknown'),
} as const;

export type TypeCategory = 'A' | 'B' | 'C' | 'N' | 'S' | 'D' | 'T' | 'U' | 'V' | 'G' | 'P' | 'X';

/** PostgreSQL type categories (pg_type.typcategory), used in operator and function resolution. */
export function category(t: DataType): TypeCategory {
  if (isArrayType(t)) return 'A';
  switch (t.name as ElementTypeName | 'record' | 'unknown') {
    case 'bool':
      return 'B';
    case 'record':
      return t.composite !== undefined ? 'C' : 'P';
    case 'point':
      return 'G';
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float4':
    case 'float8':
    case 'numeric':
    case 'oid':
    case 'money':
      return 'N';
    case 'bit':
    case 'varbit':
      return 'V';
    case 'bytea':
      return 'U';
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'name':
      return 'S';
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
    case 'timetz':
      return 'D';
    case 'interval':
      return 'T';
    case 'json':
      return 'U';
    case 'unknown':
      return 'X';
  }
}

export function isNumericType(t: DataType): boolean {
  return category(t) === 'N';
}
export function isIntegerType(t: DataType): boolean {
  return t.name === 'int2' || t.name === 'int4' || t.name === 'int8';
}
export function isStringType(t: DataType): boolean {
  return category(t) === 'S';
}

/** The SQL spelling PostgreSQL uses in messages and in format_type(). */
export function typeDisplayName(t: DataType): string {
  if (t.name === 'record' && t.composite !== undefined) return t.composite.name;
  if (isArrayType(t)) return `${typeDisplayName(elementType(t))}[]`;
  switch (t.name) {
    case 'bool':
      return 'boolean';
    case 'int2':
      return 'smallint';
    case 'int4':
      return 'integer';
    case 'int8':
      return 'bigint';
    case 'float4':
      return 'real';
    case 'float8':
      return 'double precision';
    case 'numeric':
      return t.typmod >= 0 ? `numeric(${((t.typmod - 4) >> 16) & 0xffff},${(t.typmod - 4) & 0xffff})` : 'numeric';
    case 'varchar':
      return t.typmod >= 0 ? `character varying(${t.typmod - 4})` : 'character varying';
    case 'bpchar':
      return t.typmod >= 0 ? `character(${t.typmod - 4})` : 'character';
    case 'timestamp':
      return 'timestamp without time zone';
    case 'timestamptz':
      return 'timestamp with time zone';
    case 'time':
      return t.typmod >= 0 ? `time(${t.typmod}) without time zone` : 'time without time zone';
    case 'timetz':
      return t.typmod >= 0 ? `time(${t.typmod}) with time zone` : 'time with time zone';
    case 'bit':
      return t.typmod >= 0 ? `bit(${t.typmod})` : 'bit';
    case 'varbit':
      return t.typmod >= 0 ? `bit varying(${t.typmod})` : 'bit varying';
    default:
      return t.name;
  }
}

/** PostgreSQL type OIDs, for the wire protocol and catalog views. */
export const TYPE_OID: Record<TypeName, number> = {
  bool: 16,
  int2: 21,
  int4: 23,
  int8: 20,
  float4: 700,
  float8: 701,
  numeric: 1700,
  text: 25,
  varchar: 1043,
  bpchar: 1042,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  time: 1083,
  timetz: 1266,
  json: 114,
  oid: 26,
  bytea: 17,
  bit: 1560,
  varbit: 1562,
  point: 600,
  _point: 1017,
  money: 790,
  _money: 791,
  name: 19,
  _name: 1003,
  record: 2249,
  _record: 2287,
  unknown: 705,
  _bool: 1000,
  _int2: 1005,
  _int4: 1007,
  _int8: 1016,
  _float4: 1021,
  _float8: 1022,
  _numeric: 1231,
  _text: 1009,
  _varchar: 1015,
  _bpchar: 1014,
  _date: 1182,
  _timestamp: 1115,
  _timestamptz: 1185,
  _interval: 1187,
  _time: 1183,
  _timetz: 1270,
  _json: 199,
  _oid: 1028,
  _bytea: 1001,
  _bit: 1561,
  _varbit: 1563,
};

/** Storage kind of a column of this type (see src/common/column.ts). */
export type StorageKind = 'u8' | 'i32' | 'f64' | 'obj';
export function storageKind(t: DataType): StorageKind {
  switch (t.name) {
    case 'bool':
      return 'u8';
    case 'int2':
    case 'int4':
      return 'i32';
    case 'int8':
    case 'float4':
    case 'float8':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
    case 'oid':
    case 'money':
      return 'f64';
    default:
      return 'obj';
  }
}

export interface Field {
  readonly name: string;
  readonly type: DataType;
  /** Table the column came from (for qualified references and the wire protocol), if any. */
  readonly table?: string;
}

export type Schema = readonly Field[];
