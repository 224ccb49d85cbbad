/**
 * Text row filters in read_parquet (parquet-text-filter.ts): LIKE, NOT LIKE, ILIKE, comparisons,
 * BETWEEN, IN, NOT IN and IS [NOT] NULL tested on PLAIN pages' bytes, strings built for passing rows
 * only. The byte matcher must agree with the LIKE operator on random patterns over random text
 * (multibyte, '%', '_', escapes); queries must equal DuckDB's over the same file and Quire's own with
 * `quire.parquet_text_filters` off: a DuckDB file (v1 pages, PLAIN), a hyparquet-writer file (v2 pages,
 * PLAIN) and a hand-written chunk whose dictionary gives way to PLAIN pages holding bytes that are not
 * UTF-8 (answered as the reader decodes them, with U+FFFD).
 */
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import { ilike, like } from '../../src/functions/scalar/support/like.js';
import { bytesPass, likeTest, stringPasses } from '../../src/storage/table-functions/parquet-text-filter.js';
import { writeDictionaryFallbackFile } from './dictionary-fallback-file.js';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

/** A deterministic generator (mulberry32), so a failure repeats. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The Kelvin sign folds to an ASCII 'k', the dotted capital I to two characters.
const ALPHABET = ['a', 'b', 'A', 'B', 'k', '_', '%', '\\', ' ', 'é', 'É', '日', '🍋', 'ß', 'K', '\u212A', 'İ', '-'];
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const randomText = (r: () => number, max: number): string => Array.from({ length: Math.floor(r() * (max + 1)) }, () => pick(r, ALPHABET)).join('');
/** A pattern of text pieces, wildcards and escapes (never a trailing escape). */
function randomPattern(r: () => number): string {
  let p = '';
  const n = 1 + Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    const x = r();
    if (x < 0.25) p += '%';
    else if (x < 0.4) p += '_';
    else if (x < 0.5) p += '\\' + pick(r, ALPHABET);
    else p += pick(r, ALPHABET.filter((c) => c !== '\\' && c !== '%' && c !== '_'));
  }
  return p;
}

const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

describe('byte matcher', () => {
  it('agrees with LIKE and ILIKE on random patterns over random text', () => {
    const r = rng(7);
    const enc = new TextEncoder();
    let matched = 0;
    for (let k = 0; k < 1500; k++) {
      const p = randomPattern(r);
      const t = likeTest(p, false, false)!;
      const ti = likeTest(p, false, true)!;
      const tn = likeTest(p, true, false)!;
      for (let j = 0; j < 20; j++) {
        // Half the texts built from the pattern's own characters, so that matches happen.
        const s = r() < 0.5 ? randomText(r, 8) : p.replaceAll('%', randomText(r, 2)).replaceAll('_', pick(r, ALPHABET)).replaceAll('\\', '');
        const b = enc.encode(s);
        const want = like(s, p);
        if (want) matched++;
        expect(bytesPass(t, b, 0, b.length), `${s} LIKE ${p}`).toBe(want ? 1 : 0);
        expect(bytesPass(tn, b, 0, b.length), `${s} NOT LIKE ${p}`).toBe(want ? 0 : 1);
        const folded = bytesPass(ti, b, 0, b.length);
        const wantI = ilike(s, p);
        // -1: a value with non-ASCII bytes, tested as its string.
        if (folded < 0) expect(/[^\x00-\x7f]/.test(s)).toBe(true);
        else expect(folded, `${s} ILIKE ${p}`).toBe(wantI ? 1 : 0);
        expect(stringPasses(ti, s)).toBe(wantI);
      }
    }
    expect(matched).toBeGreaterThan(2500);
  });

  it('leaves a pattern ending in an escape to the operator', () => {
    expect(likeTest('ab\\', false, false)).toBeNull();
    expect(likeTest('a%\\', false, false)).toBeNull();
  });
});

// Unique text (PLAIN pages) with NULLs, empty strings, multibyte, wildcard characters and a few repeats.
const fx = duckdbParquetFixture(
  'text-filter',
  `SELECT i AS id,
          CASE WHEN i % 13 = 5 THEN NULL WHEN i % 29 = 3 THEN ''
               WHEN i % 7 = 1 THEN ['apple', 'Apple', 'ñandú', '日本語', 'a_b', 'a%b', 'a\\b'][1 + i % 7]
               ELSE ['user-', 'User-', 'é-', '日本-', '🍋', 'a_', 'x%', 'k\\'][1 + (i * 7) % 8] || i || ['', 'z', 'É', '本'][1 + i % 4] END AS u,
          'v' || (i % 10) AS v,
          CASE WHEN i % 101 = 7 THEN chr(65279) || 'user-' || i WHEN i % 211 = 9 THEN chr(65518) || i ELSE ['user-', 'usér-', 'x'][1 + i % 3] || i END AS t
     FROM range(30000) t(i)`,
  'ROW_GROUP_SIZE 10000',
);

