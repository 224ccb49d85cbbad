/**
 * FOREIGN KEY errors as PostgreSQL reports them: the same statements through Quire and PGlite, each
 * error compared by SQLSTATE, message, DETAIL and HINT, each success by its rows. Run in order on both
 * engines, so a statement that fails on one and not the other shows up at once.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, QuireError, formatValue } from '../../src/index.js';
import { startPg } from '../common/pg-helper.js';

type Outcome = { rows: (string | null)[][] } | { code: string; message: string; detail: string | null; hint: string | null };

const STATEMENTS = [
  'CREATE TABLE p (id int PRIMARY KEY, code text UNIQUE)',
  'CREATE TABLE c (id int, pid int REFERENCES p, code text REFERENCES p (code) ON DELETE SET NULL)',
  "INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'it''s')",
  'INSERT INTO c VALUES (1, 5, NULL)',
  "INSERT INTO c VALUES (1, 1, 'nope')",
  "INSERT INTO c VALUES (1, 1, 'a'), (2, 2, 'it''s')",
  'DELETE FROM p WHERE id = 1',
  "UPDATE p SET code = 'z' WHERE id = 3",
  "DELETE FROM p WHERE code = 'it''s'",
  'UPDATE p SET id = 7 WHERE id = 2',
  'SELECT * FROM c ORDER BY id',
  'CREATE TABLE mp (a int, b text, PRIMARY KEY (a, b))',
  "INSERT INTO mp VALUES (1, 'x')",
  'CREATE TABLE mc (a int, b text, FOREIGN KEY (a, b) REFERENCES mp MATCH FULL)',
  "INSERT INTO mc VALUES (2, 'x')",
  'INSERT INTO mc VALUES (1, NULL)',
  "INSERT INTO mc VALUES (1, 'x')",
  'DELETE FROM mp',
  'CREATE TABLE nokey (a int, b int)',
  'CREATE TABLE bad (x int REFERENCES nokey)',
  'CREATE TABLE bad (x int REFERENCES nokey (a))',
  'CREATE TABLE bad (x text REFERENCES p)',
  'CREATE TABLE bad (x int, y int, FOREIGN KEY (x, y) REFERENCES p)',
  'CREATE TABLE bad (x int REFERENCES p (nosuch))',
  'CREATE TABLE bad (x int, FOREIGN KEY (nosuch) REFERENCES p)',
  'CREATE TABLE bad (x int, y int, FOREIGN KEY (x) REFERENCES p ON DELETE SET NULL (y))',
  'CREATE TABLE nn (x int NOT NULL REFERENCES p ON DELETE SET NULL)',
  'INSERT INTO nn VALUES (2)',
  'DELETE FROM p WHERE id = 2',
  'CREATE TABLE r (x int REFERENCES p ON DELETE RESTRICT)',
  'INSERT INTO r VALUES (3)',
  'DELETE FROM p WHERE id = 3',
  'TRUNCATE p',
  'DROP TABLE p',
  'ALTER TABLE c ADD CONSTRAINT c_pid_fkey FOREIGN KEY (pid) REFERENCES p',
  'ALTER TABLE c DROP CONSTRAINT nosuch',
  'ALTER TABLE p DROP CONSTRAINT p_code_key',
  'CREATE TABLE late (x int)',
  'INSERT INTO late VALUES (42)',
  'ALTER TABLE late ADD FOREIGN KEY (x) REFERENCES p',
  'CREATE TABLE ui (a int)',
  'CREATE UNIQUE INDEX ui_a ON ui (a)',
  'CREATE TABLE uc (a int REFERENCES ui (a))',
  'DROP INDEX ui_a',
];

let db: Database;
let pg: PGlite;

beforeAll(async () => {
  db = await Database.create();
  pg = await startPg();
}, 60_000);
afterAll(async () => {
  await pg.close();
  await db.close();
});

async function ours(sql: string): Promise<Outcome> {
  try {
    const r = await db.query(sql);
    return { rows: r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type, { timezone: 'UTC' }))) };
  } catch (e) {
    if (!(e instanceof QuireError)) throw e;
    return { code: e.code, message: e.message, detail: e.detail ?? null, hint: e.hint ?? null };
  }
}

async function theirs(sql: string): Promise<Outcome> {
  try {
    const r = await pg.query<unknown[]>(sql, [], { rowMode: 'array' });
    return { rows: r.rows.map((row) => row.map((v) => (v === null ? null : String(v)))) };
  } catch (e) {
    const x = e as { code?: string; message?: string; detail?: string; hint?: string };
    if (x.code === undefined) throw e;
    return { code: x.code, message: x.message ?? '', detail: x.detail ?? null, hint: x.hint ?? null };
  }
}

describe('foreign key errors against PostgreSQL', () => {
  it('match statement by statement', async () => {
    const diffs: { sql: string; ours: Outcome; theirs: Outcome }[] = [];
    for (const sql of STATEMENTS) {
      const a = await ours(sql);
      const b = await theirs(sql);
      if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push({ sql, ours: a, theirs: b });
    }
    expect(diffs).toEqual([]);
  });
});
