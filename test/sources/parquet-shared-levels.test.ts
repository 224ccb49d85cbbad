/**
 * read_parquet: columns whose pages have the same definition levels as the row filter's column (NULL on
 * the same rows) take the filter column's NULL flags instead of decoding their own, and flag none of the
 * rows the filter passed (FilterLevels). Answers must equal DuckDB's over the same files, and Quire's own
 * with the scan's pushdown switched off, for the shapes that share levels and those that do not: NULLs on
 * the same rows, on other rows, on the same rows plus a few; row groups where the filter column is all
 * NULL, where a counted column is, where nothing is; version 1 and version 2 pages; pages of 2 KB whose
 * boundaries differ between columns; and a hand-written chunk whose dictionary pages give way to PLAIN
 * pages, with pages at the same rows in some columns and elsewhere in another.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ByteWriter, parquetWriteFile } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { writePlain } from 'hyparquet-writer/src/plain.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const N = 80_000;
let dir: string;
const files: Record<string, string> = {};
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);

/**
 * Whether row i's shared columns are NULL: a seventh of the rows; none in rows 50,000-59,999; all in
 * rows 30,000-39,999 (the filter column k too, so the filter passes nothing there).
 */
const sharedNull = (i: number): boolean => (i >= 30_000 && i < 40_000) || (i % 7 === 3 && !(i >= 50_000 && i < 60_000));
const SHARED = `((i >= 30000 AND i < 40000) OR (i % 7 = 3 AND NOT (i >= 50000 AND i < 60000)))`;

// k filters; v, s, name share k's NULLs; m has NULLs of its own; z has k's and a few more; t is all NULL
// in rows 10,000-19,999 and NULL with k elsewhere.
const select = `SELECT i::INTEGER AS id,
    CASE WHEN ${SHARED} THEN NULL ELSE (i % 1000)::INTEGER END AS k,
    CASE WHEN ${SHARED} THEN NULL ELSE ((i * 7919) % 10007) / 10007.0 END AS v,
    CASE WHEN ${SHARED} THEN NULL ELSE 'cat' || (i % 17) END AS s,
    CASE WHEN ${SHARED} THEN NULL ELSE 'name' || (i % 5003) END AS name,
    CASE WHEN i % 5 = 1 THEN NULL ELSE 'm' || (i % 11) END AS m,
    CASE WHEN ${SHARED} OR i % 1000 = 999 THEN NULL ELSE ((i % 89) * 1.5)::DOUBLE END AS z,
    CASE WHEN ${SHARED} OR (i >= 10000 AND i < 20000) THEN NULL ELSE 't' || (i % 3) END AS t
  FROM range(${N}) t(i)`;

/**
 * One row group of hand-written version 1 pages, uncompressed: every column's values with `nulls`, each
 * chunk a dictionary page, RLE_DICTIONARY data pages for rows before `plainFrom` and PLAIN pages after
 * (the writer's fallback when its dictionary grows), pages starting at the rows in `cuts`.
 */
interface HandColumn {
  name: string;
  type: 'INT32' | 'DOUBLE' | 'BYTE_ARRAY';
  value: (i: number) => number | string;
  cuts: number[];
  plainFrom: number;
}
const HAND_ROWS = 12_000;
const handNull = (i: number): boolean => i % 7 === 3 || (i >= 4_000 && i < 4_500);
const HAND_COLUMNS: HandColumn[] = [
  { name: 'k', type: 'INT32', value: (i) => i % 1000, cuts: [0, 3_000, 7_000], plainFrom: 7_000 },
  { name: 'v', type: 'DOUBLE', value: (i) => ((i * 7919) % 10007) / 10007, cuts: [0, 3_000, 7_000], plainFrom: 7_000 },
  { name: 's', type: 'BYTE_ARRAY', value: (i) => 'cat' + (i % 17), cuts: [0, 3_000, 7_000], plainFrom: 3_000 },
  // The same NULLs in pages cut elsewhere: no page's levels are the filter column's.
  { name: 'name', type: 'BYTE_ARRAY', value: (i) => 'name' + (i % 503), cuts: [0, 5_000], plainFrom: 9_000 },
];

