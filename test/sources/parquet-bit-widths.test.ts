/**
 * Dictionary indexes of every bit width (1..32) in read_parquet. The file is written here by hand (a
 * writer picks the narrowest width its dictionary needs, and no writer at hand declares wider ones):
 * one row group per width, whose dictionary-encoded columns declare that width on every data page,
 * with RLE runs and bit-packed runs mixed (and on one page bit-packed runs only), and pages without
 * NULLs, with some and with only NULLs.
 * Every answer must equal the rows the file was written from, and DuckDB's over the same file, through
 * the whole-chunk path, the row filters and the columns decoded at the passing rows only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { writePlain } from 'hyparquet-writer/src/plain.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const ROWS = 2_000;
/** Data pages of each column chunk: rows [0, 700) without NULLs, [700, 1400) with some, then only NULLs. */
const PAGES: [number, number][] = [
  [0, 700],
  [700, 1400],
  [1400, ROWS],
];
const WIDTHS = Array.from({ length: 32 }, (_, i) => i + 1);

const dictSize = (w: number): number => Math.min(2 ** w, 257);
/** Runs of 40 equal indexes (written as RLE runs) between stretches of varied ones (bit-packed). */
const indexOf = (w: number, i: number): number => (Math.floor(i / 40) % 3 === 0 ? (w * 31 + Math.floor(i / 40)) % dictSize(w) : (i * 7919 + w) % dictSize(w));
const aEntry = (w: number, j: number): number => j * 3 - 100 + w;
const dEntry = (w: number, j: number): number => j / 4 + w;
/** Short ASCII, multibyte and values longer than 12 characters. */
const sEntry = (w: number, j: number): string => (j % 5 === 0 ? `ñ${j}日` : j % 7 === 0 ? `a longer value, number ${j}` : `v${w}_${j}`);
/** NULL rows of the optional columns a and s. */
const isNull = (i: number): boolean => i >= 1400 || (i >= 700 && i % 5 === 1);
/** A filter column keeping about half the rows in no pattern (picked by rank where a and s have NULLs). */
const hOf = (i: number): number => (i * 7919 + ((i * i) % 13)) % 1000;
/** The page whose indexes are bit-packed only, in runs of 256 values (as DuckDB writes them): read at its ranks in the packed bits. */
const PACKED_PAGE = 1;

type Row = [number, number | null, number, string | null, number];
const truth: Row[] = [];
for (const w of WIDTHS) {
  for (let i = 0; i < ROWS; i++) {
    const j = indexOf(w, i);
    truth.push([(w - 1) * ROWS + i, isNull(i) ? null : aEntry(w, j), dEntry(w, j), isNull(i) ? null : sEntry(w, j), hOf(i)]);
  }
}

interface ColumnSpec {
  name: string;
  type: 'INT32' | 'DOUBLE' | 'BYTE_ARRAY';
  optional: boolean;
  /** The dictionary's entries for width w (null: PLAIN values, `plain`'s or the row id). */
  entries: ((w: number) => unknown[]) | null;
  plain?: (i: number) => number;
}
const COLUMNS: ColumnSpec[] = [
  { name: 'id', type: 'INT32', optional: false, entries: null },
  { name: 'a', type: 'INT32', optional: true, entries: (w) => Array.from({ length: dictSize(w) }, (_, j) => aEntry(w, j)) },
  { name: 'd', type: 'DOUBLE', optional: false, entries: (w) => Array.from({ length: dictSize(w) }, (_, j) => dEntry(w, j)) },
  { name: 's', type: 'BYTE_ARRAY', optional: true, entries: (w) => Array.from({ length: dictSize(w) }, (_, j) => new TextEncoder().encode(sEntry(w, j))) },
  { name: 'h', type: 'INT32', optional: false, entries: null, plain: hOf },
];

/**
 * The RLE / bit-packed hybrid of any width: runs of 8 or more equal values as RLE runs, the rest
 * bit-packed a bit at a time (hyparquet-writer's packer holds 32 bits, too few past 24-bit widths).
 */
