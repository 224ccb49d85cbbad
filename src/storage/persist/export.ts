/**
 * COPY … TO 'file' (FORMAT parquet | json): result batches as a Parquet file (hyparquet-writer) or as
 * newline-delimited JSON. Both stream: Parquet writes one row group per ~128K rows as batches
 * arrive, JSON one line per row.
 *
 * Parquet types: bool → BOOLEAN, int2 → INT32 (INT_16), int4 → INT32, int8 → INT64, float4 → FLOAT, float8 → DOUBLE,
 * date → INT32 DATE, timestamp / timestamptz → INT64 TIMESTAMP(MICROS, adjusted to UTC for
 * timestamptz), text types → UTF8; numeric and interval → UTF8 of their text form (exact, and
 * every reader can cast it back); arrays → LIST of their element, records whose type names their
 * fields → a group (other records → UTF8 of their text form). Every column is OPTIONAL.
 *
 * JSON: numbers and booleans as JSON values (int8 beyond 2^53 and numeric as JSON numbers written
 * from their exact text), arrays as JSON arrays, records whose type names their fields as objects,
 * NaN/Infinity and everything else as strings in PostgreSQL's text form.
 */
import * as fs from 'node:fs';
import type { SchemaElement } from 'hyparquet';
import { lazyModule } from '../../common/lazy-module.js';
import { QuireError } from '../../common/errors.js';
import { formatValue } from '../../common/format-value.js';
import { elementType, isArrayType, type ArrayValue, type DataType, type Field, type Value } from '../../common/types.js';
import { getValue, type Batch } from '../../common/column.js';
import type { RecordValue } from '../../common/record-value.js';

/**
 * The schema elements of one column, depth first: an array as a three-level LIST of its element, a
 * record whose type names its fields (a composite type, a Parquet or Arrow group) as a group of them;
 * anything else as one leaf.
 */
function schemaElements(name: string, t: DataType): SchemaElement[] {
  if (isArrayType(t)) {
    return [
      { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      ...schemaElements('element', elementType(t)),
    ];
  }
  const c = t.name === 'record' ? t.composite : undefined;
  if (c !== undefined && c.fields.length > 0) {
    return [{ name, repetition_type: 'OPTIONAL', num_children: c.fields.length }, ...c.fields.flatMap((f) => schemaElements(f.name, f.type))];
  }
  return [schemaElement({ name, type: t })];
}

function schemaElement(f: Field): SchemaElement {
  const base = { name: f.name, repetition_type: 'OPTIONAL' as const };
  switch (f.type.name) {
    case 'bool':
      return { ...base, type: 'BOOLEAN' };
    case 'int2':
      return { ...base, type: 'INT32', converted_type: 'INT_16' };
    case 'int4':
      return { ...base, type: 'INT32' };
    case 'int8':
      return { ...base, type: 'INT64' };
    case 'float4':
      return { ...base, type: 'FLOAT' };
    case 'float8':
      return { ...base, type: 'DOUBLE' };
    case 'date':
      return { ...base, type: 'INT32', converted_type: 'DATE' };
    case 'timestamp':
    case 'timestamptz':
      return {
        ...base,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MICROS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: f.type.name === 'timestamptz', unit: 'MICROS' },
      };
    default:
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
  }
}

function parquetValue(v: Value, t: DataType, tz: string): unknown {
  if (v === null) return null;
  if (isArrayType(t)) {
    const et = elementType(t);
    return (v as ArrayValue).map((e) => parquetValue(e, et, tz));
  }
  const c = t.name === 'record' ? t.composite : undefined;
  if (c !== undefined && c.fields.length > 0) {
    const fields = (v as RecordValue).fields;
    const o: Record<string, unknown> = {};
    c.fields.forEach((f, i) => (o[f.name] = parquetValue(fields[i] ?? null, f.type, tz)));
    return o;
  }
  switch (t.name) {
    case 'int8':
      return typeof v === 'bigint' ? v : BigInt(v as number);
    case 'timestamp':
    case 'timestamptz': {
      if (typeof v === 'number' && !Number.isFinite(v)) return v > 0 ? 9223372036854775807n : -9223372036854775808n;
      // Parquet counts from 1970 in an int64; the last 29 years of PostgreSQL's range (it counts from 2000) do not fit.
      const b = BigInt(v as number | bigint);
      if (b >= 9223372036854775807n || b <= -9223372036854775808n) {
        throw new QuireError('22008', `timestamp out of range for Parquet: "${formatValue(v, t, { timezone: tz })}"`);
      }
      return b;
    }
    case 'bool':
    case 'int2':
    case 'int4':
    case 'float4':
    case 'float8':
    case 'date':
      return v;
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'name':
      return v;
    default:
      return formatValue(v, t, { timezone: tz });
  }
}

