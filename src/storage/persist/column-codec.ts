/**
 * Binary form of a batch for the write-ahead log: each column as its null map and raw typed-array
 * bytes, or, for object columns, a length-prefixed UTF-8 text form per value. No JSON: a bulk load
 * is mostly memcpy of the column buffers plus one UTF-8 encode per text value.
 *
 * Batch: u32 row count, then per column: u8 kind (0 u8, 1 i32, 2 f64, 3 text), u8 has-null-map,
 * the null map (row count bytes) when present, then the data: raw bytes for typed kinds; for text,
 * u32 byte length per value (0xFFFFFFFF for NULL) followed by the concatenated UTF-8 bytes.
 */
import { formatValue } from '../../common/format-value.js';
import { parseValue } from '../../common/parse-value.js';
import type { DataType, Value } from '../../common/types.js';
import { makeColumn, type Batch, type Column, type ColumnData } from '../../common/column.js';
import { setU32, type RecordBuffer } from './record-buffer.js';

const NULL_LEN = 0xffffffff;
/** Text columns of up to this many rows are written value by value into the record's buffer. */
const SMALL_TEXT_ROWS = 64;

/** A value of an object column in the text form the table files and the log store. */
export function objectText(v: Value, t: DataType): string | null {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  return formatValue(v, t, { timezone: 'UTC' });
}

/** The inverse of objectText. */
export function objectValue(s: string | null, t: DataType): Value {
  if (s === null) return null;
  switch (t.name) {
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'name':
    // bytea and bit strings are strings already (written as they are by objectText).
    case 'bytea':
    case 'bit':
    case 'varbit':
      return s;
    case 'int8':
    case 'money':
    case 'timestamp':
    case 'timestamptz': {
      // Written as String(number | bigint): timestamps beyond 2^53 µs widen a column as int8 does.
      const n = Number(s);
      return Number.isSafeInteger(n) || !Number.isFinite(n) ? n : BigInt(s);
    }
    default:
      return parseValue(s, t, { timezone: 'UTC' });
  }
}

/** Writes the batch into the record. */
export function encodeBatch(b: Batch, types: readonly DataType[], out: RecordBuffer): void {
  encodeRows(b.columns, null, 0, b.length, types, out);
}

/**
 * Rows from … from + n of `columns`, written as encodeBatch writes a batch of just those rows. Their
 * values are read from `stored` (per column, the array whose slots the column's rows are; null: the
 * columns' own data): the rows a commit added to an open batch are written straight from its buffers,
 * without cutting a batch of them first.
 */
export function encodeRows(columns: readonly Column[], stored: readonly ColumnData[] | null, from: number, n: number, types: readonly DataType[], out: RecordBuffer): void {
  out.u32(n);
  for (let ci = 0; ci < columns.length; ci++) {
    const c = columns[ci]!;
    const d = stored !== null ? stored[ci]! : c.data;
    const kind = d instanceof Uint8Array ? 0 : d instanceof Int32Array ? 1 : d instanceof Float64Array ? 2 : 3;
    const nulls = c.nulls;
    out.u8(kind);
    out.u8(nulls !== null ? 1 : 0);
    if (nulls !== null) out.typed(nulls, from, n);
    if (kind !== 3) out.typed(d as Uint8Array | Int32Array | Float64Array, from, n);
    else encodeText(d as Value[], nulls, from, n, types[ci]!, out);
  }
}

