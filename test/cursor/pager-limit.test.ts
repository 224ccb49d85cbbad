/**
 * Paging queries with their own LIMIT / OFFSET, differentially against PostgreSQL (PGlite): for every
 * query and every fetch size 1..7 the concatenated pages equal PostgreSQL's unpaged result as a
 * multiset, and follow its order on the ORDER BY columns. Where a LIMIT / OFFSET cuts through rows
 * the ORDER BY leaves tied (or there is no ORDER BY) and the tied rows differ, which ones PostgreSQL
 * keeps is up to its sort (quicksort, bounded heap) and hash tables; those fixtures are marked `ties`
 * and compared with PostgreSQL on the ORDER BY columns and the row count, and in full with Quire's own
 * unpaged result: paging must never change which rows the query returns. Keyless tables with many duplicates and
 * NULLs, duplicates inside subqueries, ties the limit cuts through (with and without a unique key),
 * and LIMIT / OFFSET arguments that are expressions, rounded numerics, parameters or subqueries.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, formatValue, QuireError } from '../../src/index.js';
import { Pager } from '../../src/cursor/pager.js';
import { multiset, pageAll, pageShapeProblem, pageText, rowKey as key } from '../harness/paging.js';
import { rawParsers } from '../aggregate/helpers.js';
import { startPg } from '../common/pg-helper.js';

const SETUP = `
CREATE TABLE h (a int, b text);
INSERT INTO h VALUES (1, 'x'), (1, 'x'), (0, 'y'), (NULL, 'x'), (1, NULL), (2, 'y'), (NULL, NULL), (0, 'y'),
  (1, 'x'), (NULL, 'x'), (2, 'z'), (0, NULL), (1, 'y'), (3, 'x'), (NULL, NULL), (1, 'x');
CREATE TABLE d (a int);
INSERT INTO d VALUES (1), (1), (0), (NULL), (1), (0), (NULL), (2), (1);
CREATE TABLE k (id int PRIMARY KEY, g int, s text);
INSERT INTO k SELECT i, i % 3, CASE WHEN i % 4 = 0 THEN NULL ELSE 's' || (i % 2) END FROM generate_series(1, 14) i;
CREATE TABLE n (x numeric, f float8);
INSERT INTO n VALUES (1.0, 0), (1.00, -0.0), (2, 1), (1, 0), (1.000, -0.0), (NULL, NULL);
CREATE TABLE big (a int, b text);
INSERT INTO big SELECT CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7) % 10 END, CASE WHEN i % 13 = 0 THEN NULL ELSE 'v' || ((i * 3) % 4) END
  FROM generate_series(1, 2500) i;
`;

interface Fixture {
  sql: string;
  params?: unknown[];
  /** Output positions of the ORDER BY columns: pages must follow PostgreSQL's sequence of them. */
  orderCols?: number[];
  /** The limit keeps some of several tied, different rows (see header). */
  ties?: boolean;
}