const ROW_GROUP = 131072;

/** Loaded by the first COPY … TO parquet: the writer costs ~14 MB of resident memory most sessions never use. */
const parquetWriter = lazyModule<typeof import('hyparquet-writer')>('hyparquet-writer');

export async function writeParquetFile(file: string, fields: readonly Field[], batches: AsyncIterable<Batch> | Iterable<Batch>, timezone: string): Promise<number> {
  const schema: SchemaElement[] = [{ name: 'root', num_children: fields.length }, ...fields.flatMap((f) => schemaElements(f.name, f.type))];
  const { ParquetWriter, fileWriter } = parquetWriter();
  const writer = new ParquetWriter({ writer: fileWriter(file), schema: schema as never, createdBy: 'quire' });
  let cols: unknown[][] = fields.map(() => []);
  let pending = 0;
  let total = 0;
  const flush = (): void => {
    if (pending === 0) return;
    void writer.write({ columnData: fields.map((f, i) => ({ name: f.name, data: cols[i]! as never })), rowGroupSize: pending });
    cols = fields.map(() => []);
    pending = 0;
  };
  for await (const b of batches) {
    for (let c = 0; c < fields.length; c++) {
      const col = b.columns[c]!;
      const t = fields[c]!.type;
      const out = cols[c]!;
      for (let i = 0; i < b.length; i++) out.push(parquetValue(getValue(col, i), t, timezone));
    }
    pending += b.length;
    total += b.length;
    if (pending >= ROW_GROUP) flush();
  }
  flush();
  writer.finish();
  return total;
}

function jsonValue(v: Value, t: DataType, tz: string): string {
  if (v === null) return 'null';
  if (isArrayType(t)) {
    const et = elementType(t);
    return `[${(v as ArrayValue).map((e) => jsonValue(e, et, tz)).join(',')}]`;
  }
  const c = t.name === 'record' ? t.composite : undefined;
  if (c !== undefined && c.fields.length > 0) {
    const fields = (v as RecordValue).fields;
    return `{${c.fields.map((f, i) => `${JSON.stringify(f.name)}:${jsonValue(fields[i] ?? null, f.type, tz)}`).join(',')}}`;
  }
  switch (t.name) {
    case 'bool':
      return v ? 'true' : 'false';
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float4':
    case 'float8':
    case 'numeric': {
      const s = formatValue(v, t, { timezone: tz })!;
      return /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(s) ? s : JSON.stringify(s);
    }
    default:
      return JSON.stringify(formatValue(v, t, { timezone: tz }));
  }
}

export async function* encodeJsonLines(fields: readonly Field[], batches: AsyncIterable<Batch> | Iterable<Batch>, timezone: string): AsyncGenerator<string> {
  const keys = fields.map((f) => JSON.stringify(f.name) + ':');
  for await (const b of batches) {
    const lines: string[] = [];
    for (let i = 0; i < b.length; i++) {
      let s = '{';
      for (let c = 0; c < fields.length; c++) {
        if (c > 0) s += ',';
        s += keys[c]! + jsonValue(getValue(b.columns[c]!, i), fields[c]!.type, timezone);
      }
      lines.push(s + '}\n');
    }
    yield lines.join('');
  }
}

export async function writeJsonFile(file: string, fields: readonly Field[], batches: AsyncIterable<Batch> | Iterable<Batch>, timezone: string): Promise<void> {
  const fd = fs.openSync(file, 'w');
  try {
    for await (const chunk of encodeJsonLines(fields, batches, timezone)) fs.writeSync(fd, chunk);
  } finally {
    fs.closeSync(fd);
  }
}