function encodeText(vals: readonly Value[], nulls: Uint8Array | null, from: number, n: number, t: DataType, out: RecordBuffer): void {
  if (n === 1) {
    // One value (a one-row commit): its length and bytes, as str() writes them.
    const s = nulls !== null && nulls[from] === 1 ? null : objectText(vals[from] ?? null, t);
    if (s === null) out.u32(NULL_LEN);
    else out.str(s);
    return;
  }
  if (n <= SMALL_TEXT_ROWS) {
    // Few values (a small commit): lengths and bytes straight into the record.
    const lens: { buf: Buffer; at: number }[] = new Array(n);
    for (let i = 0; i < n; i++) lens[i] = out.slot32();
    for (let i = 0; i < n; i++) {
      const s = nulls !== null && nulls[from + i] === 1 ? null : objectText(vals[from + i] ?? null, t);
      const l = lens[i]!;
      setU32(l.buf, l.at, s === null ? NULL_LEN : out.utf8(s));
    }
    return;
  }
  // Many values: one UTF-8 encode of all of them joined. When the bytes come out as many as the
  // characters, every value is ASCII and its byte length is its length; otherwise each is measured.
  const texts: (string | null)[] = new Array(n);
  let chars = 0;
  for (let i = 0; i < n; i++) {
    const s = nulls !== null && nulls[from + i] === 1 ? null : objectText(vals[from + i] ?? null, t);
    texts[i] = s;
    if (s !== null) chars += s.length;
  }
  const buf = Buffer.allocUnsafe(n * 4 + chars * 3);
  let end = n * 4 + buf.write(texts.join(''), n * 4, 'utf8');
  if (end - n * 4 === chars) {
    for (let i = 0; i < n; i++) {
      const s = texts[i]!;
      buf.writeUInt32LE(s === null ? NULL_LEN : s.length, i * 4);
    }
  } else {
    // Not all ASCII: value by value (joined, a lone surrogate could pair with its neighbour's).
    end = n * 4;
    for (let i = 0; i < n; i++) {
      const s = texts[i]!;
      if (s === null) {
        buf.writeUInt32LE(NULL_LEN, i * 4);
        continue;
      }
      const w = buf.write(s, end, 'utf8');
      buf.writeUInt32LE(w, i * 4);
      end += w;
    }
  }
  out.external(buf.subarray(0, end));
}

/** Thrown for bytes that do not form a batch; the caller names the file. */
export class BatchFormatError extends Error {}

/** Decodes one batch starting at `pos`; returns it and the position after it. */
export function decodeBatch(buf: Buffer, pos: number, types: readonly DataType[]): { batch: Batch; end: number } {
  const need = (k: number): void => {
    if (pos + k > buf.length) throw new BatchFormatError('batch runs past the end of its record');
  };
  need(4);
  const n = buf.readUInt32LE(pos);
  pos += 4;
  const columns: Column[] = types.map((t) => {
    need(2);
    const kind = buf[pos]!;
    const hasNulls = buf[pos + 1] === 1;
    pos += 2;
    let nulls: Uint8Array | null = null;
    if (hasNulls) {
      need(n);
      nulls = new Uint8Array(buf.subarray(pos, pos + n));
      pos += n;
    }
    const typed = (width: number): ArrayBuffer => {
      need(n * width);
      // A fresh, aligned copy: the record buffer can then be collected.
      const ab = new ArrayBuffer(n * width);
      new Uint8Array(ab).set(buf.subarray(pos, pos + n * width));
      pos += n * width;
      return ab;
    };
    switch (kind) {
      case 0:
        return makeColumn(t, new Uint8Array(typed(1)), nulls);
      case 1:
        return makeColumn(t, new Int32Array(typed(4)), nulls);
      case 2:
        return makeColumn(t, new Float64Array(typed(8)), nulls);
      case 3: {
        need(n * 4);
        const lens = pos;
        pos += n * 4;
        const vals: Value[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const len = buf.readUInt32LE(lens + i * 4);
          if (len === NULL_LEN) {
            vals[i] = null;
            continue;
          }
          need(len);
          vals[i] = objectValue(buf.toString('utf8', pos, pos + len), t);
          pos += len;
        }
        return makeColumn(t, vals, nulls);
      }
      default:
        throw new BatchFormatError(`unknown column kind ${kind}`);
    }
  });
  return { batch: { length: n, columns }, end: pos };
}
