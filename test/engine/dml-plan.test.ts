/**
 * INSERT, UPDATE and DELETE as plans (a ModifyTable node over the statement's input): results,
 * RETURNING rows, table contents and errors against PostgreSQL (PGlite); EXPLAIN [ANALYZE] shapes;
 * read-only sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

const SETUP = [
  'CREATE TABLE t (a int PRIMARY KEY, b int, c text DEFAULT \'d\')',
  'CREATE TABLE u (a int, v int)',
  "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z'), (4, NULL, 'w')",
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

/** Runs `sql` on both engines and checks they agree on its outcome and then on every table's rows. */
async function same(sql: string): Promise<string> {
  // RETURNING rows come in no specified order: compared sorted.
  const sorted = (text: string): string => text.split('\n').sort().join('\n');
  const [a, b] = [await outcomeText(pg, sql), await outcomeText(q, sql)];
  expect(sorted(b), sql).toBe(sorted(a));
  for (const tbl of ['t', 'u']) {
    const dump = `SELECT * FROM ${tbl} ORDER BY 1, 2, 3`.replace(', 3', tbl === 'u' ? '' : ', 3');
    expect(await outcomeText(q, dump), `${tbl} after ${sql}`).toBe(await outcomeText(pg, dump));
  }
  return b;
}

describe('planned DML against PostgreSQL', () => {
  it('UPDATE … FROM, DELETE … USING, subqueries and RETURNING agree, tables too', async () => {
    const stmts = [
      'UPDATE t SET b = u.v FROM u WHERE u.a = t.a AND u.v < 201',
      'UPDATE t SET b = b + 1 WHERE a IN (SELECT a FROM u WHERE v > 150) RETURNING a, b, c',
      'UPDATE t SET c = (SELECT max(v)::text FROM u WHERE u.a = t.a) WHERE a < 3 RETURNING *',
      'DELETE FROM u USING t WHERE u.a = t.a AND t.b > 150',
      'DELETE FROM t WHERE b IS NULL OR a = (SELECT min(a) FROM u) RETURNING a, c',
      'INSERT INTO t SELECT a + 10, v FROM u WHERE a IS NOT NULL RETURNING *',
      'INSERT INTO t (a) SELECT a + 20 FROM u WHERE a IS NOT NULL RETURNING a, b, c',
      'INSERT INTO t SELECT a, 0 FROM u WHERE a IS NOT NULL ON CONFLICT (a) DO UPDATE SET b = t.b + excluded.a RETURNING a, b',
      'INSERT INTO t SELECT a + 1, 0 FROM u WHERE a IS NOT NULL ON CONFLICT DO NOTHING RETURNING a',
      'WITH w AS (SELECT a FROM t WHERE a > 10) DELETE FROM t WHERE a IN (SELECT a FROM w) RETURNING a',
      'INSERT INTO t SELECT * FROM t',
      // RETURNING with FROM/USING reads the other items; UPDATE's returns the new values.
      "UPDATE t SET b = u.v + t.a, c = 'from' FROM u WHERE u.a = t.a AND u.v < 201 RETURNING t.a, t.b, b - u.v AS d, u.v, c, (SELECT count(*) FROM u) AS n",
      'UPDATE t AS x SET b = NULL FROM u WHERE u.a = x.a RETURNING *',
      "UPDATE t SET c = '7', b = 7 WHERE a IN (SELECT a FROM u) RETURNING b + 1 AS b1, c || c AS cc, 'lit' AS l",
      'DELETE FROM t USING u WHERE u.a = t.a AND u.v = 5 RETURNING *',
      'DELETE FROM u USING t WHERE u.a = t.a AND t.a = 1 RETURNING u.v, t.c, u.a + t.b AS s',
      'INSERT INTO t SELECT 50, NULL, NULL UNION ALL SELECT 50, 1, NULL',
      'UPDATE t SET a = 2 FROM u WHERE t.a = 3',
      'WITH src AS (SELECT a * 100 AS a, v FROM u WHERE a IS NOT NULL) INSERT INTO t (a, b) SELECT a, v FROM src ORDER BY a LIMIT 1 RETURNING a, b',
    ];
    for (const s of stmts) await same(s);
  });

  it('errors have PostgreSQL’s SQLSTATE and change nothing', async () => {
    for (const s of ['INSERT INTO t SELECT a, v, 1, 2 FROM u', 'UPDATE t SET nope = 1 FROM u', 'DELETE FROM t USING nosuch', 'INSERT INTO t SELECT NULL, 1']) {
      const out = await same(s);
      expect(out, s).toMatch(/^ERROR /);
    }
  });
});

