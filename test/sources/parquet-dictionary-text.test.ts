/**
 * Dictionary-encoded columns in read_parquet: text from a dictionary page carries its codes (grouped,
 * sorted, joined and deduplicated by code), definition levels are read straight into NULL flags, and
 * the columns decoded after a row filter are read at the selected rows only. Every answer must equal
 * DuckDB's over the same file: text with NULLs, multibyte text, row groups without NULLs, with some and
 * with only NULLs, and a chunk whose dictionary gives way to PLAIN pages midway (written here by hand,
 * as DuckDB and hyparquet-writer decide per chunk).
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

const N = 50_000;
let dir: string;
let file: string;
let fallback: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);

/** Rows of the hand-written file: s is NULL on every fifth row, then dictionary codes, then PLAIN strings. */
const DICT = ['apple', 'beet', 'ñandú', '日本語', '🍋 lemon'];
const FALLBACK_ROWS = 12_000;
const SPLIT = 7_000;
function fallbackValue(i: number): string | null {
  if (i % 5 === 2) return null;
  if (i < SPLIT) return DICT[(i * 7) % DICT.length]!;
  // PLAIN values: the dictionary's strings again and new ones.
  return i % 3 === 0 ? DICT[i % DICT.length]! : `plain ${i % 41}`;
}

