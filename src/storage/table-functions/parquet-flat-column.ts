/**
 * A fast path for read_parquet: one flat (non-nested) numeric column chunk of one row group decoded
 * straight into a typed array and a null map.
 *
 * hyparquet's generic reader rebuilds every value through its Dremel list assembler, which for an
 * OPTIONAL column pushes each value (or null) into a plain JS array — most of a scan's time. A flat
 * column has definition levels 0/1 and no repetition levels, so the values can be scattered into
 * place by the definition levels instead. Page decoding (headers, decompression, encodings,
 * dictionaries, our value parsers) stays hyparquet's, through the module entry points its package
 * exports; only the assembly step is ours.
 */
import type { AsyncBuffer, ColumnChunk, FileMetaData, ParquetParsers, RowGroup, SchemaTree } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { convert, convertWithDictionary } from 'hyparquet/src/convert.js';
import { decompressPage, readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { readPlain } from 'hyparquet/src/plain.js';
import { getSchemaPath } from 'hyparquet/src/schema.js';
import type { ColumnDecoder, DecodedArray } from 'hyparquet/src/types.js';

/** A value the typed array cannot hold exactly (a timestamp beyond 2^53 µs): read the column the general way. */
export class FlatValueOutOfRange extends Error {}

/** The parsers give a bigint only for values beyond the safe-integer range. */
function flatNumber(v: number | bigint): number {
  if (typeof v === 'bigint') throw new FlatValueOutOfRange();
  return v;
}

export interface FlatColumnData {
  /** Int32Array for int2/int4, Float64Array otherwise; rows of the whole row group. */
  readonly values: Int32Array | Float64Array;
  readonly nulls: Uint8Array | null;
}

/** Quire types this path produces (their hyparquet-decoded values are already Quire numbers). */
export const FLAT_FAST_TYPES = new Set(['int2', 'int4', 'float8', 'date', 'timestamp', 'timestamptz']);

/** The column chunk of `name` in `rowGroup` when it is flat and decodable here, else null. */
export function flatColumnChunk(metadata: FileMetaData, rowGroup: RowGroup, name: string): { chunk: ColumnChunk; schemaPath: SchemaTree[] } | null {
  const chunk = rowGroup.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === name);
  const md = chunk?.meta_data;
  if (!chunk || !md || chunk.file_path) return null;
  const schemaPath = getSchemaPath(metadata.schema, [name]);
  // Root + one leaf that is not repeated: definition levels 0/1 at most, no repetition levels.
  if (schemaPath.length !== 2) return null;
  const leaf = schemaPath[1]!;
  if (leaf.children.length > 0 || leaf.element.repetition_type === 'REPEATED') return null;
  // INT96 and the byte-array types decode to values that are not plain numbers.
  if (md.type !== 'INT32' && md.type !== 'INT64' && md.type !== 'DOUBLE') return null;
  return { chunk, schemaPath };
}

export async function readFlatColumn(
  file: AsyncBuffer,
  rowGroup: RowGroup,
  found: { chunk: ColumnChunk; schemaPath: SchemaTree[] },
  parsers: ParquetParsers,
  int32: boolean,
): Promise<FlatColumnData> {
  const md = found.chunk.meta_data!;
  const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
  const end = start + Number(md.total_compressed_size);
  const bytes = await file.slice(start, end);
  const reader = { view: new DataView(bytes), offset: 0 };
  const leaf = found.schemaPath[1]!;
  const decoder: ColumnDecoder = {
    pathInSchema: md.path_in_schema,
    type: md.type,
    element: leaf.element,
    schemaPath: found.schemaPath,
    codec: md.codec,
    parsers,
  };
  const rows = Number(rowGroup.num_rows);
  const values = int32 ? new Int32Array(rows) : new Float64Array(rows);
  let nulls: Uint8Array | null = null;
  let dictionary: DecodedArray | undefined;
  let row = 0;
  while (row < rows && reader.offset < bytes.byteLength) {
    const header = parquetHeader(reader);
    const pageBytes = new Uint8Array(bytes, reader.offset, header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    let defs: number[] | undefined;
    let data: DecodedArray;
    let encoding;
    if (header.type === 'DICTIONARY_PAGE') {
      const page = decompressPage(pageBytes, Number(header.uncompressed_page_size), md.codec, undefined);
      const dictReader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
      dictionary = convert(readPlain(dictReader, md.type, header.dictionary_page_header!.num_values, leaf.element.type_length), decoder);
      continue;
    } else if (header.type === 'DATA_PAGE') {
      const page = decompressPage(pageBytes, Number(header.uncompressed_page_size), md.codec, undefined);
      const p = readDataPage(page, header.data_page_header!, decoder);
      defs = p.definitionLevels;
      data = p.dataPage;
      encoding = header.data_page_header!.encoding;
    } else if (header.type === 'DATA_PAGE_V2') {
      const p = readDataPageV2(pageBytes, header, decoder);
      defs = p.definitionLevels;
      data = p.dataPage;
      encoding = header.data_page_header_v2!.encoding;
    } else {
      continue; // index pages carry no values
    }
    const vals = convertWithDictionary(data, dictionary, encoding, decoder) as ArrayLike<number | bigint>;
    if (defs !== undefined && defs.length > 0) {
      const n = Math.min(defs.length, rows - row);
      let v = 0;
      for (let i = 0; i < n; i++) {
        if (defs[i] === 1) values[row + i] = flatNumber(vals[v++]!);
        else (nulls ??= new Uint8Array(rows))[row + i] = 1;
      }
      row += n;
    } else {
      const n = Math.min(vals.length, rows - row);
      for (let i = 0; i < n; i++) values[row + i] = flatNumber(vals[i]!);
      row += n;
    }
  }
  if (row !== rows) throw new Error(`column ${md.path_in_schema.join('.')} has ${row} values in a row group of ${rows} rows`);
  return { values, nulls };
}
