/**
 * Constant select-list items are projected as filled columns (compile-expr.ts filledColumn): each
 * storage kind, NULL, and an int8 beyond 2^53 (which takes the general writer), over several batches,
 * printed as PostgreSQL prints them; and window calls whose constant arguments come through that path.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { startPg } from '../common/pg-helper.js';

const CASES: { sql: string; columns: string[] }[] = [
  {
    sql: `SELECT x, 2 AS i, 2.5::float8 AS f, true AS b, false AS nb, NULL::int AS n, 'a' AS t, 1.50::numeric AS num,
            9223372036854775807::int8 AS big, 7::int8 AS small, date '2020-01-01' AS d, interval '1 day' AS iv
          FROM generate_series(1, 9000) x`,
    columns: ['x', 'i', 'f', 'b', 'nb', 'n', 't', 'num', 'big', 'small', 'd', 'iv'],
  },
  {
    sql: `SELECT x, ntile(7) OVER (ORDER BY x) AS n, lead(x, 3, -1) OVER (ORDER BY x) AS l FROM generate_series(1, 10000) x`,
    columns: ['x', 'n', 'l'],
  },
];

describe('constant columns', () => {
  let pg: PGlite;
  beforeAll(async () => {
    pg = await startPg();
  }, 120_000);
  afterAll(async () => {
    await pg.close();
  });

  for (const c of CASES) {
    it(c.sql.slice(0, 70), async () => {
      const db = await Database.create();
      // Each row as one text value, NULL as an empty field, in x order.
      const q = `SELECT ${c.columns.map((n) => `coalesce(q.${n}::text, '')`).join(` || '|' || `)} FROM (${c.sql}) q ORDER BY q.x`;
      const ours = (await db.query(q)).rows.map((r) => String(r[0]));
      const theirs = (await pg.query<unknown[]>(q, [], { rowMode: 'array' })).rows.map((r) => String(r[0]));
      expect(ours.length).toBeGreaterThan(8000);
      expect(ours).toEqual(theirs);
    }, 60_000);
  }
});
