/**
 * read_parquet's text filters keeping the values they pass (readFilterColumn's `kept`): an output text
 * column that every row filter of the query tests, its pages all PLAIN, is filtered page by page and
 * only its passing values are copied out. Queries over such columns must equal DuckDB's and Quire's own
 * with the pushdown off: prefix, suffix and other LIKE patterns (literals of 1 to 8 bytes compared in place), equality, IN and comparisons; none,
 * some and all rows of a row group passing; NULLs (their rows never pass) beside other columns read at
 * the passing rows; pages of many sizes within a row group (several pages, pages v2); and the queries
 * this does not take (a filter on another column too, a column with a dictionary) alike.
 */
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { beforeAll, describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const fx = duckdbParquetFixture(
  'text-kept',
  `SELECT i AS id, (i % 100)::INTEGER AS g,
          CASE WHEN i % 17 = 4 THEN NULL WHEN i % 31 = 2 THEN '' ELSE ['user-', 'é-', '日本-', 'x'][1 + i % 4] || i END AS u,
          ['user-', 'é-', '日本-', 'x'][1 + i % 4] || (i * 7) AS t
     FROM range(50000) t(i)`,
  'ROW_GROUP_SIZE 12000',
);

const WHERE = [
  `u LIKE '%99'`,
  `u LIKE '%9'`,
  `u NOT LIKE '%9'`,
  `u LIKE '%3333'`,
  `u LIKE '%-1234'`,
  `u LIKE '%本-1234'`,
  `u LIKE '%x4999'`,
  `u NOT LIKE '%00'`,
  `u LIKE '%本-1%'`,
  `u LIKE 'user-4%'`,
  `u LIKE 'é-%'`,
  `u = 'user-33332'`,
  `u = 'nothing'`,
  `u <> ''`,
  `u IN ('user-4', 'é-5', '日本-6', '')`,
  `u > 'x4'`,
  `u LIKE '%'`,
  `u LIKE '%' AND u LIKE '%1'`,
  `u LIKE '_-%1'`,
];

describe('text filters keeping the values they pass', () => {
  it('the column is PLAIN without a dictionary, in several row groups', async () => {
    const rows = await fx.duckdb(`SELECT encodings, dictionary_page_offset FROM parquet_metadata('${fx.file}') WHERE path_in_schema = 'u'`);
    expect(rows.length).toBe(5);
    for (const [enc, dict] of rows) {
      expect(enc).toBe('PLAIN');
      expect(dict).toBeNull();
    }
  });

  for (const w of WHERE) {
    it(`${w}: aggregates over the column, and its rows beside others`, async () => {
      await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), count(u), min(u), max(u), CAST(sum(id) AS BIGINT), CAST(sum(length(u)) AS BIGINT) FROM read_parquet('$F') WHERE ${w}`);
      const rows = await fx.sameAsDuckDbAndUnpushed(`SELECT id, u, g FROM read_parquet('$F') WHERE ${w} ORDER BY id LIMIT 30`);
      if (!w.includes('nothing')) expect(rows.length).toBeGreaterThan(0);
      await fx.sameAsDuckDbAndUnpushed(`SELECT u FROM read_parquet('$F') WHERE ${w} ORDER BY u DESC LIMIT 5`);
    });
  }

  it('a column without NULLs: suffixes of 1 to 8 bytes', async () => {
    for (const w of [`t LIKE '%7'`, `t LIKE '%49'`, `t LIKE '%本-14'`, `t LIKE '%3332'`, `t LIKE '%-1442'`, `t LIKE '%本-1442'`, `t LIKE '%本-21014'`, `t NOT LIKE '%0'`]) {
      const [[n]] = (await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), min(t), max(t), CAST(sum(id) AS BIGINT) FROM read_parquet('$F') WHERE ${w}`)) as [[number]];
      expect(n, w).toBeGreaterThan(0);
      await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), CAST(sum(id) AS BIGINT) FROM read_parquet('$F') WHERE ${w}`);
    }
  });

  it('a column without NULLs: prefixes and equalities of 1 to 8 bytes', async () => {
    const some = [`t LIKE 'x%'`, `t LIKE 'x7%'`, `t LIKE 'é-%'`, `t LIKE 'user%'`, `t LIKE 'user-%'`, `t LIKE 'user-14%'`, `t LIKE '日本-1%'`, `t NOT LIKE 'x%'`, `t = 'x21'`, `t = 'é-7'`, `t = 'user-0'`, `t = 'user-280'`, `t <> 'x21'`, `t LIKE 'x21'`];
    for (const w of [...some, `t = 'x'`, `t LIKE 'user-1428%'`, `t = 'user-2800'`]) {
      const [[n]] = (await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), min(t), max(t), CAST(sum(id) AS BIGINT) FROM read_parquet('$F') WHERE ${w}`)) as [[number]];
      if (some.includes(w)) expect(n, w).toBeGreaterThan(0);
      await fx.sameAsDuckDbAndUnpushed(`SELECT id, t FROM read_parquet('$F') WHERE ${w} ORDER BY id DESC LIMIT 7`);
    }
  });

  it('with a filter on another column too (not kept), and the column output twice', async () => {
    await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), min(u), max(u) FROM read_parquet('$F') WHERE u LIKE '%7' AND g < 50`);
    await fx.sameAsDuckDbAndUnpushed(`SELECT id, u, u || '!' AS v FROM read_parquet('$F') WHERE u LIKE '%77' ORDER BY id`);
  });
});

describe('pages of other shapes', () => {
  let v2: string;
  const value = (i: number): string | null => (i % 11 === 3 ? null : i % 5 === 0 ? `plain-${i}` : `${['a', 'é', '🍋'][i % 3]}-${i}`);
  const ids = Array.from({ length: 20000 }, (_, i) => i);
  beforeAll(() => {
    v2 = join(fx.dir, 'kept-v2.parquet');
    // Small pages: many to a row group, each filtered and kept in turn.
    parquetWriteFile({
      filename: v2,
      columnData: [
        { name: 'id', data: Int32Array.from(ids), type: 'INT32' },
        { name: 'u', data: ids.map(value), type: 'STRING', nullable: true, encoding: 'PLAIN' },
      ],
      rowGroupSize: 7000,
      pageSize: 2048,
    });
  });

  it('version 2 pages, several to a row group, with NULLs', async () => {
    for (const w of [`u LIKE '%3'`, `u LIKE 'plain-1%'`, `u = 'é-4'`, `u NOT LIKE '%1'`, `u LIKE '%'`, `u < 'b'`]) {
      const q = `SELECT count(*), min(u), max(u), CAST(sum(id) AS BIGINT) FROM read_parquet('${v2}') WHERE ${w}`;
      const got = await fx.quire(q);
      expect(got, w).toEqual(await fx.duckdb(q));
      const rows = `SELECT id, u FROM read_parquet('${v2}') WHERE ${w} ORDER BY id`;
      expect(await fx.quire(rows), w).toEqual(await fx.duckdb(rows));
    }
  });
});