describe('data-modifying statements in WITH against PostgreSQL', () => {
  it('run once each, feed their RETURNING rows, and leave the main query the old snapshot', async () => {
    const stmts = [
      'DELETE FROM t',
      'DELETE FROM u',
      "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')",
      'INSERT INTO u VALUES (1, 100), (2, 200)',
      // The main query reads the table as it was; the CTE's rows come only through RETURNING.
      'WITH x AS (INSERT INTO t VALUES (4, 40) RETURNING *) SELECT (SELECT count(*) FROM t) AS n, a, b, c FROM x',
      'WITH x AS (UPDATE t SET b = b + 1 WHERE a < 3 RETURNING a, b) SELECT t.a, t.b, x.b AS nb FROM t LEFT JOIN x USING (a) ORDER BY t.a',
      'WITH x AS (DELETE FROM t WHERE a = 4 RETURNING *) SELECT * FROM t ORDER BY a',
      // Unreferenced: still runs. Referenced twice: runs once.
      "WITH x AS (INSERT INTO t VALUES (5, 50, 'e')) SELECT count(*) FROM t",
      "WITH x AS (INSERT INTO t VALUES (6, 60, 'f') RETURNING a) SELECT * FROM x UNION ALL SELECT * FROM x",
      'WITH x AS (DELETE FROM u WHERE a = 2 RETURNING *) SELECT * FROM x a, x b',
      // Several, reading earlier (plain) CTEs; the main statement itself is DML.
      'WITH src AS (SELECT a + 100 AS a FROM t WHERE a < 3), ins AS (INSERT INTO t (a) SELECT a FROM src RETURNING a), moved AS (UPDATE u SET v = v + 1 RETURNING *) SELECT (SELECT count(*) FROM ins) AS i, (SELECT sum(v) FROM moved) AS m',
      'WITH d AS (DELETE FROM t WHERE a > 100 RETURNING a, b) INSERT INTO u SELECT a, coalesce(b, -1) FROM d RETURNING *',
      'WITH d AS (DELETE FROM u WHERE a > 100 RETURNING a) UPDATE t SET c = \'seen\' WHERE a IN (SELECT a - 100 FROM d) RETURNING a, c',
      "WITH w AS (UPDATE u SET v = 0 RETURNING a) DELETE FROM t USING w WHERE t.a = w.a RETURNING t.a, w.a AS wa",
      'WITH RECURSIVE x AS (INSERT INTO u VALUES (7, 7) RETURNING *) SELECT * FROM x',
      // Rows a WITH query adds are not the main statement's (nor a later WITH query's) to change.
      "WITH x AS (INSERT INTO t VALUES (20, 20, 'new') RETURNING a) UPDATE t SET b = -1 WHERE a > 1 RETURNING a, b",
      "WITH x AS (INSERT INTO t VALUES (21, 21, 'new') RETURNING a), y AS (DELETE FROM t WHERE c = 'new' RETURNING a) SELECT (SELECT count(*) FROM y) AS deleted",
      'WITH x AS (INSERT INTO u VALUES (30, 30) RETURNING a) DELETE FROM u WHERE v >= 30 RETURNING a',
      'WITH x(k, w) AS (INSERT INTO u VALUES (8, 8) RETURNING a, v * 2) SELECT k, w FROM x',
      // Errors: nothing of the statement stays.
      'WITH x AS (INSERT INTO t VALUES (9, 9)) SELECT * FROM x',
      'SELECT * FROM (WITH x AS (INSERT INTO t VALUES (9, 9) RETURNING *) SELECT * FROM x) s',
      'SELECT (WITH x AS (DELETE FROM t RETURNING a) SELECT max(a) FROM x)',
      'WITH x AS (INSERT INTO t VALUES (10, 10) RETURNING *) SELECT 1 / 0 FROM x',
      'WITH x AS (INSERT INTO t VALUES (11, 11) RETURNING *), y AS (INSERT INTO t VALUES (1, 1) RETURNING *) SELECT * FROM x',
    ];
    for (const s of stmts) await same(s);
  });

  it('run inside a transaction block and roll back with it', async () => {
    await same('BEGIN');
    await same('WITH x AS (DELETE FROM t RETURNING a) SELECT count(*) FROM x');
    await same('ROLLBACK');
    expect(await outcomeText(q, 'SELECT count(*) FROM t')).not.toBe('0');
  });
});

