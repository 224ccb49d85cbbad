/**
 * query() and execute() run an autocommit INSERT of literals or of the library's parameter values at
 * once when the session is free: from the text to the commit in the log with no statement tree and
 * no promise turn between. The answers must be PostgreSQL's (PGlite runs the same script), calls made
 * without waiting must still run one at a time in order, each reply must come only once its commit is
 * durable, and whatever the path declines (other access policies, failed blocks) must be answered as
 * before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { newPGlite } from '../common/pglite.js';

const pg = newPGlite();
afterAll(async () => pg.close());

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function scratchDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'quire-direct-'));
  dirs.push(d);
  return d;
}

type Step = [sql: string, params?: unknown[]];

/** Outcome of each step as text: the command tag, or the SQLSTATE of the error. */
async function quireOutcomes(db: Database, steps: readonly Step[]): Promise<string[]> {
  const out: string[] = [];
  for (const [sql, params] of steps) {
    try {
      const r = await db.query(sql, params ?? []);
      out.push(r.command === 'INSERT' ? r.commandTag : sql.trim().split(/\s+/)[0]!.toUpperCase());
    } catch (e) {
      if (!(e instanceof QuireError)) throw e;
      out.push(`error ${e.code}`);
    }
  }
  return out;
}

async function pgOutcomes(steps: readonly Step[]): Promise<string[]> {
  const out: string[] = [];
  for (const [sql, params] of steps) {
    try {
      const r = params === undefined ? (await pg.exec(sql)).at(-1)! : await pg.query(sql, params);
      const cmd = sql.trim().split(/\s+/)[0]!.toUpperCase();
      out.push(cmd === 'INSERT' ? `INSERT 0 ${r.affectedRows ?? 0}` : cmd === 'SELECT' ? `SELECT ${r.rows.length}` : cmd);
    } catch (e) {
      out.push(`error ${(e as { code?: string }).code}`);
    }
  }
  return out;
}

const SCRIPT: Step[] = [
  ['CREATE TABLE d (id int PRIMARY KEY, v float8, s text NOT NULL)'],
  ["INSERT INTO d VALUES (1, 0.5, 'a')"],
  ["INSERT INTO d VALUES (1, 1.5, 'duplicate')"],
  ['INSERT INTO d VALUES ($1, $2, $3)', [2, 2.5, 'b']],
  ['INSERT INTO d VALUES ($1, $2, $3)', [2, 2.5, 'duplicate']],
  ['INSERT INTO d VALUES (3, NULL, NULL)'],
  ['INSERT INTO d VALUES ($1, $2, $3)', [3, null, null]],
  ["INSERT INTO d VALUES (4, 'x', 'bad float')"],
  ["INSERT INTO d VALUES (2147483648, 1, 'too big')"],
  ["INSERT INTO d VALUES (-5, -0.25, 'it''s')"],
  ['BEGIN'],
  ["INSERT INTO d VALUES (6, 6, 'in block')"],
  ['INSERT INTO d VALUES ($1, $2, $3)', [7, 7, 'in block']],
  ["INSERT INTO d VALUES (6, 6, 'duplicate in block')"],
  ["INSERT INTO d VALUES (8, 8, 'after the error')"],
  ['ROLLBACK'],
  ['BEGIN'],
  ["INSERT INTO d VALUES (9, 9, 'committed block')"],
  ['COMMIT'],
  ["INSERT INTO d VALUES (10, 10, 'x'), (11, 11, 'y'), (10, 12, 'duplicate in the statement')"],
  ["INSERT INTO d VALUES (12, 12, 'z')"],
];

