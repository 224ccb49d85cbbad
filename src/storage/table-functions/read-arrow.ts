/**
 * read_arrow(path): Arrow IPC files (the random-access "file" format, .arrow/.feather v2) and Arrow
 * IPC streams (.arrows), through apache-arrow. `path` may be a glob (first file's schema; columns
 * are matched by name).
 *
 * Streaming: record batches are read one at a time from a file handle, and only the projected
 * columns are converted. The schema is read at bind time without reading the data: from the
 * footer for the file format, from the leading schema message for streams.
 *
 * Types: Bool, Int8/16 → int2, Int32/Uint16 → int4, other ints → int8, Float16/32 → float4,
 * Float64 → float8, Utf8/LargeUtf8 (also dictionary-encoded) → text, Date → date,
 * Timestamp → timestamp (timestamptz with a time zone; microsecond precision kept), Decimal → numeric;
 * List → array, Struct → record, Map and lists of lists → their JSON text.
 */
import { closeSync, fstatSync, openSync, readSync, promises as fsp } from 'node:fs';
import type { RecordBatch, Schema as ArrowSchema, DataType as ArrowType, Vector } from 'apache-arrow';
import { lazyModule } from '../../common/lazy-module.js';
import { filesToRead } from '../file-access.js';
import { QuireError } from '../../common/errors.js';
import { parseValue } from '../../common/parse-value.js';
import { arrayTypeOf, fieldRecordType, T, type DataType, type Field, type Value } from '../../common/types.js';
import { RecordValue } from '../../common/record-value.js';
import { nestedJson } from './nested-json.js';
import { BATCH_SIZE, ColumnBuilder, makeColumn, type Batch, type Column } from '../../common/column.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { fileOpenError } from '../csv.js';
import { reportProgress } from '../progress.js';
import { normMicros, type Micros } from '../../common/datetime-calendar.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

const arrow = lazyModule<typeof import('apache-arrow')>('apache-arrow');

// apache-arrow's Type enum values (stable across versions).
const TYPE = { Dictionary: -1, Int: 2, Float: 3, Utf8: 5, Bool: 6, Decimal: 7, Date: 8, Timestamp: 10, List: 12, Struct: 13, FixedSizeList: 16, Map: 17, LargeUtf8: 20, LargeList: 21 } as const;

function valueType(t: ArrowType): ArrowType {
  return t.typeId === TYPE.Dictionary ? (t as unknown as { dictionary: ArrowType }).dictionary : t;
}

export function arrowToQuireType(t0: ArrowType): DataType {
  return nestedOf(t0)?.type ?? primitiveType(t0);
}

function primitiveType(t0: ArrowType): DataType {
  const t = valueType(t0);
  const x = t as unknown as { bitWidth?: number; isSigned?: boolean; precision?: number; timezone?: string | null };
  switch (t.typeId) {
    case TYPE.Bool:
      return T.bool;
    case TYPE.Int:
      if (x.bitWidth! <= 16 && (x.isSigned || x.bitWidth === 8)) return T.int2;
      if (x.bitWidth! <= 32 && (x.isSigned || x.bitWidth === 16)) return T.int4;
      return T.int8;
    case TYPE.Float:
      return x.precision === 2 ? T.float8 : T.float4;
    case TYPE.Utf8:
    case TYPE.LargeUtf8:
      return T.text;
    case TYPE.Date:
      return T.date;
    case TYPE.Timestamp:
      return x.timezone ? T.timestamptz : T.timestamp;
    case TYPE.Decimal:
      return T.numeric;
    default:
      throw new QuireError('0A000', `Arrow type ${String(t0)} is not supported`);
  }
}

/** Microseconds per unit of Arrow's TimeUnit (SECOND, MILLISECOND, MICROSECOND, NANOSECOND). */
const UNIT_MICROS = [1_000_000, 1000, 1, 0.001];

/** A raw Arrow timestamp in unit (0 s, 1 ms, 2 µs, 3 ns) as exact microseconds; nanoseconds round down. */
function arrowMicros(raw: bigint, unit: number): Micros {
  if (unit === 3) {
    const q = raw / 1000n;
    return normMicros(raw < 0n && q * 1000n !== raw ? q - 1n : q);
  }
  return normMicros(raw * BigInt(UNIT_MICROS[unit]!));
}

/**
 * Nested Arrow types, as read_parquet maps Parquet's: a List (also LargeList, FixedSizeList) as an
 * array of its element's type, a Struct as a record with the field names (one type per shape, shared
 * with Parquet groups of the same shape), a Map and a list of lists as their JSON text. Values are
 * read by position from the vectors, so timestamps inside keep their microseconds.
 */
