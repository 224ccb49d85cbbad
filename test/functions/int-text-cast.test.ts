/**
 * Integer to text casts compiled inline (String of the value): every integer type, the extremes, zero
 * from arithmetic, NULLs, int8 beyond 2^53, and the result used as text (concatenation, comparison,
 * ordering), against PostgreSQL (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from './sql-diff.js';

let sql: SqlDiff;
beforeAll(async () => {
  sql = await SqlDiff.start(
    'CREATE TABLE n (a int2, b int4, c int8); ' +
      'INSERT INTO n VALUES (-32768, -2147483648, -9223372036854775808), (32767, 2147483647, 9223372036854775807), ' +
      '(0, 0, 0), (NULL, NULL, NULL), (-1, 7, 9007199254740993), (12, -300, -9007199254740993), (5, 10, 4611686018427387904)',
  );
}, 60_000);
afterAll(async () => {
  await sql.close();
});

describe('integer to text casts', () => {
  it('match PostgreSQL for every integer type and extreme', async () => {
    expect(
      await sql.mismatches([
        'SELECT a::text, b::text, c::text FROM n ORDER BY c NULLS FIRST',
        "SELECT 'k' || CAST(a AS text) || '-' || CAST(b * 0 AS text) || '-' || CAST(c AS text) FROM n ORDER BY 1",
        'SELECT CAST(c * -1 AS text), CAST(b % 3 AS text) FROM n WHERE b > -10 ORDER BY 1',
        "SELECT CAST(b AS text) < '5', length(CAST(c AS text)) FROM n ORDER BY b NULLS LAST",
        'SELECT x FROM (SELECT CAST(b AS text) AS x FROM n) s ORDER BY x NULLS FIRST',
        'SELECT CAST(b AS varchar(3)), CAST(c AS varchar) FROM n ORDER BY b',
      ]),
    ).toEqual([]);
  });
});
