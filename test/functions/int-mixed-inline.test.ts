/**
 * Integer arithmetic of mixed widths (int8 with int4/int2: + - *), integer modulo of every width and
 * text || text, compiled inline in the kernels, against PostgreSQL (PGlite): the extremes, overflow
 * (22003), a zero divisor (22012), negative operands, -2147483648 % -1, int8 past 2^53 (bigint values),
 * NULLs on either side, and the results used as keys (ORDER BY, GROUP BY, PARTITION BY).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from './sql-diff.js';

let sql: SqlDiff;
beforeAll(async () => {
  sql = await SqlDiff.start(
    'CREATE TABLE n (a int2, b int4, c int8, s text, v varchar(10)); ' +
      "INSERT INTO n VALUES (-32768, -2147483648, -9223372036854775808, 'é', 'x'), (32767, 2147483647, 9223372036854775807, '', 'yy'), " +
      "(0, 0, 0, 'a', NULL), (NULL, NULL, NULL, NULL, 'z'), (-1, 7, 9007199254740993, '😀', 'w'), (12, -300, -9007199254740993, 'b', ''), " +
      "(5, 10, 4611686018427387904, 'c', 'v'), (-7, -1, 3037000499, 'd', 'u'), (3, 3, -45, 'e', 't')",
  );
}, 60_000);
afterAll(async () => {
  await sql.close();
});

describe('inline integer arithmetic, modulo and text concatenation', () => {
  it('mixed-width + - * match PostgreSQL, overflow included', async () => {
    expect(
      await sql.mismatches([
        'SELECT c + b, c - b, b - c, c * a FROM n WHERE abs(c) < 9000000000000000000 OR c IS NULL ORDER BY b NULLS FIRST',
        'SELECT c * 2 FROM n WHERE b = 2147483647',
        'SELECT c * b FROM n WHERE b = 10',
        'SELECT c * b FROM n WHERE b = -1',
        'SELECT c * c FROM n WHERE b = -1',
        'SELECT c - 1 FROM n WHERE b = -2147483648',
        'SELECT c + 1 FROM n WHERE b = 2147483647',
        'SELECT c * 3 FROM n WHERE b = 7',
        'SELECT CAST(b AS bigint) * 7919 + a FROM n ORDER BY 1 NULLS LAST',
      ]),
    ).toEqual([]);
  });

  it('modulo of every integer width matches PostgreSQL', async () => {
    expect(
      await sql.mismatches([
        'SELECT a % 7, b % 7, c % 7, a % -3, b % -3, c % -3 FROM n ORDER BY b NULLS FIRST',
        'SELECT b % -1, a % -1, c % -1 FROM n ORDER BY b NULLS FIRST',
        'SELECT c % b FROM n WHERE b <> 0 ORDER BY 1 NULLS FIRST',
        'SELECT b % c FROM n WHERE c <> 0 ORDER BY 1 NULLS FIRST',
        'SELECT c % 1000000, CAST(b AS bigint) * 7919 % 1000 FROM n ORDER BY b NULLS FIRST',
        'SELECT b % 0 FROM n WHERE b = 7',
        'SELECT c % 0 FROM n WHERE b = 7',
        'SELECT a % a FROM n WHERE a = 0',
        'SELECT b % 2, count(*) FROM n GROUP BY 1 ORDER BY 1 NULLS FIRST',
        'SELECT b, row_number() OVER (PARTITION BY b % 2 ORDER BY b) FROM n ORDER BY b NULLS FIRST',
      ]),
    ).toEqual([]);
  });

  it('text || text matches PostgreSQL, NULLs and multibyte included', async () => {
    expect(
      await sql.mismatches([
        "SELECT s || v, v || s, s || ':' || v, 'k' || s FROM n ORDER BY b NULLS FIRST",
        "SELECT s || CAST(b % 10 AS text) AS x FROM n ORDER BY x NULLS FIRST",
        'SELECT length(s || s), s || s < v FROM n ORDER BY b NULLS LAST',
      ]),
    ).toEqual([]);
  });
});