describe('text row filters over PLAIN pages', () => {
  it('the file is PLAIN-encoded', async () => {
    const enc = await fx.duckdb(`SELECT DISTINCT encodings FROM parquet_metadata('${fx.file}') WHERE path_in_schema = 'u'`);
    expect(String(enc)).toContain('PLAIN');
    expect(String(enc)).not.toContain('DICTIONARY');
  });

  it('LIKE, NOT LIKE and ILIKE with random and chosen patterns equal DuckDB and the unpushed query', async () => {
    const r = rng(11);
    const patterns = ['user-99%', 'user-1_3%', '%9', '%9É', '%本', '%ñandú', 'apple', 'Apple', '', '%', '_', '__', '%日本_%', 'é-%_', '🍋%', '🍋_3%', 'a\\_%', 'a\\%b', 'a\\\\b', 'k\\\\%', '%\\%%', 'User%', 'x_1%'];
    for (let i = 0; i < 30; i++) patterns.push(randomPattern(r));
    for (const p of patterns) {
      const q = (op: string, duck: boolean) => `SELECT count(*), min(u), max(u), CAST(sum(id) AS BIGINT) FROM read_parquet('$F') WHERE u ${op} ${sqlString(p)}${duck ? " ESCAPE '\\'" : ''}`;
      for (const op of ['LIKE', 'NOT LIKE']) {
        const got = await fx.sameAsDuckDbAndUnpushed(q(op, false), () => q(op, true).replaceAll('$F', fx.file));
        expect(await textFiltersOff(() => fx.quire(q(op, false).replaceAll('$F', fx.file))), `${op} ${p}`).toEqual(got);
        // u read by the filter alone: its pages filtered without keeping their values.
        const only = `SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('${fx.file}') WHERE u ${op} ${sqlString(p)}`;
        expect(await fx.quire(only), `${op} ${p}`).toEqual(await fx.duckdb(`${only} ESCAPE '\\'`));
      }
      // ILIKE: Quire folds with JavaScript's lower case (as the operator does), DuckDB its own way.
      const qi = q('ILIKE', false).replaceAll('$F', fx.file);
      expect(await fx.quire(qi), `ILIKE ${p}`).toEqual(await textFiltersOff(() => fx.quire(qi)));
      const qni = q('NOT ILIKE', false).replaceAll('$F', fx.file);
      expect(await fx.quire(qni), `NOT ILIKE ${p}`).toEqual(await textFiltersOff(() => fx.quire(qni)));
      const qio = `SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('${fx.file}') WHERE u ILIKE ${sqlString(p)}`;
      expect(await fx.quire(qio), `ILIKE ${p}`).toEqual(await textFiltersOff(() => fx.quire(qio)));
    }
  });

  it('LIKE … ESCAPE, comparisons, BETWEEN, IN, NOT IN and NULL tests equal DuckDB and the unpushed query', async () => {
    const qs = [
      `u LIKE 'a#_%' ESCAPE '#'`,
      `u LIKE 'user-1%' AND u NOT LIKE '%z'`,
      `u = 'apple'`,
      `u = ''`,
      `u <> 'apple'`,
      `u < 'User-'`,
      `u <= 'a_b'`,
      `u > 'é-2'`,
      `u >= '日本'`,
      `'user-5' < u`,
      `u BETWEEN 'user-1' AND 'user-2'`,
      `u NOT BETWEEN 'a' AND 'x'`,
      `u IN ('apple', 'ñandú', '', 'user-12z')`,
      `u IN ('apple', NULL)`,
      `u NOT IN ('apple', 'Apple', '日本語')`,
      `u IS NULL`,
      `u IS NOT NULL`,
      `u IS NOT NULL AND u LIKE '%1%' AND id > 500`,
      `u::varchar = 'apple'`,
      // v is dictionary-encoded: its entries tested once each.
      `v LIKE '%3'`,
      `v IN ('v1', 'v4') AND u LIKE 'user-%'`,
      `v >= 'v7'`,
    ];
    for (const w of qs) {
      const q = `SELECT count(*), min(u), max(u), CAST(sum(id) AS BIGINT) FROM read_parquet('$F') WHERE ${w}`;
      const got = await fx.sameAsDuckDbAndUnpushed(q);
      expect(await textFiltersOff(() => fx.quire(q.replaceAll('$F', fx.file))), w).toEqual(got);
      await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('$F') WHERE ${w}`);
    }
    // Rows themselves, not only aggregates: the passing rows' strings are built from the bytes.
    await fx.sameAsDuckDbAndUnpushed(`SELECT id, u FROM read_parquet('$F') WHERE u LIKE '%日本%1_' ORDER BY id`);
  });

  it('a column without NULLs, literals of every length, values that start with a byte order mark', async () => {
    for (const p of ['user-1%', 'user-12', 'usér-1%', 'usér-12', '%99', '%é-12', 'use%', 'u%', 'user-12345%', 'user-1234%', '%-12345', '﻿user-7%', '﻿%', 'x2%']) {
      for (const op of ['LIKE', 'NOT LIKE']) {
        const q = `SELECT count(*), min(t), max(t), CAST(sum(id) AS BIGINT) FROM read_parquet('${fx.file}') WHERE t ${op} ${sqlString(p)}`;
        const got = await fx.quire(q);
        expect(await textFiltersOff(() => fx.quire(q)), `${op} ${p}`).toEqual(got);
        const only = `SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('${fx.file}') WHERE t ${op} ${sqlString(p)}`;
        expect(await fx.quire(only), `${op} ${p}`).toEqual(await textFiltersOff(() => fx.quire(only)));
        // DuckDB's client drops a leading U+FEFF from the strings it returns (min(t), max(t) here):
        // compared on the other rows (leading-bom-values.test.ts compares those as lengths and code points).
        const other = `${q} AND id % 101 <> 7`;
        if (!p.startsWith('﻿')) expect(await fx.quire(other), `${op} ${p}`).toEqual(await fx.duckdb(other));
        const counted = `SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('${fx.file}') WHERE t ${op} ${sqlString(p)}`;
        expect(await fx.quire(counted), `${op} ${p}`).toEqual(await fx.duckdb(counted));
      }
    }
  });

  it('is shown by EXPLAIN and switched off by its setting', async () => {
    const explain = async () => (await fx.db.query(`EXPLAIN SELECT count(*) FROM read_parquet('${fx.file}') WHERE u LIKE '%9'`)).rows.map((x) => String(x[0])).join('\n');
    expect(await explain()).toContain(`decoded first: u LIKE '%9'`);
    expect(await textFiltersOff(explain)).not.toContain('decoded first');
    // IS NULL alone reads the column's NULL flags only; beside another test it is checked with it.
    const alone = (await fx.db.query(`EXPLAIN SELECT count(*) FROM read_parquet('${fx.file}') WHERE u IS NULL`)).rows.map((x) => String(x[0])).join('\n');
    expect(alone).toContain('NULLs only: [u]');
    const both = (await fx.db.query(`EXPLAIN SELECT count(*) FROM read_parquet('${fx.file}') WHERE u IS NOT NULL AND u >= 'b'`)).rows.map((x) => String(x[0])).join('\n');
    expect(both).toContain(`decoded first: u IS NOT NULL AND u >= 'b'`);
    expect(both).not.toContain('Filter');
  });

  it('a pattern that is a parameter or a column still works (not pushed)', async () => {
    const q = `SELECT count(*), max(u) FROM read_parquet('${fx.file}') WHERE u LIKE $1`;
    const plan = (await fx.db.query(`EXPLAIN SELECT count(*) FROM read_parquet('${fx.file}') WHERE u LIKE v || '%'`)).rows.map((x) => String(x[0])).join('\n');
    expect(plan).not.toContain('decoded first');
    for (const p of ['user-99%', '%本', '_']) {
      const got = (await fx.db.query(q, [p])).rows.map((x) => x.map((y) => (typeof y === 'bigint' ? Number(y) : y)));
      expect(got).toEqual(await fx.duckdb(`SELECT count(*), max(u) FROM read_parquet('${fx.file}') WHERE u LIKE ${sqlString(p)}`));
    }
    await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), max(u) FROM read_parquet('$F') WHERE u LIKE '%' || v`);
  });

  it('a pattern ending in an escape raises the operator error', async () => {
    await expect(fx.quire(`SELECT count(*) FROM read_parquet('${fx.file}') WHERE u LIKE 'user-1\\'`)).rejects.toMatchObject({ code: '22025' });
  });
});

