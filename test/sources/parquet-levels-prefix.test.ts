/**
 * A column read for its NULLs only decompresses of each version 1 page only the definition levels at
 * its front (decompressPrefix: a Snappy page stops after them; other codecs decompress whole). The
 * prefix must equal the whole page's first bytes; counts must equal DuckDB's for every codec DuckDB
 * writes, with NULLs scattered (levels bit-packed, Snappy literals), periodic (back-references that
 * overlap their output) and in long runs.
 */
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decompressDataPage, decompressPrefix } from '../../src/storage/table-functions/parquet-codecs.js';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const snappy = createRequire(import.meta.url)('snappy') as { compressSync(b: Buffer): Buffer; uncompressSync(b: Buffer): Buffer };

/** A deterministic byte generator (xorshift). */
function bytes(n: number, seed: number, kind: 'random' | 'periodic' | 'runs'): Buffer {
  const out = Buffer.alloc(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = kind === 'random' ? x & 0xff : kind === 'periodic' ? (i % 7) * 31 + (i % 3) : (Math.floor(i / 300) % 2) * 255;
  }
  return out;
}

describe('decompressPrefix', () => {
  it('gives a Snappy block\'s first bytes, equal to the whole block\'s, at every prefix length tried', () => {
    for (const kind of ['random', 'periodic', 'runs'] as const) {
      for (const n of [1, 5, 61, 70_000, 200_000]) {
        const plain = bytes(n, n + kind.length, kind);
        const packed = snappy.compressSync(plain);
        expect(snappy.uncompressSync(packed).equals(plain)).toBe(true);
        for (const p of [0, 1, 4, 59, 60, 61, 64, 65, 1000, 65_536, 65_537, n - 1, n]) {
          if (p < 0 || p > n) continue;
          const got = decompressPrefix('SNAPPY', packed, n, p);
          expect(got.length, `${kind} ${n} ${p}`).toBeGreaterThanOrEqual(p);
          expect(Buffer.from(got.subarray(0, p)).equals(plain.subarray(0, p)), `${kind} ${n} ${p}`).toBe(true);
        }
      }
    }
  });

  it('decompressDataPage decodes whole Snappy pages as the native codec does, barely compressed or not', () => {
    let jsDecoded = 0;
    for (const kind of ['random', 'periodic', 'runs'] as const) {
      for (const n of [1, 24, 25, 100, 70_000, 300_000]) {
        const plain = bytes(n, 3 * n + kind.length, kind);
        const packed = snappy.compressSync(plain);
        // Pages of mostly literals are decoded by our own decoder (the others natively).
        if (packed.length * 10 >= n * 9) jsDecoded++;
        const got = decompressDataPage('SNAPPY', packed, n);
        expect(got.length, `${kind} ${n}`).toBe(n);
        expect(Buffer.from(got).equals(plain), `${kind} ${n}`).toBe(true);
      }
    }
    expect(jsDecoded).toBeGreaterThan(3);
    expect(() => decompressDataPage('SNAPPY', snappy.compressSync(bytes(5000, 1, 'random')), 4999)).toThrow(/corrupt Snappy/);
    expect(() => decompressDataPage('UNCOMPRESSED', new Uint8Array(10), 11)).toThrow(/does not match/);
  });

  it('refuses corrupt Snappy blocks instead of reading past them', () => {
    const plain = bytes(10_000, 7, 'periodic');
    const packed = snappy.compressSync(plain);
    // Declared length that differs from the page header's.
    expect(() => decompressPrefix('SNAPPY', packed, 9_999, 100)).toThrow(/corrupt Snappy/);
    // Cut short.
    expect(() => decompressPrefix('SNAPPY', packed.subarray(0, 20), 10_000, 5_000)).toThrow(/corrupt Snappy/);
    // A back-reference before the start of the output: length 10, then a copy with offset 5 at output 0.
    expect(() => decompressPrefix('SNAPPY', Uint8Array.from([10, 0b00000001, 5]), 10, 4)).toThrow(/corrupt Snappy/);
    // A prefix longer than the page.
    expect(() => decompressPrefix('SNAPPY', packed, 10_000, 10_001)).toThrow(/corrupt Snappy/);
  });
});

const N = 100_000;
// s is NULL scattered pseudo-randomly (bit-packed levels that Snappy keeps as literals), p every 7th row
// (periodic levels: overlapping back-references), r in runs of 5,000 rows (RLE levels), a all NULL in the
// first row group, z never NULL.
const select = `SELECT i::INTEGER AS id, ((i * 7919) % 1000)::INTEGER AS k,
    CASE WHEN hash(i) % 3 = 0 THEN NULL ELSE 'name' || (i % 5003) END AS s,
    CASE WHEN i % 7 = 3 THEN NULL ELSE i * 0.5 END AS p,
    CASE WHEN (i // 5000) % 2 = 1 THEN NULL ELSE i END AS r,
    CASE WHEN i < 20000 THEN NULL ELSE 'x' END AS a,
    'z' || (i % 3) AS z
  FROM range(${N}) t(i)`;
const fx = duckdbParquetFixture('parquet-levels-prefix', select, 'ROW_GROUP_SIZE 20000');

const QUERIES = [
  `SELECT count(*), count(s), count(p), count(r), count(a), count(z) FROM read_parquet('$F')`,
  `SELECT id % 10 AS g, count(s), count(p), count(r), count(a) FROM read_parquet('$F') WHERE k < 300 GROUP BY g ORDER BY g`,
  `SELECT count(*) FILTER (WHERE s IS NULL), count(*) FILTER (WHERE p IS NOT NULL AND r IS NULL) FROM read_parquet('$F') WHERE k = 17`,
];

describe('read_parquet reads version 1 definition levels from the front of each page', () => {
  for (const codec of ['snappy', 'zstd', 'gzip', 'lz4', 'uncompressed']) {
    it(`${codec}: counts equal DuckDB's and Quire's own without the presence rule`, async () => {
      const f = join(fx.dir, `${codec}.parquet`);
      await fx.duck.run(`COPY (${select}) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 20000, COMPRESSION ${codec})`);
      for (const q of QUERIES) {
        const sql = q.replaceAll('$F', f);
        expect((await fx.db.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => String(r[0])).join('\n')).toMatch(/NULLs only/);
        const got = await fx.quire(sql);
        expect(got, sql).toEqual(await fx.duckdb(sql));
        await fx.db.query(`SET quire.disabled_rules = 'presence-only-table-function-columns'`);
        try {
          expect(await fx.quire(sql), sql).toEqual(got);
        } finally {
          await fx.db.query('RESET quire.disabled_rules');
        }
      }
    });
  }

  it('a page whose compressed bytes are damaged inside its levels is an error naming the file', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const src = readFileSync(fx.file);
    const bad = Buffer.from(src);
    // Overwrite the start of every page body after the first 4 bytes of the file with junk: some page's
    // Snappy stream or levels must break.
    for (let i = 4; i < bad.length - bad.readUInt32LE(bad.length - 8) - 8; i += 5) bad[i] = 0xff;
    const f = join(fx.dir, 'bad.parquet');
    writeFileSync(f, bad);
    await expect(fx.db.query(`SELECT count(s) FROM read_parquet('${f}')`)).rejects.toThrow(/bad\.parquet/);
  });
});
