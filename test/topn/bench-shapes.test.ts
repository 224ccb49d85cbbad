/**
 * The per-partition Top-N shapes of the bench that defeat a plain fast path, checked on a small copy of
 * the bench table against PostgreSQL and against Quire with the rewrite off: k = 10 over partitions of
 * about 10 rows, a computed partition key with NULLs, rank with many ties, a float ordered DESC NULLS
 * LAST with NULLs, and a text partition key built by the query (multibyte). Past the probe, EXPLAIN
 * ANALYZE must say which strategy ran for the first and the last of these.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, outcomeText, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';

/** h is a permutation of the row numbers (7919 is invertible modulo the prime 1000003), so v is unique. */
const table = (rows: number, partitions: number): string => `CREATE TABLE bt AS SELECT i AS id, h % 100 AS g,
    ((h * 613) % 1000003)::float8 / 7 AS v, (i * 31) % 10000 AS k,
    (ARRAY['ä', 'b', '日本', 'z', 'Ω𝄞'])[1 + h % 5] || ((h / 7) % 40)::text AS s, h % ${partitions} AS p
  FROM (SELECT i, (i * 7919) % 1000003 AS h FROM generate_series(1, ${rows}) i) x`;

const SHAPES: { name: string; sql: string }[] = [
  { name: 'k = 10, ~10 rows a partition', sql: 'SELECT p, id FROM (SELECT p, id, row_number() OVER (PARTITION BY p ORDER BY v) AS rn FROM bt) x WHERE rn <= 10' },
  {
    name: 'NULL partition keys',
    sql:
      'SELECT g2, id FROM (SELECT g2, id, row_number() OVER (PARTITION BY g2 ORDER BY v) AS rn FROM ' +
      '(SELECT CASE WHEN k % 10 = 0 THEN NULL ELSE g END AS g2, id, v FROM bt) s) x WHERE rn <= 3',
  },
  { name: 'rank with many ties', sql: 'SELECT g, id FROM (SELECT g, id, rank() OVER (PARTITION BY g ORDER BY k % 7) AS r FROM bt) x WHERE r <= 3' },
  { name: 'dense_rank with many ties', sql: 'SELECT g, id FROM (SELECT g, id, dense_rank() OVER (PARTITION BY g ORDER BY k % 7 DESC) AS r FROM bt) x WHERE r < 3' },
  {
    name: 'float DESC NULLS LAST',
    sql:
      'SELECT g, id, v2 FROM (SELECT g, id, v2, row_number() OVER (PARTITION BY g ORDER BY v2 DESC NULLS LAST, id) AS rn FROM ' +
      '(SELECT g, id, CASE WHEN k % 5 = 0 THEN NULL ELSE v END AS v2 FROM bt) s) x WHERE rn <= 3',
  },
  {
    name: 'computed text partition key',
    sql: "SELECT s, g, id FROM (SELECT s, g, id, row_number() OVER (PARTITION BY s || ':' || CAST(g % 10 AS text) ORDER BY v) AS rn FROM bt) x WHERE rn = 1",
  },
];

describe('bench shapes of per-partition Top-N', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    pg = await newPglite();
    q = quireConnection(await Database.create(), formatValue);
    await pg.query(table(20_000, 2000));
    await q.query(table(20_000, 2000));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  for (const { name, sql } of SHAPES) {
    it(`${name}: agrees with PostgreSQL and with the rewrite off`, async () => {
      const ordered = `${sql} ORDER BY 1, 2`;
      const plan = (await q.query(`EXPLAIN (FORMAT QUIRE) ${ordered}`)).rows.map((r) => r[0]).join('\n');
      expect(plan).toContain('TopNRanking');
      const on = await outcomeText(q, ordered);
      await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
      const off = await outcomeText(q, ordered);
      await q.query('RESET quire.disabled_rules');
      const want = await outcomeText(pg, ordered);
      expect(on.startsWith('ERROR')).toBe(false);
      expect(on.split('\n').length).toBeGreaterThan(50);
      expect(off).toBe(on);
      expect(want).toBe(on);
    }, 120_000);
  }
});

describe('bench shapes past the probe: which strategy ran', () => {
  it('k = 10 over ~10-row partitions sorts and filters; k = 1 over computed text keys prunes', async () => {
    const db = await Database.create();
    await db.query(table(200_000, 20_000));
    const analyze = async (sql: string): Promise<string> => (await db.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
    const text = async (sql: string): Promise<string> => (await db.query(`${sql} ORDER BY 1, 2`)).rows.map((r) => r.map(String).join('|')).join('\n');
    const [k10, , , , , computed] = SHAPES;
    expect(await analyze(k10!.sql)).toMatch(/pruning=abandoned decision=sort and filter/);
    expect(await analyze(computed!.sql)).toMatch(/pruning=kept decision=hash top-k/);
    for (const { sql } of [k10!, computed!]) {
      const got = await text(sql);
      await db.query("SET quire.disabled_rules = 'derive-topn-from-window'");
      const off = await text(sql);
      await db.query('RESET quire.disabled_rules');
      expect(got.length).toBeGreaterThan(0);
      expect(got === off, sql).toBe(true);
    }
  }, 300_000);
});
