/**
 * Ordering, equality and hash keys of non-null values with PostgreSQL's btree semantics
 * (C collation for strings).
 */
import { elementType, isArrayType, type ArrayValue, type DataType, type Value } from './types.js';
import { Numeric } from './numeric.js';
import { Interval } from './interval.js';
import type { TimeTz } from './time-of-day.js';
import type { Point } from './point.js';
import { QuireError } from './errors.js';
import { compareRecords, recordHashKey, type RecordValue } from './record-value.js';
import { arrayHashKey, compareArrays } from './array-value.js';

/** Float order: NaN above everything and equal to itself; -0 = 0. */
export function compareFloat(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  return an === bn ? 0 : an ? 1 : -1;
}

/** int8 values may be number or bigint (outside the safe range). */
export function compareInt8(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  // number vs bigint comparison is exact in JavaScript.
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Code point order. UTF-16 unit order agrees with it except where a surrogate (an astral
 * character) meets a BMP character at or above U+E000, so only that case is corrected.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  const xs = x >= 0xd800 && x <= 0xdfff;
  const ys = y >= 0xd800 && y <= 0xdfff;
  if (xs !== ys) {
    if (xs && y >= 0xe000) return 1;
    if (ys && x >= 0xe000) return -1;
  }
  return x < y ? -1 : 1;
}

/** bpchar compares without its trailing spaces. */
function rtrimSpaces(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 32) e--;
  return e === s.length ? s : s.slice(0, e);
}

export function compareValues(a: Value, b: Value, t: DataType): number {
  if (isArrayType(t)) {
    const et = elementType(t);
    return compareArrays(a as ArrayValue, b as ArrayValue, (x, y) => compareValues(x, y, et));
  }
  switch (t.name) {
    case 'point':
      // Reached only through a record's fields: the binder refuses ordering points directly.
      throw new QuireError('42883', 'could not identify a comparison function for type point');
    case 'record':
      return compareRecords(a as RecordValue, b as RecordValue, compareValues);
    case 'bool':
      return a === b ? 0 : a ? 1 : -1;
    case 'int2':
    case 'int4':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
    case 'oid': {
      const x = a as number;
      const y = b as number;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'int8':
    case 'money':
      return compareInt8(a as number | bigint, b as number | bigint);
    case 'float4':
    case 'float8':
      return compareFloat(a as number, b as number);
    case 'numeric':
      return (a as Numeric).cmp(b as Numeric);
    case 'interval':
      return (a as Interval).compare(b as Interval);
    case 'timetz':
      return (a as TimeTz).compare(b as TimeTz);
    case 'bpchar':
      return compareStrings(rtrimSpaces(a as string), rtrimSpaces(b as string));
    case 'text':
    case 'varchar':
    // name compares as strcmp would (namecmp uses the C collation): code point order, as text here.
    case 'name':
    case 'unknown':
    // json has no ordering in SQL (the binder refuses it); internal uses see its text.
    case 'json':
    case 'bytea':
    case 'bit':
    case 'varbit':
      return compareStrings(a as string, b as string);
    default:
      throw new Error(`no ordering for type ${t.name}`);
  }
}

export function equalValues(a: Value, b: Value, t: DataType): boolean {
  switch (t.name) {
    case 'bool':
    case 'int2':
    case 'int4':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
    case 'text':
    case 'varchar':
    case 'name':
    case 'unknown':
    case 'oid':
    case 'bytea':
    case 'bit':
    case 'varbit':
      return a === b;
    case 'int8':
    case 'money':
      // eslint-style loose equality is exactly what mixing number and bigint needs.
      return typeof a === typeof b ? a === b : a == b;
    case 'float4':
    case 'float8':
      return a === b || (Number.isNaN(a as number) && Number.isNaN(b as number));
    default:
      return compareValues(a, b, t) === 0;
  }
}

/** Canonical text of a numeric's value (1.0 and 1.00 alike). */
function numericKey(n: Numeric): string {
  if (!n.isFinite()) return n.toString();
  if (n.coef === 0n) return '0';
  let c = n.coef;
  let s = n.scale;
  while (s > 0 && c % 10n === 0n) {
    c /= 10n;
    s--;
  }
  return s === 0 ? c.toString() : `${c}e-${s}`;
}

/**
 * A Map key such that values equal under PostgreSQL equality get the same key
 * (Map's SameValueZero already makes NaN = NaN and -0 = 0).
 */
export function hashKey(v: Value, t: DataType): number | bigint | string | boolean {
  if (isArrayType(t)) {
    const et = elementType(t);
    return arrayHashKey(v as ArrayValue, (x) => hashKey(x, et));
  }
  switch (t.name) {
    case 'point':
      return (v as Point).hashKey();
    case 'record':
      return recordHashKey(v as RecordValue, hashKey);
    case 'int8':
    case 'money':
      if (typeof v === 'bigint') {
        return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
      }
      return v as number;
    case 'float4':
    case 'float8':
      return (v as number) === 0 ? 0 : (v as number);
    case 'numeric':
      return numericKey(v as Numeric);
    case 'interval':
      return (v as Interval).hashKey();
    case 'timetz':
      return (v as TimeTz).hashKey();
    case 'bpchar':
      return rtrimSpaces(v as string);
    default:
      return v as number | string | boolean;
  }
}

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

/**
 * Three-valued `v op ANY/ALL (list)` (IN lists, = ANY (subquery), text[] arrays): an empty list gives
 * false (ANY) / true (ALL) even for a null v; otherwise a null v, or a null element that could decide
 * the answer, makes it null.
 */
export function quantifiedCompare(v: Value, list: readonly Value[], t: DataType, op: string, all: boolean): boolean | null {
  if (list.length === 0) return all;
  if (v === null) return null;
  let sawNull = false;
  for (const x of list) {
    if (x === null) {
      sawNull = true;
      continue;
    }
    const c = compareValues(v, x, t);
    const r = op === '=' ? c === 0 : op === '<>' ? c !== 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
    if (all && !r) return false;
    if (!all && r) return true;
  }
  return sawNull ? null : all;
}
