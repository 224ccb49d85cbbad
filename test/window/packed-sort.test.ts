/**
 * The packed-key radix sort (src/physical/packed-key-sort.ts) and the integer RANGE frame path
 * (FrameComputer.rangeInt) against PostgreSQL: 3,000 rows (the packed path needs more than 256) with
 * NULL partition and order keys, negative values, DESC, NULLS FIRST/LAST, timestamps in whole seconds
 * (the gcd step), integral floats with -0 (decoded keys must keep the sign), NaN and int8 beyond 2^53
 * (both fall back to the general sorts), and every result printed in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, rowsText, type SqlConnection } from '../harness/connection.js';
import { rng } from './window-gen.js';

const ROWS = 3000;

function setupSql(): string[] {
  const r = rng(777);
  const vals: string[] = [];
  const nul = (p: number, v: string): string => (r.chance(p) ? 'NULL' : v);
  for (let id = 1; id <= ROWS; id++) {
    const p = nul(0.05, String(r.int(7) - 3));
    const k = nul(0.08, String(r.int(400) - 200));
    const ts = nul(0.05, `TIMESTAMP '2024-03-01 00:00:00' + interval '${r.int(5000)} seconds'`);
    const fi = nul(0.05, r.chance(0.05) ? "'-0'" : String(r.int(50) - 25));
    const fnan = nul(0.05, r.chance(0.05) ? "'NaN'" : String(r.int(20)));
    const big = nul(0.05, `${r.int(1000) - 500}::int8 * 1000000000000`);
    const huge = r.chance(0.02) ? '9007199254740993' : String(r.int(100));
    const b = nul(0.1, r.chance(0.5) ? 'true' : 'false');
    vals.push(`(${id}, ${p}, ${k}, ${ts}, ${fi}, ${fnan}, ${big}, ${huge}, ${b})`);
  }
  return [
    'CREATE TABLE w (id int, p int, k int, ts timestamp, fi float8, fnan float8, big int8, huge int8, b bool)',
    `INSERT INTO w VALUES ${vals.join(', ')}`,
  ];
}

const QUERIES = [
  // Sort output itself: decoded key columns with NULLs, DESC and NULLS FIRST.
  'SELECT p, k, id FROM w ORDER BY p NULLS FIRST, k DESC, id',
  'SELECT p, ts, id FROM w ORDER BY p DESC, ts, id DESC',
  'SELECT b, p, id FROM w ORDER BY b DESC NULLS LAST, p, id',
  'SELECT fi, id FROM w ORDER BY fi DESC, id',
  'SELECT fnan, id FROM w ORDER BY fnan, id',
  'SELECT huge, id FROM w ORDER BY huge DESC, id',
  'SELECT big, id FROM w ORDER BY big NULLS FIRST, id',
  // Windows over the packed sort.
  'SELECT id, row_number() OVER (PARTITION BY p ORDER BY ts DESC NULLS LAST, id), rank() OVER (PARTITION BY p ORDER BY ts) FROM w ORDER BY id',
  'SELECT id, dense_rank() OVER (PARTITION BY b ORDER BY fi), ntile(5) OVER (PARTITION BY b ORDER BY fi, id) FROM w ORDER BY id',
  'SELECT id, lag(k) OVER (PARTITION BY p ORDER BY id DESC), lead(k, 3, -1) OVER (PARTITION BY p ORDER BY id DESC) FROM w ORDER BY id',
  'SELECT id, rank() OVER (PARTITION BY fnan ORDER BY k NULLS FIRST) FROM w ORDER BY id',
  // RANGE with integer offsets: ASC/DESC, NULLS FIRST/LAST, both bound kinds, int8 keys.
  'SELECT id, count(*) OVER (PARTITION BY p ORDER BY k RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING) FROM w ORDER BY id',
  'SELECT id, count(*) OVER (PARTITION BY p ORDER BY k DESC NULLS LAST RANGE BETWEEN 5 PRECEDING AND 1 PRECEDING) FROM w ORDER BY id',
  'SELECT id, sum(k) OVER (PARTITION BY b ORDER BY k NULLS FIRST RANGE BETWEEN 2 FOLLOWING AND 10 FOLLOWING) FROM w ORDER BY id',
  'SELECT id, count(k) OVER (ORDER BY k DESC RANGE BETWEEN CURRENT ROW AND 0 FOLLOWING) FROM w ORDER BY id',
  "SELECT id, count(*) OVER (PARTITION BY p ORDER BY big RANGE BETWEEN 3000000000000 PRECEDING AND 1000000000000 FOLLOWING) FROM w ORDER BY id",
  'SELECT id, max(id) OVER (PARTITION BY p ORDER BY k RANGE BETWEEN UNBOUNDED PRECEDING AND 7 FOLLOWING) FROM w ORDER BY id',
];

describe('packed-key sort and integer RANGE frames vs PostgreSQL', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(setupSql()));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
    await q.close?.();
  });

  for (const sql of QUERIES) {
    it(sql, async () => {
      const want = await rowsText(pg, sql);
      expect(want.split('\n').length).toBe(ROWS);
      expect(await rowsText(q, sql)).toBe(want);
    }, 60_000);
  }

  it('a negative RANGE offset still raises 22013', async () => {
    await expect(q.query('SELECT count(*) OVER (ORDER BY k RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM w')).rejects.toMatchObject({ code: '22013' });
  });

  it('EXPLAIN ANALYZE names the packed path', async () => {
    const text = await rowsText(q, 'EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT row_number() OVER (PARTITION BY p ORDER BY ts) FROM w');
    expect(text).toContain('sort method=packed radix');
  });
});
