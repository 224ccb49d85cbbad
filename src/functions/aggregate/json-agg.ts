/**
 * json_agg(value) → json: the values as a JSON array, NULLs included as null ('[1, null, 3]', elements
 * separated by ', ' as PostgreSQL writes them); NULL when there were no rows. Each value is written as
 * PostgreSQL's to_json writes it: numbers bare (NaN and infinities quoted), booleans bare, json as it is,
 * dates and timestamps in ISO 8601 with a 'T', everything else as a JSON string of its text form.
 */
import { formatValue } from '../../common/format-value.js';
import { QuireError } from '../../common/errors.js';
import { elementType, isArrayType, T, type ArrayValue, type DataType, type Value } from '../../common/types.js';
import { getValue, type Column } from '../../common/column.js';
import type { RecordValue } from '../../common/record-value.js';
import type { AggregateFunction, GroupedAccumulator, ResolvedAggregate, SlidingAccumulator } from './aggregate-function.js';
import { growArr } from './support.js';

/** One value as a JSON element (PostgreSQL's datum_to_json for the types Quire has). */
export function jsonElement(v: Value, t: DataType, timezone: string): string {
  if (v === null) return 'null';
  if (isArrayType(t)) {
    const et = elementType(t);
    return `[${(v as ArrayValue).map((e) => jsonElement(e, et, timezone)).join(',')}]`;
  }
  switch (t.name) {
    case 'record': {
      // PostgreSQL writes an object keyed by the row type's field names, which anonymous records
      // (ROW(…), a whole-row reference) do not carry here; named composites and Parquet groups do.
      const c = t.composite;
      if (c === undefined) throw new QuireError('0A000', 'JSON output of record values is not supported');
      const fields = (v as RecordValue).fields;
      return `{${c.fields.map((f, i) => `${JSON.stringify(f.name)}:${jsonElement(fields[i] ?? null, f.type, timezone)}`).join(',')}}`;
    }
    case 'bool':
      return v ? 'true' : 'false';
    case 'int2':
    case 'int4':
    case 'int8':
      return String(v);
    case 'float4':
    case 'float8':
    case 'numeric': {
      const s = formatValue(v, t)!;
      return /^-?(NaN|Infinity)$/.test(s) ? JSON.stringify(s) : s;
    }
    case 'json':
      return v as string;
    case 'date':
    case 'timestamp':
    case 'timestamptz': {
      const s = formatValue(v, t, { timezone })!;
      if (s === 'infinity' || s === '-infinity') return JSON.stringify(s);
      return JSON.stringify(isoJson(s, t.name));
    }
    default:
      return JSON.stringify(formatValue(v, t, { timezone }));
  }
}

/** PostgreSQL's ISO output made ISO 8601 as its JSON conversion does: 'T' between date and time, '+hh:mm' zones. */
function isoJson(s: string, name: string): string {
  if (name === 'date') return s;
  const bc = s.endsWith(' BC');
  let body = (bc ? s.slice(0, -3) : s).replace(' ', 'T');
  if (name === 'timestamptz') body = body.replace(/([+-]\d\d)(?::?(\d\d))?(?::(\d\d))?$/, (_m, h: string, m?: string, sec?: string) => `${h}:${m ?? '00'}${sec ? ':' + sec : ''}`);
  return bc ? body + ' BC' : body;
}

/** PostgreSQL puts a line break before every structured (array or composite) item but the first. */
function aggItem(v: Value, t: DataType, timezone: string): string {
  const s = jsonElement(v, t, timezone);
  return v !== null && (isArrayType(t) || t.composite !== undefined) ? '\n ' + s : s;
}

function arrayText(elems: readonly string[]): string {
  const first = elems[0]!;
  return '[' + (first.startsWith('\n ') ? [first.slice(2), ...elems.slice(1)] : elems).join(', ') + ']';
}

class GroupedJsonAgg implements GroupedAccumulator {
  private readonly acc: (string[] | null)[] = [];
  constructor(
    private readonly t: DataType,
    private readonly timezone: string,
  ) {}
  grow(groups: number): void {
    growArr(this.acc, groups, null);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0) continue;
      (this.acc[g] ??= []).push(aggItem(getValue(c, k), this.t, this.timezone));
    }
  }
  result(g: number): Value {
    const a = this.acc[g];
    return a === null || a === undefined ? null : arrayText(a);
  }
}

class SlidingJsonAgg implements SlidingAccumulator {
  elems: string[] = [];
  constructor(
    private readonly t: DataType,
    private readonly timezone: string,
  ) {}
  add(args: readonly Value[]): void {
    this.elems.push(aggItem(args[0]!, this.t, this.timezone));
  }
  merge(other: SlidingAccumulator): void {
    for (const e of (other as SlidingJsonAgg).elems) this.elems.push(e);
  }
  value(): Value {
    return this.elems.length === 0 ? null : arrayText(this.elems);
  }
  reset(): void {
    this.elems = [];
  }
}

export const jsonAgg: AggregateFunction = {
  name: 'json_agg',
  resolve(argTypes: readonly DataType[]): ResolvedAggregate | null {
    if (argTypes.length !== 1) return null;
    let t = argTypes[0]!.name === 'unknown' ? T.text : argTypes[0]!;
    // to_json writes timestamptz in the session zone, which accumulators are not given: the binder
    // applies to_json to each value first and the aggregate collects json.
    const zoned = t.name === 'timestamptz' || t.name === '_timestamptz';
    if (zoned) t = T.json;
    return {
      ...(zoned ? { wrapArgs: ['to_json'] } : {}),
      name: 'json_agg',
      returnType: T.json,
      argTypes: [t],
      invertible: false,
      retainsInput: true,
      grouped: () => new GroupedJsonAgg(t, 'UTC'),
      sliding: () => new SlidingJsonAgg(t, 'UTC'),
    };
  },
};
