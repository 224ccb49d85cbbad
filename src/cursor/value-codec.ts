/**
 * JSON-safe encoding of engine values (cursor key tuples) and of caller parameters, exact enough
 * that a decoded key compares equal to the value it came from: a key that drifted by one ulp or one
 * digit would make the seek predicate skip or repeat a row. Plain JSON carries null, booleans,
 * strings and finite numbers; everything else is a one-key tagged object.
 */
import { Interval } from '../common/interval.js';
import { TimeTz } from '../common/time-of-day.js';
import { normMicros } from '../common/datetime-calendar.js';
import { Numeric } from '../common/numeric.js';
import type { Value } from '../common/types.js';
import { PagingError } from './errors.js';

export type Encoded = null | boolean | number | string | { [tag: string]: string | number[] | Encoded[] };

export function encodeValue(v: unknown): Encoded {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      // -0 must survive too: it is a distinct float8 value even though it compares equal to 0.
      if (Number.isFinite(v) && !Object.is(v, -0)) return v;
      return { f: Object.is(v, -0) ? '-0' : String(v) };
    case 'bigint':
      return { b: v.toString() };
    default:
      break;
  }
  if (v instanceof Numeric) return { n: v.toString() };
  // A time field beyond 2^53 µs travels as its digits (tag 'j').
  if (v instanceof Interval) return typeof v.micros === 'bigint' ? { j: [String(v.months), String(v.days), v.micros.toString()] } : { i: [v.months, v.days, v.micros] };
  if (v instanceof TimeTz) return { z: [v.micros, v.offset] };
  if (v instanceof Date) return { d: v.toISOString() };
  if (Array.isArray(v)) return { a: v.map(encodeValue) };
  throw new PagingError('InvalidArgument', `cannot carry a parameter of type ${Object.prototype.toString.call(v)} in a cursor`);
}

export function decodeValue(e: unknown): Value | Date | unknown[] {
  if (e === null || typeof e === 'boolean' || typeof e === 'string' || typeof e === 'number') return e;
  if (typeof e !== 'object' || Array.isArray(e)) throw bad();
  const o = e as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length !== 1) throw bad();
  const x = o[keys[0]!];
  switch (keys[0]) {
    case 'f':
      if (x === '-0') return -0;
      if (x === 'NaN') return NaN;
      if (x === 'Infinity') return Infinity;
      if (x === '-Infinity') return -Infinity;
      throw bad();
    case 'b':
      if (typeof x !== 'string' || !/^-?\d+$/.test(x)) throw bad();
      return BigInt(x);
    case 'n':
      if (typeof x !== 'string') throw bad();
      return Numeric.parse(x);
    case 'z':
      if (!Array.isArray(x) || x.length !== 2 || !x.every((n) => Number.isSafeInteger(n))) throw bad();
      return new TimeTz(x[0] as number, x[1] as number);
    case 'i':
      if (!Array.isArray(x) || x.length !== 3 || !x.every((n) => typeof n === 'number')) throw bad();
      return new Interval(x[0] as number, x[1] as number, x[2] as number);
    case 'j': {
      if (!Array.isArray(x) || x.length !== 3 || !x.every((n) => typeof n === 'string' && /^-?\d+$/.test(n))) throw bad();
      const [m, d, us] = x as string[];
      return new Interval(Number(m), Number(d), normMicros(BigInt(us!)));
    }
    case 'd':
      if (typeof x !== 'string') throw bad();
      return new Date(x);
    case 'a':
      if (!Array.isArray(x)) throw bad();
      return x.map(decodeValue);
    default:
      throw bad();
  }
}

function bad(): PagingError {
  return new PagingError('CursorInvalid', 'invalid cursor: malformed value');
}