/** An OPTIONAL UTF8 column chunk: a dictionary page, one RLE_DICTIONARY data page and one PLAIN data page (pages v1, uncompressed). */
function writeFallbackFile(path: string): void {
  const w = new ByteWriter();
  w.appendUint32(0x31524150);
  const chunkStart = w.offset;
  const page = (body: ByteWriter, header: Parameters<typeof writePageHeader>[1]): void => {
    writePageHeader(w, header);
    w.appendBytes(body.getBytes());
  };
  const dict = new ByteWriter();
  writePlain(dict, DICT.map((s) => new TextEncoder().encode(s)), 'BYTE_ARRAY', undefined);
  page(dict, { type: 'DICTIONARY_PAGE', uncompressed_page_size: dict.offset, compressed_page_size: dict.offset, dictionary_page_header: { num_values: DICT.length, encoding: 'PLAIN' } });
  const dataOffset = w.offset;
  const levels = (from: number, to: number): ByteWriter => {
    const l = new ByteWriter();
    const defs: number[] = [];
    for (let i = from; i < to; i++) defs.push(fallbackValue(i) === null ? 0 : 1);
    writeRleBitPackedHybrid(l, defs, 1);
    const out = new ByteWriter();
    out.appendUint32(l.offset);
    out.appendBytes(l.getBytes());
    return out;
  };
  const dictPage = levels(0, SPLIT);
  const idx: number[] = [];
  for (let i = 0; i < SPLIT; i++) {
    const v = fallbackValue(i);
    if (v !== null) idx.push(DICT.indexOf(v));
  }
  dictPage.appendUint8(3);
  writeRleBitPackedHybrid(dictPage, idx, 3);
  page(dictPage, {
    type: 'DATA_PAGE',
    uncompressed_page_size: dictPage.offset,
    compressed_page_size: dictPage.offset,
    data_page_header: { num_values: SPLIT, encoding: 'RLE_DICTIONARY', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
  });
  const plainPage = levels(SPLIT, FALLBACK_ROWS);
  const plain: Uint8Array[] = [];
  for (let i = SPLIT; i < FALLBACK_ROWS; i++) {
    const v = fallbackValue(i);
    if (v !== null) plain.push(new TextEncoder().encode(v));
  }
  writePlain(plainPage, plain, 'BYTE_ARRAY', undefined);
  page(plainPage, {
    type: 'DATA_PAGE',
    uncompressed_page_size: plainPage.offset,
    compressed_page_size: plainPage.offset,
    data_page_header: { num_values: FALLBACK_ROWS - SPLIT, encoding: 'PLAIN', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
  });
  const size = BigInt(w.offset - chunkStart);
  const metaStart = w.offset;
  writeMetadata(w, {
    version: 1,
    schema: [
      { name: 'root', num_children: 1 },
      { name: 's', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', converted_type: 'UTF8' },
    ],
    num_rows: BigInt(FALLBACK_ROWS),
    row_groups: [
      {
        columns: [
          {
            file_offset: BigInt(chunkStart),
            meta_data: {
              type: 'BYTE_ARRAY',
              encodings: ['PLAIN', 'RLE', 'RLE_DICTIONARY'],
              path_in_schema: ['s'],
              codec: 'UNCOMPRESSED',
              num_values: BigInt(FALLBACK_ROWS),
              total_uncompressed_size: size,
              total_compressed_size: size,
              data_page_offset: BigInt(dataOffset),
              dictionary_page_offset: BigInt(chunkStart),
            },
          },
        ],
        total_byte_size: size,
        num_rows: BigInt(FALLBACK_ROWS),
      },
    ],
    created_by: 'quire test',
  });
  // writeMetadata leaves the footer's length and magic to its caller.
  w.appendUint32(w.offset - metaStart);
  w.appendUint32(0x31524150);
  writeFileSync(path, new Uint8Array(w.getBuffer(), 0, w.offset));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-dict-'));
  file = join(dir, 'dict.parquet');
  fallback = join(dir, 'fallback.parquet');
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // Row groups of 10,000: s has no NULLs in the first, some in the second and fourth, only NULLs in the
  // third; m is multibyte; k and v are dictionary-encoded numbers with NULLs of their own.
  await duck.run(`COPY (SELECT i::INTEGER AS id,
                   CASE WHEN i BETWEEN 20000 AND 29999 THEN NULL WHEN i >= 10000 AND i % 7 = 3 THEN NULL ELSE 'cat' || (i % 17) END AS s,
                   CASE WHEN i % 11 = 5 THEN NULL ELSE ['ñandú', '日本語', '🍋', 'çà', 'plain', 'Ωmega'][1 + (i * 13) % 6] || (i % 9) END AS m,
                   CASE WHEN i % 13 = 1 THEN NULL ELSE ((i * 7919) % 1000)::INTEGER END AS k,
                   CASE WHEN i % 6 = 0 THEN NULL ELSE ((i * 31) % 1009) / 8.0 END AS v,
                   'name' || (i % 2003) AS name
                 FROM range(${N}) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
  writeFallbackFile(fallback);
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  // Grouping by a coded text column (codes per row group, several dictionaries), NULLs as their own group.
  `SELECT s, count(*), count(m), sum(k), sum(v) FROM read_parquet('$F') GROUP BY s ORDER BY s NULLS FIRST`,
  `SELECT m, count(*), min(id), max(name) FROM read_parquet('$F') GROUP BY m ORDER BY m NULLS FIRST`,
  `SELECT s, m, count(*) FROM read_parquet('$F') GROUP BY s, m ORDER BY s NULLS FIRST, m NULLS FIRST`,
  // Sorting by codes' ranks, with a tiebreaker that must follow the text order.
  `SELECT id, m, s FROM read_parquet('$F') WHERE id % 97 = 0 ORDER BY m NULLS LAST, id`,
  `SELECT id, m FROM read_parquet('$F') ORDER BY m DESC NULLS FIRST, id LIMIT 40`,
  `SELECT DISTINCT m FROM read_parquet('$F') ORDER BY m NULLS FIRST`,
  `SELECT count(DISTINCT s), count(DISTINCT m), count(DISTINCT name) FROM read_parquet('$F')`,
  // A join on coded text from two scans (different dictionaries on each side).
  `SELECT a.s, count(*) FROM read_parquet('$F') a JOIN (SELECT DISTINCT s FROM read_parquet('$F') WHERE id < 100) b ON a.s = b.s GROUP BY a.s ORDER BY a.s`,
  // Row filters: few rows pass (columns read at those rows), about half, nearly all, none.
  `SELECT id, s, m, k, v, name FROM read_parquet('$F') WHERE k = 17 ORDER BY id`,
  `SELECT s, count(*), count(m), sum(v), min(name) FROM read_parquet('$F') WHERE k < 500 GROUP BY s ORDER BY s NULLS FIRST`,
  `SELECT m, count(*), sum(k), count(v) FROM read_parquet('$F') WHERE k <> 3 GROUP BY m ORDER BY m NULLS FIRST`,
  `SELECT count(*), max(s) FROM read_parquet('$F') WHERE k > 5000`,
  `SELECT id, s, m FROM read_parquet('$F') WHERE id BETWEEN 24990 AND 25020 ORDER BY id`,
  `SELECT s, m, v FROM read_parquet('$F') WHERE v >= 125 AND id >= 15000 ORDER BY id LIMIT 50`,
  // A numeric literal against a double column (bound as casts over the constant) is a row filter too.
  `SELECT s, count(*), sum(v) FROM read_parquet('$F') WHERE v > 62.25 AND v <= 100.125 GROUP BY s ORDER BY s NULLS FIRST`,
  // Text compared as text.
  `SELECT count(*), min(id) FROM read_parquet('$F') WHERE m = '日本語4' OR s = 'cat3'`,
  `SELECT upper(m), length(m), count(*) FROM read_parquet('$F') WHERE s IS NULL GROUP BY 1, 2 ORDER BY 1 NULLS FIRST, 2`,
];

describe('read_parquet dictionary-encoded columns', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      const sql = q.replaceAll('$F', file);
      const got = await quire(sql);
      // DuckDB's sum over integers is a HUGEINT: compared as a number.
      expect(got).toEqual(await duckdb(sql.replaceAll('sum(k)', 'CAST(sum(k) AS BIGINT)')));
      await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
      try {
        expect(await quire(sql)).toEqual(got);
      } finally {
        await db.query('RESET quire.disabled_rules');
      }
    });
  }

  it('EXPLAIN: a numeric literal compared with a double column is checked on the decoded column first', async () => {
    const plan = (await db.query(`EXPLAIN (FORMAT QUIRE) SELECT s FROM read_parquet('${file}') WHERE v > 62.25 AND v <= '1e3'::numeric`)).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toMatch(/decoded first: v > 62.25 AND v <= 1000/);
  });

  it('text columns from dictionary pages carry codes; the all-NULL row group and its neighbours agree', async () => {
    const rows = await quire(`SELECT id, s FROM read_parquet('${file}') WHERE id BETWEEN 19990 AND 30010 ORDER BY id`);
    expect(rows).toEqual(await duckdb(`SELECT id, s FROM read_parquet('${file}') WHERE id BETWEEN 19990 AND 30010 ORDER BY id`));
    expect(rows.filter((r) => r[1] === null).length).toBe(10_000 + rows.filter((r) => (r[0] as number) < 20000 && (r[0] as number) % 7 === 3).length + rows.filter((r) => (r[0] as number) > 29999 && (r[0] as number) % 7 === 3).length);
  });
});

describe('read_parquet: a dictionary that falls back to PLAIN pages mid-chunk', () => {
  const F = [
    `SELECT * FROM read_parquet('$F')`,
    `SELECT s, count(*) FROM read_parquet('$F') GROUP BY s ORDER BY s NULLS FIRST`,
    `SELECT DISTINCT s FROM read_parquet('$F') ORDER BY s NULLS LAST`,
    `SELECT s, count(*) FROM read_parquet('$F') WHERE s >= 'beet' GROUP BY s ORDER BY s`,
  ];
  for (const q of F) {
    it(q.replace(`'$F'`, '…'), async () => {
      const sql = q.replaceAll('$F', fallback);
      const expected = sql.startsWith('SELECT *')
        ? Array.from({ length: FALLBACK_ROWS }, (_, i) => [fallbackValue(i)])
        : await duckdb(sql);
      if (sql.startsWith('SELECT *')) expect(await duckdb(sql)).toEqual(expected);
      expect(await quire(sql)).toEqual(expected);
    });
  }
});