function writeHybrid(w: ByteWriter, values: number[], width: number, packedOnly = false): void {
  let i = 0;
  while (i < values.length) {
    let run = 1;
    while (i + run < values.length && values[i + run] === values[i]) run++;
    if (run >= 8 && !packedOnly) {
      w.appendVarInt(run * 2);
      for (let b = 0; b < (width + 7) >> 3; b++) w.appendUint8(Math.floor(values[i]! / 2 ** (8 * b)) & 0xff);
      i += run;
      continue;
    }
    // Bit-packed groups up to the next run of 8 equal values (or the end); the last group may reach into
    // that run, since only the end of the values may be padded.
    let end = i;
    while (end < values.length) {
      let r = 1;
      while (end + r < values.length && values[end + r] === values[end]) r++;
      if (r >= 8 && !packedOnly) break;
      end += r;
    }
    if (packedOnly) end = Math.min(end, i + 256);
    const groups = Math.ceil((end - i) / 8);
    w.appendVarInt(groups * 2 + 1);
    const bytes = new Uint8Array(groups * width);
    for (let k = 0; k < groups * 8; k++) {
      const v = i + k < values.length ? values[i + k]! : 0;
      for (let bit = 0; bit < width; bit++) if (Math.floor(v / 2 ** bit) % 2 === 1) bytes[(k * width + bit) >> 3]! |= 1 << ((k * width + bit) & 7);
    }
    w.appendBytes(bytes);
    i += groups * 8;
  }
}

