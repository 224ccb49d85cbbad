/**
 * PRIMARY KEY and UNIQUE constraint names as PostgreSQL chooses them, checked against PGlite through
 * the 23505 errors that name them: `<table>_pkey`, `<table>_<columns>_key`, CONSTRAINT names,
 * redundant keys dropped, long names cut to 63 bytes, a number after a taken name; the names
 * survive a reopened database directory.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { scratchDirs } from '../persist/scratch-dirs.js';
import { newPGlite } from '../common/pglite.js';

const { fresh } = scratchDirs('quire-constraint-names-');

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  detail?: string;
}

async function run(exec: (sql: string) => Promise<unknown>, sql: string): Promise<Outcome> {
  try {
    await exec(sql);
    return { ok: true };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return { ok: false, code: x.code, message: x.message, detail: x.detail };
  }
}

const LONG_T = 'averyveryveryveryveryverylongtablenamethatgoesonandonandon';
const LONG_C = 'anotherquitelongcolumnnamethatalsogoesonforawhile';

/** Each script: statements run in order on both engines; every outcome (and 23505's names) must agree. */
const SCRIPTS: string[][] = [
  [
    'CREATE TABLE t (id int PRIMARY KEY, a int UNIQUE, b int, c int, UNIQUE (b, c), CONSTRAINT myu UNIQUE (c))',
    'INSERT INTO t VALUES (1, 1, 1, 1)',
    'INSERT INTO t VALUES (1, 2, 2, 2)',
    'INSERT INTO t VALUES (2, 1, 2, 2)',
    'INSERT INTO t VALUES (2, 2, 1, 1)',
    'INSERT INTO t VALUES (2, 2, 3, 1)',
    'INSERT INTO t VALUES (2, 2, 2, 2)',
    'UPDATE t SET a = 1 WHERE id = 2',
    'UPDATE t SET id = 1 WHERE id = 2',
    'INSERT INTO t VALUES (3, 3, 3, 3) ON CONFLICT (id) DO UPDATE SET a = 2',
  ],
  [
    // The primary key is checked first wherever it is written; a key repeating another is dropped.
    'CREATE TABLE u (a int UNIQUE, x int, y int UNIQUE UNIQUE, CONSTRAINT u_pk PRIMARY KEY (x), UNIQUE (x))',
    'INSERT INTO u VALUES (1, 1, 1)',
    'INSERT INTO u VALUES (1, 1, 1)',
    'INSERT INTO u VALUES (1, 2, 2)',
    'INSERT INTO u VALUES (2, 2, 1)',
  ],
  [
    // Two names for one key: the written one wins. Order matters: (a, b) and (b, a) are two keys.
    'CREATE TABLE v (a int, b int, UNIQUE (a, b), CONSTRAINT named UNIQUE (a, b), UNIQUE (b, a), UNIQUE (a))',
    'INSERT INTO v VALUES (1, 1)',
    'INSERT INTO v VALUES (2, 1)',
    'INSERT INTO v VALUES (1, 2)',
    'CREATE TABLE v2 (a int, CONSTRAINT named UNIQUE (a))',
    'CREATE TABLE v3 (a int, CONSTRAINT dup UNIQUE (a), b int, CONSTRAINT dup UNIQUE (b))',
  ],
  [
    // A name in use (here a table's) gets a number after its label.
    'CREATE TABLE w_a_key (q int)',
    'CREATE TABLE w (a int UNIQUE, "A" int UNIQUE)',
    'INSERT INTO w VALUES (1, 1)',
    'INSERT INTO w VALUES (1, 2)',
    'INSERT INTO w VALUES (2, 1)',
    'CREATE TABLE w2 (a int UNIQUE, b int UNIQUE)',
    'CREATE TABLE w3 (a int, b int, UNIQUE (a), UNIQUE (a, b))',
    'INSERT INTO w3 VALUES (1, 1)',
    'INSERT INTO w3 VALUES (1, 2)',
  ],
  [
    `CREATE TABLE ${LONG_T} (${LONG_C} int UNIQUE, k int PRIMARY KEY, ${LONG_C}2 int, UNIQUE (${LONG_C}, ${LONG_C}2))`,
    `INSERT INTO ${LONG_T} VALUES (1, 1, 1)`,
    `INSERT INTO ${LONG_T} VALUES (1, 2, 2)`,
    `INSERT INTO ${LONG_T} VALUES (2, 1, 2)`,
    `CREATE TABLE ${LONG_T}x (${LONG_C} int UNIQUE)`,
    `INSERT INTO ${LONG_T}x VALUES (1), (1)`,
  ],
];

let pg: PGlite | null = null;

afterAll(async () => {
  await pg?.close();
});

describe('constraint names against PGlite', () => {
  for (const [i, script] of SCRIPTS.entries()) {
    it(`script ${i + 1}: ${script[0]!.slice(0, 60)}`, async () => {
      pg = newPGlite();
      const db = await Database.create();
      for (const sql of script) {
        const want = await run((s) => pg!.query(s), sql);
        const got = await run((s) => db.query(s), sql);
        expect({ sql, ...got }).toEqual({ sql, ...want });
      }
      await pg.close();
      pg = null;
    });
  }

  it('the names survive reopening a database directory and replaying its log', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE k (id int PRIMARY KEY, e text, CONSTRAINT one_email UNIQUE (e), n int UNIQUE)');
    await db.query("INSERT INTO k VALUES (1, 'a', 1)");
    await db.close();
    const again = await Database.create({ path: dir });
    await expect(again.query("INSERT INTO k VALUES (2, 'a', 2)")).rejects.toMatchObject({ code: '23505', message: 'duplicate key value violates unique constraint "one_email"' });
    await expect(again.query("INSERT INTO k VALUES (2, 'b', 1)")).rejects.toMatchObject({ code: '23505', message: 'duplicate key value violates unique constraint "k_n_key"' });
    await expect(again.query("INSERT INTO k VALUES (1, 'b', 2)")).rejects.toMatchObject({ code: '23505', message: 'duplicate key value violates unique constraint "k_pkey"' });
    await again.close();
  });
});
