/**
 * A Parquet file of one row group of INT32 columns written by hand, one data page per column, for
 * tests that need pages no writer makes (an index past its dictionary, runs of a chosen kind).
 */
import { writeFileSync } from 'node:fs';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { writePlain } from 'hyparquet-writer/src/plain.js';

export interface Int32Column {
  readonly name: string;
  /** Per row, whether it is NULL: the column is OPTIONAL and its page starts with these levels. */
  readonly nulls?: readonly boolean[];
  /** PLAIN values of the present rows. */
  readonly values?: readonly number[];
  /** Or a dictionary's entries, and the page's indexes: a bit width and the hybrid's bytes as given. */
  readonly dictionary?: { readonly entries: readonly number[]; readonly width: number; readonly hybrid: readonly number[] };
}

export function writeInt32File(path: string, rows: number, columns: readonly Int32Column[]): void {
  const w = new ByteWriter();
  w.appendUint32(0x31524150);
  const chunks = [];
  let total = 0n;
  for (const c of columns) {
    const start = w.offset;
    const page = (body: ByteWriter, header: Parameters<typeof writePageHeader>[1]): void => {
      writePageHeader(w, header);
      w.appendBytes(body.getBytes());
    };
    if (c.dictionary !== undefined) {
      const dict = new ByteWriter();
      writePlain(dict, c.dictionary.entries as never, 'INT32', undefined);
      page(dict, { type: 'DICTIONARY_PAGE', uncompressed_page_size: dict.offset, compressed_page_size: dict.offset, dictionary_page_header: { num_values: c.dictionary.entries.length, encoding: 'PLAIN' } });
    }
    const data = w.offset;
    const body = new ByteWriter();
    if (c.nulls !== undefined) {
      const levels = new ByteWriter();
      writeRleBitPackedHybrid(levels, c.nulls.map((n) => (n ? 0 : 1)), 1);
      body.appendUint32(levels.offset);
      body.appendBytes(levels.getBytes());
    }
    if (c.dictionary !== undefined) {
      body.appendUint8(c.dictionary.width);
      for (const b of c.dictionary.hybrid) body.appendUint8(b);
    } else writePlain(body, (c.values ?? []) as never, 'INT32', undefined);
    const encoding = c.dictionary === undefined ? 'PLAIN' : 'RLE_DICTIONARY';
    page(body, {
      type: 'DATA_PAGE',
      uncompressed_page_size: body.offset,
      compressed_page_size: body.offset,
      data_page_header: { num_values: rows, encoding, definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
    });
    const size = BigInt(w.offset - start);
    total += size;
    chunks.push({
      file_offset: BigInt(start),
      meta_data: {
        type: 'INT32',
        encodings: c.dictionary === undefined ? ['PLAIN', 'RLE'] : ['PLAIN', 'RLE', 'RLE_DICTIONARY'],
        path_in_schema: [c.name],
        codec: 'UNCOMPRESSED',
        num_values: BigInt(rows),
        total_uncompressed_size: size,
        total_compressed_size: size,
        data_page_offset: BigInt(data),
        ...(c.dictionary === undefined ? {} : { dictionary_page_offset: BigInt(start) }),
      },
    });
  }
  const metaStart = w.offset;
  writeMetadata(w, {
    version: 1,
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map((c) => ({ name: c.name, type: 'INT32', repetition_type: c.nulls === undefined ? 'REQUIRED' : 'OPTIONAL' }))],
    num_rows: BigInt(rows),
    row_groups: [{ columns: chunks, total_byte_size: total, num_rows: BigInt(rows) }],
    created_by: 'quire test',
  } as never);
  w.appendUint32(w.offset - metaStart);
  w.appendUint32(0x31524150);
  writeFileSync(path, new Uint8Array(w.getBuffer(), 0, w.offset));
}
