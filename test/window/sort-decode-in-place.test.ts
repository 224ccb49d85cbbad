/**
 * A Sort over several input batches owns the arrays it concatenated them into, and the packed-key sort
 * decodes the sorted key columns over those arrays instead of into fresh ones. Checked against
 * PostgreSQL on 20,000 rows (several 4,096-row batches): the sorted keys themselves (NULLS FIRST/LAST,
 * DESC, timestamps, a key used twice), windows over them, a second sort of the same rows in one
 * statement, and the table read again afterwards (its stored columns must be untouched).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, rowsText, type SqlConnection } from '../harness/connection.js';

const ROWS = 20_000;

const SETUP = [
  'CREATE TABLE w (id int, p int, k int, ts timestamp, f float8)',
  `INSERT INTO w SELECT i,
     CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919) % 13 END,
     CASE WHEN i % 23 = 0 THEN NULL ELSE (i * 31) % 2000 - 1000 END,
     TIMESTAMP '2024-03-01 00:00:00' + ((i * 104729) % 50000) * interval '1 second',
     CASE WHEN i % 29 = 0 THEN NULL ELSE ((i * 13) % 500)::float8 - 250 END
   FROM generate_series(1, ${ROWS}) AS s(i)`,
];

const QUERIES = [
  'SELECT p, ts, id FROM w ORDER BY p NULLS FIRST, ts DESC, id',
  'SELECT k, p, id FROM w ORDER BY k DESC NULLS LAST, p, id DESC',
  'SELECT f, k, id FROM w ORDER BY f NULLS FIRST, k, id',
  'SELECT p, id FROM w ORDER BY p, p DESC, id',
  'SELECT id, p, ts, row_number() OVER (PARTITION BY p ORDER BY ts, id), rank() OVER (PARTITION BY p ORDER BY ts) FROM w ORDER BY id',
  'SELECT id, k, ntile(7) OVER (PARTITION BY p ORDER BY k DESC, id), lag(k) OVER (PARTITION BY p ORDER BY k DESC, id) FROM w ORDER BY id',
  'SELECT x.p, x.k, x.id FROM (SELECT p, k, id FROM w ORDER BY k, id) x ORDER BY x.p DESC, x.k, x.id',
  'SELECT id, p, k, ts, f FROM w ORDER BY id',
];

describe('sorted keys decoded over the sort’s own arrays vs PostgreSQL', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(SETUP));
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

  it('EXPLAIN ANALYZE names the packed path', async () => {
    const text = await rowsText(q, 'EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT p, ts, id FROM w ORDER BY p NULLS FIRST, ts DESC, id');
    expect(text).toContain('sort method=packed radix');
  });
});
