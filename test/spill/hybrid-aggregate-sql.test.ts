/**
 * GROUP BY under small memory_limit values against PostgreSQL (PGlite): the same table in both engines,
 * results compared as PostgreSQL text (groups sorted, their order being unspecified), and Quire's EXPLAIN
 * ANALYZE checked for the path taken: no spill for few groups, one level of hash partitions, recursion
 * under a tiny limit, the sort-based last resort. Spill files are gone after every statement, also after
 * an error, a cancel and a statement_timeout in the middle of spilling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/api/database.js';
import { formatValue } from '../../src/common/format-value.js';
import { liveSpillDirectories } from '../../src/execution/spill/spill-manager.js';
import { asSqlError, newPglite, quireConnection, rowsText, type SqlConnection } from '../harness/connection.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
let db: Database;
let quire: SqlConnection;
let pg: SqlConnection;

const SETUP = [
  `CREATE TABLE t AS SELECT i, (i * 7919) % 50000 AS g, i % 7 AS few,
     CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 31) % 20011 END AS n,
     'ключ-' || ((i * 13) % 30000) || '-😀' AS s,
     CASE WHEN i % 5 = 0 THEN NULL ELSE 'w' || (i % 97) END AS w
   FROM generate_series(1, 100000) i`,
  `CREATE FUNCTION add_sq(a bigint, b int) RETURNS bigint AS 'SELECT a + b * b' LANGUAGE sql`,
  `CREATE AGGREGATE sum_sq(int) (sfunc = add_sq, stype = bigint, initcond = '0')`,
];

beforeAll(async () => {
  db = await Database.create();
  quire = quireConnection(db, formatValue);
  pg = await newPglite();
  for (const s of SETUP) {
    await pg.query(s);
    await quire.query(s);
  }
  await db.query(`SET temp_directory = '${tmp.dir}'`);
}, 120_000);

afterAll(async () => {
  await pg.close?.();
  tmp.remove();
});

const sorted = (text: string): string[] => text.split('\n').sort();

/** Rows of `sql` in both engines (Quire under `limit`), and Quire's aggregate line of EXPLAIN ANALYZE. */
async function check(sql: string, limit: string): Promise<string> {
  const expected = sorted(await rowsText(pg, sql));
  await db.query(`SET memory_limit = '${limit}'`);
  try {
    const got = sorted(await rowsText(quire, sql));
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
    expect(tmp.files()).toEqual([]);
    const plan = (await db.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => String(r[0]));
    expect(tmp.files()).toEqual([]);
    return plan.find((l) => l.includes('HashAggregate')) ?? '';
  } finally {
    await db.query('RESET memory_limit');
  }
}

const metric = (line: string, name: string): number => Number(new RegExp(`${name}=(\\d+)`).exec(line)?.[1] ?? NaN);

