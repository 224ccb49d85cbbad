/**
 * CREATE UNIQUE INDEX and DROP INDEX: the same outcomes (SQLSTATE, message, DETAIL) as PostgreSQL over
 * a script of index DDL and writes; transactional (ROLLBACK forgets the index, another transaction's
 * duplicate fails the COMMIT); kept by a database directory across a clean close and a crash.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { scratchDirs } from '../persist/scratch-dirs.js';
import { newPGlite } from '../common/pglite.js';

const { fresh, crashCopy } = scratchDirs('quire-create-unique-index-');

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  detail?: string;
  rows?: unknown[][];
}

async function onQuire(db: Database, sql: string): Promise<Outcome> {
  try {
    const r = await db.query(sql);
    return { ok: true, rows: r.rows };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return { ok: false, code: x.code, message: x.message, detail: x.detail };
  }
}

async function onPg(pg: PGlite, sql: string): Promise<Outcome> {
  try {
    const r = await pg.query<Record<string, unknown>>(sql, [], { rowMode: 'array' } as never);
    return { ok: true, rows: r.rows as unknown as unknown[][] };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return { ok: false, code: x.code, message: x.message, detail: x.detail };
  }
}

const SCRIPT = [
  'CREATE TABLE u (id int PRIMARY KEY, a int, b text, c int)',
  "INSERT INTO u VALUES (1, 1, 'x', 1), (2, 2, 'y', 1), (3, NULL, 'z', 2), (4, NULL, 'x', 2)",
  'CREATE UNIQUE INDEX u_a_uniq ON u (a)',
  'INSERT INTO u VALUES (5, 1, NULL, 3)',
  'INSERT INTO u VALUES (5, NULL, NULL, 3)',
  'CREATE UNIQUE INDEX ON u (b)',
  "DELETE FROM u WHERE id = 4",
  'CREATE UNIQUE INDEX ON u (b)',
  "INSERT INTO u VALUES (6, 6, 'x', 6)",
  'CREATE UNIQUE INDEX u_bc ON u (b, c)',
  'CREATE UNIQUE INDEX u_bc ON u (a)',
  'CREATE UNIQUE INDEX IF NOT EXISTS u_bc ON u (a)',
  'CREATE UNIQUE INDEX ON u (c)',
  'UPDATE u SET a = 2 WHERE id = 1',
  'UPDATE u SET a = 7 WHERE id = 1',
  'DROP INDEX u_pkey',
  'DROP INDEX u_a_uniq',
  'UPDATE u SET a = 2 WHERE id = 1',
  'INSERT INTO u VALUES (7, 2, NULL, 7) ON CONFLICT (a) DO NOTHING',
  'SELECT * FROM u ORDER BY id',
];

describe('CREATE UNIQUE INDEX', () => {
  const pg = newPGlite();
  afterAll(async () => {
    await pg.close();
  });

  it('gives PostgreSQL’s outcomes over a script of index DDL and writes', async () => {
    const db = await Database.create();
    const diffs: string[] = [];
    for (const sql of SCRIPT) {
      const want = await onPg(pg, sql);
      const got = await onQuire(db, sql);
      const same = want.ok === got.ok && (want.ok ? JSON.stringify(want.rows) === JSON.stringify(got.rows) : want.code === got.code && want.message === got.message && want.detail === got.detail);
      if (!same) diffs.push(`${sql}\n  postgres: ${JSON.stringify(want)}\n  quire:    ${JSON.stringify(got)}`);
    }
    expect(diffs, diffs.join('\n')).toEqual([]);
    await db.close();
  });

  it('refuses what it does not build, with 0A000', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE v (a int, b int)');
    for (const sql of ['CREATE UNIQUE INDEX ON v ((a + b))', 'CREATE UNIQUE INDEX ON v (a) WHERE b > 0', 'CREATE UNIQUE INDEX ON v (a) NULLS NOT DISTINCT']) {
      await expect(db.query(sql), sql).rejects.toMatchObject({ code: '0A000' });
    }
    await db.query('INSERT INTO v VALUES (1, 1), (1, 1)');
    await db.close();
  });

  it('is transactional: ROLLBACK forgets it; a duplicate another transaction committed fails the COMMIT', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE w (a int)');
    await db.query('INSERT INTO w VALUES (1), (2)');
    const s = db.connect();
    await s.query('BEGIN');
    await s.query('CREATE UNIQUE INDEX w_a ON w (a)');
    await expect(s.query('INSERT INTO w VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    await s.query('ROLLBACK');
    await db.query('INSERT INTO w VALUES (1)');
    await db.query('DELETE FROM w WHERE a = 1');
    await s.query('BEGIN');
    await s.query('CREATE UNIQUE INDEX w_a ON w (a)');
    // Other sessions do not see the index before COMMIT.
    await db.query('INSERT INTO w VALUES (2)');
    await expect(s.query('COMMIT')).rejects.toMatchObject({ code: '23505' });
    await db.query('INSERT INTO w VALUES (2)');
    await db.query('DELETE FROM w WHERE a = 2');
    await s.query('CREATE UNIQUE INDEX w_a ON w (a)');
    await expect(db.query('INSERT INTO w VALUES (3), (3)')).rejects.toMatchObject({ code: '23505' });
    await db.close();
  });

  it('a database directory keeps it across a clean close and a crash, and keeps its DROP', async () => {
    const dir = fresh();
    let db = await Database.create({ path: dir });
    await db.query('CREATE TABLE d (a int, b text)');
    await db.query("INSERT INTO d VALUES (1, 'p'), (2, 'q')");
    await db.query('CREATE UNIQUE INDEX d_b ON d (b)');
    const crashed = crashCopy(dir);
    await db.close();
    for (const path of [dir, crashed]) {
      db = await Database.create({ path });
      await expect(db.query("INSERT INTO d VALUES (3, 'p')"), path).rejects.toMatchObject({ code: '23505', message: 'duplicate key value violates unique constraint "d_b"' });
      await db.query('DROP INDEX d_b');
      const again = crashCopy(path);
      await db.close();
      for (const p of [path, again]) {
        const db2 = await Database.create({ path: p });
        await db2.query("INSERT INTO d VALUES (3, 'p')");
        await db2.close();
      }
    }
  });
});
