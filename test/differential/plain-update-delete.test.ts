/**
 * Plain UPDATE and DELETE (no FROM/USING, WITH or subqueries) and WHERE CURRENT OF, which run as
 * ModifyTable plans like every other DML statement: results, RETURNING rows, row counts, errors with
 * their SQLSTATE, message and position, and the tables afterwards, against PostgreSQL (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSqlError, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

const SETUP = [
  "CREATE TABLE t (a int PRIMARY KEY, b int NOT NULL DEFAULT 7, c text DEFAULT 'dflt', d int)",
  'CREATE TABLE u (a int, v int)',
  "INSERT INTO t VALUES (1, 10, 'x', 1), (2, 20, 'y', 2), (3, 30, 'z', NULL), (4, 40, NULL, 4)",
  'INSERT INTO u VALUES (1, 100), (2, 200), (2, 201), (NULL, 5)',
];

let pg: SqlConnection;
let q: SqlConnection;

beforeAll(async () => {
  ({ pg, q } = await pgliteAndQuire(SETUP));
}, 60_000);

afterAll(async () => {
  await pg?.close?.();
  await q?.close?.();
});

/** One statement's outcome as text: its rows (sorted: RETURNING has no order) and DML row count, or its error. */
async function outcome(c: SqlConnection, sql: string): Promise<string> {
  try {
    const r = await c.query(sql);
    const rows = r.rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|')).sort();
    // The count of rows changed; PGlite reports none for other statements.
    const count = /^(WITH .*\)\s*)?(UPDATE|DELETE|INSERT)\b/s.test(sql) ? ` (${r.rowCount ?? '?'})` : '';
    return [`${r.columns.join('|')}${count}`, ...rows].join('\n');
  } catch (e) {
    const err = asSqlError(e);
    return `ERROR ${err.code ?? '?'} ${err.message}${err.position ? ` at ${err.position}` : ''}`;
  }
}

const TABLES = ['SELECT * FROM t ORDER BY a', 'SELECT * FROM u ORDER BY a, v'];

/** Runs `sql` on both engines, checks they agree on its outcome and on the tables after it, and returns Quire's. */
async function same(sql: string): Promise<string> {
  const [a, b] = [await outcome(pg, sql), await outcome(q, sql)];
  expect(b, sql).toBe(a);
  for (const dump of TABLES) expect(await outcome(q, dump), `${dump} after ${sql}`).toBe(await outcome(pg, dump));
  return b;
}

describe('plain UPDATE and DELETE against PostgreSQL', () => {
  it('change the rows WHERE picks, with RETURNING and row counts', async () => {
    const stmts = [
      'UPDATE t SET b = b + 1 WHERE a = 2',
      'UPDATE t SET b = b * 2, c = c || \'!\' WHERE a > 2 RETURNING *',
      'UPDATE t SET c = upper(c) RETURNING a, c AS big, b - a AS diff',
      'UPDATE t AS x SET b = x.b - 1 WHERE x.c IS NULL RETURNING x.a, x.b',
      'UPDATE t SET b = 0 WHERE false RETURNING *',
      'UPDATE u SET v = NULL WHERE a IS NULL',
      'UPDATE u SET v = v + a, a = v WHERE a = 2 RETURNING a, v',
      "UPDATE t SET c = 'p' || a WHERE a IN (1, 3) AND b > 0 RETURNING c, 'lit' AS l",
      'UPDATE t SET b = DEFAULT, c = DEFAULT WHERE a = 4 RETURNING *',
      'UPDATE t SET d = 5 WHERE d IS NULL RETURNING a, d',
      'UPDATE u SET v = 1.6 WHERE a = 1 RETURNING v',
      "UPDATE u SET v = '42' WHERE a = 1 RETURNING v",
      'UPDATE t SET b = length(c) RETURNING a, b',
      'DELETE FROM u WHERE v = 201 RETURNING *',
      'DELETE FROM u WHERE a IS NULL',
      'DELETE FROM t AS x WHERE x.a = 4 RETURNING x.c, a + 1 AS next',
      'DELETE FROM u WHERE false RETURNING a',
      "INSERT INTO t VALUES (5, 50, 'e', 5), (6, 60, 'f', 6)",
      'DELETE FROM t WHERE b >= 50 RETURNING *',
      'DELETE FROM u',
      'UPDATE t SET (b, c) = (b + 100, \'multi\') WHERE a = 1 RETURNING *',
      'UPDATE t SET (c, b) = (DEFAULT, 3) WHERE a = 2 RETURNING *',
      'UPDATE t SET (b) = ROW(9) WHERE a = 3 RETURNING b',
    ];
    for (const s of stmts) await same(s);
  });

  it('refuse bad statements with PostgreSQL’s SQLSTATE, message and position, changing nothing', async () => {
    const stmts = [
      'UPDATE t SET nope = 1',
      'UPDATE t SET b = nope',
      'UPDATE t SET b = 1 WHERE nope = 1',
      'UPDATE nosuch SET b = 1',
      'DELETE FROM nosuch',
      'DELETE FROM t WHERE nope',
      'UPDATE t SET b = 1 WHERE a',
      "UPDATE t SET b = 'text'",
      'UPDATE t SET b = NULL WHERE a = 1',
      'UPDATE t SET a = 1 WHERE a = 2',
      'UPDATE t SET b = 1 / 0 WHERE a = 1',
      'UPDATE t SET b = 1 / (a - 1)',
      'DELETE FROM t WHERE 1 / (a - 1) > 0',
      'UPDATE t SET b = count(*)',
      'UPDATE t SET b = 1 WHERE count(*) > 0',
      'DELETE FROM t WHERE sum(a) > 0',
      'UPDATE t SET b = row_number() OVER ()',
      'UPDATE t SET b = generate_series(1, 2)',
      'UPDATE t SET b = 1 RETURNING count(*)',
      'DELETE FROM t RETURNING nope',
      'UPDATE t SET (b, c) = (1)',
      'UPDATE t SET (b, c) = (1, 2, 3)',
      'UPDATE t SET b = 1, b = 2',
    ];
    for (const s of stmts) {
      const out = await same(s);
      expect(out, s).toMatch(/^ERROR /);
    }
  });

  it('undo with ROLLBACK and keep with COMMIT inside a transaction block', async () => {
    await same('BEGIN');
    await same('UPDATE t SET b = b + 1000 RETURNING a, b');
    await same('DELETE FROM t WHERE a = 1 RETURNING *');
    await same('SELECT * FROM t ORDER BY a');
    await same('ROLLBACK');
    await same('BEGIN');
    await same('UPDATE t SET c = \'kept\' WHERE a = 2');
    await same('UPDATE t SET b = NULL');
    await same('ROLLBACK');
    await same('BEGIN');
    await same('DELETE FROM t WHERE a = 3');
    await same('UPDATE t SET b = b + 1 WHERE a = 2 RETURNING b');
    await same('COMMIT');
  });
});

