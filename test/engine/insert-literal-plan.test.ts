/**
 * The plan cached per literal INSERT prefix (src/api/insert-literal.ts): it follows the table through
 * DROP + CREATE of the same name, new constraints and changed defaults; constraint and type errors
 * keep PostgreSQL's SQLSTATE and position (compared with PGlite statement by statement); and it
 * works inside transaction blocks, after ROLLBACK and after a failed statement.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';
import { parseStatements } from '../../src/sql/parse.js';
import { literalInsertOf } from '../../src/sql/parse-insert-values.js';
import { newPGlite } from '../common/pglite.js';

type Outcome = { ok: true } | { code: string; position: number };

async function quireRun(db: Database, sql: string): Promise<Outcome> {
  try {
    await db.query(sql);
    return { ok: true };
  } catch (e) {
    if (!(e instanceof QuireError)) throw e;
    return { code: e.code, position: e.position };
  }
}

async function pgRun(pg: PGlite, sql: string): Promise<Outcome> {
  try {
    await pg.exec(sql);
    return { ok: true };
  } catch (e) {
    const err = e as { code?: string; position?: string };
    return { code: err.code ?? '?', position: err.position === undefined ? 0 : Number(err.position) };
  }
}

/**
 * Runs the statements on both, INSERTs twice (the first of a prefix goes through the grammar and the
 * general path, the second through the plan), comparing each outcome with PostgreSQL's: the same
 * SQLSTATE and, where PostgreSQL reports one, the same position; a statement that failed the first
 * time fails the second time exactly alike.
 */
async function same(pg: PGlite, db: Database, statements: readonly string[], reads: readonly string[]): Promise<void> {
  for (const sql of statements) {
    const runs = /^insert/i.test(sql) ? 2 : 1;
    const outcomes: Outcome[] = [];
    for (let k = 0; k < runs; k++) {
      const want = await pgRun(pg, sql);
      const got = await quireRun(db, sql);
      outcomes.push(got);
      if ('ok' in want) expect(got, sql).toEqual(want);
      else expect(got, sql).toMatchObject(want.position === 0 ? { code: want.code } : want);
    }
    // A statement that failed through the general path fails the same way through the plan.
    if (runs === 2 && !('ok' in outcomes[0]!)) expect(outcomes[1], sql).toEqual(outcomes[0]);
  }
  for (const q of reads) {
    const want = (await pg.query<unknown[]>(q, [], { rowMode: 'array' })).rows;
    expect((await db.query(q)).rows, q).toEqual(want);
  }
}

