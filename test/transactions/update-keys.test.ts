/**
 * UPDATE of unique and primary key columns, checked through the unique index (only the changed rows
 * and the transaction's own rows are read): the same outcomes, SQLSTATEs, constraint names and
 * final rows as PGlite, in and out of transaction blocks, on a table large enough that the
 * committed rows come from the index.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { newPGlite } from '../common/pglite.js';

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  detail?: string;
  rows?: unknown[][];
}

async function run(exec: (sql: string) => Promise<{ rows: unknown[] }>, sql: string): Promise<Outcome> {
  try {
    const r = await exec(sql);
    return { ok: true, rows: r.rows.map((x) => (Array.isArray(x) ? x : Object.values(x as object))) };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return { ok: false, code: x.code, message: x.message, detail: x.detail };
  }
}

const SETUP = [
  'CREATE TABLE t (id int PRIMARY KEY, a int UNIQUE, b text, UNIQUE (b, a))',
  "INSERT INTO t SELECT g, g * 10, 'r' || (g % 7) FROM generate_series(1, 20000) g",
];

const SCRIPT = [
  'UPDATE t SET id = 50000 WHERE id = 1',
  // The index follows a committed UPDATE: the vacated key is free, the new one taken.
  "INSERT INTO t VALUES (1, 5, 'z')",
  "INSERT INTO t VALUES (50000, 7, 'z')",
  'UPDATE t SET a = 15 WHERE id = 1',
  "INSERT INTO t VALUES (2000000, 5, 'z')",
  "INSERT INTO t VALUES (2000001, 15, 'z')",
  // A rolled-back UPDATE changes nothing in it.
  'BEGIN',
  'UPDATE t SET id = 70000 WHERE id = 15',
  'ROLLBACK',
  "INSERT INTO t VALUES (15, 16, 'z')",
  "INSERT INTO t VALUES (70000, 17, 'z')",
  'UPDATE t SET id = 2 WHERE id = 3',
  'UPDATE t SET id = 19999 WHERE id = 50000',
  'UPDATE t SET a = 70 WHERE id = 3',
  'UPDATE t SET a = NULL WHERE id IN (2, 3)',
  'UPDATE t SET a = 20 WHERE id = 4',
  'UPDATE t SET a = 30 WHERE id = 5',
  'UPDATE t SET id = 100000 WHERE id IN (6, 7)',
  'UPDATE t SET id = id, a = a WHERE id < 100',
  'UPDATE t SET b = b || \'x\' WHERE id BETWEEN 10 AND 20',
  "UPDATE t SET b = 'r1', a = 80 WHERE id = 9",
  'BEGIN',
  "INSERT INTO t VALUES (60000, 600000, 'own')",
  'UPDATE t SET id = 60000 WHERE id = 8',
  'ROLLBACK',
  'BEGIN',
  "INSERT INTO t VALUES (60000, 600000, 'own')",
  'UPDATE t SET a = 600000 WHERE id = 8',
  'ROLLBACK',
  'BEGIN',
  "INSERT INTO t VALUES (60000, 600000, 'own')",
  'UPDATE t SET id = 60001 WHERE id = 60000',
  'UPDATE t SET id = 60000 WHERE id = 8',
  'COMMIT',
  'BEGIN',
  'DELETE FROM t WHERE id = 11',
  'UPDATE t SET id = 11 WHERE id = 12',
  'COMMIT',
  'UPDATE t SET id = 12 WHERE id = 13 RETURNING id, a',
  'UPDATE t SET id = 13, a = 130 WHERE id = 14 RETURNING id, a',
  'SELECT count(*) AS n, sum(id) AS si, sum(a) AS sa, count(DISTINCT b) AS nb FROM t',
  'SELECT * FROM t WHERE id IN (2, 3, 4, 5, 8, 9, 11, 12, 13, 19999, 60000, 60001, 100000) ORDER BY id',
];

let pg: PGlite;
let db: Database;

beforeAll(async () => {
  pg = newPGlite();
  db = await Database.create();
  for (const sql of SETUP) {
    await pg.query(sql);
    await db.query(sql);
  }
});

afterAll(async () => {
  await pg.close();
});

const UPSERTS = [
  'CREATE TABLE c (id int PRIMARY KEY, n int, tag text UNIQUE)',
  "INSERT INTO c SELECT g, 0, 't' || g FROM generate_series(1, 5000) g",
  "INSERT INTO c VALUES (9000, 1, 'x') ON CONFLICT (id) DO UPDATE SET n = c.n + 1 RETURNING id, n",
  "INSERT INTO c VALUES (7, 1, 'y') ON CONFLICT (id) DO UPDATE SET n = c.n + 1 RETURNING id, n",
  "INSERT INTO c VALUES (7, 1, 'y') ON CONFLICT (id) DO UPDATE SET n = c.n + 10 WHERE c.n > 5 RETURNING id, n",
  "INSERT INTO c VALUES (8, 1, 'a'), (9001, 1, 'b'), (9, 1, 'c') ON CONFLICT (id) DO UPDATE SET n = excluded.n + c.n RETURNING id, n",
  "INSERT INTO c VALUES (10, 1, 't11') ON CONFLICT (id) DO UPDATE SET tag = excluded.tag",
  "INSERT INTO c VALUES (10, 1, 'fresh') ON CONFLICT (id) DO UPDATE SET tag = excluded.tag, id = 20000 RETURNING id, tag",
  "INSERT INTO c VALUES (10, 1, 'again') ON CONFLICT (id) DO UPDATE SET n = 99 RETURNING id, n, tag",
  "INSERT INTO c VALUES (11, 2, 'z'), (11, 3, 'z') ON CONFLICT (id) DO UPDATE SET n = excluded.n",
  "INSERT INTO c VALUES (12, 5, 't12') ON CONFLICT (tag) DO UPDATE SET n = excluded.n RETURNING id, n",
  'BEGIN',
  "INSERT INTO c VALUES (30000, 1, 'own')",
  "INSERT INTO c VALUES (30000, 1, 'own2') ON CONFLICT (id) DO UPDATE SET n = c.n + 5 RETURNING id, n, tag",
  "INSERT INTO c VALUES (13, 1, 'own2') ON CONFLICT (id) DO UPDATE SET tag = excluded.tag",
  'COMMIT',
  "INSERT INTO c VALUES (NULL, 1, 'nul') ON CONFLICT (id) DO UPDATE SET n = 1",
  'SELECT count(*) AS n, sum(id) AS si, sum(n) AS sn, count(DISTINCT tag) AS nt FROM c',
  'SELECT * FROM c WHERE n <> 0 ORDER BY id',
];

describe('UPDATE of key columns through the unique index', () => {
  it('INSERT … ON CONFLICT DO UPDATE agrees with PGlite', async () => {
    for (const sql of UPSERTS) {
      const want = await run((s) => pg.query(s), sql);
      const got = await run((s) => db.query(s), sql);
      const norm = (o: Outcome): Outcome => (o.rows ? { ...o, rows: o.rows.map((r) => r.map((v) => (typeof v === 'bigint' || (typeof v === 'string' && /^\d+$/.test(v)) ? Number(v) : v))) } : o);
      expect({ sql, ...norm(got) }).toEqual({ sql, ...norm(want) });
    }
  });

  it('agrees with PGlite statement by statement', async () => {
    for (const sql of SCRIPT) {
      const want = await run((s) => pg.query(s), sql);
      const got = await run((s) => db.query(s), sql);
      // count(*) and sum() are bigint/numeric in PostgreSQL: compare their values as numbers.
      const norm = (o: Outcome): Outcome => (o.rows ? { ...o, rows: o.rows.map((r) => r.map((v) => (typeof v === 'bigint' || (typeof v === 'string' && /^\d+$/.test(v)) ? Number(v) : v))) } : o);
      expect({ sql, ...norm(got) }).toEqual({ sql, ...norm(want) });
    }
  });
});
