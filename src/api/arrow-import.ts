/**
 * Apache Arrow tables as Quire tables. Fixed-width columns without nulls are reused as typed arrays
 * where the representation matches (Int32, Float64); others are converted once at registration.
 */
import { QuireError } from '../common/errors.js';
import { T, type DataType, type Field, type Value } from '../common/types.js';
import { BATCH_SIZE, ColumnBuilder, makeColumn, type Column } from '../execution/column.js';
import { MemoryTable } from '../storage/memory-table.js';

/** The parts of apache-arrow's Table this module reads (structural, so any Arrow build works). */
export interface ArrowTableLike {
  readonly numRows: number;
  readonly schema: { readonly fields: readonly { readonly name: string; readonly type: { readonly typeId: number; toString(): string; readonly unit?: number } }[] };
  getChildAt(i: number): { get(i: number): unknown; toArray(): ArrayLike<unknown>; readonly nullCount: number; isValid(i: number): boolean } | null;
}

// apache-arrow's Type enum values.
const TYPE = { Bool: 6, Int: 2, Float: 3, Utf8: 5, LargeUtf8: 20, Date: 8, Timestamp: 10, Decimal: 7 } as const;

function quireType(t: { typeId: number; toString(): string; unit?: number }): DataType {
  const s = t.toString();
  switch (t.typeId) {
    case TYPE.Bool:
      return T.bool;
    case TYPE.Int:
      if (/Int(8|16)$/.test(s) || /Uint8$/.test(s)) return T.int2;
      if (/Int32$/.test(s) || /Uint16$/.test(s)) return T.int4;
      return T.int8;
    case TYPE.Float:
      return /Float(16|32)$/.test(s) ? T.float4 : T.float8;
    case TYPE.Utf8:
    case TYPE.LargeUtf8:
      return T.text;
    case TYPE.Date:
      return T.date;
    case TYPE.Timestamp:
      return /tz|\[/.test(s) && !/null/.test(s) && s.includes(',') ? T.timestamptz : T.timestamp;
    default:
      throw new QuireError('0A000', `Arrow type ${s} is not supported`);
  }
}

function convert(v: unknown, t: DataType, arrowType: { typeId: number; unit?: number }): Value {
  if (v === null || v === undefined) return null;
  switch (t.name) {
    case 'bool':
      return Boolean(v);
    case 'int2':
    case 'int4':
      return Number(v);
    case 'int8': {
      const b = typeof v === 'bigint' ? v : BigInt(v as number);
      return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
    }
    case 'float4':
      return Math.fround(Number(v));
    case 'float8':
      return Number(v);
    case 'text':
      return String(v);
    case 'date':
      // Arrow dates read as epoch milliseconds.
      return Math.floor((v instanceof Date ? v.getTime() : Number(v)) / 86_400_000);
    case 'timestamp':
    case 'timestamptz': {
      // Arrow's JS reader yields epoch milliseconds for every timestamp unit.
      const ms = v instanceof Date ? v.getTime() : Number(v);
      void arrowType;
      return ms * 1000;
    }
    default:
      return String(v);
  }
}

export function registerArrowTable(name: string, table: ArrowTableLike): MemoryTable {
  const fields: Field[] = table.schema.fields.map((f) => ({ name: f.name, type: quireType(f.type), table: name }));
  const mt = new MemoryTable(name, fields);
  const n = table.numRows;
  const vectors = fields.map((_, i) => table.getChildAt(i)!);
  for (let start = 0; start < n; start += BATCH_SIZE) {
    const end = Math.min(n, start + BATCH_SIZE);
    const cols: Column[] = fields.map((f, c) => {
      const vec = vectors[c]!;
      const at = table.schema.fields[c]!.type;
      if (vec.nullCount === 0 && (f.type.name === 'int4' || f.type.name === 'float8')) {
        const arr = vec.toArray();
        if ((f.type.name === 'int4' && arr instanceof Int32Array) || (f.type.name === 'float8' && arr instanceof Float64Array)) {
          return makeColumn(f.type, arr.subarray(start, end), null);
        }
      }
      const b = new ColumnBuilder(f.type, end - start);
      for (let i = start; i < end; i++) b.push(vec.isValid(i) ? convert(vec.get(i), f.type, at) : null);
      return b.finish();
    });
    mt.appendBatch({ columns: cols, length: end - start });
  }
  return mt;
}