describe('WHERE CURRENT OF against PostgreSQL', () => {
  it('updates and deletes the row the cursor is on, alone or with FROM, USING and subqueries', async () => {
    await same('DELETE FROM t');
    await same('DELETE FROM u');
    await same("INSERT INTO t VALUES (1, 10, 'a', 1), (2, 20, 'b', 2), (3, 30, 'c', 3), (4, 40, 'd', 4)");
    await same('INSERT INTO u VALUES (1, 100), (2, 200), (3, 300)');
    await same('BEGIN');
    await same('DECLARE c CURSOR FOR SELECT a, b FROM t ORDER BY a FOR UPDATE');
    await same('FETCH 1 FROM c');
    await same('UPDATE t SET b = DEFAULT WHERE CURRENT OF c RETURNING *');
    await same('FETCH 1 FROM c');
    await same('UPDATE t SET b = u.v + t.b FROM u WHERE CURRENT OF c RETURNING t.a, t.b');
    await same('FETCH 1 FROM c');
    await same('UPDATE t SET b = (SELECT max(v) FROM u) WHERE CURRENT OF c RETURNING a, b, (SELECT count(*) FROM u) AS n');
    await same('FETCH 1 FROM c');
    await same('DELETE FROM t USING u WHERE CURRENT OF c RETURNING t.a');
    await same('DELETE FROM t WHERE CURRENT OF c');
    await same('FETCH 1 FROM c');
    await same('UPDATE t SET b = 1 WHERE CURRENT OF c');
    await same('COMMIT');
    await same('BEGIN');
    await same('DECLARE c2 CURSOR FOR SELECT * FROM t WHERE a > 1');
    await same('FETCH 2 FROM c2');
    await same('WITH w AS (SELECT 5 AS k) UPDATE t SET d = w.k FROM w WHERE CURRENT OF c2 RETURNING t.a, t.d');
    await same('DELETE FROM t WHERE CURRENT OF c2 RETURNING a, (SELECT 1) AS one');
    await same('COMMIT');
  });

  it('refuses as PostgreSQL does', async () => {
    await same('BEGIN');
    await same('DECLARE c3 CURSOR FOR SELECT * FROM t');
    await same('UPDATE t SET b = 1 WHERE CURRENT OF c3');
    await same('ROLLBACK');
    await same('BEGIN');
    await same('UPDATE t SET b = 1 WHERE CURRENT OF nosuch');
    await same('ROLLBACK');
    await same('BEGIN');
    await same('DECLARE c4 CURSOR FOR SELECT * FROM u');
    await same('FETCH 1 FROM c4');
    await same('DELETE FROM t WHERE CURRENT OF c4');
    await same('ROLLBACK');
    await same('BEGIN');
    await same('DECLARE c5 CURSOR FOR SELECT * FROM t ORDER BY a FOR UPDATE');
    await same('FETCH 1 FROM c5');
    await same('UPDATE t SET b = NULL WHERE CURRENT OF c5');
    await same('ROLLBACK');
  });
});