interface NestedArrow {
  readonly type: DataType;
  /** Row i of vec (a vector of this type) as a Quire value. */
  at(vec: Vector, i: number): Value;
}

const nestedTypes = new WeakMap<ArrowType, NestedArrow | null>();

function nestedOf(t: ArrowType): NestedArrow | null {
  let m = nestedTypes.get(t);
  if (m === undefined) nestedTypes.set(t, (m = nestedMapping(t)));
  return m;
}

const ARROW_JSON: NestedArrow = {
  type: T.text,
  at: (vec, i) => {
    if (!vec.isValid(i)) return null;
    const v = vec.get(i) as { toJSON?: () => unknown } | null;
    return nestedJson(v !== null && typeof v.toJSON === 'function' ? v.toJSON() : v);
  },
};

function nestedMapping(t: ArrowType): NestedArrow | null {
  const children = (t as unknown as { children?: readonly { name: string; type: ArrowType }[] }).children ?? [];
  switch (t.typeId) {
    case TYPE.List:
    case TYPE.LargeList:
    case TYPE.FixedSizeList: {
      const inner = element(children[0]!.type);
      const at = arrayTypeOf(inner.type);
      // A list of lists: arrayTypeOf has no array of arrays (one dimension).
      if (at === null || inner === ARROW_JSON) return ARROW_JSON;
      return {
        type: at,
        at: (vec, i) => {
          if (!vec.isValid(i)) return null;
          const sub = vec.get(i) as Vector;
          const out = new Array<Value>(sub.length);
          for (let j = 0; j < sub.length; j++) out[j] = inner.at(sub, j);
          return out;
        },
      };
    }
    case TYPE.Struct: {
      const parts = children.map((c) => element(c.type));
      const types = parts.map((p) => p.type);
      const childVectors = new WeakMap<Vector, Vector[]>();
      return {
        type: fieldRecordType(children.map((c, k) => ({ name: c.name, type: types[k]! }))),
        at: (vec, i) => {
          if (!vec.isValid(i)) return null;
          let kids = childVectors.get(vec);
          if (kids === undefined) childVectors.set(vec, (kids = parts.map((_, k) => vec.getChildAt(k)!)));
          const fields = new Array<Value>(parts.length);
          for (let k = 0; k < parts.length; k++) fields[k] = parts[k]!.at(kids[k]!, i);
          return new RecordValue(fields, types);
        },
      };
    }
    case TYPE.Map:
      return ARROW_JSON;
    default:
      return null;
  }
}

/** A value inside a nested type: nested itself, or a primitive read by position. */
function element(t: ArrowType): NestedArrow {
  const nested = nestedOf(t);
  if (nested !== null) return nested;
  const type = primitiveType(t);
  const vt = valueType(t) as unknown as { unit?: number; scale?: number; bitWidth?: number };
  if (t.typeId === TYPE.Timestamp) {
    // get() gives milliseconds inside nested vectors: read the raw 64-bit value in the column's unit.
    return { type, at: (vec, i) => (vec.isValid(i) ? arrowMicros(rawInt64(vec, i), vt.unit ?? 1) : null) };
  }
  return { type, at: (vec, i) => (vec.isValid(i) ? convertArrowValue(vec.get(i), type, vt) : null) };
}

function rawInt64(vec: Vector, i: number): bigint {
  let base = 0;
  for (const chunk of vec.data) {
    // A sliced chunk's values start at its first row already (its offset counts for the null bitmap only), as apache-arrow's get() reads them.
    if (i < base + chunk.length) return (chunk.values as unknown as BigInt64Array)[i - base]!;
    base += chunk.length;
  }
  throw new RangeError(`row ${i} is past the vector's end`);
}

const utf8KeepingBom = new TextDecoder('utf-8', { ignoreBOM: true });

