/** Converting JavaScript arguments to engine values of a parameter's inferred type. */
import { Numeric } from '../common/numeric.js';
import { parseValue } from '../common/parse-value.js';
import { castValue } from '../common/cast.js';
import { QuireError } from '../common/errors.js';
import { T, type DataType, type Value } from '../common/types.js';
import { Interval } from '../common/interval.js';

export function jsToValue(v: unknown, t: DataType, timezone: string): Value {
  if (v === null || v === undefined) return null;
  const target = t.name === 'unknown' ? T.text : t;
  if (typeof v === 'string') return parseValue(v, target, { timezone });
  if (typeof v === 'boolean') {
    if (target.name === 'bool') return v;
    return castValue(v, T.bool, target, { timezone }, true);
  }
  if (typeof v === 'number') {
    if (target.name === 'text' || target.name === 'varchar') return String(v);
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
      } else sawFloat = true;
    } else if (typeof v === 'string') k = 'string';
    else if (typeof v === 'boolean') k = 'boolean';
    else if (typeof v === 'bigint') k = 'bigint';
    else if (v instanceof Date) k = 'date';
    else k = 'mixed';
    if (kind === 'none') kind = k;
    else if (kind !== k) {
      if ((kind === 'number' && k === 'bigint') || (kind === 'bigint' && k === 'number')) kind = 'bigint';
      else kind = 'mixed';
    }
  }
  switch (kind) {
    case 'number':
      return sawFloat ? T.float8 : big ? T.int8 : sawInt ? T.int4 : T.float8;
    case 'bigint':
      return T.int8;
    case 'boolean':
      return T.bool;
    case 'date':
      return T.timestamptz;
    default:
      return T.text;
  }
}