const FIXTURES: Fixture[] = [
  // The reported cases.
  { sql: 'SELECT a FROM d ORDER BY a DESC OFFSET 1', orderCols: [0] },
  { sql: 'SELECT a FROM d OFFSET 1' },
  { sql: 'SELECT a FROM d ORDER BY a DESC LIMIT 2 OFFSET 1', orderCols: [0] },
  // Keyless rows, duplicates and NULLs under LIMIT / OFFSET; ORDER BY over every column or not.
  { sql: 'SELECT a FROM d ORDER BY a NULLS FIRST OFFSET 3 LIMIT 4', orderCols: [0] },
  { sql: 'SELECT a FROM d ORDER BY a DESC NULLS LAST OFFSET 2', orderCols: [0] },
  { sql: 'SELECT a FROM d WHERE a IS NULL OR a = 1 OFFSET 2' },
  { sql: 'SELECT a FROM d LIMIT 5 OFFSET 2' },
  { sql: 'SELECT a, b FROM h ORDER BY a, b OFFSET 4', orderCols: [0, 1] },
  { sql: 'SELECT a, b FROM h ORDER BY b DESC NULLS LAST, a LIMIT 9 OFFSET 2', orderCols: [1, 0] },
  { sql: 'SELECT a, b FROM h ORDER BY a NULLS FIRST LIMIT 7 OFFSET 3', orderCols: [0], ties: true },
  { sql: 'SELECT b, a FROM h ORDER BY a DESC OFFSET 5', orderCols: [1] },
  { sql: 'SELECT b FROM h ORDER BY a LIMIT 6 OFFSET 4', ties: true },
  { sql: 'SELECT * FROM h OFFSET 6' },
  { sql: 'SELECT * FROM h LIMIT 8' },
  // Inside derived tables and subqueries.
  { sql: 'SELECT * FROM (SELECT a FROM d ORDER BY a DESC OFFSET 2) s' },
  { sql: 'SELECT * FROM (SELECT a FROM d OFFSET 1) s ORDER BY a', orderCols: [0] },
  { sql: 'SELECT a FROM (SELECT a, b FROM h ORDER BY a LIMIT 6 OFFSET 1) s ORDER BY a DESC', orderCols: [0] },
  { sql: 'SELECT * FROM (SELECT a FROM h ORDER BY a NULLS FIRST LIMIT 9 OFFSET 1) s ORDER BY a DESC LIMIT 5 OFFSET 1', orderCols: [0] },
  { sql: 'SELECT a, b FROM h WHERE a IN (SELECT a FROM d ORDER BY a LIMIT 4 OFFSET 1) ORDER BY a OFFSET 2', orderCols: [0], ties: true },
  // DISTINCT, DISTINCT ON, GROUP BY, set operations, windows.
  { sql: 'SELECT DISTINCT a FROM h ORDER BY a LIMIT 2 OFFSET 1', orderCols: [0] },
  { sql: 'SELECT DISTINCT b FROM h OFFSET 1', ties: true },
  { sql: 'SELECT DISTINCT ON (a) a, b FROM h ORDER BY a, b DESC OFFSET 1', orderCols: [0, 1] },
  { sql: 'SELECT a, count(*) AS c FROM h GROUP BY a ORDER BY c DESC OFFSET 1', orderCols: [1] },
  { sql: 'SELECT count(*) AS c FROM h GROUP BY a ORDER BY c LIMIT 3 OFFSET 1', orderCols: [0] },
  { sql: 'SELECT a FROM d UNION ALL SELECT a FROM d ORDER BY 1 OFFSET 3 LIMIT 8', orderCols: [0] },
  { sql: 'SELECT a FROM d UNION ALL SELECT g FROM k OFFSET 2' },
  { sql: 'SELECT a FROM d UNION SELECT g FROM k ORDER BY 1 DESC OFFSET 1', orderCols: [0] },
  { sql: '(SELECT a FROM d ORDER BY a LIMIT 3) UNION ALL (SELECT a FROM d OFFSET 6) UNION ALL (SELECT a FROM d ORDER BY a DESC OFFSET 7)' },
  { sql: '(SELECT a FROM d ORDER BY a NULLS FIRST LIMIT 4 OFFSET 1) UNION ALL SELECT a FROM d ORDER BY 1 DESC LIMIT 6 OFFSET 2', orderCols: [0] },
  { sql: 'VALUES (1), (1), (0), (NULL), (1) OFFSET 1' },
  { sql: "VALUES (1, 'a'), (1, 'a'), (0, 'b'), (NULL, 'a'), (1, 'b') ORDER BY 1 DESC LIMIT 3 OFFSET 1", orderCols: [0] },
  { sql: 'SELECT a, count(*) OVER (PARTITION BY a) AS c FROM d ORDER BY c OFFSET 2', orderCols: [1] },
  { sql: 'SELECT a, b, row_number() OVER (ORDER BY a, b) FROM h ORDER BY a DESC LIMIT 6 OFFSET 2', orderCols: [0], ties: true },
  // A unique key, with and without ties in the ORDER BY.
  { sql: 'SELECT * FROM k ORDER BY id OFFSET 2 LIMIT 5', orderCols: [0] },
  { sql: 'SELECT id, g FROM k ORDER BY g LIMIT 6 OFFSET 2', orderCols: [1], ties: true },
  { sql: 'SELECT g FROM k ORDER BY g OFFSET 3', orderCols: [0] },
  { sql: 'SELECT s, g FROM k ORDER BY s NULLS FIRST, g DESC LIMIT 8 OFFSET 1', orderCols: [0, 1] },
  { sql: 'SELECT * FROM k OFFSET 5' },
  // Values that sort as equal but print differently.
  { sql: 'SELECT x FROM n ORDER BY x OFFSET 1', orderCols: [0] },
  { sql: 'SELECT f FROM n ORDER BY f LIMIT 3 OFFSET 1', orderCols: [0] },
  { sql: 'SELECT x, f FROM n ORDER BY x', orderCols: [0] },
  { sql: 'SELECT f, x FROM n ORDER BY f DESC OFFSET 1', orderCols: [0] },
  // Many duplicates and NULLs, deep OFFSETs.
  { sql: 'SELECT a, b FROM big ORDER BY a DESC NULLS FIRST, b LIMIT 40 OFFSET 1000', orderCols: [0, 1] },
  { sql: 'SELECT a FROM big ORDER BY a OFFSET 2460', orderCols: [0] },
  { sql: 'SELECT b, a FROM big ORDER BY b NULLS FIRST, a DESC OFFSET 1190 LIMIT 25', orderCols: [0, 1] },
  { sql: 'SELECT b FROM big ORDER BY a LIMIT 30 OFFSET 700', ties: true },
  { sql: 'SELECT * FROM (SELECT a, b FROM big ORDER BY a, b OFFSET 2470) s' },
  { sql: 'SELECT a, count(*) FROM (SELECT a FROM big ORDER BY a NULLS FIRST OFFSET 2000) s GROUP BY a ORDER BY a', orderCols: [0] },
  // LIMIT / OFFSET arguments that are not integer constants.
  { sql: 'SELECT a FROM d ORDER BY a LIMIT 2.5', orderCols: [0] },
  { sql: 'SELECT a FROM d ORDER BY a LIMIT 2.4 OFFSET 1.5', orderCols: [0] },
  { sql: 'SELECT a FROM d LIMIT (1 + 1) OFFSET (2 * 2)' },
  { sql: 'SELECT * FROM k ORDER BY id LIMIT (SELECT count(*) FROM d) OFFSET (SELECT 1)', orderCols: [0] },
  { sql: 'SELECT a FROM d ORDER BY a DESC LIMIT (SELECT count(*) FROM k) - 10 OFFSET (SELECT min(a) FROM d) + 1', orderCols: [0] },
  { sql: 'SELECT a FROM d ORDER BY a LIMIT $1 OFFSET $2', params: [4, 2], orderCols: [0] },
  { sql: 'SELECT a FROM d LIMIT $1 OFFSET $2', params: [null, 3] },
  { sql: 'SELECT a FROM d ORDER BY a LIMIT NULL OFFSET NULL', orderCols: [0] },
  { sql: 'SELECT a FROM d ORDER BY a LIMIT (SELECT NULL::int) OFFSET 2', orderCols: [0] },
  { sql: 'SELECT * FROM k WHERE g IN (SELECT g FROM k ORDER BY g, id LIMIT (SELECT 2)) ORDER BY id', orderCols: [0] },
  { sql: 'SELECT * FROM h WHERE a IN (SELECT a FROM d ORDER BY a DESC LIMIT (SELECT 3) OFFSET (SELECT 1))' },
  { sql: 'SELECT k.g, x.a FROM k, LATERAL (SELECT a FROM d WHERE d.a <= k.g ORDER BY a LIMIT (SELECT count(*) FROM d d2 WHERE d2.a < k.g)) x' },
  { sql: 'SELECT k.id, x.a FROM k, LATERAL (SELECT a FROM d ORDER BY a NULLS FIRST LIMIT (SELECT count(*) FROM k k2 WHERE k2.id < k.id) % 4 OFFSET 1) x ORDER BY k.id', orderCols: [0] },
  { sql: 'SELECT * FROM k ORDER BY g FETCH FIRST (SELECT 2) ROWS WITH TIES', orderCols: [1] },
];

