/**
 * Apache Arrow tables as Quire tables (Database.registerArrow). Types and values convert exactly as
 * read_arrow converts a file's (dictionary-encoded columns, Decimal as numeric, timestamps in every
 * unit); Int32 and Float64 columns without nulls are reused as typed arrays.
 */
import type { DataType as ArrowType, Vector } from 'apache-arrow';
import type { Field } from '../common/types.js';
import { BATCH_SIZE, type Column } from '../common/column.js';
import { MemoryTable } from '../storage/memory-table.js';
import { arrowToQuireType, convertVector } from '../storage/table-functions/read-arrow.js';

/** The parts of apache-arrow's Table this module reads (structural, so any Arrow build works). */
export interface ArrowTableLike {
  readonly numRows: number;
  readonly schema: { readonly fields: readonly { readonly name: string; readonly type: { readonly typeId: number; toString(): string } }[] };
  getChildAt(i: number): { get(i: number): unknown; toArray(): ArrayLike<unknown>; readonly nullCount: number; isValid(i: number): boolean } | null;
}

export function registerArrowTable(name: string, table: ArrowTableLike): MemoryTable {
  const arrowTypes = table.schema.fields.map((f) => f.type as unknown as ArrowType);
  const fields: Field[] = table.schema.fields.map((f, i) => ({ name: f.name, type: arrowToQuireType(arrowTypes[i]!), table: name }));
  const mt = new MemoryTable(name, fields);
  const n = table.numRows;
  const vectors = fields.map((_, i) => table.getChildAt(i) as unknown as Vector);
  for (let start = 0; start < n; start += BATCH_SIZE) {
    const end = Math.min(n, start + BATCH_SIZE);
    const cols: Column[] = fields.map((f, c) => convertVector(vectors[c]!, f.type, arrowTypes[c]!, start, end));
    mt.appendBatch({ columns: cols, length: end - start });
  }
  return mt;
}