function writeFile(path: string): void {
  const w = new ByteWriter();
  w.appendUint32(0x31524150);
  const rowGroups = [];
  for (const width of WIDTHS) {
    const columns = [];
    let groupBytes = 0n;
    for (const c of COLUMNS) {
      const chunkStart = w.offset;
      const page = (body: ByteWriter, header: Parameters<typeof writePageHeader>[1]): void => {
        writePageHeader(w, header);
        w.appendBytes(body.getBytes());
      };
      if (c.entries !== null) {
        const dict = new ByteWriter();
        const entries = c.entries(width);
        writePlain(dict, entries as never, c.type, undefined);
        page(dict, { type: 'DICTIONARY_PAGE', uncompressed_page_size: dict.offset, compressed_page_size: dict.offset, dictionary_page_header: { num_values: entries.length, encoding: 'PLAIN' } });
      }
      const dataOffset = w.offset;
      for (const [p, [from, to]] of PAGES.entries()) {
        const body = new ByteWriter();
        const present: number[] = [];
        if (c.optional) {
          const levels = new ByteWriter();
          const defs: number[] = [];
          for (let i = from; i < to; i++) defs.push(isNull(i) ? 0 : 1);
          writeRleBitPackedHybrid(levels, defs, 1);
          body.appendUint32(levels.offset);
          body.appendBytes(levels.getBytes());
        }
        for (let i = from; i < to; i++) if (!c.optional || !isNull(i)) present.push(i);
        if (c.entries === null) writePlain(body, present.map((i) => c.plain?.(i) ?? (width - 1) * ROWS + i) as never, c.type, undefined);
        else {
          body.appendUint8(width);
          writeHybrid(body, present.map((i) => indexOf(width, i)), width, p === PACKED_PAGE);
        }
        page(body, {
          type: 'DATA_PAGE',
          uncompressed_page_size: body.offset,
          compressed_page_size: body.offset,
          data_page_header: { num_values: to - from, encoding: c.entries === null ? 'PLAIN' : 'RLE_DICTIONARY', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
        });
      }
      const size = BigInt(w.offset - chunkStart);
      groupBytes += size;
      columns.push({
        file_offset: BigInt(chunkStart),
        meta_data: {
          type: c.type,
          encodings: c.entries === null ? ['PLAIN', 'RLE'] : ['PLAIN', 'RLE', 'RLE_DICTIONARY'],
          path_in_schema: [c.name],
          codec: 'UNCOMPRESSED',
          num_values: BigInt(ROWS),
          total_uncompressed_size: size,
          total_compressed_size: size,
          data_page_offset: BigInt(dataOffset),
          ...(c.entries === null ? {} : { dictionary_page_offset: BigInt(chunkStart) }),
        },
      });
    }
    rowGroups.push({ columns, total_byte_size: groupBytes, num_rows: BigInt(ROWS) });
  }
  const metaStart = w.offset;
  writeMetadata(w, {
    version: 1,
    schema: [
      { name: 'root', num_children: COLUMNS.length },
      ...COLUMNS.map((c) => ({ name: c.name, type: c.type, repetition_type: c.optional ? 'OPTIONAL' : 'REQUIRED', ...(c.type === 'BYTE_ARRAY' ? { converted_type: 'UTF8' } : {}) })),
    ],
    num_rows: BigInt(ROWS * WIDTHS.length),
    row_groups: rowGroups,
    created_by: 'quire test',
  } as never);
  w.appendUint32(w.offset - metaStart);
  w.appendUint32(0x31524150);
  writeFileSync(path, new Uint8Array(w.getBuffer(), 0, w.offset));
}

let dir: string;
let file: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql.replaceAll('$F', file))).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql.replaceAll('$F', file))).getRows() as unknown[][]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-widths-'));
  file = join(dir, 'widths.parquet');
  writeFile(file);
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('read_parquet: dictionary indexes of bit widths 1 to 32', () => {
  it('every row, as written and as DuckDB reads it', async () => {
    const got = await quire(`SELECT * FROM read_parquet('$F')`);
    expect(got).toEqual(norm(truth));
    expect(await duckdb(`SELECT * FROM read_parquet('$F')`)).toEqual(got);
  });

  const QUERIES = [
    // Few rows pass (the other columns read at their bit positions), about half, most.
    `SELECT id, d, s FROM read_parquet('$F') WHERE a = 50 ORDER BY id`,
    `SELECT id, a, s FROM read_parquet('$F') WHERE d = 20.5 ORDER BY id`,
    `SELECT id, a, d, s FROM read_parquet('$F') WHERE a < 200 ORDER BY id`,
    `SELECT id, a, s FROM read_parquet('$F') WHERE d > 3 ORDER BY id`,
    `SELECT id, s FROM read_parquet('$F') WHERE a >= -90 AND d <= 40 ORDER BY id`,
    // Stretches of rows (decoded straight from the encoding), inside groups of 8 and across pages, with
    // NULL rows inside them, and with a's NULLs (s has the same) filtered out.
    `SELECT id, a, d, s FROM read_parquet('$F') WHERE id % 100 < 60 ORDER BY id`,
    `SELECT id, a, d, s FROM read_parquet('$F') WHERE id % 50 >= 13 AND id % 50 < 47 ORDER BY id`,
    `SELECT id, a, d, s FROM read_parquet('$F') WHERE id % ${ROWS} BETWEEN 3 AND ${ROWS - 3} ORDER BY id`,
    `SELECT id, d, s FROM read_parquet('$F') WHERE a > -1000 AND id % 100 < 70 ORDER BY id`,
    // Whole chunks: grouped by the coded text column, aggregated over the numbers.
    `SELECT s, count(*), count(a), sum(d), min(a), max(id) FROM read_parquet('$F') GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT id - id % ${ROWS} AS g, count(a), sum(a), sum(d), min(s), max(s) FROM read_parquet('$F') GROUP BY 1 ORDER BY 1`,
    // Row filters of every operator over a column with NULLs.
    `SELECT count(*), sum(d), min(s) FROM read_parquet('$F') WHERE a <> 50`,
    `SELECT count(*), sum(d), min(s) FROM read_parquet('$F') WHERE a > 100`,
    `SELECT count(*), sum(d), max(s) FROM read_parquet('$F') WHERE a <= 0`,
    // About half the rows in no pattern: a and s picked by rank, from the packed bits on the packed page.
    `SELECT id, a, s FROM read_parquet('$F') WHERE h < 500 ORDER BY id`,
    `SELECT id - id % ${ROWS} AS g, count(a), sum(a), min(a), max(a), count(s), min(s), max(s) FROM read_parquet('$F') WHERE h >= 300 GROUP BY 1 ORDER BY 1`,
  ];
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      expect(await quire(q)).toEqual(await duckdb(q.replaceAll('sum(a)', 'CAST(sum(a) AS BIGINT)')));
    });
  }
});