async function textFiltersOff<R>(f: () => Promise<R>): Promise<R> {
  await fx.db.query('SET quire.parquet_text_filters = off');
  try {
    return await f();
  } finally {
    await fx.db.query('RESET quire.parquet_text_filters');
  }
}

describe('text row filters over v2 pages and a dictionary chunk falling back to PLAIN', () => {
  let v2: string;
  let fallback: string;
  const N = 12_000;
  const value = (i: number): string | null => (i % 11 === 4 ? null : i % 17 === 2 ? '' : ['ünïcode-', 'plain-', '日本-', 'MiXeD-', '🍋-'][i % 5]! + i);
  beforeAll(() => {
    v2 = join(fx.dir, 'v2.parquet');
    const ids = Array.from({ length: N }, (_, i) => i);
    parquetWriteFile({
      filename: v2,
      columnData: [
        { name: 'id', data: Int32Array.from(ids), type: 'INT32' },
        { name: 'u', data: ids.map(value), type: 'STRING', nullable: true, encoding: 'PLAIN' },
      ],
      rowGroupSize: 5000,
      pageSize: 4096,
    });
    fallback = join(fx.dir, 'fallback.parquet');
    writeFallbackFile(fallback);
  });

  it('v2 PLAIN pages equal DuckDB and the unpushed query', async () => {
    for (const w of [`u LIKE 'plain-1%'`, `u LIKE '%日本%'`, `u LIKE '_-%'`, `u LIKE '__-1%'`, `u NOT LIKE '%3'`, `u = ''`, `u > 'plain-5'`, `u IS NULL`, `u IN ('MiXeD-3', '🍋-4')`]) {
      for (const q of [`SELECT count(*), min(u), max(u), CAST(sum(id) AS BIGINT) FROM read_parquet('${v2}') WHERE ${w}`, `SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('${v2}') WHERE ${w}`]) {
        const got = await fx.quire(q);
        expect(got, w).toEqual(await fx.duckdb(q));
        expect(await textFiltersOff(() => fx.quire(q)), w).toEqual(got);
      }
    }
    const qi = `SELECT count(*), max(u) FROM read_parquet('${v2}') WHERE u ILIKE 'mixed-1%'`;
    expect(await fx.quire(qi)).toEqual(await textFiltersOff(() => fx.quire(qi)));
  });

  it('dictionary entries and PLAIN values, some not UTF-8, answer as the reader decodes them', async () => {
    for (const w of [`s LIKE 'a%'`, `s = 'a\uFFFDb'`, `s <> 'a\uFFFDb'`, `s LIKE 'a\uFFFDb'`, `s LIKE 'a\uFFFD%'`, `s LIKE 'apple'`, `s LIKE '%pple'`, `s = 'apple'`, `s LIKE '%\uFFFD%'`, `s LIKE '_'`, `s LIKE '__'`, `s LIKE 'plain%'`, `s NOT LIKE '%x%'`, `s = 'apple'`, `s > 'b'`, `s >= 'plain 3'`, `s IS NULL`, `s IN ('ñandú', 'plain 7')`, `s ILIKE 'APP%'`, `s LIKE '\uFEFF%'`, `s = '\uFEFFapple'`, `s LIKE '%apple'`]) {
      for (const q of [`SELECT count(*), min(s), max(s), CAST(sum(id) AS BIGINT) FROM read_parquet('${fallback}') WHERE ${w}`, `SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('${fallback}') WHERE ${w}`]) {
        const got = await fx.quire(q);
        expect(await textFiltersOff(() => fx.quire(q)), w).toEqual(got);
      }
    }
    const bad = await fx.quire(`SELECT count(*) FROM read_parquet('${fallback}') WHERE s LIKE '%\uFFFD%'`);
    expect(bad[0]![0]).toBeGreaterThan(0);
    // The rows whose bytes start with EF BB BF read with their U+FEFF.
    const marked = await fx.quire(`SELECT count(*) FROM read_parquet('${fallback}') WHERE s = '\uFEFFapple'`);
    expect(marked).toEqual([[Array.from({ length: FALLBACK_ROWS }, (_, i) => i).filter((i) => i >= SPLIT && i % 9 !== 4 && i % 13 === 3).length]]);
  });
});