describe('cached literal INSERT plans', () => {
  let pg: PGlite;
  beforeAll(async () => {
    pg = newPGlite();
    await pg.waitReady;
  });
  afterAll(async () => {
    await pg.close();
  });

  it('follow DROP + CREATE of the same name with other types, constraints and defaults', async () => {
    const db = await Database.create();
    await same(
      pg,
      db,
      [
        'CREATE TABLE p1 (a int, b text, c int)',
        "INSERT INTO p1 VALUES (1, 'x', 2)",
        'INSERT INTO p1 (a, b) VALUES (3, NULL)',
        // Other types under the same name: 'x' no longer fits column b.
        'DROP TABLE p1',
        'CREATE TABLE p1 (a text, b int, c float8)',
        "INSERT INTO p1 VALUES (1, 'x', 2)",
        "INSERT INTO p1 VALUES (1, '7', 2.5)",
        // A new NOT NULL and a new primary key under the same name.
        'DROP TABLE p1',
        'CREATE TABLE p1 (a int PRIMARY KEY, b text NOT NULL, c int)',
        "INSERT INTO p1 VALUES (1, 'x', 2)",
        'INSERT INTO p1 VALUES (2, NULL, 2)',
        'INSERT INTO p1 (a, b) VALUES (NULL, NULL)',
        "INSERT INTO p1 (a, b) VALUES (5, 'five')",
        // A default that appears, then changes: the columns left out take it.
        'DROP TABLE p1',
        'CREATE TABLE p1 (a int, b text, c int DEFAULT 40)',
        "INSERT INTO p1 (a, b) VALUES (1, 'd')",
        'DROP TABLE p1',
        'CREATE TABLE p1 (a int, b text, c int DEFAULT 41)',
        "INSERT INTO p1 (a, b) VALUES (1, 'd')",
        'DROP TABLE p1',
        'CREATE TABLE p1 (a int, b text, c int)',
        "INSERT INTO p1 (a, b) VALUES (1, 'd')",
      ],
      ['SELECT a, b, c FROM p1 ORDER BY a, b, c'],
    );
  });

  it('a default added to a column the prefix leaves out is used from the next statement on', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE d1 (a int, c int)');
    await db.query('INSERT INTO d1 (a) VALUES (1)');
    await db.query('INSERT INTO d1 (a) VALUES (2)');
    await db.query('DROP TABLE d1');
    await db.query('CREATE TABLE d1 (a int, c int DEFAULT 9, s serial)');
    await db.query('INSERT INTO d1 (a) VALUES (3)');
    await db.query('INSERT INTO d1 (a) VALUES (4)');
    expect((await db.query('SELECT a, c, s FROM d1 ORDER BY a')).rows).toEqual([
      [3, 9, 1],
      [4, 9, 2],
    ]);
  });

  it('raise NOT NULL, unique and type errors with the SQLSTATE and position PostgreSQL gives', async () => {
    const db = await Database.create();
    const values = [
      '(1, 1, 0.5, true)',
      "(2, 2, 1e5, 'false')",
      '(1, 3, 0.5, true)',
      '(NULL, 4, 0.5, true)',
      "(5, 'five', 0.5, true)",
      '(6, 2147483648, 0.5, true)',
      '(7, 7, 1e400, true)',
      "(8, 8, 'x', true)",
      "(9, 9, 0.5, 'maybe')",
      '(10, 10, 0.5, 1)',
      '(11, true, 0.5, false)',
      '(12, 12, 0.5)',
      '(13, 13, 0.5, true, 1)',
      '(14, -14, -0.0, NULL)',
      "(15, 15, '1e-400', NULL)",
    ];
    await same(
      pg,
      db,
      ['CREATE TABLE e1 (k int PRIMARY KEY, i int, f float8 NOT NULL, b bool)', ...values.map((v) => `INSERT INTO e1 VALUES ${v}`), 'INSERT INTO e1 (k, i) VALUES (20, 1)', 'INSERT INTO e1 (k, nope) VALUES (21, 1)'],
      ['SELECT k, i, f::text, b FROM e1 ORDER BY k'],
    );
  });

  it('work inside transaction blocks, after ROLLBACK and after a failed statement', async () => {
    const db = await Database.create();
    const other = db.connect();
    await db.query('CREATE TABLE x1 (a int, s text)');
    await db.query("INSERT INTO x1 VALUES (1, 'committed')");
    await db.query('BEGIN');
    await db.query("INSERT INTO x1 VALUES (2, 'in block')");
    await db.query("INSERT INTO x1 VALUES (3, 'in block')");
    expect((await db.query('SELECT count(*)::int FROM x1')).rows).toEqual([[3]]);
    // Not visible to another session before COMMIT.
    expect((await other.query('SELECT count(*)::int FROM x1')).rows).toEqual([[1]]);
    await db.query('ROLLBACK');
    expect((await db.query('SELECT a FROM x1 ORDER BY a')).rows).toEqual([[1]]);
    await db.query("INSERT INTO x1 VALUES (4, 'after rollback')");
    await db.query('BEGIN');
    await db.query("INSERT INTO x1 VALUES (5, 'kept')");
    await expect(db.query("INSERT INTO x1 VALUES ('six', 'bad')")).rejects.toMatchObject({ code: '22P02', position: 24 });
    await expect(db.query("INSERT INTO x1 VALUES (7, 'ignored')")).rejects.toMatchObject({ code: '25P02' });
    await db.query('ROLLBACK');
    await db.query('BEGIN');
    await db.query("INSERT INTO x1 VALUES (8, 'committed in block')");
    await db.query('COMMIT');
    expect((await other.query('SELECT a, s FROM x1 ORDER BY a')).rows).toEqual([
      [1, 'committed'],
      [4, 'after rollback'],
      [8, 'committed in block'],
    ]);
  });

  it('keep working across statements that fail to change the table (ALTER TABLE is not supported)', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE w1 (a int, s text)');
    await db.query("INSERT INTO w1 VALUES (1, 'a')");
    await expect(db.query('ALTER TABLE w1 ADD COLUMN z int')).rejects.toMatchObject({ code: '0A000' });
    await db.query("INSERT INTO w1 VALUES (2, 'b')");
    const [s] = parseStatements("INSERT INTO w1 VALUES (3, 'c')");
    expect(literalInsertOf(s!.stmt)).toBeDefined();
    await db.query("INSERT INTO w1 VALUES (3, 'c')");
    expect((await db.query('SELECT a, s FROM w1 ORDER BY a')).rows).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
  });
});