function writeHandFile(path: string): void {
  const w = new ByteWriter();
  w.appendUint32(0x31524150);
  const enc = new TextEncoder();
  const raw = (c: HandColumn, v: number | string): number | Uint8Array => (c.type === 'BYTE_ARRAY' ? enc.encode(v as string) : (v as number));
  const chunks = HAND_COLUMNS.map((c) => {
    const start = w.offset;
    const page = (body: ByteWriter, header: Parameters<typeof writePageHeader>[1]): void => {
      writePageHeader(w, header);
      w.appendBytes(body.getBytes());
    };
    const entries: (number | string)[] = [];
    for (let i = 0; i < c.plainFrom; i++) if (!handNull(i) && !entries.includes(c.value(i))) entries.push(c.value(i));
    const dict = new ByteWriter();
    writePlain(dict, entries.map((e) => raw(c, e)), c.type, undefined);
    page(dict, { type: 'DICTIONARY_PAGE', uncompressed_page_size: dict.offset, compressed_page_size: dict.offset, dictionary_page_header: { num_values: entries.length, encoding: 'PLAIN' } });
    const dataOffset = w.offset;
    const bounds = [...c.cuts, c.plainFrom, HAND_ROWS].filter((x, k, a) => x < HAND_ROWS && a.indexOf(x) === k).sort((a, b) => a - b);
    bounds.push(HAND_ROWS);
    for (let p = 0; p + 1 < bounds.length; p++) {
      const from = bounds[p]!;
      const to = bounds[p + 1]!;
      const levels = new ByteWriter();
      const defs: number[] = [];
      for (let i = from; i < to; i++) defs.push(handNull(i) ? 0 : 1);
      writeRleBitPackedHybrid(levels, defs, 1);
      const body = new ByteWriter();
      body.appendUint32(levels.offset);
      body.appendBytes(levels.getBytes());
      const present: number[] = [];
      for (let i = from; i < to; i++) if (!handNull(i)) present.push(i);
      const plain = from >= c.plainFrom;
      if (plain) writePlain(body, present.map((i) => raw(c, c.value(i))), c.type, undefined);
      else {
        const width = Math.max(1, Math.ceil(Math.log2(entries.length)));
        body.appendUint8(width);
        writeRleBitPackedHybrid(body, present.map((i) => entries.indexOf(c.value(i))), width);
      }
      page(body, {
        type: 'DATA_PAGE',
        uncompressed_page_size: body.offset,
        compressed_page_size: body.offset,
        data_page_header: { num_values: to - from, encoding: plain ? 'PLAIN' : 'RLE_DICTIONARY', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
      });
    }
    return { c, start, dataOffset, size: BigInt(w.offset - start) };
  });
  const metaStart = w.offset;
  const total = chunks.reduce((a, x) => a + x.size, 0n);
  writeMetadata(w, {
    version: 1,
    schema: [
      { name: 'root', num_children: HAND_COLUMNS.length },
      ...HAND_COLUMNS.map((c) => (c.type === 'BYTE_ARRAY' ? { name: c.name, type: c.type, repetition_type: 'OPTIONAL' as const, converted_type: 'UTF8' as const } : { name: c.name, type: c.type, repetition_type: 'OPTIONAL' as const })),
    ],
    num_rows: BigInt(HAND_ROWS),
    row_groups: [
      {
        columns: chunks.map(({ c, start, dataOffset, size }) => ({
          file_offset: BigInt(start),
          meta_data: {
            type: c.type,
            encodings: ['PLAIN', 'RLE', 'RLE_DICTIONARY'],
            path_in_schema: [c.name],
            codec: 'UNCOMPRESSED' as const,
            num_values: BigInt(HAND_ROWS),
            total_uncompressed_size: size,
            total_compressed_size: size,
            data_page_offset: BigInt(dataOffset),
            dictionary_page_offset: BigInt(start),
          },
        })),
        total_byte_size: total,
        num_rows: BigInt(HAND_ROWS),
      },
    ],
    created_by: 'quire test',
  });
  w.appendUint32(w.offset - metaStart);
  w.appendUint32(0x31524150);
  writeFileSync(path, new Uint8Array(w.getBuffer(), 0, w.offset));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-levels-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  files.v1 = join(dir, 'v1.parquet');
  files.v2 = join(dir, 'v2.parquet');
  files.hw = join(dir, 'hw.parquet');
  await duck.run(`COPY (${select}) TO '${files.v1}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
  await duck.run(`COPY (${select}) TO '${files.v2}' (FORMAT parquet, ROW_GROUP_SIZE 10000, PARQUET_VERSION V2)`);
  // hyparquet-writer: version 2 pages of 2 KB, so page boundaries differ between the int, double and text columns.
  const ids = Array.from({ length: N }, (_, i) => i);
  const nul = <T>(f: (i: number) => T) => ids.map((i) => (sharedNull(i) ? null : f(i)));
  parquetWriteFile({
    filename: files.hw,
    rowGroupSize: 10_000,
    pageSize: 2048,
    columnData: [
      { name: 'id', data: Int32Array.from(ids), type: 'INT32' },
      { name: 'k', data: nul((i) => i % 1000), type: 'INT32', nullable: true },
      { name: 'v', data: nul((i) => ((i * 7919) % 10007) / 10007), type: 'DOUBLE', nullable: true },
      { name: 's', data: nul((i) => 'cat' + (i % 17)), type: 'STRING', nullable: true },
      { name: 'name', data: nul((i) => 'name' + (i % 5003)), type: 'STRING', nullable: true },
      { name: 'm', data: ids.map((i) => (i % 5 === 1 ? null : 'm' + (i % 11))), type: 'STRING', nullable: true },
      { name: 'z', data: ids.map((i) => (sharedNull(i) || i % 1000 === 999 ? null : (i % 89) * 1.5)), type: 'DOUBLE', nullable: true },
      { name: 't', data: ids.map((i) => (sharedNull(i) || (i >= 10000 && i < 20000) ? null : 't' + (i % 3))), type: 'STRING', nullable: true },
    ],
  });
  files.hand = join(dir, 'hand.parquet');
  writeHandFile(files.hand);
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  // The bench's shape: a group key, a counted column and a summed one, all NULL where k is.
  `SELECT s, count(*), count(name), sum(v) FROM read_parquet('$F') WHERE k < 500 GROUP BY s ORDER BY s NULLS FIRST`,
  // Columns with NULLs of their own beside them: m elsewhere, z on k's rows and more, t all NULL in a group.
  `SELECT s, count(m), count(z), sum(z), count(t), count(name) FROM read_parquet('$F') WHERE k < 500 GROUP BY s ORDER BY s NULLS FIRST`,
  // count(col) with col also filtered, and a second filter over a shared column.
  `SELECT s, count(k), count(v), count(name), sum(v) FROM read_parquet('$F') WHERE k >= 100 AND v > 0.3 GROUP BY s ORDER BY s NULLS FIRST`,
  `SELECT count(*), count(k), count(name), count(m) FROM read_parquet('$F') WHERE k <> 7`,
  // Few rows per page (read at their positions) and rows in stretches, output as values.
  `SELECT id, v, s, name, m, z, t FROM read_parquet('$F') WHERE k = 7 ORDER BY id NULLS FIRST`,
  `SELECT id, v, s, name IS NULL, z FROM read_parquet('$F') WHERE k BETWEEN 200 AND 260 ORDER BY id NULLS FIRST LIMIT 3000`,
  `SELECT s, min(name), max(name), min(v), max(z) FROM read_parquet('$F') WHERE k > 900 GROUP BY s ORDER BY s NULLS FIRST`,
  // The filter on a column with NULLs of its own: its levels are not the others'.
  `SELECT s, count(*), count(name), sum(v) FROM read_parquet('$F') WHERE z < 50 GROUP BY s ORDER BY s NULLS FIRST`,
];

describe('read_parquet: NULL flags shared with the filter column', () => {
  for (const kind of ['v1', 'v2', 'hw']) {
    for (const q of QUERIES) {
      it(`${kind}: ${q.replace(`'$F'`, '…')}`, async () => {
        const sql = q.replaceAll('$F', files[kind]!);
        const got = await quire(sql);
        expect(got).toEqual(await duckdb(sql));
        await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
        try {
          expect(await quire(sql)).toEqual(got);
        } finally {
          await db.query('RESET quire.disabled_rules');
        }
      });
    }
  }

  const HAND = [
    `SELECT s, count(*), count(name), sum(v), count(v) FROM read_parquet('$F') WHERE k < 500 GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT k, v, s, name FROM read_parquet('$F') WHERE k BETWEEN 10 AND 40 ORDER BY k, v, s, name NULLS FIRST`,
    `SELECT count(*), count(name), min(s), max(v) FROM read_parquet('$F') WHERE k = 3`,
    `SELECT s, count(name), sum(v) FROM read_parquet('$F') WHERE k >= 250 AND v < 0.75 GROUP BY s ORDER BY s NULLS FIRST`,
  ];
  for (const q of HAND) {
    it(`dictionary then PLAIN pages: ${q.replace(`'$F'`, '…')}`, async () => {
      const sql = q.replaceAll('$F', files.hand!);
      const got = await quire(sql);
      expect(got).toEqual(await duckdb(sql));
      expect(got.length).toBeGreaterThan(0);
    });
  }
});
