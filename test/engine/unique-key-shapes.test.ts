/**
 * One-row autocommit INSERTs (the direct path: literals and library parameters) into tables keyed on
 * other than one int4 column: a text key, an (int, text) key, a bigint key, varchar(n) and char(n)
 * keys, a unique key of two columns with NULLs. Each decision, SQLSTATE, message (the constraint's
 * name) and DETAIL is PostgreSQL's (PGlite), within one statement and across commits, for values
 * that differ only in trailing spaces or case, and for texts that could run into each other when a
 * key of several columns is joined. Then the guarantees around the check: an open transaction's key
 * makes the INSERT wait, a key committed after a REPEATABLE READ snapshot is taken, a reopened
 * directory keeps its keys, and the first commit after a bulk load adds one key, not the table's.
 */
import type { PGlite } from '@electric-sql/pglite';
import pgClient from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/index.js';
import { KeyPairSet } from '../../src/storage/key-pair-set.js';
import { KeySet } from '../../src/storage/key-set.js';
import { runSteps, type Conn as StepConn, type Step } from '../harness/session-steps.js';
import { pending } from '../harness/waits.js';
import { scratchDirs } from '../persist/scratch-dirs.js';
import { newPGlite } from '../common/pglite.js';

const DSN = process.env.QUIRE_TEST_PG_DSN;

const { fresh } = scratchDirs('quire-unique-key-shapes-');

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  detail?: string;
}

