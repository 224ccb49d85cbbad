/**
 * read_parquet over files with many pages per column chunk, where a filter keeps few rows: the columns
 * not read by the filter skip the pages holding none of the surviving rows. Also dictionary-coded text
 * with NULLs and multibyte strings, pages with and without NULLs, several row groups, and statistics
 * pruning with filters on the row groups' boundary values. Every answer is compared with DuckDB reading
 * the same file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const N = 30_000;
let dir: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));

// Rows 10,000-14,999 have no NULLs (so some pages carry none); elsewhere every 7th s and every 5th v is NULL.
const k = (i: number): number => (i * 7919) % 3001;
const s = (i: number): string | null => (i % 7 === 3 && (i < 10_000 || i >= 15_000) ? null : ['äpfel', 'naïve', '日本語', 'plain', 'émoji 😀'][i % 5]! + (i % 11));
const v = (i: number): number | null => (i % 5 === 2 && (i < 10_000 || i >= 15_000) ? null : i / 4);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-pages-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  const ids = Array.from({ length: N }, (_, i) => i);
  const columns = (index: boolean) => [
    { name: 'id', data: Int32Array.from(ids), type: 'INT32' as const, columnIndex: index },
    { name: 'k', data: Int32Array.from(ids, k), type: 'INT32' as const, columnIndex: index },
    { name: 's', data: ids.map(s), type: 'STRING' as const, nullable: true, columnIndex: index },
    { name: 'v', data: ids.map(v), type: 'DOUBLE' as const, nullable: true, columnIndex: index },
  ];
  // Small pages: dozens per column chunk; three row groups.
  parquetWriteFile({ filename: join(dir, 'pages.parquet'), columnData: columns(false), rowGroupSize: 12_000, pageSize: 2048 });
  parquetWriteFile({ filename: join(dir, 'indexed.parquet'), columnData: columns(true), rowGroupSize: 12_000, pageSize: 2048 });
  // DuckDB: dictionary-coded text with NULLs, multibyte, row groups of 6,000 rows.
  await duck.run(`COPY (SELECT i::INTEGER AS id, ((i * 7919) % 3001)::INTEGER AS k,
                   CASE WHEN i % 7 = 3 AND (i < 10000 OR i >= 15000) THEN NULL
                        ELSE ['äpfel', 'naïve', '日本語', 'plain', 'émoji 😀'][i % 5 + 1] || (i % 11) END AS s,
                   CASE WHEN i % 5 = 2 AND (i < 10000 OR i >= 15000) THEN NULL ELSE i / 4 END::DOUBLE AS v
                 FROM range(${N}) t(i)) TO '${join(dir, 'duck.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 6000)`);
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  // A few rows per group, spread over a few pages: the other columns decode only those pages.
  `SELECT id, k, s, v FROM read_parquet('$F') WHERE k = 17 ORDER BY id`,
  `SELECT id, s, v FROM read_parquet('$F') WHERE k < 4 AND k >= 2 ORDER BY id`,
  // Surviving rows in the NULL-free stretch only, and in none.
  `SELECT id, s, v FROM read_parquet('$F') WHERE id >= 12000 AND id < 12040 AND k > 100 ORDER BY id`,
  `SELECT count(*), max(s) FROM read_parquet('$F') WHERE k > 5000`,
  // Most rows: every page decoded.
  `SELECT s, count(*), count(v), sum(v), min(k) FROM read_parquet('$F') WHERE k <> 5 GROUP BY s ORDER BY s`,
  // Statistics pruning on the boundaries of the 6,000- and 12,000-row groups.
  `SELECT count(*), count(s), sum(v), min(s), max(s) FROM read_parquet('$F') WHERE id >= 6000`,
  `SELECT count(*), count(s), sum(v), min(s) FROM read_parquet('$F') WHERE id <= 5999`,
  `SELECT id, s, v FROM read_parquet('$F') WHERE id BETWEEN 11999 AND 12000 ORDER BY id`,
  `SELECT id, s, v FROM read_parquet('$F') WHERE id IN (0, 5999, 6000, 11999, 12000, 29999) ORDER BY id`,
  `SELECT id, s FROM read_parquet('$F') WHERE id > 29999 OR id < 0`,
  // Text filters and grouping over the dictionary-coded, multibyte column.
  `SELECT s, count(*) FROM read_parquet('$F') WHERE s = '日本語2' OR s IS NULL GROUP BY s ORDER BY s`,
];

describe('read_parquet with many pages, pruning and late decoding', () => {
  for (const name of ['pages', 'indexed', 'duck']) {
    for (const q of QUERIES) {
      it(`${name}: ${q.replace(`'$F'`, '…')}`, async () => {
        const sql = q.replaceAll('$F', join(dir, `${name}.parquet`));
        const want = norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);
        const got = norm((await db.query(sql)).rows);
        expect(got).toEqual(want);
      });
    }
  }

  it('the many-page file has dozens of data pages per column chunk, and k = 17 keeps few rows', async () => {
    const f = join(dir, 'pages.parquet');
    const meta = parquetMetadata(readFileSync(f).buffer.slice(0) as ArrayBuffer);
    const md = meta.row_groups[0]!.columns.find((c) => c.meta_data?.path_in_schema[0] === 's')!.meta_data!;
    const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
    const bytes = readFileSync(f).subarray(start, start + Number(md.total_compressed_size));
    const r = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
    let dataPages = 0;
    while (r.offset < bytes.byteLength) {
      const h = parquetHeader(r);
      if (h.type === 'DATA_PAGE' || h.type === 'DATA_PAGE_V2') dataPages++;
      r.offset += h.compressed_page_size;
    }
    expect(dataPages).toBeGreaterThan(10);
    const kept = (await db.query(`SELECT count(*) FROM read_parquet('${f}') WHERE k = 17`)).rows;
    expect(Number(kept[0]![0])).toBeLessThan(20);
  });
});