const ERRORS: Fixture[] = [
  { sql: 'SELECT a FROM d LIMIT -1' },
  { sql: 'SELECT a FROM d LIMIT (SELECT -1)' },
  { sql: 'SELECT a FROM d ORDER BY a OFFSET (SELECT -1)' },
  { sql: 'SELECT a FROM d OFFSET $1', params: [-2] },
  { sql: 'SELECT a FROM d LIMIT (SELECT a FROM d)' },
];

let db: Database;
let pg: PGlite;
let parsers: Record<number, (v: string) => string>;

beforeAll(async () => {
  db = await Database.create();
  await db.query(SETUP);
  pg = await startPg();
  await pg.exec(SETUP);
  parsers = await rawParsers(pg);
});

afterAll(async () => {
  await pg.close();
  await db.close();
});

type Row = (string | null)[];

async function postgres(f: Fixture): Promise<Row[] | { code: string }> {
  try {
    const r = await pg.query<Row>(f.sql, f.params ?? [], { rowMode: 'array', parsers });
    return r.rows.map((row) => row.map((v) => (v === null ? null : String(v))));
  } catch (e) {
    return { code: String((e as { code?: string }).code) };
  }
}

describe('pages with the query’s own LIMIT / OFFSET equal PostgreSQL’s unpaged result', () => {
  for (const f of FIXTURES) {
    it(f.params ? `${f.sql} ${JSON.stringify(f.params)}` : f.sql, async () => {
      const want = await postgres(f);
      if (!Array.isArray(want)) throw new Error(`PostgreSQL refused the fixture: ${want.code}`);
      const plainResult = await db.query(f.sql, f.params ?? []);
      const plain = plainResult.rows.map((r) => r.map((v, i) => formatValue(v, plainResult.columns[i]!.type, { timezone: 'UTC' })));
      expect(plain.length, 'db.query').toBe(want.length);
      if (!f.ties) expect(multiset(plain), 'db.query').toEqual(multiset(want));
      const pager = new Pager(db);
      for (let size = 1; size <= 7; size++) {
        const ctx = `fetch_size ${size}`;
        const { pages } = await pageAll(pager, f.sql, size, f.params);
        const rows = pageText(pages);
        expect(multiset(rows), ctx).toEqual(multiset(plain));
        if (f.orderCols) {
          const pick = (r: Row): string => key(f.orderCols!.map((c) => r[c]!));
          expect(rows.map(pick), ctx).toEqual(want.map(pick));
        }
        expect(pageShapeProblem(pages, want.length, size), ctx).toBeNull();
      }
    });
  }
});