/** Dictionary page, an RLE_DICTIONARY page and a PLAIN page (v1, uncompressed) of an OPTIONAL UTF8 column s, beside INT32 id. */
const DICT = ['apple', 'beet', 'ñandú', '日本語'];
const FALLBACK_ROWS = 6000;
const SPLIT = 2500;
function fallbackBytes(i: number): Uint8Array | null {
  if (i % 9 === 4) return null;
  const enc = new TextEncoder();
  if (i < SPLIT) return enc.encode(DICT[i % DICT.length]!);
  // Bytes no UTF-8 decoder accepts: a lone continuation byte, a truncated sequence, an overlong form.
  if (i % 13 === 0) return Uint8Array.from([0x61, 0x80, 0x62]);
  if (i % 13 === 1) return Uint8Array.from([0xe6, 0x97]);
  if (i % 13 === 2) return Uint8Array.from([0x70, 0xc0, 0xaf]);
  // U+FEFF first: data, kept (the row reads as '\uFEFFapple', not 'apple').
  if (i % 13 === 3) return Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode('apple')]);
  return enc.encode(i % 3 === 0 ? DICT[i % DICT.length]! : `plain ${i % 41}`);
}

function writeFallbackFile(path: string): void {
  writeDictionaryFallbackFile(path, { dict: DICT, rows: FALLBACK_ROWS, split: SPLIT, value: fallbackBytes, codeWidth: 2, withId: true });
}
