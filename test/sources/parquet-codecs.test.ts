/**
 * read_parquet over every compression codec DuckDB writes (uncompressed, SNAPPY, ZSTD, GZIP, BROTLI,
 * LZ4_RAW), against DuckDB reading the same files: every mapped type, NULLs, dictionary and plain pages,
 * several row groups; booleans go through hyparquet's general reader with the same decompressors. A page whose compressed bytes are damaged fails with an error naming the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';
import { lz4BlockDecompress, zstdDecodesInPlace } from '../../src/storage/table-functions/parquet-codecs.js';

const N = 20_000;
const CODECS = ['uncompressed', 'snappy', 'zstd', 'gzip', 'brotli', 'lz4_raw'];
let dir: string;
let db: Database;
let duck: DuckDBConnection;

const norm = (rows: unknown[][]): unknown[][] =>
  rows.map((r) => r.map((x) => (typeof x === 'bigint' && x <= BigInt(Number.MAX_SAFE_INTEGER) && x >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);
const file = (codec: string): string => join(dir, `${codec}.parquet`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-codecs-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  for (const codec of CODECS) {
    // s repeats (dictionary pages), u is unique and long (plain pages), NULLs at several strides.
    await duck.run(`COPY (SELECT i::INTEGER AS id,
                     CASE WHEN i % 9 = 1 THEN NULL ELSE (i - 6000) * 1000000007 END::BIGINT AS i8,
                     CASE WHEN i % 5 = 2 THEN NULL ELSE (i * 7919 % 10007) / 97.0 END::DOUBLE AS f,
                     CASE WHEN i % 6 = 3 THEN NULL ELSE ((i * 31) % 200000 - 100000) / 1000.0 END::DECIMAL(12,3) AS dec,
                     CASE WHEN i % 4 = 0 THEN NULL ELSE 'cat' || (i % 23) END AS s,
                     'unique-' || i || repeat('x', i % 40) AS u,
                     CASE WHEN i % 11 = 4 THEN NULL ELSE TIMESTAMP '2001-02-03 04:05:06.789' + to_microseconds(i::BIGINT * 86400000123) END AS ts,
                     CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END AS b
                   FROM range(${N}) r(i)) TO '${file(codec)}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE 6000)`);
  }
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('read_parquet decompresses every codec DuckDB writes', () => {
  for (const codec of CODECS) {
    it(`${codec}: every row and an aggregate agree with DuckDB`, async () => {
      const f = file(codec);
      const meta = await duckdb(`SELECT DISTINCT compression FROM parquet_metadata('${f}')`);
      expect(meta.map((r) => String(r[0]).toUpperCase())).toEqual([codec.toUpperCase()]);
      const rows = `SELECT id, i8, f, CAST(dec AS VARCHAR), s, u, CAST(ts AS VARCHAR), b FROM read_parquet('${f}') ORDER BY id`;
      const got = await quire(rows);
      expect(got.length).toBe(N);
      expect(got).toEqual(await duckdb(rows));
      const agg = `SELECT s, count(*), count(i8), CAST(sum(i8) AS VARCHAR), CAST(sum(dec) AS VARCHAR), max(u) FROM read_parquet('${f}') WHERE id % 3 <> 1 GROUP BY s ORDER BY s`;
      expect(await quire(agg)).toEqual(await duckdb(agg));
    });
  }

  it('damaged compressed bytes: an error naming the file, never a crash or wrong rows', async () => {
    for (const codec of ['snappy', 'zstd', 'gzip', 'lz4_raw']) {
      const bytes = readFileSync(file(codec));
      // Overwrite the compressed body of column u's first page in the second row group.
      const [[start, size]] = (await duckdb(
        `SELECT data_page_offset, total_compressed_size FROM parquet_metadata('${file(codec)}') WHERE path_in_schema = 'u' AND row_group_id = 1`,
      )) as [[number, number]];
      const bad = Buffer.from(bytes);
      for (let i = start + 64; i < start + Math.min(size, 4000); i += 7) bad[i] = 0xff;
      const f = join(dir, `bad-${codec}.parquet`);
      writeFileSync(f, bad);
      let err: unknown = null;
      try {
        await db.query(`SELECT count(*), sum(length(u)), sum(f) FROM read_parquet('${f}')`);
      } catch (e) {
        err = e;
      }
      expect(err, codec).toBeInstanceOf(QuireError);
      expect((err as Error).message, codec).toContain(f);
    }
  });
});

describe('ZSTD pages on both decoders', () => {
  it("a page past the WebAssembly decoder's 16 MB bound goes to fzstd, one within it does not; both agree with DuckDB", async () => {
    const f = join(dir, 'zstd-large.parquet');
    // One value per row group: pages of about 18 MB (fzstd) and 6 MB (WebAssembly), and small ones.
    await duck.run(`COPY (SELECT i, CASE i WHEN 0 THEN repeat('ab' || i, 6000000) WHEN 1 THEN repeat('xyz', 2000000) ELSE 'v' || i END AS big
                     FROM range(3) t(i)) TO '${f}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1)`);
    const q = `SELECT i, length(big), md5(big), left(big, 12), right(big, 12) FROM read_parquet('${f}') ORDER BY i`;
    const got = await quire(q);
    expect(got).toEqual(await duckdb(q));
    expect(got[0]![1]).toBe(18000000);
    // The WebAssembly decoder's module was found: its pages are read in its memory.
    expect(zstdDecodesInPlace()).toBe(true);
  });
});

describe('dictionary indexes of every bit width', () => {
  it('1 to 17 bits, with and without NULLs, pages of odd lengths: every value agrees with DuckDB', async () => {
    const f = join(dir, 'widths.parquet');
    const mods = [2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025, 2049, 4097, 8193, 16385, 40000, 70001];
    const cols = mods.map((m, j) => `CASE WHEN ${j % 2 === 0 ? 'FALSE' : `(i * 13) % ${j + 3} = 0`} THEN NULL ELSE ((i * 7919) % ${m})::INTEGER END AS c${j}`);
    await duck.run(`COPY (SELECT i::INTEGER AS id, ${cols.join(', ')} FROM range(100003) t(i)) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 33333)`);
    const sql = `SELECT * FROM read_parquet('${f}') ORDER BY id`;
    const got = await quire(sql);
    expect(got.length).toBe(100003);
    expect(got).toEqual(await duckdb(sql));
    const enc = await duckdb(`SELECT count(*) FROM parquet_metadata('${f}') WHERE encodings LIKE '%DICTIONARY%'`);
    expect(Number(enc[0]![0])).toBeGreaterThan(30);
  });
});

describe('LZ4 block decoder', () => {
  it('literals, overlapping and distant matches, long lengths', () => {
    // Hand-assembled block: "abcabcabcabc" + 300 × 'z' + "tail".
    // seq 1: 3 literals "abc", match offset 3 length 9 (overlapping).
    // seq 2: 1 literal "z", match offset 1 length 299 (length 4 + 15 + 255 + 25).
    // seq 3: last literals "tail".
    const block = Uint8Array.from([
      0x35, 0x61, 0x62, 0x63, 0x03, 0x00,
      0x1f, 0x7a, 0x01, 0x00, 255, 25,
      0x40, 0x74, 0x61, 0x69, 0x6c,
    ]);
    const want = 'abcabcabcabc' + 'z'.repeat(300) + 'tail';
    expect(Buffer.from(lz4BlockDecompress(block, want.length)).toString('latin1')).toBe(want);
  });

  it('refuses offsets before the start, overruns and short output', () => {
    expect(() => lz4BlockDecompress(Uint8Array.from([0x10, 0x61, 0x05, 0x00]), 10)).toThrow(/corrupt LZ4/);
    expect(() => lz4BlockDecompress(Uint8Array.from([0x30, 0x61, 0x62, 0x63]), 2)).toThrow(/corrupt LZ4/);
    expect(() => lz4BlockDecompress(Uint8Array.from([0x30, 0x61, 0x62, 0x63]), 5)).toThrow(/corrupt LZ4/);
  });
});