/** One Arrow vector's rows [from, to) as a column of `type` (read_arrow and Database.registerArrow share it). */
export function convertVector(vec: Vector, type: DataType, arrowType: ArrowType, from: number, to: number): Column {
  const nested = nestedOf(arrowType);
  if (nested !== null) {
    const nb = new ColumnBuilder(type, to - from);
    for (let i = from; i < to; i++) nb.push(nested.at(vec, i));
    return nb.finish();
  }
  const n = to - from;
  const arr = vec.nullCount === 0 ? (vec.toArray() as unknown) : null;
  if (arr instanceof Int32Array && type.name === 'int4') return makeColumn(type, arr.subarray(from, to), null);
  if (arr instanceof Float64Array && type.name === 'float8') return makeColumn(type, arr.subarray(from, to), null);
  const b = new ColumnBuilder(type, n);
  const vt = valueType(arrowType) as unknown as { unit?: number; scale?: number; bitWidth?: number };
  if ((type.name === 'timestamp' || type.name === 'timestamptz') && arrowType.typeId === TYPE.Timestamp) {
    // vec.get() rounds timestamps to milliseconds: read the raw 64-bit values in the column's unit.
    const unit = vt.unit ?? 1;
    let base = 0;
    for (const chunk of vec.data) {
      const raw = chunk.values as unknown as BigInt64Array;
      for (let j = Math.max(0, from - base); j < chunk.length && base + j < to; j++) {
        // values start at the chunk's first row (a slice's offset counts for its null bitmap only).
        b.push(vec.isValid(base + j) ? arrowMicros(raw[j]!, unit) : null);
      }
      base += chunk.length;
    }
    return b.finish();
  }
  if (type.name === 'text' && (arrowType.typeId === TYPE.Utf8 || arrowType.typeId === TYPE.LargeUtf8)) {
    // Decoded here, not by vec.get(): apache-arrow's decoder drops a leading U+FEFF from each value,
    // which is data. Offsets, like values, start at the chunk's first row.
    let base = 0;
    for (const chunk of vec.data) {
      const offsets = chunk.valueOffsets as Int32Array | BigInt64Array;
      const bytes = chunk.values as Uint8Array;
      for (let j = Math.max(0, from - base); j < chunk.length && base + j < to; j++) {
        b.push(vec.isValid(base + j) ? utf8KeepingBom.decode(bytes.subarray(Number(offsets[j]), Number(offsets[j + 1]))) : null);
      }
      base += chunk.length;
    }
    return b.finish();
  }
  for (let i = from; i < to; i++) {
    if (!vec.isValid(i)) {
      b.push(null);
      continue;
    }
    const v = vec.get(i) as unknown;
    b.push(convertArrowValue(v, type, vt));
  }
  return b.finish();
}

function convertArrowValue(v: unknown, type: DataType, vt: { unit?: number; scale?: number; bitWidth?: number }): Value {
  if (v === null || v === undefined) return null;
  switch (type.name) {
    case 'bool':
      return Boolean(v);
    case 'int2':
    case 'int4':
      return Number(v);
    case 'int8': {
      const b = typeof v === 'bigint' ? v : BigInt(v as number);
      return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
    }
    case 'float4':
      return Math.fround(Number(v));
    case 'float8':
      return Number(v);
    case 'date':
      return Math.floor((v instanceof Date ? v.getTime() : Number(v)) / 86_400_000);
    case 'timestamp':
    case 'timestamptz':
      // apache-arrow 21 returns the raw value in the column's unit as a bigint (older builds: ms numbers).
      if (typeof v === 'bigint') return arrowMicros(v, vt.unit ?? 1);
      return (v instanceof Date ? v.getTime() : Number(v)) * 1000;
    case 'numeric': {
      // Decimal values come as their unscaled integer words; String() gives the unscaled digits, but
      // apache-arrow prints 32- and 64-bit decimals unsigned: negative ones are read back in two's complement.
      let s = String(v);
      const bits = vt.bitWidth ?? 128;
      if (bits < 128 && /^\d+$/.test(s) && BigInt(s) >= 1n << BigInt(bits - 1)) s = String(BigInt(s) - (1n << BigInt(bits)));
      const scale = vt.scale ?? 0;
      if (scale === 0 || !/^-?\d+$/.test(s)) return parseValue(s, T.numeric);
      const neg = s.startsWith('-');
      const digits = (neg ? s.slice(1) : s).padStart(scale + 1, '0');
      return parseValue(`${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`, T.numeric);
    }
    default:
      return String(v);
  }
}

