/** Converting JavaScript arguments to engine values of a parameter's inferred type. */
import { Numeric } from '../common/numeric.js';
import { parseValue } from '../common/parse-value.js';
import { castValue } from '../common/cast.js';
import { QuireError, positionOf } from '../common/errors.js';
import { T, type DataType, type Value } from '../common/types.js';
import { Interval } from '../common/interval.js';
import type { Node } from '@pgsql/types';
import { findParamRef, statementParamCount } from '../sql/ast.js';

/**
 * PostgreSQL's parameter count check for one statement run with `supplied` values. With values the
 * statement is bound like an extended-protocol Bind, which must supply exactly the highest $n the
 * statement refers to (08P01); without any it runs like a simple query, where a $n refers to nothing (42P02).
 */
export function checkParamCount(stmt: Node, supplied: number): void {
  const required = statementParamCount(stmt);
  if (required === supplied) return;
  if (supplied > 0 || required === 0) {
    throw new QuireError('08P01', `bind message supplies ${supplied} parameters, but prepared statement "" requires ${required}`);
  }
  let first = 0;
  let location: number | undefined;
  findParamRef(stmt, (n, loc) => {
    first = n;
    location = loc;
    return true;
  });
  throw new QuireError('42P02', `there is no parameter $${first}`, { position: positionOf(location) });
}

/** `dateStyle`: the session's, whose field order reads a date string such as '01/02/2020'. */
export function jsToValue(v: unknown, t: DataType, timezone: string, dateStyle?: string): Value {
  if (v === null || v === undefined) return null;
  const target = t.name === 'unknown' ? T.text : t;
  if (typeof v === 'string') return parseValue(v, target, dateStyle === undefined ? { timezone } : { timezone, dateStyle });
  if (typeof v === 'boolean') {
    if (target.name === 'bool') return v;
    return castValue(v, T.bool, target, { timezone }, true);
  }
  if (typeof v === 'number') {
    if (target.name === 'text' || target.name === 'varchar') return String(v);
    // A client sends the number's text, so 1.5 for an integer is invalid input, not a rounding cast.
    if (target.name === 'int2' || target.name === 'int4' || target.name === 'int8') {
      // An integer within the type's range reads back from its text as itself (-0 as 0): no text is
      // made and parsed for it (a parameter INSERT's id, every commit).
      if (Number.isSafeInteger(v) && (target.name === 'int8' || (target.name === 'int4' ? v >= -2147483648 && v <= 2147483647 : v >= -32768 && v <= 32767))) return v === 0 ? 0 : v;
      return parseValue(String(v), target, { timezone });
    }
    // Every number type's cast to float8 returns a JavaScript number as it is.
    if (target.name === 'float8') return v;
    const from = Number.isInteger(v) ? (Math.abs(v) <= 2147483647 ? T.int4 : Number.isSafeInteger(v) ? T.int8 : T.float8) : T.float8;
    return castValue(v, from, target, { timezone }, true);
  }
  if (typeof v === 'bigint') {
    const norm = v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    return castValue(norm, T.int8, target, { timezone }, true);
  }
  if (v instanceof Date) {
    const micros = v.getTime() * 1000;
    return castValue(micros, T.timestamptz, target, { timezone }, true);
  }
  if (v instanceof Numeric || v instanceof Interval) return v;
  throw new QuireError('22023', `cannot use a JavaScript ${typeof v} as a value of type ${t.name}`);
}

/** Infers a column type from JavaScript values (registerRows). */
export function inferJsType(values: readonly unknown[]): DataType {
  let sawInt = false;
  let sawFloat = false;
  let big = false;
  let huge = false;
  type Kind = 'none' | 'number' | 'string' | 'boolean' | 'bigint' | 'date' | 'mixed';
  let kind = 'none' as Kind;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    let k: Kind;
    if (typeof v === 'number') {
      k = 'number';
      if (Number.isInteger(v)) {
        sawInt = true;
        if (Math.abs(v) > 2147483647) big = true;
        if (Math.abs(v) >= 2 ** 63) huge = true;
      } else sawFloat = true;
    } else if (typeof v === 'string') k = 'string';
    else if (typeof v === 'boolean') k = 'boolean';
    else if (typeof v === 'bigint') {
      k = 'bigint';
      if (v >= 2n ** 63n || v < -(2n ** 63n)) huge = true;
    } else if (v instanceof Date) k = 'date';
    else k = 'mixed';
    if (kind === 'none') kind = k;
    else if (kind !== k) {
      if ((kind === 'number' && k === 'bigint') || (kind === 'bigint' && k === 'number')) kind = 'bigint';
      else kind = 'mixed';
    }
  }
  switch (kind) {
    case 'number':
      return sawFloat || huge ? T.float8 : big ? T.int8 : sawInt ? T.int4 : T.float8;
    case 'bigint':
      // Fractions or integers beyond int8 among bigints: only numeric holds every value exactly.
      return sawFloat || huge ? T.numeric : T.int8;
    case 'boolean':
      return T.bool;
    case 'date':
      return T.timestamptz;
    default:
      return T.text;
  }
}
