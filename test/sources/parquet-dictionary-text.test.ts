/**
 * Dictionary-encoded columns in read_parquet: text from a dictionary page carries its codes (grouped,
 * sorted, joined and deduplicated by code), definition levels are read straight into NULL flags, and
 * the columns decoded after a row filter are read at the selected rows only. Every answer must equal
 * DuckDB's over the same file: text with NULLs, multibyte text, row groups without NULLs, with some and
 * with only NULLs, and a chunk whose dictionary gives way to PLAIN pages midway (written here by hand,
 * as DuckDB and hyparquet-writer decide per chunk).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { writeDictionaryFallbackFile } from './dictionary-fallback-file.js';

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

function writeFallbackFile(path: string): void {
  const enc = new TextEncoder();
  writeDictionaryFallbackFile(path, { dict: DICT, rows: FALLBACK_ROWS, split: SPLIT, value: (i) => (fallbackValue(i) === null ? null : enc.encode(fallbackValue(i)!)), codeWidth: 3, withId: false });
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