/** Reads the schema without the data: the footer of an IPC file, the first message of a stream. */
export function readArrowSchemaSync(file: string): ArrowSchema {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw fileOpenError(file, e);
  }
  try {
    const size = fstatSync(fd).size;
    const magic = Buffer.alloc(6);
    readSync(fd, magic, 0, 6, 0);
    if (magic.toString('latin1') === 'ARROW1') {
      const tail = Buffer.alloc(10);
      readSync(fd, tail, 0, 10, size - 10);
      if (tail.toString('latin1', 4, 10) !== 'ARROW1') throw new QuireError('22P04', `Arrow file "${file}" is truncated`);
      const flen = tail.readInt32LE(0);
      const footer = Buffer.alloc(flen + 10);
      readSync(fd, footer, 0, flen + 10, size - 10 - flen);
      // A file made of the magic and the footer: apache-arrow decodes the schema from the footer,
      // then fails looking for dictionary batches that are not there — after the schema is set.
      const reader = arrow().RecordBatchReader.from(new Uint8Array(Buffer.concat([Buffer.from('ARROW1\0\0', 'latin1'), footer])));
      try {
        reader.open();
      } catch {
        // expected when the file has dictionaries
      }
      if (!reader.schema) throw new QuireError('22P04', `could not read the schema of Arrow file "${file}"`);
      return reader.schema;
    }
    const head = Buffer.alloc(Math.min(size, 1 << 20));
    readSync(fd, head, 0, head.length, 0);
    const reader = arrow().RecordBatchReader.from(new Uint8Array(head));
    reader.open();
    if (!reader.schema) throw new QuireError('22P04', `file "${file}" is not an Arrow IPC file or stream`);
    return reader.schema;
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw new QuireError('22P04', `file "${file}" is not an Arrow IPC file or stream: ${(e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

interface ArrowSpec {
  readonly files: readonly string[];
  readonly all: readonly { field: Field; arrowType: ArrowType }[];
  readonly columns: readonly number[];
}

async function* scanArrow(spec: ArrowSpec, signal?: AbortSignal): AsyncGenerator<Batch> {
  const out = spec.columns.map((i) => spec.all[i]!);
  const progress = reportProgress('read_arrow', 0, 'rows');
  try {
    for (const file of spec.files) {
      let fh;
      try {
        fh = await fsp.open(file, 'r');
      } catch (e) {
        throw fileOpenError(file, e);
      }
      try {
        const reader = await arrow().RecordBatchReader.from(fh);
        await reader.open();
        for await (const rb of reader as AsyncIterable<RecordBatch>) {
          if (signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
          const vecs = out.map((c) => {
            const v = rb.getChild(c.field.name);
            if (v === null) throw new QuireError('42703', `column "${c.field.name}" does not exist in Arrow file "${file}"`);
            return v;
          });
          const n = rb.numRows;
          for (let s = 0; s < n; s += BATCH_SIZE) {
            const e = Math.min(n, s + BATCH_SIZE);
            yield { columns: out.map((c, k) => convertVector(vecs[k]!, c.field.type, c.arrowType, s, e)), length: e - s };
          }
          progress.advance(n);
        }
      } finally {
        await fh.close();
      }
    }
  } catch (e) {
    if (e instanceof QuireError) throw e;
    throw new QuireError('XX001', `could not read Arrow data: ${(e as Error).message}`);
  } finally {
    progress.done();
  }
}

function makeBinding(spec: ArrowSpec): TableFunctionBinding {
  return {
    schema: spec.columns.map((i) => ({ ...spec.all[i]!.field })),
    argTypes: [T.text],
    execute: (_args, _ctx, signal) => scanArrow(spec, signal),
    withProjection: (cols) => makeBinding({ ...spec, columns: cols.map((c) => spec.columns[c]!) }),
    describe: () => (spec.columns.length < spec.all.length ? `columns: [${spec.columns.map((i) => spec.all[i]!.field.name).join(', ')}]` : ''),
  };
}

export const readArrow: TableFunction = {
  name: 'read_arrow',
  bind(argTypes: readonly DataType[], constArgs: readonly (Value | undefined)[], ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding {
    if (argTypes.length !== 1) {
      throw new QuireError('42883', `function read_arrow(${argTypes.map((t) => t.name).join(', ')}) does not exist`, {
        hint: 'read_arrow takes one argument: the file path or glob.',
      });
    }
    for (const k of namedArgs.keys()) throw new QuireError('22023', `unrecognized read_arrow option "${k}"`);
    const p = constArgs[0];
    if (typeof p !== 'string') throw new QuireError('22023', 'read_arrow path must be a constant string');
    const files = filesToRead(p, ctx.files);
    const schema = readArrowSchemaSync(files[0]!);
    const all = schema.fields.map((f) => ({ field: { name: f.name, type: arrowToQuireType(f.type) }, arrowType: f.type }));
    return makeBinding({ files, all, columns: all.map((_, i) => i) });
  },
};
