/**
 * read_parquet keeps decoded dictionary pages across queries (parquet-dictionary-cache.ts). Every query
 * is asked twice, the second time through what the first kept, and alternates the shapes that keep a
 * page differently: a few picked rows of a text column of many entries (its entries decoded as rows
 * need them), every row (all entries decoded), numbers looked up through the dictionary, and a filter
 * column's dictionary. Answers must equal DuckDB's over the same file (several row groups, NULLs in the
 * dictionary columns, multibyte text, min/max in code point order); a file rewritten in place with the
 * same size, even with its modification time put back, must be read afresh.
 */
import { copyFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processMemoryKept, processMemoryReserved } from '../../src/execution/memory-pool.js';
import {
  DICTIONARY_CACHE_BYTES,
  clearDictionaryCache,
  dictionaryCacheBytes,
  fileIdentity,
  keepDictionary,
  keptDictionary,
} from '../../src/storage/table-functions/parquet-dictionary-cache.js';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 40_000;
// Row groups of 10,000 rows: t has 1,500 entries a group (no codes: decoded at the rows picked), s 7,
// v 500 doubles, ts 300 timestamps, k 97 integers (a filter column); t and v are NULL on rows of their own.
const fx = duckdbParquetFixture(
  'parquet-dict-cache',
  `SELECT i::INTEGER AS id, ((i * 7919) % 97)::INTEGER AS k,
     CASE WHEN i % 13 = 4 THEN NULL ELSE ((i * 31) % 500) / 8.0 END AS v,
     CASE WHEN i % 11 = 0 THEN NULL
          WHEN i % 4 = 0 THEN 'Ñame ' || ((i * 7) % 1500)
          WHEN i % 4 = 1 THEN 'name' || ((i * 7) % 1500)
          WHEN i % 4 = 2 THEN 'Zed ' || ((i * 7) % 1500)
          ELSE '日本 ' || ((i * 7) % 1500) END AS t,
     'cat' || (i % 7) AS s,
     TIMESTAMP '2021-03-01' + to_seconds(((i * 13) % 300) * 3600) AS ts
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 10000',
);

const QUERIES = [
  // A thousand rows of one row group: t's entries decoded for those rows only.
  `SELECT count(*), sum(v), min(t), max(t), count(t) FROM read_parquet('$F') WHERE id BETWEEN 25000 AND 25999`,
  // Every row: all of t's entries, and s with codes.
  `SELECT s, count(*), count(t), min(t), max(t), sum(v) FROM read_parquet('$F') GROUP BY s ORDER BY s`,
  // Another range of the same row group: entries the first query did not decode.
  `SELECT min(t), max(t), count(DISTINCT t), max(ts)::text FROM read_parquet('$F') WHERE id BETWEEN 27000 AND 27500`,
  // The filter column's dictionary, numbers and timestamps looked up at the passing rows.
  `SELECT k, count(*), sum(v), min(ts)::text, max(ts)::text, min(t) FROM read_parquet('$F') WHERE k < 9 GROUP BY k ORDER BY k`,
  `SELECT id, t, v, ts::text FROM read_parquet('$F') WHERE k = 41 AND id > 30500 ORDER BY id`,
];

describe('read_parquet keeps decoded dictionaries across queries', () => {
  beforeAll(() => clearDictionaryCache());
  afterAll(() => clearDictionaryCache());

  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      const first = await fx.sameAsDuckDbAndUnpushed(q);
      expect(first.length).toBeGreaterThan(0);
      expect(dictionaryCacheBytes()).toBeGreaterThan(0);
      // Again, through the kept pages (nothing read anew would make this pass by itself).
      expect(await fx.quire(q.replaceAll('$F', fx.file))).toEqual(first);
    });
  }

  it('counts what it keeps in the process memory budget, apart from what statements reserve', () => {
    expect(dictionaryCacheBytes()).toBeGreaterThan(0);
    expect(processMemoryKept()).toBe(dictionaryCacheBytes());
    const statements = processMemoryReserved();
    clearDictionaryCache();
    expect(dictionaryCacheBytes()).toBe(0);
    expect(processMemoryKept()).toBe(0);
    expect(processMemoryReserved()).toBe(statements);
  });

  it('rereads a file rewritten in place with the same size, its modification time put back', async () => {
    // Uncompressed, strings of one length and few of them (dictionary pages): the files differ only in their bytes.
    const make = (f: string, prefix: string): void =>
      parquetWriteFile({
        filename: f,
        codec: 'UNCOMPRESSED',
        rowGroupSize: 1000,
        columnData: [
          { name: 'id', data: Int32Array.from({ length: 3000 }, (_, i) => i), type: 'INT32' },
          { name: 'x', data: Float64Array.from({ length: 3000 }, (_, i) => ((i * 7) % 40) + (prefix === 'a' ? 0.25 : 0.5)), type: 'DOUBLE' },
          { name: 's', data: Array.from({ length: 3000 }, (_, i) => prefix + String((i * 7) % 40).padStart(3, '0')), type: 'STRING' },
        ],
      });
    const a = join(fx.dir, 'a.src');
    const b = join(fx.dir, 'b.src');
    make(a, 'a');
    make(b, 'b');
    expect(statSync(a).size).toBe(statSync(b).size);
    const f = join(fx.dir, 'same.parquet');
    copyFileSync(a, f);
    // A whole second: the time set back below is then exactly the same (set from a Date, it would lose the nanoseconds).
    const second = Math.floor(Date.now() / 1000) - 60;
    utimesSync(f, second, second);
    const q = `SELECT s, count(*), sum(x) FROM read_parquet('${f}') WHERE id BETWEEN 1200 AND 1300 GROUP BY s ORDER BY s LIMIT 3`;
    const fromA = await fx.quire(q);
    expect(fromA).toEqual(await fx.duckdb(q));
    expect(fromA[0]![0]).toMatch(/^a/);
    expect(await fx.quire(q)).toEqual(fromA);
    const was = statSync(f);
    copyFileSync(b, f);
    // Same size and modification time: only the change time (and the bytes) differ.
    utimesSync(f, second, second);
    expect(statSync(f).mtimeMs).toBe(was.mtimeMs);
    expect(statSync(f).size).toBe(was.size);
    const fromB = await fx.quire(q);
    expect(fromB).toEqual(await fx.duckdb(q));
    expect(fromB[0]![0]).toMatch(/^b/);
  });
});

describe('the dictionary cache itself', () => {
  beforeAll(() => clearDictionaryCache());
  afterAll(() => clearDictionaryCache());
  const numbers = (n: number): Map<string, Float64Array> => new Map([['f64', new Float64Array(n)]]);
  const kept = (n: number) => ({ entries: n, pageSize: 8 * n, numbers: numbers(n), strings: null, distinct: false, lazy: null });
  const stat = { dev: 1, ino: 2, size: 3, mtimeMs: 4, ctimeMs: 5 };

  it('keeps within its bound, evicting the least recently used', () => {
    const id = fileIdentity('/cache-test/a', stat);
    // 1 MB each: more than the bound holds.
    const n = (1 << 20) / 8;
    const count = Math.ceil(DICTIONARY_CACHE_BYTES / (1 << 20)) + 4;
    for (let i = 0; i < count; i++) {
      keepDictionary(id, i * 100, kept(n));
      // The first page is used between each insertion: it stays.
      expect(keptDictionary(id, 0, n, 8 * n)).not.toBeNull();
      expect(dictionaryCacheBytes()).toBeLessThanOrEqual(DICTIONARY_CACHE_BYTES);
    }
    expect(keptDictionary(id, 100, n, 8 * n)).toBeNull();
    expect(keptDictionary(id, (count - 1) * 100, n, 8 * n)).not.toBeNull();
  });

  it('gives nothing for another page header, and drops a path opened with a new identity', () => {
    const id = fileIdentity('/cache-test/b', stat);
    keepDictionary(id, 4, kept(100));
    expect(keptDictionary(id, 4, 101, 800)).toBeNull();
    keepDictionary(id, 4, kept(100));
    expect(keptDictionary(id, 4, 100, 800)).not.toBeNull();
    const other = fileIdentity('/cache-test/b', { ...stat, ctimeMs: 6 });
    expect(other).not.toBe(id);
    expect(keptDictionary(id, 4, 100, 800)).toBeNull();
    // What a scan of the old identity still open tries to keep is refused.
    keepDictionary(id, 8, kept(100));
    expect(keptDictionary(id, 8, 100, 800)).toBeNull();
  });

  it('does not keep a page larger than its entry bound', () => {
    const id = fileIdentity('/cache-test/c', stat);
    const n = (4 << 20) / 8;
    keepDictionary(id, 0, kept(n));
    expect(keptDictionary(id, 0, n, 8 * n)).toBeNull();
  });
});
