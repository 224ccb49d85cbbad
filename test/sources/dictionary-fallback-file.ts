/**
 * A Parquet file with a text column whose chunk starts dictionary-encoded and falls back to PLAIN
 * pages midway (as writers do when the dictionary grows too large), written by hand: DuckDB and
 * hyparquet-writer decide the encoding per chunk, so neither writes this shape on request.
 *
 * Column `s` (OPTIONAL UTF8): a dictionary page, one RLE_DICTIONARY data page for rows [0, split) and
 * one PLAIN data page for rows [split, rows); pages v1, uncompressed. With `withId`, a REQUIRED INT32
 * column `id` (the row number, one PLAIN page) comes first.
 */
import { writeFileSync } from 'node:fs';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { writePlain } from 'hyparquet-writer/src/plain.js';

export interface DictionaryFallbackShape {
  /** The dictionary's entries. */
  readonly dict: readonly string[];
  readonly rows: number;
  /** The first row of the PLAIN page. */
  readonly split: number;
  /** Row i's bytes (null: NULL). Rows before split must be dictionary entries. */
  readonly value: (i: number) => Uint8Array | null;
  /** Bit width of the dictionary codes. */
  readonly codeWidth: number;
  readonly withId: boolean;
}

const MAGIC = 0x31524150;

export function writeDictionaryFallbackFile(path: string, shape: DictionaryFallbackShape): void {
  const { dict, rows, split, value, codeWidth, withId } = shape;
  const enc = new TextEncoder();
  const entries = dict.map((s) => enc.encode(s));
  const codeOf = (bytes: Uint8Array): number => {
    const k = entries.findIndex((e) => e.length === bytes.length && e.every((b, j) => b === bytes[j]));
    if (k < 0) throw new Error('a row before the split is not a dictionary entry');
    return k;
  };
  const w = new ByteWriter();
  w.appendUint32(MAGIC);
  const page = (body: ByteWriter, header: Parameters<typeof writePageHeader>[1]): void => {
    writePageHeader(w, header);
    w.appendBytes(body.getBytes());
  };
  const v1 = (encoding: 'PLAIN' | 'RLE_DICTIONARY', values: number) => ({ num_values: values, encoding, definition_level_encoding: 'RLE' as const, repetition_level_encoding: 'RLE' as const });
  const idStart = w.offset;
  if (withId) {
    const ids = new ByteWriter();
    writePlain(ids, Array.from({ length: rows }, (_, i) => i), 'INT32', undefined);
    page(ids, { type: 'DATA_PAGE', uncompressed_page_size: ids.offset, compressed_page_size: ids.offset, data_page_header: v1('PLAIN', rows) });
  }
  const idSize = BigInt(w.offset - idStart);
  const chunkStart = w.offset;
  const dictBody = new ByteWriter();
  writePlain(dictBody, entries, 'BYTE_ARRAY', undefined);
  page(dictBody, { type: 'DICTIONARY_PAGE', uncompressed_page_size: dictBody.offset, compressed_page_size: dictBody.offset, dictionary_page_header: { num_values: dict.length, encoding: 'PLAIN' } });
  const dataOffset = w.offset;
  // Definition levels of rows [from, to), with their length first (v1 pages).
  const levels = (from: number, to: number): ByteWriter => {
    const l = new ByteWriter();
    const defs: number[] = [];
    for (let i = from; i < to; i++) defs.push(value(i) === null ? 0 : 1);
    writeRleBitPackedHybrid(l, defs, 1);
    const out = new ByteWriter();
    out.appendUint32(l.offset);
    out.appendBytes(l.getBytes());
    return out;
  };
  const dictPage = levels(0, split);
  const codes: number[] = [];
  for (let i = 0; i < split; i++) {
    const v = value(i);
    if (v !== null) codes.push(codeOf(v));
  }
  dictPage.appendUint8(codeWidth);
  writeRleBitPackedHybrid(dictPage, codes, codeWidth);
  page(dictPage, { type: 'DATA_PAGE', uncompressed_page_size: dictPage.offset, compressed_page_size: dictPage.offset, data_page_header: v1('RLE_DICTIONARY', split) });
  const plainPage = levels(split, rows);
  const plain: Uint8Array[] = [];
  for (let i = split; i < rows; i++) {
    const v = value(i);
    if (v !== null) plain.push(v);
  }
  writePlain(plainPage, plain, 'BYTE_ARRAY', undefined);
  page(plainPage, { type: 'DATA_PAGE', uncompressed_page_size: plainPage.offset, compressed_page_size: plainPage.offset, data_page_header: v1('PLAIN', rows - split) });
  const size = BigInt(w.offset - chunkStart);
  const metaStart = w.offset;
  const idColumn = {
    file_offset: BigInt(idStart),
    meta_data: { type: 'INT32' as const, encodings: ['PLAIN' as const], path_in_schema: ['id'], codec: 'UNCOMPRESSED' as const, num_values: BigInt(rows), total_uncompressed_size: idSize, total_compressed_size: idSize, data_page_offset: BigInt(idStart) },
  };
  const sColumn = {
    file_offset: BigInt(chunkStart),
    meta_data: {
      type: 'BYTE_ARRAY' as const,
      encodings: ['PLAIN' as const, 'RLE' as const, 'RLE_DICTIONARY' as const],
      path_in_schema: ['s'],
      codec: 'UNCOMPRESSED' as const,
      num_values: BigInt(rows),
      total_uncompressed_size: size,
      total_compressed_size: size,
      data_page_offset: BigInt(dataOffset),
      dictionary_page_offset: BigInt(chunkStart),
    },
  };
  writeMetadata(w, {
    version: 1,
    schema: [
      { name: 'root', num_children: withId ? 2 : 1 },
      ...(withId ? [{ name: 'id', type: 'INT32' as const, repetition_type: 'REQUIRED' as const }] : []),
      { name: 's', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' },
    ],
    num_rows: BigInt(rows),
    row_groups: [{ columns: withId ? [idColumn, sColumn] : [sColumn], total_byte_size: idSize + size, num_rows: BigInt(rows) }],
    created_by: 'quire test',
  });
  // writeMetadata leaves the footer's length and magic to its caller.
  w.appendUint32(w.offset - metaStart);
  w.appendUint32(MAGIC);
  writeFileSync(path, new Uint8Array(w.getBuffer(), 0, w.offset));
}