describe('LIMIT / OFFSET errors are PostgreSQL’s', () => {
  for (const f of ERRORS) {
    it(f.sql, async () => {
      const want = await postgres(f);
      expect(Array.isArray(want)).toBe(false);
      const code = (want as { code: string }).code;
      await expect(db.query(f.sql, f.params ?? [])).rejects.toMatchObject({ code });
      const err = await new Pager(db).first(f.sql, { fetchSize: 2, params: f.params ?? [] }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(QuireError);
      expect((err as QuireError).code).toBe(code);
    });
  }
});

describe('LIMIT / OFFSET arguments are fixed on page 1', () => {
  it('a subquery count does not move when the table changes between pages', async () => {
    const d = await Database.create();
    await d.query('CREATE TABLE c (v int); CREATE TABLE r (a int)');
    await d.query('INSERT INTO c SELECT generate_series(1, 4)');
    await d.query('INSERT INTO r VALUES (1), (1), (2), (2), (3), (3), (4), (4), (5), (5)');
    for (const sql of ['SELECT a FROM r ORDER BY a LIMIT (SELECT count(*) FROM c) OFFSET (SELECT count(*) FROM c) - 3', 'SELECT a FROM r LIMIT (SELECT count(*) FROM c)']) {
      const want = (await d.query(sql)).rows;
      let page = await d.paginate(sql, { fetchSize: 1 });
      const got = [...page.rows];
      while (page.cursor !== null) {
        await d.query('INSERT INTO c VALUES (0)');
        page = await d.resume(page.cursor);
        got.push(...page.rows);
      }
      await d.query('DELETE FROM c WHERE v = 0');
      expect(got.map((r) => r[0]).sort(), sql).toEqual(want.map((r) => r[0]).sort());
    }
  });
});

describe('writes between pages', () => {
  it('keyless rows under the query’s OFFSET: unchanged rows are sent exactly once', async () => {
    const d = await Database.create();
    await d.query('CREATE TABLE w (g int, tag text)');
    await d.query("INSERT INTO w SELECT i % 4, 'r' || (i % 3) FROM generate_series(1, 40) i");
    await d.query("INSERT INTO w SELECT i % 4, 'r' || (i % 3) FROM generate_series(1, 40) i");
    const sql = 'SELECT g, tag FROM w ORDER BY g, tag OFFSET 9';
    const before = (await d.query(sql)).rows.map((r) => JSON.stringify(r)).sort();
    let page = await d.paginate(sql, { fetchSize: 5 });
    const seen = [...page.rows];
    let round = 0;
    while (page.cursor !== null) {
      round++;
      // Rows sorting after everything: each appears once, nothing else moves.
      await d.query(`INSERT INTO w VALUES (9, 'new${String(round).padStart(3, '0')}')`);
      page = await d.resume(page.cursor);
      seen.push(...page.rows);
    }
    expect(seen.filter((r) => r[0] !== 9).map((r) => JSON.stringify(r)).sort()).toEqual(before);
    expect(seen.filter((r) => r[0] === 9).length).toBe(round);
  });
});