describe('hybrid hash aggregation against PostgreSQL', () => {
  it('few groups never spill', async () => {
    const line = await check('SELECT few, count(*), sum(i), avg(n), min(s), max(w) FROM t GROUP BY few', '512kB');
    expect(line).toMatch(/spilled=none/);
  });

  it('many groups spill one level of partitions', async () => {
    const line = await check('SELECT g, count(*), sum(i), min(s), max(n), count(w) FROM t GROUP BY g', '4MB');
    expect(metric(line, 'spilled rows')).toBeGreaterThan(0);
    expect(metric(line, 'spilled rows')).toBeLessThan(100_000);
    expect(metric(line, 'depth')).toBe(1);
  });

  it('a tiny limit splits partitions again', async () => {
    // One group per row: a partition's second frame brings new groups only.
    const line = await check('SELECT i, count(*), min(s), max(n), count(w) FROM t GROUP BY i', '128kB');
    expect(metric(line, 'depth')).toBeGreaterThanOrEqual(2);
  });

  it('NULL keys, multibyte text keys and several keys', async () => {
    expect(await check('SELECT n, count(*), sum(i) FROM t GROUP BY n', '512kB')).toMatch(/spilled rows=/);
    expect(await check('SELECT s, count(*), min(i), max(w) FROM t GROUP BY s', '1MB')).toMatch(/spilled rows=/);
    expect(await check('SELECT w, few, g % 1000, count(*), sum(n) FROM t GROUP BY w, few, g % 1000', '1MB')).toMatch(/spilled rows=/);
  });

  it('DISTINCT and ORDER BY inside the call, string_agg, array_agg, FILTER', async () => {
    const a = await check(
      `SELECT g % 5000, count(DISTINCT few), string_agg(w, ',' ORDER BY i DESC), array_agg(n ORDER BY i), sum(n) FILTER (WHERE w IS NULL)
       FROM t GROUP BY 1`,
      '1MB',
    );
    expect(a).toMatch(/spilled rows=/);
    // Without ORDER BY, both engines aggregate in scan order (the spill files keep arrival order).
    expect(await check('SELECT g % 5000, array_agg(i), string_agg(w, \'-\') FROM t GROUP BY 1', '1MB')).toMatch(/spilled rows=/);
    const f = await check('SELECT g, count(*) FILTER (WHERE i % 3 = 0), sum(n) FILTER (WHERE w IS NULL), max(s) FILTER (WHERE few > 2) FROM t GROUP BY g', '1MB');
    expect(f).toMatch(/spilled rows=/);
  });

  it('a user-defined aggregate and grouping sets', async () => {
    expect(await check('SELECT g % 20000, sum_sq(few), count(*) FROM t GROUP BY 1', '1MB')).toMatch(/spilled rows=/);
    await check('SELECT g % 2000, few, count(*), sum(n) FROM t GROUP BY GROUPING SETS ((g % 2000), (few), ())', '512kB');
  });

  it('the last resort: groups too large to split are sorted', async () => {
    // 90,000 rows in one group: more than a sort chunk, and no hash seed splits it.
    const line = await check(`SELECT i <= 90000, length(string_agg(s, ',' ORDER BY i)), md5(string_agg(s, ',' ORDER BY i)) FROM t GROUP BY 1`, '512kB');
    expect(metric(line, 'sorted partitions')).toBeGreaterThan(0);
  });

  it('an error in the middle of spilling: the same error as PostgreSQL, no file left', async () => {
    const sql = 'SELECT g, sum(10 / (i - 90000)) FROM t GROUP BY g';
    const expected = await pg.query(sql).then(
      () => 'ok',
      (e: unknown) => asSqlError(e).code,
    );
    expect(expected).toBe('22012');
    await db.query(`SET memory_limit = '1MB'`);
    try {
      await expect(db.query(sql)).rejects.toMatchObject({ code: '22012' });
    } finally {
      await db.query('RESET memory_limit');
    }
    expect(tmp.files()).toEqual([]);
  });

  it('cancel and statement_timeout while spilling leave no file', async () => {
    const heavy = 'SELECT t.g, v.k, count(*), sum(t.n) FROM t CROSS JOIN generate_series(1, 50) v(k) GROUP BY 1, 2';
    await db.query(`SET memory_limit = '1MB'`);
    try {
      const p = db.query(heavy);
      // Cancelled as soon as the aggregate has created its spill directory.
      let spilling = false;
      const poll = setInterval(() => {
        if (liveSpillDirectories().some((d) => d.startsWith(tmp.dir))) {
          spilling = true;
          clearInterval(poll);
          db.cancel();
        }
      }, 2);
      try {
        await expect(p).rejects.toMatchObject({ code: '57014' });
      } finally {
        clearInterval(poll);
      }
      expect(spilling).toBe(true);
      expect(tmp.files()).toEqual([]);
      await db.query(`SET statement_timeout = '300ms'`);
      await expect(db.query(heavy)).rejects.toMatchObject({ code: '57014' });
      expect(tmp.files()).toEqual([]);
    } finally {
      await db.query('RESET statement_timeout');
      await db.query('RESET memory_limit');
    }
  });
});