interface Conn {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

async function outcome(c: Conn, sql: string, params?: unknown[]): Promise<Outcome> {
  try {
    await c.query(sql, params);
    return { ok: true };
  } catch (e) {
    const err = e as { code?: string; message?: string; detail?: string };
    return { ok: false, code: err.code, message: err.message, detail: err.detail };
  }
}

/** A table, and the statements run against it one by one (with parameters where given). */
interface Shape {
  name: string;
  ddl: string;
  steps: [sql: string, params?: unknown[]][];
  /** The table's rows as compared at the end, when not SELECT * (values with no plain JS form as text). */
  content?: string;
}

const SHAPES: Shape[] = [
  {
    name: 'text PRIMARY KEY',
    ddl: 'CREATE TABLE t (id int, s text PRIMARY KEY)',
    steps: [
      ["INSERT INTO t VALUES (1, 'a')"],
      ["INSERT INTO t VALUES (2, 'a')"],
      ['INSERT INTO t VALUES ($1, $2)', [3, 'a']],
      ["INSERT INTO t VALUES (4, 'A')"],
      ["INSERT INTO t VALUES (5, 'a ')"],
      ['INSERT INTO t VALUES ($1, $2)', [6, 'a ']],
      ["INSERT INTO t VALUES (7, ' a')"],
      ["INSERT INTO t VALUES (8, '')"],
      ["INSERT INTO t VALUES (9, '')"],
      ["INSERT INTO t VALUES (10, 'b'), (11, 'b')"],
      ["INSERT INTO t VALUES (12, 'c'), (13, 'a')"],
      ['INSERT INTO t VALUES ($1, $2)', [14, 'ü']],
      ["INSERT INTO t VALUES (15, 'ü')"],
      ["INSERT INTO t VALUES (16, 'u\u0308')"],
      ["INSERT INTO t VALUES (17, NULL)"],
      ['INSERT INTO t VALUES ($1, $2)', [18, null]],
      ["INSERT INTO t VALUES (19, '5')"],
      ['INSERT INTO t VALUES ($1, $2)', [20, '5']],
      ["INSERT INTO t VALUES (21, 'string:5')"],
      ["INSERT INTO t (s, id) VALUES ('d', 22)"],
      ["INSERT INTO t (s, id) VALUES ('d', 23)"],
      // INSERT … SELECT: its rows checked straight from the text column, among themselves and against the table's.
      ["INSERT INTO t SELECT 100 + i, 'bulk-' || (i % 3) FROM generate_series(1, 5) i"],
      ["INSERT INTO t SELECT 200 + i, 'bulk-' || i FROM generate_series(1, 3) i"],
      ["INSERT INTO t SELECT 300, 'bulk-2'"],
      ["INSERT INTO t SELECT 400 + i, NULL FROM generate_series(1, 2) i"],
      ["INSERT INTO t VALUES (500, 'bulk-3')"],
    ],
  },
  {
    name: '(int, text) PRIMARY KEY',
    ddl: 'CREATE TABLE t (id int, v float8, s text, PRIMARY KEY (id, s))',
    steps: [
      ["INSERT INTO t VALUES (1, 0.5, 'x')"],
      ["INSERT INTO t VALUES (1, 1.5, 'x')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [1, 2.5, 'x']],
      ["INSERT INTO t VALUES (1, 0.5, 'X')"],
      ["INSERT INTO t VALUES (2, 0.5, 'x')"],
      ["INSERT INTO t VALUES (1, 0.5, 'x ')"],
      // Joined naively these would read alike: (12, '3') and (1, '23'), (1, ',x') and (1, ',x') …
      ["INSERT INTO t VALUES (12, 0, '3')"],
      ["INSERT INTO t VALUES (1, 0, '23')"],
      ["INSERT INTO t VALUES (1, 0, ',x')"],
      ["INSERT INTO t VALUES (-1, 0, '1,x')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [1, 0, '23']],
      ["INSERT INTO t VALUES (3, 0, 'y'), (3, 1, 'y')"],
      ["INSERT INTO t VALUES (3, 0, 'y'), (3, 1, 'z')"],
      ["INSERT INTO t VALUES (NULL, 0, 'y')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [4, 0, null]],
      ["INSERT INTO t VALUES (0, 0, '0')"],
      ["INSERT INTO t VALUES (0, 0, '0')"],
    ],
  },
  {
    name: 'UNIQUE (int, text) with NULLs',
    ddl: 'CREATE TABLE t (id int, a int, b text, UNIQUE (a, b))',
    steps: [
      ["INSERT INTO t VALUES (1, 1, NULL)"],
      ["INSERT INTO t VALUES (2, 1, NULL)"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [3, 1, null]],
      ["INSERT INTO t VALUES (4, NULL, 'q')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [5, null, 'q']],
      ["INSERT INTO t VALUES (6, NULL, NULL), (7, NULL, NULL)"],
      ["INSERT INTO t VALUES (8, 1, 'q')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [9, 1, 'q']],
      ["INSERT INTO t VALUES (10, 2, 'q'), (11, 2, 'q')"],
      ["INSERT INTO t VALUES (12, 2, 'q'), (13, 2, NULL), (14, 2, NULL)"],
    ],
  },
  {
    name: 'UNIQUE (text, text): texts that would run into each other when joined',
    ddl: 'CREATE TABLE t (id int, a text, b text, UNIQUE (a, b))',
    steps: [
      ["INSERT INTO t VALUES (1, 'a,', 'b')"],
      ["INSERT INTO t VALUES (2, 'a', ',b')"],
      ["INSERT INTO t VALUES (3, '1:a', 'b')"],
      ["INSERT INTO t VALUES (4, '1', ':ab')"],
      ["INSERT INTO t VALUES (5, 'x' || chr(1) || 'string:y', 'z')"],
      ["INSERT INTO t VALUES (6, 'x', 'y' || chr(1) || 'string:z')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [7, '', '']],
      ['INSERT INTO t VALUES ($1, $2, $3)', [8, '', '']],
      ["INSERT INTO t VALUES (9, 'a,', 'b')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [10, '1', ':ab']],
    ],
  },
  {
    name: '(int, text) PRIMARY KEY: separator and escape characters, empty texts, ints that print alike, bulk loads',
    ddl: 'CREATE TABLE t (id int, s text, PRIMARY KEY (id, s))',
    steps: [
      ["INSERT INTO t VALUES (1, '')"],
      ["INSERT INTO t VALUES (1, '')"],
      ['INSERT INTO t VALUES ($1, $2)', [1, '']],
      ["INSERT INTO t VALUES (10, '')"],
      ["INSERT INTO t VALUES (1, '0')"],
      ["INSERT INTO t VALUES (-1, '0')"],
      ["INSERT INTO t VALUES (-10, '')"],
      ["INSERT INTO t VALUES (1, '0,')"],
      ["INSERT INTO t VALUES (10, ',')"],
      ["INSERT INTO t VALUES (1, '1:')"],
      ["INSERT INTO t VALUES (11, ':')"],
      ["INSERT INTO t VALUES (2, '\\'), (2, '\\\\')"],
      ["INSERT INTO t VALUES (2, '\\')"],
      ["INSERT INTO t VALUES (2, 'a' || chr(0x2028) || 'b'), (2, 'a' || chr(0x2029) || 'b')"],
      ['INSERT INTO t VALUES ($1, $2)', [2, 'a\u2028b']],
      ["INSERT INTO t VALUES (3, ' '), (3, '  '), (3, '')"],
      ["INSERT INTO t VALUES (3, ' ')"],
      ["INSERT INTO t VALUES (0, '-0')"],
      ["INSERT INTO t VALUES (-0, '-0')"],
      ["INSERT INTO t VALUES (2147483647, 'max'), (-2147483648, 'min')"],
      ['INSERT INTO t VALUES ($1, $2)', [-2147483648, 'min']],
      // INSERT … SELECT: its (int4, text) columns read straight from the batch, a duplicate inside it
      // or against a committed row refused, naming that row.
      ["INSERT INTO t SELECT i % 50, 'bulk-' || (i / 50) FROM generate_series(0, 4999) i"],
      ["INSERT INTO t SELECT i % 50, 'bulk-' || (i / 50) FROM generate_series(0, 4999) i"],
      ["INSERT INTO t SELECT 1000 + i % 3, 'dup-' || (i % 7) FROM generate_series(1, 30) i"],
      ["INSERT INTO t SELECT 2000 + i, 'new' FROM generate_series(1, 2000) i"],
      ["INSERT INTO t SELECT 5000 + i, 'late' FROM generate_series(1, 3000) i UNION ALL SELECT 42, 'bulk-7'"],
      ["INSERT INTO t VALUES (42, 'bulk-7')"],
      ["INSERT INTO t VALUES (42, 'bulk-100')"],
      ['INSERT INTO t VALUES ($1, $2)', [2001, 'new']],
      ['INSERT INTO t VALUES ($1, $2)', [2001, 'new ']],
    ],
  },
  {
    name: '(text, int) PRIMARY KEY: the text first',
    ddl: 'CREATE TABLE t (s text, id int, PRIMARY KEY (s, id))',
    steps: [
      ["INSERT INTO t VALUES ('a', 1)"],
      ["INSERT INTO t VALUES ('a', 1)"],
      ['INSERT INTO t VALUES ($1, $2)', ['a', 1]],
      ["INSERT INTO t VALUES ('a', 2), ('a1', 1), ('', 1), ('1', 1)"],
      ["INSERT INTO t VALUES ('', 1)"],
      ["INSERT INTO t VALUES ('a,', 1), ('a', 11)"],
      ["INSERT INTO t VALUES ('a', 11)"],
      ["INSERT INTO t SELECT 'k' || (i % 10), i / 10 FROM generate_series(0, 999) i"],
      ["INSERT INTO t SELECT 'k' || (i % 10), i / 10 FROM generate_series(990, 1000) i"],
      ['INSERT INTO t VALUES ($1, $2)', ['k5', 99]],
      ['INSERT INTO t VALUES ($1, $2)', ['k5', 100]],
    ],
  },
  {
    name: 'UNIQUE (int, int): many second values per first, NULLs',
    ddl: 'CREATE TABLE t (a int, b int, UNIQUE (a, b))',
    steps: [
      ["INSERT INTO t SELECT i % 3, i FROM generate_series(1, 3000) i"],
      ["INSERT INTO t VALUES (1, 1)"],
      ["INSERT INTO t VALUES (0, 1)"],
      ['INSERT INTO t VALUES ($1, $2)', [2, 2]],
      ['INSERT INTO t VALUES ($1, $2)', [2, 5]],
      ["INSERT INTO t VALUES (NULL, 3), (NULL, 3), (3, NULL), (3, NULL)"],
      ["INSERT INTO t SELECT 7, NULL FROM generate_series(1, 3)"],
      ["INSERT INTO t SELECT i % 3, i + 2999 FROM generate_series(1, 3) i"],
      ["INSERT INTO t SELECT i % 3, i + 3000 FROM generate_series(1, 3) i"],
    ],
  },
  {
    name: 'UNIQUE (int, numeric): 1.0 is 1.00, -0 is 0, NaN is NaN',
    ddl: 'CREATE TABLE t (a int, n numeric, UNIQUE (a, n))',
    content: 'SELECT a, n::text FROM t',
    steps: [
      ["INSERT INTO t VALUES (1, 1.0)"],
      ["INSERT INTO t VALUES (1, 1.00)"],
      ["INSERT INTO t VALUES (1, 1)"],
      ['INSERT INTO t VALUES ($1, $2)', [1, '1.000']],
      ["INSERT INTO t VALUES (1, 0.0)"],
      ["INSERT INTO t VALUES (1, -0.00)"],
      ["INSERT INTO t VALUES (1, 'NaN')"],
      ["INSERT INTO t VALUES (1, 'NaN')"],
      ["INSERT INTO t VALUES (1, 10), (1, 1e1)"],
      ["INSERT INTO t VALUES (2, 0.1), (2, 0.10)"],
      ["INSERT INTO t SELECT 3, i / 4.0 FROM generate_series(1, 8) i"],
      ["INSERT INTO t VALUES (3, 2.000)"],
    ],
  },
  {
    name: 'UNIQUE numeric: 1.0 is 1.00',
    ddl: 'CREATE TABLE t (n numeric UNIQUE)',
    content: 'SELECT n::text FROM t',
    steps: [
      ["INSERT INTO t VALUES (1.0)"],
      ["INSERT INTO t VALUES (1.00)"],
      ['INSERT INTO t VALUES ($1)', ['1']],
      ["INSERT INTO t VALUES (0), (-0.0)"],
      ["INSERT INTO t VALUES ('NaN'), ('NaN')"],
      ["INSERT INTO t VALUES ('Infinity')"],
      ["INSERT INTO t VALUES ('Infinity')"],
    ],
  },
  {
    name: 'UNIQUE (float8, int): -0 is 0 and NaN is NaN in the first column',
    ddl: 'CREATE TABLE t (f float8, a int, UNIQUE (f, a))',
    steps: [
      ["INSERT INTO t VALUES (0, 1)"],
      ["INSERT INTO t VALUES ('-0', 1)"],
      ["INSERT INTO t VALUES ('NaN', 1)"],
      ['INSERT INTO t VALUES ($1, $2)', [Number.NaN, 1]],
      ["INSERT INTO t VALUES (1.5, 1), (1.50, 1)"],
      ["INSERT INTO t VALUES (1, 1), (1.0, 2)"],
      ["INSERT INTO t VALUES (1.0, 1)"],
      ["INSERT INTO t VALUES ('Infinity', 1), ('-Infinity', 1)"],
      ["INSERT INTO t VALUES ('Infinity', 1)"],
      ["INSERT INTO t VALUES (1e300, 1), (1e300, 2)"],
      ["INSERT INTO t VALUES (1e300, 2)"],
    ],
  },
  {
    name: 'UNIQUE (int, char(3)) and (int, varchar): trailing spaces as PostgreSQL compares them',
    ddl: 'CREATE TABLE t (a int, c char(3), v varchar(4), UNIQUE (a, c), UNIQUE (a, v))',
    steps: [
      ["INSERT INTO t VALUES (1, 'x', 'x')"],
      ["INSERT INTO t VALUES (1, 'x  ', 'y')"],
      ["INSERT INTO t VALUES (1, 'y', 'x ')"],
      ["INSERT INTO t VALUES (1, 'z', 'x')"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [1, 'x ', 'w']],
      ["INSERT INTO t VALUES (2, '', ''), (2, ' ', ' ')"],
      ["INSERT INTO t VALUES (2, '', '')"],
      ["INSERT INTO t SELECT 3, 'k' || (i % 2), 'v' || i FROM generate_series(1, 4) i"],
      ["INSERT INTO t SELECT 3, 'k' || i, 'v' || i FROM generate_series(1, 2) i"],
    ],
  },
  {
    name: 'UNIQUE (int, interval): 1 day is 24 hours',
    ddl: 'CREATE TABLE t (a int, i interval, UNIQUE (a, i))',
    content: 'SELECT a, i::text FROM t',
    steps: [
      ["INSERT INTO t VALUES (1, '1 day')"],
      ["INSERT INTO t VALUES (1, '24 hours')"],
      ["INSERT INTO t VALUES (1, '1 mon')"],
      ["INSERT INTO t VALUES (1, '30 days')"],
      ["INSERT INTO t VALUES (2, '1 hour'), (2, '60 minutes')"],
    ],
  },
  {
    name: 'UNIQUE (int, text, int): three columns, NULL in each, texts that could run into the next part',
    ddl: 'CREATE TABLE t (a int, b text, c int, UNIQUE (a, b, c))',
    steps: [
      ["INSERT INTO t VALUES (1, '2', 3)"],
      ["INSERT INTO t VALUES (1, '2', 3)"],
      ["INSERT INTO t VALUES (1, '23', NULL), (1, '23', NULL)"],
      ["INSERT INTO t VALUES (1, NULL, 3), (NULL, '2', 3)"],
      ["INSERT INTO t VALUES (1, '2,3', 4), (1, '2', 34), (1, '2,', 34)"],
      ["INSERT INTO t VALUES (1, '1:2', 3), (1, '1', 23)"],
      ['INSERT INTO t VALUES ($1, $2, $3)', [1, '2,3', 4]],
      ["INSERT INTO t VALUES (1, '', 0), (1, '0', 0)"],
      ["INSERT INTO t VALUES (1, '', 0)"],
      ["INSERT INTO t SELECT i % 2, 'b' || (i % 3), i % 5 FROM generate_series(1, 30) i"],
      ["INSERT INTO t SELECT i % 2, 'b' || (i % 3), i % 5 FROM generate_series(1, 30) i ON CONFLICT DO NOTHING"],
    ],
  },
  {
    name: '(bigint, text) PRIMARY KEY: first parts past 2^53',
    ddl: 'CREATE TABLE t (id bigint, s text, PRIMARY KEY (id, s))',
    steps: [
      ["INSERT INTO t VALUES (9007199254740993, 'a')"],
      ["INSERT INTO t VALUES (9007199254740992, 'a')"],
      ["INSERT INTO t VALUES (9007199254740993, 'a')"],
      ["INSERT INTO t VALUES (9007199254740993, 'b')"],
      ["INSERT INTO t VALUES (-9223372036854775808, '')"],
      ['INSERT INTO t VALUES ($1, $2)', ['-9223372036854775808', '']],
      ["INSERT INTO t SELECT 9007199254740990 + i, 'a' FROM generate_series(1, 5) i"],
    ],
  },
  {
    name: 'bigint PRIMARY KEY',
    ddl: 'CREATE TABLE t (id bigint PRIMARY KEY, s text)',
    steps: [
      ["INSERT INTO t VALUES (1, 'a')"],
      ["INSERT INTO t VALUES (1, 'b')"],
      ['INSERT INTO t VALUES ($1, $2)', [1, 'c']],
      ["INSERT INTO t VALUES (9007199254740993, 'a')"],
      ["INSERT INTO t VALUES (9007199254740993, 'b')"],
      ["INSERT INTO t VALUES (9007199254740992, 'b')"],
      ["INSERT INTO t VALUES (-9223372036854775808, 'c')"],
      ["INSERT INTO t VALUES (-9223372036854775808, 'd')"],
      ['INSERT INTO t VALUES ($1, $2)', [4294967296, 'a']],
      ["INSERT INTO t VALUES (4294967296, 'a')"],
      ["INSERT INTO t VALUES (2, 'a'), (2, 'b')"],
    ],
  },
  {
    name: 'varchar(5) key',
    ddl: 'CREATE TABLE t (id int, s varchar(5) CONSTRAINT t_s_key UNIQUE)',
    steps: [
      ["INSERT INTO t VALUES (1, 'ab')"],
      ["INSERT INTO t VALUES (2, 'ab ')"],
      ["INSERT INTO t VALUES (3, 'ab')"],
      ['INSERT INTO t VALUES ($1, $2)', [4, 'ab ']],
      ["INSERT INTO t VALUES (5, 'AB')"],
      // Trailing spaces past the length are cut without error, as PostgreSQL's varchar cuts them.
      ["INSERT INTO t VALUES (6, 'ab      ')"],
      ["INSERT INTO t VALUES (7, 'abcdef')"],
      ["INSERT INTO t VALUES (8, 'abcde     ')"],
      ["INSERT INTO t VALUES (9, 'abcde')"],
      ['INSERT INTO t VALUES ($1, $2)', [10, 'abcdef']],
      ['INSERT INTO t VALUES ($1, $2)', [11, 'abcde   ']],
      ['INSERT INTO t VALUES ($1, $2)', [12, 'xyz  ']],
      ['INSERT INTO t VALUES ($1, $2)', [13, 'xyz ']],
      ['INSERT INTO t VALUES ($1, $2)', [14, 'xyz']],
      ['INSERT INTO t VALUES ($1, $2)', [15, 'ééééé']],
      ["INSERT INTO t VALUES (16, 'éééééé')"],
      ["INSERT INTO t VALUES (17, 'ééééé ')"],
      ["INSERT INTO t SELECT 100 + i, NULL FROM generate_series(1, 3) i"],
      ["INSERT INTO t SELECT 200 + i, 'k' || (i % 2) FROM generate_series(1, 4) i"],
      ["INSERT INTO t SELECT 300 + i, 'k' || i FROM generate_series(1, 2) i"],
      ["INSERT INTO t SELECT 400, 'k1'"],
    ],
  },
  {
    name: 'char(4) key',
    ddl: 'CREATE TABLE t (id int, s char(4) PRIMARY KEY)',
    steps: [
      ["INSERT INTO t VALUES (1, 'ab')"],
      ["INSERT INTO t VALUES (2, 'ab ')"],
      ["INSERT INTO t VALUES (3, 'ab  ')"],
      ['INSERT INTO t VALUES ($1, $2)', [4, 'ab']],
      ["INSERT INTO t VALUES (5, ' ab')"],
      ["INSERT INTO t VALUES (6, 'AB')"],
      ["INSERT INTO t VALUES (7, '')"],
      ["INSERT INTO t VALUES (8, '    ')"],
      ["INSERT INTO t VALUES (9, 'abcd   ')"],
      ["INSERT INTO t VALUES (10, 'abcd')"],
      ['INSERT INTO t VALUES ($1, $2)', [11, 'abcde']],
      ['INSERT INTO t VALUES ($1, $2)', [12, 'abcd ']],
      ['INSERT INTO t VALUES ($1, $2)', [13, 'q']],
      ["INSERT INTO t VALUES (14, 'q   ')"],
      ['INSERT INTO t VALUES ($1, $2)', [15, 'q ']],
    ],
  },
  {
    name: 'bpchar key (no length)',
    ddl: 'CREATE TABLE t (id int, s bpchar PRIMARY KEY)',
    steps: [
      ["INSERT INTO t VALUES (1, 'ab')"],
      ["INSERT INTO t VALUES (2, 'ab  ')"],
      ['INSERT INTO t VALUES ($1, $2)', [3, 'ab ']],
      ["INSERT INTO t VALUES (4, 'ab  c')"],
      ["INSERT INTO t VALUES (5, '')"],
      ["INSERT INTO t VALUES (6, '   ')"],
    ],
  },
  {
    name: 'float8 key: -0 is 0',
    ddl: 'CREATE TABLE t (id int, f float8 UNIQUE)',
    steps: [
      ["INSERT INTO t VALUES (1, 0)"],
      ["INSERT INTO t VALUES (2, '-0')"],
      ["INSERT INTO t VALUES (4, 'NaN')"],
      ["INSERT INTO t VALUES (5, 'NaN')"],
      ["INSERT INTO t VALUES (6, 1.5), (7, 1.5)"],
    ],
  },
];

let pg: PGlite;
beforeAll(async () => {
  pg = newPGlite();
  await pg.waitReady;
});
afterAll(async () => {
  await pg.close();
});

/** The table's rows as text, sorted here (numbers of every width as their digits), whatever order each engine keeps. */
async function contentOf(c: { query(sql: string): Promise<{ rows: unknown[] }> }, sql = 'SELECT * FROM t'): Promise<string[]> {
  const rows = (await c.query(sql)).rows;
  return rows.map((r) => JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' || typeof v === 'number' ? String(v) : v))).sort();
}

describe('one-row INSERTs into tables keyed on other than one int4 column, as PostgreSQL decides', () => {
  for (const shape of SHAPES) {
    for (const dir of [false, true]) {
      it(`${shape.name}${dir ? ', in a database directory, then reopened' : ''}`, async () => {
        const path = dir ? fresh() : undefined;
        let db = await Database.create(path === undefined ? {} : { path });
        await pg.exec('DROP TABLE IF EXISTS t');
        await pg.exec(shape.ddl);
        await db.query(shape.ddl);
        for (const [sql, params] of shape.steps) {
          const theirs = await outcome(pg, sql, params);
          const ours = await outcome(db, sql, params);
          expect(ours, sql).toEqual(theirs);
        }
        expect(await contentOf(db, shape.content)).toEqual(await contentOf({ query: (sql) => pg.query(sql, [], { rowMode: 'array' }) }, shape.content));
        if (path !== undefined) {
          // Reopened, the index is built again from the stored rows: every step decides as before.
          await db.close();
          db = await Database.create({ path });
          for (const [sql, params] of shape.steps) {
            const theirs = await outcome(pg, sql, params);
            expect(await outcome(db, sql, params), `${sql} after reopen`).toEqual(theirs);
          }
        }
        await db.close();
      });
    }
  }
});

describe('around the check', () => {
  it('varchar(n) and char(n) values take the direct path, stored and refused as the general INSERT does', async () => {
    const db = await Database.create();
    for (const name of ['fast', 'general']) await db.query(`CREATE TABLE ${name} (id int, v varchar(4) UNIQUE, c char(3))`);
    const taken = vi.spyOn(Database.prototype as unknown as { jsParamInsertSync: () => unknown }, 'jsParamInsertSync');
    const rows: unknown[][] = [[1, 'ab', 'x'], [2, 'ab  ', 'y'], [3, 'abcd  ', 'z'], [4, 'abcde', 'w'], [5, 'q', 'toolong'], [6, 'r', 'ab   '], [7, 'ab', 'v'], [8, 'abcd', 'u'], [9, 'ü', 'ü']];
    const fast: Outcome[] = [];
    const general: Outcome[] = [];
    try {
      for (const r of rows) {
        fast.push(await outcome(db, 'INSERT INTO fast VALUES ($1, $2, $3)', r));
        general.push(await outcome(db, 'INSERT INTO general VALUES ($1, $2, $3) RETURNING 0', r));
        const lit = `VALUES (${r[0]}, '${String(r[1])}', '${String(r[2])}')`;
        fast.push(await outcome(db, `INSERT INTO fast ${lit}`));
        general.push(await outcome(db, `INSERT INTO general ${lit} RETURNING 0`));
      }
      expect(fast.map((o) => ({ ...o, message: o.message?.replace('"fast', '"general') }))).toEqual(general);
      // The rows the direct path took: those that fit, not the too long ones it leaves to the general path.
      expect(taken.mock.results.filter((x) => x.type === 'return' && x.value !== null).length).toBeGreaterThanOrEqual(5);
    } finally {
      taken.mockRestore();
    }
    const content = async (t: string): Promise<unknown[][]> => (await db.query(`SELECT * FROM ${t} ORDER BY id`)).rows;
    expect(await content('fast')).toEqual(await content('general'));
    await db.close();
  });

  it('the first one-row INSERT after a bulk load adds one key, not the table\'s, for a text and an (int, text) key', async () => {
    for (const ddl of ['CREATE TABLE b (id int, s text PRIMARY KEY)', 'CREATE TABLE b (id int, s text, PRIMARY KEY (id, s))']) {
      const db = await Database.create({ path: fresh() });
      await db.query(ddl);
      await db.query("INSERT INTO b SELECT i, 'row-' || i FROM generate_series(1, 50000) i");
      const spies = [vi.spyOn(KeySet.prototype, 'insert'), vi.spyOn(KeySet.prototype, 'add'), vi.spyOn(KeyPairSet.prototype, 'insert')];
      try {
        await db.query("INSERT INTO b VALUES (50001, 'row-50001')");
        await expect(db.query("INSERT INTO b VALUES (25000, 'row-25000')")).rejects.toMatchObject({ code: '23505', message: 'duplicate key value violates unique constraint "b_pkey"' });
        await db.query('INSERT INTO b VALUES ($1, $2)', [50002, 'row-50002']);
        // Both one-row INSERTs added their key: some calls, not the table's 50,000.
        const calls = spies.reduce((n, s) => n + s.mock.calls.length, 0);
        expect(calls, ddl).toBeGreaterThan(0);
        expect(calls, ddl).toBeLessThan(10);
      } finally {
        for (const s of spies) s.mockRestore();
      }
      expect((await db.query('SELECT count(*)::int FROM b')).rows).toEqual([[50002]]);
      await db.close();
    }
  });

  for (const [name, ddl, row, again] of [
    ['text', 'CREATE TABLE k (id int, s text PRIMARY KEY)', "(1, 'held')", "(2, 'held')"],
    ['(int, text)', 'CREATE TABLE k (id int, s text, PRIMARY KEY (id, s))', "(1, 'held')", "(1, 'held')"],
    ['bigint', 'CREATE TABLE k (id bigint PRIMARY KEY, s text)', "(9007199254740993, 'a')", "(9007199254740993, 'b')"],
  ] as const) {
    it(`a ${name} key an open transaction wrote: the autocommit INSERT of it waits, fails when the holder commits, goes in when it rolls back`, async () => {
      const db = await Database.create({ path: fresh() });
      await db.query(ddl);
      const a = db.connect();
      const b = db.connect();
      await a.query('BEGIN');
      await a.query(`INSERT INTO k VALUES ${row}`);
      const first = outcome(b, `INSERT INTO k VALUES ${again}`);
      expect(await pending(first)).toBe(true);
      await a.query('COMMIT');
      expect(await first).toMatchObject({ ok: false, code: '23505', message: 'duplicate key value violates unique constraint "k_pkey"' });
      await db.query('DELETE FROM k');
      await a.query('BEGIN');
      await a.query(`INSERT INTO k VALUES ${row}`);
      const second = outcome(b, `INSERT INTO k VALUES ${again}`);
      expect(await pending(second)).toBe(true);
      await a.query('ROLLBACK');
      expect(await second).toEqual({ ok: true });
      expect((await db.query('SELECT count(*)::int FROM k')).rows).toEqual([[1]]);
      await db.close();
    });
  }

  it('a text key held by an open transaction makes a library-parameter INSERT wait too', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE k (id int, s text PRIMARY KEY)');
    const a = db.connect();
    const b = db.connect();
    const c = db.connect();
    await a.query('BEGIN');
    await a.query('INSERT INTO k VALUES ($1, $2)', [1, 'p']);
    const waiting = outcome(b, 'INSERT INTO k VALUES ($1, $2)', [2, 'p']);
    expect(await pending(waiting)).toBe(true);
    // A key differing in case or trailing space is another key: it does not wait.
    expect(await outcome(c, 'INSERT INTO k VALUES ($1, $2)', [3, 'P'])).toEqual({ ok: true });
    expect(await outcome(c, "INSERT INTO k VALUES (4, 'p ')")).toEqual({ ok: true });
    await a.query('COMMIT');
    expect(await waiting).toMatchObject({ ok: false, code: '23505', detail: 'Key (s)=(p) already exists.' });
    await db.close();
  });

  it('REPEATABLE READ: a text or (int, text) key committed after the snapshot is taken, although the snapshot does not show it', async () => {
    for (const [ddl, row] of [
      ['CREATE TABLE k (id int, s text PRIMARY KEY)', "(1, 'late')"],
      ['CREATE TABLE k (id int, s text, PRIMARY KEY (id, s))', "(1, 'late')"],
    ] as const) {
      const db = await Database.create();
      await db.query(ddl);
      await db.query("INSERT INTO k VALUES (0, 'early')");
      const a = db.connect();
      await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      expect((await a.query('SELECT count(*)::int FROM k')).rows).toEqual([[1]]);
      await db.query(`INSERT INTO k VALUES ${row}`);
      expect(await outcome(a, `INSERT INTO k VALUES ${row}`)).toMatchObject({ ok: false, code: '23505', message: 'duplicate key value violates unique constraint "k_pkey"' });
      await a.query('ROLLBACK');
      await db.close();
    }
  });
});

/**
 * Two sessions over keys of several columns, as PostgreSQL decides (with QUIRE_TEST_PG_DSN set, the
 * same steps run against a PostgreSQL server too): keys an open transaction holds (a bulk INSERT's
 * batches, registered whole; a DELETE's given-up keys) make the other session's writer wait; under
 * REPEATABLE READ a key another session freed and committed is free, one it committed is taken.
 */
interface TwoSessions {
  name: string;
  ddl: string;
  seed: string[];
  /** Session a's transaction, begun before the steps (its snapshot taken by a first SELECT). */
  begin: string;
  steps: Step[];
  final: string;
}

const K = 'kk';
const TWO_SESSIONS: TwoSessions[] = [
  {
    name: '(int, text): an open bulk INSERT … SELECT holds its keys; the same pair waits, another text of the int does not',
    ddl: `CREATE TABLE ${K} (id int, s text, PRIMARY KEY (id, s))`,
    seed: [`INSERT INTO ${K} VALUES (0, 'seed')`],
    begin: 'BEGIN',
    steps: [
      ['a', `INSERT INTO ${K} SELECT i, 'r' || i FROM generate_series(1, 3000) i`, 'ok 3000'],
      ['b', `INSERT INTO ${K} VALUES (2500, 'r2500x')`, 'ok 1'],
      ['b', `INSERT INTO ${K} VALUES (2500, 'r2500')`, 'waits'],
      ['a', 'COMMIT', 'ok'],
      ['b', 'await', '23505'],
      ['b', `SELECT count(*)::int FROM ${K}`, '[[3002]]'],
    ],
    final: '[[3002]]',
  },
  {
    name: '(int, text): a rolled-back bulk INSERT frees its keys for the waiting writer',
    ddl: `CREATE TABLE ${K} (id int, s text, PRIMARY KEY (id, s))`,
    seed: [],
    begin: 'BEGIN',
    steps: [
      ['a', `INSERT INTO ${K} SELECT i % 100, 'r' || (i / 100) FROM generate_series(0, 4999) i`, 'ok 5000'],
      ['b', `INSERT INTO ${K} VALUES (7, 'r49')`, 'waits'],
      ['a', 'ROLLBACK', 'ok'],
      ['b', 'await', 'ok 1'],
    ],
    final: '[[1]]',
  },
  {
    name: '(int, text, int): a key an open transaction deleted waits; free once the deleter commits',
    ddl: `CREATE TABLE ${K} (a int, b text, c int, UNIQUE (a, b, c))`,
    seed: [`INSERT INTO ${K} VALUES (1, 'x', 1), (1, 'x', 2), (1, 'x,1', 1)`],
    begin: 'BEGIN',
    steps: [
      ['a', `DELETE FROM ${K} WHERE c = 1 AND b = 'x'`, 'ok 1'],
      ['b', `INSERT INTO ${K} VALUES (1, 'x,1', 1)`, '23505'],
      ['b', `INSERT INTO ${K} VALUES (1, 'x', 1)`, 'waits'],
      ['a', 'COMMIT', 'ok'],
      ['b', 'await', 'ok 1'],
    ],
    final: '[[3]]',
  },
  {
    name: '(int, text): a key an open transaction deleted is taken again when the deleter rolls back',
    ddl: `CREATE TABLE ${K} (id int, s text, PRIMARY KEY (id, s))`,
    seed: [`INSERT INTO ${K} VALUES (1, 'x'), (1, 'y')`],
    begin: 'BEGIN',
    steps: [
      ['a', `DELETE FROM ${K} WHERE s = 'x'`, 'ok 1'],
      ['b', `INSERT INTO ${K} VALUES (1, 'x')`, 'waits'],
      ['a', 'ROLLBACK', 'ok'],
      ['b', 'await', '23505'],
    ],
    final: '[[2]]',
  },
  {
    name: 'REPEATABLE READ, (int, text): a pair another session deleted and committed is free; one it inserted is taken',
    ddl: `CREATE TABLE ${K} (id int, s text, PRIMARY KEY (id, s))`,
    seed: [`INSERT INTO ${K} VALUES (1, 'x'), (1, 'y'), (2, 'x')`],
    begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ',
    steps: [
      ['b', `DELETE FROM ${K} WHERE id = 1 AND s = 'x'`, 'ok 1'],
      ['b', `INSERT INTO ${K} VALUES (3, 'z')`, 'ok 1'],
      ['a', `INSERT INTO ${K} VALUES (1, 'x')`, 'ok 1'],
      ['a', `INSERT INTO ${K} VALUES (1, 'y')`, '23505'],
      ['a', 'ROLLBACK', 'ok'],
      ['a', 'BEGIN ISOLATION LEVEL REPEATABLE READ', 'ok'],
      ['a', `SELECT count(*)::int FROM ${K}`, '[[3]]'],
      ['b', `UPDATE ${K} SET s = 'w' WHERE id = 2`, 'ok 1'],
      ['a', `INSERT INTO ${K} VALUES (2, 'x')`, 'ok 1'],
      ['a', `INSERT INTO ${K} VALUES (2, 'w')`, '23505'],
      ['a', 'ROLLBACK', 'ok'],
      ['a', 'BEGIN ISOLATION LEVEL REPEATABLE READ', 'ok'],
      ['a', `SELECT count(*)::int FROM ${K}`, '[[3]]'],
      ['b', `INSERT INTO ${K} VALUES (4, 'q')`, 'ok 1'],
      ['a', `INSERT INTO ${K} VALUES (4, 'q') ON CONFLICT DO NOTHING`, '40001'],
      ['a', 'ROLLBACK', 'ok'],
      ['a', 'BEGIN ISOLATION LEVEL REPEATABLE READ', 'ok'],
      ['a', `SELECT count(*)::int FROM ${K}`, '[[4]]'],
      ['b', `DELETE FROM ${K} WHERE id = 4`, 'ok 1'],
      ['a', `INSERT INTO ${K} SELECT 4, 'q' UNION ALL SELECT 5, 'q'`, 'ok 2'],
      ['a', 'COMMIT', 'ok'],
    ],
    final: '[[5]]',
  },
];

async function runTwoSessions(s: TwoSessions, a: StepConn, b: StepConn): Promise<{ got: string[]; final: string }> {
  await b.query(`DROP TABLE IF EXISTS ${K}`);
  await b.query(s.ddl);
  for (const sql of s.seed) await b.query(sql);
  await a.query(s.begin);
  await a.query(`SELECT count(*) FROM ${K}`);
  const got = await runSteps(s.steps, a, b);
  const final = JSON.stringify((await b.query(`SELECT count(*)::int FROM ${K}`)).rows);
  return { got, final };
}

describe('two sessions over keys of several columns (Quire)', () => {
  for (const s of TWO_SESSIONS) {
    for (const dir of [false, true]) {
      it(`${s.name}${dir ? ', in a database directory' : ''}`, async () => {
        const db = await Database.create(dir ? { path: fresh() } : {});
        try {
          const { got, final } = await runTwoSessions(s, db.connect() as unknown as StepConn, db.connect() as unknown as StepConn);
          expect(got).toEqual(s.steps.map((x) => x[2]));
          expect(final).toEqual(s.final);
        } finally {
          await db.close();
        }
      });
    }
  }
});

describe.skipIf(DSN === undefined)('two sessions over keys of several columns: the same outcomes on PostgreSQL', () => {
  for (const s of TWO_SESSIONS) {
    it(s.name, async () => {
      const clients = [new pgClient.Client({ connectionString: DSN }), new pgClient.Client({ connectionString: DSN })];
      for (const c of clients) await c.connect();
      try {
        const conn = (c: pgClient.Client): StepConn => ({ query: (sql, params) => c.query({ text: sql, values: params, rowMode: 'array' }) });
        const { got, final } = await runTwoSessions(s, conn(clients[0]!), conn(clients[1]!));
        expect(got).toEqual(s.steps.map((x) => x[2]));
        expect(final).toEqual(s.final);
        await clients[1]!.query(`DROP TABLE IF EXISTS ${K}`);
      } finally {
        for (const c of clients) await c.end();
      }
    });
  }
});