describe('EXPLAIN of INSERT, UPDATE and DELETE', () => {
  let db: Database;
  const lines = async (sql: string): Promise<string[]> => (await db.query(sql)).rows.map((r) => String(r[0]));
  beforeAll(async () => {
    db = await Database.create();
    for (const s of SETUP) await db.query(s);
  });

  it('puts the modify node on top and does not run the statement', async () => {
    const up = await lines('EXPLAIN (FORMAT QUIRE) UPDATE t SET b = u.v FROM u WHERE u.a = t.a');
    expect(up[0]).toBe('Update on t');
    expect(up.join('\n')).toMatch(/->  HashJoin[\s\S]*TableScan \(table: t\)[\s\S]*TableScan \(table: u\)/);
    expect((await lines('EXPLAIN (FORMAT QUIRE) DELETE FROM t WHERE a > 2 RETURNING *'))[0]).toBe('Delete on t');
    const ins = await lines('EXPLAIN (FORMAT QUIRE) INSERT INTO t SELECT a + 10, v FROM u');
    expect(ins[0]).toBe('Insert on t');
    expect(ins[1]).toMatch(/^ {2}->  Project/);
    expect((await lines('EXPLAIN (FORMAT QUIRE) INSERT INTO t VALUES (9, 9)'))[0]).toBe('Insert on t');
    expect((await lines('EXPLAIN (LOGICAL) UPDATE t SET b = 1'))[0]).toBe('Modify (update on t)');
    // The row identity's hidden columns print as [row batch] / [row index], never with their NUL prefix.
    const byKey = await lines('EXPLAIN (FORMAT QUIRE) UPDATE t SET b = 1 WHERE a = 1');
    expect(byKey.join('\n')).toContain('[row index]');
    expect(byKey.join('\n')).not.toContain('\u0000');
    expect((await db.query('SELECT count(*), sum(b) FROM t')).rows).toEqual([[4, 60]]);
  });

  it('EXPLAIN ANALYZE runs the statement; in a transaction block ROLLBACK undoes it', async () => {
    const an = await lines('EXPLAIN (FORMAT QUIRE, ANALYZE) UPDATE t SET b = u.v FROM u WHERE u.a = t.a AND u.v < 201');
    expect(an[0]).toMatch(/^Update on t \(actual rows=0 loops=1 time=/);
    expect(an[1]).toMatch(/actual rows=2 /);
    expect(an.at(-1)).toMatch(/^Execution Time: /);
    expect((await db.query('SELECT a, b FROM t WHERE a < 3 ORDER BY a')).rows).toEqual([[1, 100], [2, 200]]);
    const ret = await lines('EXPLAIN (FORMAT QUIRE, ANALYZE) DELETE FROM t WHERE a = 4 RETURNING *');
    expect(ret[0]).toMatch(/^Delete on t \(actual rows=1 /);
    expect(ret).toContain('Result rows: 1');
    await db.query('BEGIN');
    await lines('EXPLAIN (FORMAT QUIRE, ANALYZE) INSERT INTO t SELECT DISTINCT a + 10 FROM u WHERE a IS NOT NULL');
    expect((await db.query('SELECT count(*) FROM t')).rows).toEqual([[5]]);
    await db.query('ROLLBACK');
    expect((await db.query('SELECT count(*) FROM t')).rows).toEqual([[3]]);
  });

  it('shows data-modifying WITH queries under CTE; only ANALYZE runs them', async () => {
    const sql = 'WITH x AS (UPDATE t SET b = b + 1 WHERE a = 1 RETURNING *), y AS (DELETE FROM u WHERE a IS NULL RETURNING v) SELECT * FROM x';
    const before = (await db.query('SELECT * FROM t ORDER BY a')).rows;
    const plain = await lines(`EXPLAIN (FORMAT QUIRE) ${sql}`);
    expect(plain[0]).toMatch(/^TableScan \(table: x\)/);
    expect(plain).toContain('  CTE x');
    expect(plain).toContain('    ->  Update on t');
    expect(plain).toContain('  CTE y');
    expect(plain).toContain('    ->  Delete on u');
    expect(plain.findIndex((l) => l === '  CTE y')).toBeGreaterThan(plain.findIndex((l) => l === '  CTE x'));
    expect((await db.query('SELECT * FROM t ORDER BY a')).rows).toEqual(before);
    await db.query('BEGIN');
    const an = await lines(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`);
    expect(an[0]).toMatch(/^TableScan \(table: x\) \(actual rows=1 /);
    expect(an.find((l) => l.includes('Delete on u'))).toMatch(/actual rows=1 /);
    expect(an.at(-2)).toBe('Result rows: 1');
    expect((await db.query('SELECT count(*) FROM u')).rows).toEqual([[3]]);
    await db.query('ROLLBACK');
    expect((await db.query('SELECT * FROM t ORDER BY a')).rows).toEqual(before);
    expect((await db.query('SELECT count(*) FROM u')).rows).toEqual([[4]]);
  });

  it('checks constraints under EXPLAIN ANALYZE as when the statement runs', async () => {
    await expect(db.query('EXPLAIN (FORMAT QUIRE, ANALYZE) INSERT INTO t SELECT 1, 1')).rejects.toMatchObject({ code: '23505' });
    await expect(db.query('EXPLAIN (FORMAT QUIRE) UPDATE t SET b = 1 WHERE CURRENT OF c')).rejects.toBeInstanceOf(QuireError);
  });
});

describe('read-only sessions', () => {
  it('allow plain EXPLAIN of DML and refuse EXPLAIN ANALYZE of it with 25006', async () => {
    const db = await Database.create();
    for (const s of SETUP) await db.query(s);
    const ro = db.connect({ access: { allowWrites: false } });
    expect((await ro.query('EXPLAIN (FORMAT QUIRE) UPDATE t SET b = 1')).rows[0]).toEqual(['Update on t']);
    expect((await ro.query('EXPLAIN (FORMAT QUIRE) DELETE FROM t USING u WHERE t.a = u.a')).rows[0]).toEqual(['Delete on t']);
    expect((await ro.query('EXPLAIN (FORMAT QUIRE) INSERT INTO t SELECT 9, 9')).rows[0]).toEqual(['Insert on t']);
    for (const s of ['EXPLAIN (FORMAT QUIRE, ANALYZE) UPDATE t SET b = 1', 'EXPLAIN (FORMAT QUIRE, ANALYZE) DELETE FROM t', 'EXPLAIN (FORMAT QUIRE, ANALYZE) INSERT INTO t SELECT 9, 9', 'EXPLAIN (FORMAT QUIRE, ANALYZE true) INSERT INTO t VALUES (9, 9)']) {
      await expect(ro.query(s), s).rejects.toMatchObject({ code: '25006', message: expect.stringMatching(/^cannot execute (UPDATE|DELETE|INSERT) in a read-only transaction$/) });
    }
    expect((await db.query('SELECT count(*), sum(b) FROM t')).rows).toEqual([[4, 60]]);
  });

  it('refuse a SELECT whose WITH changes a table, on every library path, with 25006', async () => {
    const db = await Database.create();
    for (const s of SETUP) await db.query(s);
    const ro = db.connect({ access: { allowWrites: false } });
    const cte = 'WITH x AS (DELETE FROM t RETURNING a) SELECT a FROM x';
    for (const s of [cte, `EXPLAIN (FORMAT QUIRE, ANALYZE) ${cte}`, `PREPARE p AS ${cte}`, `BEGIN; DECLARE c CURSOR FOR ${cte}`, 'WITH x AS (UPDATE t SET b = 0) SELECT 1']) {
      await expect(ro.query(s), s).rejects.toMatchObject({ code: '25006' });
      await ro.query('ROLLBACK');
    }
    await expect(ro.stream(cte)).rejects.toMatchObject({ code: '25006' });
    expect((await db.query('SELECT count(*) FROM t')).rows).toEqual([[4]]);
    // A session that may write prepares and executes it; it runs once per EXECUTE.
    await db.query(`PREPARE w AS ${cte}`);
    expect((await db.query('EXECUTE w')).rows.map((r) => r[0]).sort()).toEqual([1, 2, 3, 4]);
    expect((await db.query('SELECT count(*) FROM t')).rows).toEqual([[0]]);
  });
});
