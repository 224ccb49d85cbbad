/**
 * Top-N on a numeric first key, whose rows are first tested against the boundary by an approximate
 * double: against PostgreSQL (PGlite) over values that differ below double precision, mixed scales,
 * NaN, ±Infinity, NULLs, negatives and ties, ascending and descending, with and without WITH TIES.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';

let sql: SqlDiff;

const SETUP = `
CREATE TABLE n AS
SELECT i,
       CASE WHEN i % 101 = 0 THEN NULL
            WHEN i % 997 = 0 THEN CAST('NaN' AS numeric)
            WHEN i % 1999 = 0 THEN CAST('Infinity' AS numeric)
            WHEN i % 2003 = 0 THEN CAST('-Infinity' AS numeric)
            WHEN i % 3 = 0 THEN CAST((i * 7919) % 5000 AS numeric) / 100
            WHEN i % 3 = 1 THEN CAST((i * 7919) % 5000 AS numeric(12,1)) - 2500
            ELSE 1 + CAST(i % 50 AS numeric) * 0.00000000000000000001 END AS x
FROM generate_series(1, 20000) AS s(i);
INSERT INTO n VALUES (-1, 49.99), (-2, 49.990), (-3, 1.00000000000000000001), (-4, 1.000000000000000000010),
  (-5, 0), (-6, -0.000), (-7, 123456789012345678901234567890.5), (-8, 123456789012345678901234567890.4),
  (-9, 1e-30), (-10, -1e-30);
`;

beforeAll(async () => {
  sql = await SqlDiff.start(SETUP);
}, 60_000);
afterAll(async () => {
  await sql.close();
});

describe('Top-N over numeric', () => {
  it('matches PostgreSQL in both directions and with NULL placement', async () => {
    const qs: string[] = [];
    for (const k of [1, 5, 30, 200]) {
      qs.push(`SELECT i, x FROM n ORDER BY x DESC, i LIMIT ${k}`);
      qs.push(`SELECT i, x FROM n ORDER BY x, i LIMIT ${k}`);
      qs.push(`SELECT i, x FROM n ORDER BY x DESC NULLS LAST, i LIMIT ${k}`);
      qs.push(`SELECT i, x FROM n ORDER BY x NULLS FIRST, i LIMIT ${k}`);
      qs.push(`SELECT i, x FROM n WHERE x < 'Infinity' AND x > 1 ORDER BY x, i LIMIT ${k}`);
      qs.push(`SELECT i, x FROM n WHERE x BETWEEN 1 AND 1.000000000000000001 ORDER BY x DESC, i DESC LIMIT ${k}`);
      qs.push(`SELECT i, x FROM n WHERE i < 0 OR i % 3 = 2 ORDER BY x DESC, i LIMIT ${k}`);
    }
    // Ties come back in no defined order: sorted by i outside.
    qs.push('SELECT * FROM (SELECT i, x FROM n ORDER BY x DESC FETCH FIRST 3 ROWS WITH TIES) q ORDER BY i');
    qs.push("SELECT * FROM (SELECT i, x FROM n WHERE x < 'NaN' ORDER BY x DESC FETCH FIRST 2 ROWS WITH TIES) q ORDER BY i");
    qs.push("SELECT * FROM (SELECT i, x FROM n WHERE x < 'Infinity' ORDER BY x DESC FETCH FIRST 2 ROWS WITH TIES) q ORDER BY i");
    qs.push('SELECT i, x FROM n WHERE x > -1 AND x < 1 ORDER BY x, i LIMIT 4');
    expect(await sql.mismatches(qs)).toEqual([]);
  });
});
