/**
 * The row-reference store of the per-partition Top-N (topn-ranking-refs.ts): row_number with k <= 16
 * over numeric order keys (one or several columns, ASC / DESC, ties broken by arrival), any partition
 * key (int with NULLs, multibyte text, several columns, one partition, every row its own partition),
 * over enough rows that the retained input batches are compacted, and the hand-over to the general
 * store when a NULL or NaN order key appears in a late batch. Every query must give the same rows as
 * with the rule disabled and, projected to columns PostgreSQL determines, as PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, quireConnection, type SqlConnection } from '../harness/connection.js';
import { checkRankingMatrix } from './ranking-matrix.js';
import { Database, formatValue } from '../../src/index.js';

const ROWS = 150_000;

function setupSql(): string[] {
  return [
    'CREATE TABLE r (id int, p int, v float8, i4 int, ts timestamp, q text, vn float8, vnan float8)',
    `INSERT INTO r SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 5003 END,
       ((CAST(i AS bigint) * 104729) % 2003) / 4.0,
       (i * 37) % 211 - 100,
       TIMESTAMP '2020-01-01 00:00:00' + ((i * 7) % 50000) * INTERVAL '1 second',
       CASE WHEN i % 101 = 0 THEN NULL ELSE (CASE i % 5 WHEN 0 THEN 'ünï' WHEN 1 THEN '日本' WHEN 2 THEN 'a' WHEN 3 THEN 'ß' ELSE '😀' END) || CAST((i * 31) % 1009 AS text) END,
       CASE WHEN i > 120000 AND i % 500 = 0 THEN NULL ELSE ((CAST(i AS bigint) * 104729) % 2003) / 4.0 END,
       CASE WHEN i > 120000 AND i % 700 = 0 THEN CAST('NaN' AS float8) ELSE ((CAST(i AS bigint) * 104729) % 2003) / 4.0 END
     FROM generate_series(1, ${ROWS}) AS g(i)`,
  ];
}

const PARTS = ['p', 'q', 'p % 7 + 10 * i4', '1', '(id)'];
const ORDERS = ['v', 'v DESC', 'i4 DESC, id', 'v DESC, i4', 'i4, v DESC', 'v NULLS FIRST'];
const KS = [1, 3, 16, 2];

describe('per-partition Top-N: row-reference store', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(setupSql(), quireConnection(await Database.create(), formatValue)));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  const analyze = async (sql: string): Promise<string> => (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');

  it('agrees with the rule disabled and with PostgreSQL', async () => {
    const failures = await checkRankingMatrix(q, pg, { table: 'r', parts: PARTS, orders: ORDERS, fns: ['row_number'], ks: KS });
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
  }, 600_000);

  it('keeps the earlier-arriving row among ties, as the sort below a Window does', async () => {
    for (const order of ['v', 'v DESC', 'i4, v', 'i4 DESC']) {
      for (const k of [1, 3]) {
        const sql = `SELECT id, rn FROM (SELECT id, row_number() OVER (PARTITION BY p ORDER BY ${order}) AS rn FROM r) x WHERE rn <= ${k} ORDER BY id`;
        await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
        const off = (await q.query(sql)).rows;
        await q.query('RESET quire.disabled_rules');
        await q.query("SET quire.derive_topn = 'on'");
        const on = (await q.query(sql)).rows;
        await q.query('RESET quire.derive_topn');
        expect(on.length, sql).toBeGreaterThan(0);
        expect(on, sql).toEqual(off);
      }
    }
  }, 120_000);

  it('hands over to the general store on NULL / NaN order keys in late batches', async () => {
    const failures = await checkRankingMatrix(q, pg, {
      table: 'r',
      // Computed keys are helper columns the retained rows leave out: the hand-over carries partition ids.
      parts: ['p', 'q', "q || '·'", 'p % 7 + 10 * i4'],
      orders: ['vn', 'vn DESC NULLS LAST', 'vnan DESC', 'vnan, id'],
      fns: ['row_number'],
      ks: [1, 3],
    });
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
    await q.query("SET quire.derive_topn = 'on'");
    try {
      const a = await analyze('SELECT p, id FROM (SELECT p, id, row_number() OVER (PARTITION BY p ORDER BY vn) AS rn FROM r) x WHERE rn <= 2');
      expect(a).toMatch(/TopNRanking[^\n]*store=row copies \(NULL or NaN order key\)/);
    } finally {
      await q.query('RESET quire.derive_topn');
    }
  }, 600_000);

  it('says in EXPLAIN ANALYZE that it ran, and compacts the retained batches', async () => {
    await q.query("SET quire.derive_topn = 'on'");
    // The retained batches outgrow the limit long before the kept rows do: compaction, not 53200.
    await q.query("SET memory_limit = '2MB'");
    try {
      const a = await analyze('SELECT p, id FROM (SELECT p, id, row_number() OVER (PARTITION BY p ORDER BY v DESC, id) AS rn FROM r) x WHERE rn <= 3');
      const m = /partitions=(\d+) peak kept rows=(\d+)[^\n]*store=row refs \((\d+) compactions\)/.exec(a);
      expect(m, a).not.toBeNull();
      expect(Number(m![1])).toBe(5004);
      expect(Number(m![2])).toBeLessThanOrEqual(3 * 5004);
      expect(Number(m![3])).toBeGreaterThan(0);
      // Few partitions: after the first rows, the copying store (whose key-range test rejects whole batches) takes over.
      const few = await analyze('SELECT p, id FROM (SELECT p, id, row_number() OVER (PARTITION BY p % 7 ORDER BY v, id) AS rn FROM r) x WHERE rn <= 3');
      expect(few).toMatch(/TopNRanking[^\n]*partitions=8 [^\n]*store=row copies \(few partitions\)/);
    } finally {
      await q.query('RESET memory_limit');
      await q.query('RESET quire.derive_topn');
    }
  }, 60_000);

  it('gives up pruning when every row is its own partition (adaptive) and still agrees', async () => {
    const sql = 'SELECT id, v FROM (SELECT id, v, row_number() OVER (PARTITION BY id ORDER BY v) AS rn FROM r) x WHERE rn = 1 ORDER BY id';
    const a = await analyze(sql);
    expect(a).toMatch(/TopNRanking[^\n]*pruning=abandoned[^\n]*store=row refs/);
    await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
    const off = (await q.query(sql)).rows;
    await q.query('RESET quire.disabled_rules');
    const on = (await q.query(sql)).rows;
    expect(on.length).toBe(ROWS);
    expect(on).toEqual(off);
  }, 60_000);

  it('under a memory limit: 53200 when forced, sort and filter in auto mode (same rows)', async () => {
    const sql = 'SELECT id, rn FROM (SELECT id, row_number() OVER (PARTITION BY p * 100 + i4 ORDER BY v DESC, id) AS rn FROM r) x WHERE rn <= 16 ORDER BY id';
    await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
    const off = (await q.query(sql)).rows;
    await q.query('RESET quire.disabled_rules');
    await q.query("SET memory_limit = '2MB'");
    try {
      await q.query("SET quire.derive_topn = 'on'");
      await expect(q.query(sql)).rejects.toMatchObject({ code: '53200' });
      await q.query('RESET quire.derive_topn');
      const a = await analyze(sql);
      expect(a).toMatch(/TopNRanking[^\n]*decision=sort and filter \(memory limit reached\)[^\n]*store=row refs/);
      expect((await q.query(sql)).rows).toEqual(off);
    } finally {
      await q.query('RESET memory_limit');
      await q.query('RESET quire.derive_topn');
    }
  }, 60_000);

  it('handles two partition columns, timestamps, empty input, one partition, and k larger than the partitions', async () => {
    for (const sql of [
      'SELECT id, rn FROM (SELECT id, row_number() OVER (PARTITION BY p % 7, q ORDER BY i4 DESC, id) AS rn FROM r) x WHERE rn <= 4 ORDER BY id',
      'SELECT p, id, ts FROM (SELECT p, id, ts, row_number() OVER (PARTITION BY p ORDER BY ts DESC, id) AS rn FROM r) x WHERE rn <= 2 ORDER BY p, id',
      'SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY p ORDER BY v) AS rn FROM r WHERE id < 0) x WHERE rn <= 3',
      'SELECT id, v FROM (SELECT id, v, row_number() OVER (ORDER BY v DESC, id) AS rn FROM r) x WHERE rn <= 5 ORDER BY id',
      'SELECT id, i4 FROM (SELECT id, i4, row_number() OVER (PARTITION BY i4 % 3 ORDER BY v, id) AS rn FROM r WHERE id <= 20) x WHERE rn <= 16 ORDER BY id',
    ]) {
      await q.query("SET quire.derive_topn = 'on'");
      const on = (await q.query(sql)).rows;
      await q.query('RESET quire.derive_topn');
      const want = (await pg.query(sql)).rows;
      expect(on, sql).toEqual(want);
    }
  }, 60_000);
});