describe('autocommit INSERT run at once by query()', () => {
  it('answers a script of literal and parameter INSERTs as PostgreSQL does', async () => {
    const db = await Database.create({ path: scratchDir() });
    const mine = await quireOutcomes(db, SCRIPT);
    const theirs = await pgOutcomes(SCRIPT);
    expect(mine).toEqual(theirs);
    const rows = (await db.query('SELECT id, v, s FROM d ORDER BY id')).rows;
    expect(rows).toEqual((await pg.query<Record<string, unknown>>('SELECT id, v, s FROM d ORDER BY id')).rows.map((r) => [r.id, r.v, r.s]));
    await db.close();
  });

  it('runs calls made without waiting one at a time, in order, each acknowledged once durable', async () => {
    const dir = scratchDir();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE q (id int PRIMARY KEY, s text)');
    const other = db.connect();
    const store = storeFor(db.catalog)!;
    const settled: string[] = [];
    const late: string[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      // Two sessions committing at once: a reply may have to wait for another's fsync.
      const session = i % 3 === 0 ? other : db;
      // Now and then the key this session's call before took (calls of one session run in order).
      const id = i % 50 === 49 ? i - 3 : i;
      const call = i % 2 === 0 ? session.query(`INSERT INTO q VALUES (${id}, 'l${i}')`) : session.query('INSERT INTO q VALUES ($1, $2)', [id, `p${i}`]);
      // The record of a call run at once is written before query() returns: its reply must wait until it is durable.
      const written = store.walStats()!.lsn;
      calls.push(
        call.then(
          () => {
            settled.push(`${i} ok`);
            if (store.walStats()!.durable < written) late.push(`${i}`);
          },
          (e: unknown) => {
            settled.push(`${i} ${(e as QuireError).code}`);
            if (store.walStats()!.durable < written) late.push(`${i}`);
          },
        ),
      );
    }
    // Made without waiting too: it runs after every call this session made before it.
    const mine = db.query('SELECT count(*) FROM q WHERE id % 3 <> 0');
    await Promise.all(calls);
    expect(late).toEqual([]);
    // Every call answered; the duplicates, and only they, refused.
    const expected = Array.from({ length: 200 }, (_, i) => `${i} ${i % 50 === 49 ? '23505' : 'ok'}`);
    expect([...settled].sort()).toEqual([...expected].sort());
    // One session's replies come in the order its calls were made.
    const order = (session: number) => settled.map((s) => Number(s.split(' ')[0])).filter((i) => (i % 3 === 0 ? 1 : 0) === session);
    expect(order(0)).toEqual([...order(0)].sort((a, b) => a - b));
    expect(order(1)).toEqual([...order(1)].sort((a, b) => a - b));
    // This session's 133 calls, three of them duplicates; the other's 67, one a duplicate.
    expect((await mine).rows[0]![0]).toBe(130);
    expect((await db.query('SELECT count(*) FROM q')).rows[0]![0]).toBe(196);
    await db.close();
    // Everything acknowledged is in the directory.
    const again = await Database.create({ path: dir });
    expect((await again.query('SELECT count(*) FROM q')).rows[0]![0]).toBe(196);
    await again.close();
  });

  it('execute() gives one result; a read-only session and a failed block are answered as before', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE e (id int PRIMARY KEY)');
    const results = await db.execute('INSERT INTO e VALUES (1)');
    expect(results.map((r) => r.commandTag)).toEqual(['INSERT 0 1']);
    expect((await db.execute('INSERT INTO e VALUES ($1)', [2])).map((r) => r.commandTag)).toEqual(['INSERT 0 1']);
    const reader = db.connect({ access: { allowWrites: false } });
    await expect(reader.query('INSERT INTO e VALUES (3)')).rejects.toMatchObject({ code: '25006' });
    await expect(reader.query('INSERT INTO e VALUES ($1)', [3])).rejects.toMatchObject({ code: '25006' });
    await db.query('BEGIN');
    await expect(db.query('INSERT INTO e VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    await expect(db.query('INSERT INTO e VALUES (4)')).rejects.toMatchObject({ code: '25P02' });
    await expect(db.query('INSERT INTO e VALUES ($1)', [5])).rejects.toMatchObject({ code: '25P02' });
    await db.query('ROLLBACK');
    expect((await db.query('SELECT id FROM e ORDER BY id')).rows).toEqual([[1], [2]]);
  });
});
