import { arrayTypeOf, fieldRecordType, isFieldRecord, type, type DataType, type TypeName } from '../../common/types.js';

/**
 * A column type as a table file or log record names it: its name and modifier, and for a record
 * with field names (a Parquet group, or an array of them) its fields, so the type is rebuilt from the
 * directory alone. Named composite types are not kept in a directory (refused at CREATE).
 */
export interface StoredType {
  name: TypeName;
  typmod: number;
  fields?: { name: string; type: StoredType }[];
}

export function typeJson(t: DataType): StoredType {
  const c = t.composite;
  if (c === undefined || !isFieldRecord(c)) return { name: t.name, typmod: t.typmod };
  return { name: t.name, typmod: t.typmod, fields: c.fields.map((f) => ({ name: f.name, type: typeJson(f.type) })) };
}

/**
 * The type `j` names. An interval's modifier was once stored as the bare field mask (below 2^16); it
 * is now PostgreSQL's encoding, the mask in the high 16 bits and the precision in the low ones, so a
 * directory written before reads its `interval day` columns as such (the precision was never kept:
 * those read as full precision).
 */
export function storedType(j: StoredType): DataType {
  const { name, typmod } = j;
  if (Array.isArray(j.fields) && (name === 'record' || name === '_record')) {
    const row = fieldRecordType(j.fields.map((f) => ({ name: String(f.name), type: storedType(f.type) })));
    return name === 'record' ? row : arrayTypeOf(row)!;
  }
  if (name === 'interval' && typmod >= 0 && typmod < 0x10000) return type(name, typmod === 0x7fff ? -1 : (typmod << 16) | 0xffff);
  return type(name, typmod);
}
