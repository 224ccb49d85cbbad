/**
 * One-row INSERTs of literals, as autocommit writers send them: the literal path evaluates literals and
 * casts of them (0.5 is numeric cast to float8) directly, without an expression kernel. Stored values
 * and errors are compared with PostgreSQL (PGlite), row by row.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { newPGlite } from '../common/pglite.js';

const TABLE = 'CREATE TABLE t (a int, v float8, n numeric(5,2), r real, b int8, s varchar(3), f bool)';
const READ = 'SELECT a, v::text, n::text, r::text, b::text, s, f FROM t';

const rows = [
  "(1, 0.5, 1, 1, 1, 'a', true)",
  "(2, -0.0, 0.125, 2.5, 9223372036854775807, 'abc', false)",
  "(3.5, .5e1, -.5, 3.4e38, -5.5, 'ab', NULL)",
  "(-2.5, 1e-300, 999.994, -1e-30, 42, '', 'yes')",
  "(2147483647, 1.7976931348623157e308, -999.99, 0, -9223372036854775808, 'x''y', 'f')",
  "(NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
  // Errors: each must fail as PostgreSQL fails, and leave the table as it was.
  "(1, 1e400, 1, 1, 1, 'a', true)",
  "(1, 0.5, 1234.5, 1, 1, 'a', true)",
  "(1, 0.5, 1, 1.5e39, 1, 'a', true)",
  "(1, 0.5, 1, 1e-50, 1, 'a', true)",
  "(1, 0.5, 1, 1, 9223372036854775808, 'a', true)",
  "(2147483648, 0.5, 1, 1, 1, 'a', true)",
  "(1, 0.5, 1, 1, 1, 'abcd', true)",
  "(1, 0.5, 1, 1, 1, 'a', 'maybe')",
  "(1, 'x', 1, 1, 1, 'a', true)",
];

describe('literal INSERT rows match PostgreSQL', () => {
  let pg: PGlite;
  let db: Database;
  beforeAll(async () => {
    pg = newPGlite();
    await pg.waitReady;
    await pg.exec(TABLE);
    db = await Database.create({});
    await db.query(TABLE);
  });
  afterAll(async () => {
    await pg.close();
  });

  it('stores the same values and fails with the same SQLSTATE', async () => {
    for (const r of rows) {
      // Twice: the first statement of a prefix goes through the grammar, the second takes the literal path.
      for (let k = 0; k < 2; k++) {
        const sql = `INSERT INTO t VALUES ${r}`;
        const want = await pg.exec(sql).then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        );
        const got = await db.query(sql).then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        );
        expect(got, sql).toBe(want);
      }
    }
    const want = (await pg.query<unknown[]>(READ, [], { rowMode: 'array' })).rows;
    const got = (await db.query(READ)).rows;
    expect(got).toEqual(want);
  });
});
