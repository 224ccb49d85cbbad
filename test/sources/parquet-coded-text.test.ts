/**
 * Text read from Parquet dictionary pages reaches the operators as codes only (codedTextColumn): its
 * strings are built the first time anything reads the column's values. Grouping by code must not
 * build them; everything that does read them (expressions, sorting, windows, joins, slicing at
 * LIMIT/OFFSET and row-group boundaries, set operations, a spilling sort) must see exactly the strings
 * DuckDB reads from the same file, NULLs and multibyte text included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { codedTextColumn, sliceBatch, takeColumn, textPending, makeColumn, type Batch } from '../../src/common/column.js';
import { TextDictionary } from '../../src/common/text-dictionary.js';
import { T } from '../../src/common/types.js';
import { makeGrouper } from '../../src/physical/operators/hash-aggregate.js';
import { tempDir } from '../spill/helpers.js';

const N = 45_000;
let dir: string;
let file: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-coded-'));
  file = join(dir, 'coded.parquet');
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // 40 distinct strings (multibyte, astral) per 10,000-row group: few enough entries per row that the
  // reader hands s over as codes. A seventh of s and a thirteenth of k are NULL; the last group is short.
  await duck.run(`COPY (SELECT i::INTEGER AS id,
                   CASE WHEN i % 7 = 3 THEN NULL ELSE ['ñandú', '日本語', '🍋 lemon', 'plain', 'Ωmega'][1 + i % 5] || (i % 8) END AS s,
                   CASE WHEN i % 13 = 1 THEN NULL ELSE ((i * 7919) % 1000)::INTEGER END AS k,
                   (i % 3)::INTEGER AS g
                 FROM range(${N}) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('codes-only text columns', () => {
  const dict = TextDictionary.ofDistinct(['b', 'ü', '🍋']);
  const codes = Int32Array.from([2, -1, 0, 1, 0, 2]);
  const nulls = Uint8Array.from([0, 1, 0, 0, 0, 0]);
  const strings = ['🍋', null, 'b', 'ü', 'b', '🍋'];

  it('builds its strings from the codes on first read, NULLs included', () => {
    const c = codedTextColumn(T.text, { codes, dictionary: dict }, nulls);
    expect(textPending(c)).toBe(true);
    expect(c.data).toEqual(strings);
    expect(textPending(c)).toBe(false);
    expect(c.data).toBe(c.data);
  });

  it('slices and gathers stay codes only and read the same strings', () => {
    const c = codedTextColumn(T.text, { codes, dictionary: dict }, nulls);
    const b: Batch = { columns: [c], length: codes.length };
    const s = sliceBatch(b, 1, 4).columns[0]!;
    expect(textPending(s)).toBe(true);
    expect(s.data).toEqual(strings.slice(1, 4));
    const t = takeColumn(c, [5, 3, 1], 3);
    expect(textPending(t)).toBe(true);
    expect(Array.from(t.dict!.codes)).toEqual([2, 1, -1]);
    expect(t.data).toEqual(['🍋', 'ü', null]);
    // Without a NULL among the gathered rows there are no NULL flags.
    expect(takeColumn(c, [0, 2], 2).nulls).toBeNull();
    expect(textPending(c)).toBe(true);
  });

  it('grouping by code never builds the strings; the group keys are the entries', () => {
    const grouper = makeGrouper([T.text]);
    const c = codedTextColumn(T.text, { codes, dictionary: dict }, nulls);
    const gids = grouper.assign({ columns: [c], length: codes.length }, codes.length);
    expect(Array.from(gids.subarray(0, codes.length))).toEqual([0, 1, 2, 3, 2, 0]);
    expect(textPending(c)).toBe(true);
    // A plain batch of the same strings joins the same groups.
    const plain = makeColumn(T.text, ['ü', 'b', null], Uint8Array.from([0, 0, 1]));
    expect(Array.from(grouper.assign({ columns: [plain], length: 3 }, 3).subarray(0, 3))).toEqual([3, 2, 1]);
    expect(grouper.keyColumns()[0]!.slice(0, grouper.count).data).toEqual(['🍋', null, 'b', 'ü']);
  });
});

const QUERIES = [
  `SELECT s, count(*), sum(k), min(id) FROM read_parquet('$F') GROUP BY s ORDER BY s NULLS FIRST`,
  `SELECT s, count(*), sum(k) FROM read_parquet('$F') WHERE k < 100 GROUP BY s ORDER BY s NULLS FIRST`,
  `SELECT s, g, count(*) FROM read_parquet('$F') WHERE k >= 500 GROUP BY s, g ORDER BY s NULLS FIRST, g`,
  `SELECT upper(s), length(s), count(*) FROM read_parquet('$F') GROUP BY 1, 2 ORDER BY 1 NULLS FIRST, 2`,
  `SELECT id, s || '!', coalesce(s, 'none') FROM read_parquet('$F') WHERE id % 997 = 5 ORDER BY id`,
  `SELECT id, s FROM read_parquet('$F') ORDER BY id LIMIT 12 OFFSET 9994`,
  `SELECT id, s FROM read_parquet('$F') WHERE k = 17 ORDER BY id`,
  `SELECT s, id FROM read_parquet('$F') WHERE k < 3 ORDER BY s DESC NULLS LAST, id LIMIT 30`,
  `SELECT s, id, rn FROM (SELECT s, id, row_number() OVER (PARTITION BY s ORDER BY id DESC) AS rn FROM read_parquet('$F')) x WHERE rn <= 2 ORDER BY s NULLS FIRST, rn`,
  `SELECT a.s, count(*) FROM read_parquet('$F') a JOIN (SELECT DISTINCT s FROM read_parquet('$F') WHERE k < 5) b ON a.s = b.s GROUP BY a.s ORDER BY a.s`,
  `SELECT count(*) FROM read_parquet('$F') WHERE s IN (SELECT s FROM read_parquet('$F') WHERE id BETWEEN 10 AND 14)`,
  `SELECT s FROM read_parquet('$F') WHERE id < 6 UNION ALL SELECT 'zz' ORDER BY 1 NULLS FIRST`,
  `SELECT s FROM read_parquet('$F') WHERE id >= 44990 EXCEPT SELECT s FROM read_parquet('$F') WHERE id < 20 ORDER BY 1 NULLS FIRST`,
  `SELECT DISTINCT s FROM read_parquet('$F') WHERE k BETWEEN 10 AND 40 ORDER BY s NULLS FIRST`,
  `SELECT min(s), max(s), count(s), count(DISTINCT s) FROM read_parquet('$F') WHERE k > 900`,
];

describe('read_parquet text as codes agrees with DuckDB', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      const sql = q.replaceAll('$F', file);
      const got = await quire(sql);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(await duckdb(sql.replaceAll('sum(k)', 'CAST(sum(k) AS BIGINT)')));
    });
  }

  it('under a memory limit that spills the sort, and grouped beside it', async () => {
    const tmp = tempDir();
    await db.query(`SET temp_directory = '${tmp.dir}'`);
    await db.query(`SET memory_limit = '1MB'`);
    try {
      const sorted = `SELECT s, id FROM read_parquet('${file}') ORDER BY s DESC NULLS FIRST, id`;
      const plan = (await db.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sorted}`)).rows.map((r) => String(r[0])).join('\n');
      expect(plan).toMatch(/spill/i);
      const got = await quire(sorted);
      expect(got.length).toBe(N);
      expect(got).toEqual(await duckdb(sorted));
      const grouped = `SELECT k, min(s), max(s), count(s) FROM read_parquet('${file}') GROUP BY k ORDER BY k NULLS FIRST`;
      expect(await quire(grouped)).toEqual(await duckdb(grouped));
    } finally {
      await db.query('RESET memory_limit');
      tmp.remove();
    }
  });
});
