/**
 * Unique keys checked through their index: the same accept/reject decisions, SQLSTATE and DETAIL as
 * PostgreSQL over random INSERT/UPDATE/DELETE/TRUNCATE sequences with rolled-back blocks and NULLs,
 * on a primary key and a composite unique key; across reopen and log replay of a directory; and two
 * sessions inserting one key.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/index.js';
import { KeySet } from '../../src/storage/key-set.js';
import { scratchDirs } from '../persist/scratch-dirs.js';
import { newPGlite, readyPGlite } from '../common/pglite.js';

const { fresh, crashCopy } = scratchDirs('quire-unique-index-');

interface Outcome {
  ok: boolean;
  code?: string;
  detail?: string;
  rows?: unknown[][];
  count?: number;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A statement of the random sequence: small domains so keys collide often; NULLs in the composite key. */
function statement(rnd: () => number, inBlock: boolean): string {
  const pick = (n: number): number => Math.floor(rnd() * n);
  const id = (): number => pick(40);
  const a = (): string => (rnd() < 0.2 ? 'NULL' : String(pick(6)));
  const b = (): string => (rnd() < 0.2 ? 'NULL' : `'${'xyz'[pick(3)]}'`);
  const r = rnd();
  if (r < 0.45) return `INSERT INTO u VALUES (${id()}, ${a()}, ${b()})`;
  if (r < 0.55) return `INSERT INTO u VALUES (${id()}, ${a()}, ${b()}), (${id()}, ${a()}, ${b()})`;
  if (r < 0.57) return `INSERT INTO u VALUES (${id()}, ${a()}, ${b()}), (${id()}, ${a()}, ${b()}) ON CONFLICT ${rnd() < 0.5 ? '(id) ' : ''}DO NOTHING`;
  if (r < 0.6) return `INSERT INTO u VALUES (${id()}, ${a()}, ${b()}) ON CONFLICT (id) DO UPDATE SET a = EXCLUDED.a, b = EXCLUDED.b`;
  if (r < 0.62) return `INSERT INTO u SELECT id + ${1 + pick(50)}, a, b FROM u WHERE id % 7 = ${pick(7)}`;
  if (r < 0.72) return `UPDATE u SET a = ${a()}, b = ${b()} WHERE id = ${id()}`;
  if (r < 0.77) return `UPDATE u SET id = -id WHERE id ${rnd() < 0.6 ? '>' : '<'} 0 AND id % 5 = ${rnd() < 0.5 ? '' : '-'}${pick(5)}`;
  if (r < 0.87) return `DELETE FROM u WHERE id % 9 = ${pick(9)}`;
  if (r < 0.88) return 'TRUNCATE u';
  if (!inBlock) return 'BEGIN';
  return rnd() < 0.5 ? 'ROLLBACK' : 'COMMIT';
}

async function onPg(pg: PGlite, sql: string): Promise<Outcome> {
  try {
    const r = await pg.query<Record<string, unknown>>(sql, [], { rowMode: 'array' });
    return { ok: true, rows: r.rows as unknown as unknown[][], count: r.affectedRows ?? 0 };
  } catch (e) {
    const err = e as { code?: string; detail?: string };
    return { ok: false, code: err.code, detail: err.detail };
  }
}

async function onQuire(db: { query(sql: string): Promise<{ rows: unknown[][]; rowCount: number }> }, sql: string): Promise<Outcome> {
  try {
    const r = await db.query(sql);
    return { ok: true, rows: r.rows, count: r.rowCount };
  } catch (e) {
    const err = e as { code?: string; detail?: string };
    return { ok: false, code: err.code, detail: err.detail };
  }
}

const DDL = 'CREATE TABLE u (id int PRIMARY KEY, a int, b text, UNIQUE (a, b))';
const CONTENT = 'SELECT id, a, b FROM u ORDER BY id';

let pg: PGlite | null = null;
afterAll(async () => {
  await pg?.close();
});

describe('unique keys through their index', () => {
  it('random DML with rolled-back blocks: the same decisions and DETAIL as PostgreSQL, then the same after reopen and replay', async () => {
    pg = await readyPGlite();
    const dir = fresh();
    let db = await Database.create({ path: dir });
    for (const seed of [1, 2, 3]) {
      await pg.exec('DROP TABLE IF EXISTS u');
      await pg.exec(DDL);
      await db.query('DROP TABLE IF EXISTS u');
      await db.query(DDL);
      const rnd = seeded(seed);
      let inBlock = false;
      let rejected = 0;
      for (let step = 0; step < 300; step++) {
        const sql = statement(rnd, inBlock);
        const want = await onPg(pg, sql);
        const got = await onQuire(db, sql);
        const ctx = `seed ${seed} step ${step}: ${sql}`;
        // Rows affected too, for DML (what ON CONFLICT DO NOTHING kept).
        const count = (o: Outcome): number | undefined => (/^(INSERT|UPDATE|DELETE)/.test(sql) ? o.count : undefined);
        expect({ ctx, ok: got.ok, code: got.code, detail: got.detail, count: count(got) }).toEqual({ ctx, ok: want.ok, code: want.code, detail: want.detail, count: count(want) });
        if (!want.ok) rejected++;
        if (sql === 'BEGIN') inBlock = true;
        else if (sql === 'COMMIT' || sql === 'ROLLBACK') inBlock = false;
        // An error in a block aborts it in both: end it the same way.
        if (!want.ok && inBlock) {
          await pg.exec('ROLLBACK');
          await db.query('ROLLBACK');
          inBlock = false;
        }
      }
      if (inBlock) {
        await pg.exec('COMMIT');
        await db.query('COMMIT');
      }
      // Enough rejections that the test checks the index, not only the accepting path.
      expect(rejected).toBeGreaterThan(20);
      expect((await onQuire(db, CONTENT)).rows).toEqual((await onPg(pg, CONTENT)).rows);
    }
    // The index of a reopened directory (checkpointed tables) and of a replayed log (a copy of the
    // directory taken while open, so it has the log to replay) refuses the same keys.
    const replayed = await Database.create({ path: crashCopy(dir) });
    await db.close();
    db = await Database.create({ path: dir });
    const existing = (await onPg(pg, 'SELECT id, a, b FROM u ORDER BY id LIMIT 1')).rows![0] as [number, number | null, string | null];
    for (const q of [db, replayed]) {
      expect((await onQuire(q, CONTENT)).rows).toEqual((await onPg(pg, CONTENT)).rows);
      const dup = `INSERT INTO u VALUES (${existing[0]}, 100, 'fresh')`;
      const got = await onQuire(q, dup);
      const want = await onPg(pg, `${dup} ON CONFLICT DO NOTHING RETURNING 1`);
      expect(want.rows).toEqual([]);
      expect(got).toMatchObject({ ok: false, code: '23505', detail: `Key (id)=(${existing[0]}) already exists.` });
      expect((await onQuire(q, 'INSERT INTO u VALUES (1000, 100, NULL), (1001, 100, NULL)')).ok).toBe(true);
    }
    await replayed.close();
    await db.close();
  }, 120_000);

  it('keeps the message of the general path for a one-row INSERT into a large table', async () => {
    const db = await Database.create({ path: fresh() });
    await db.query('CREATE TABLE big (id int8 PRIMARY KEY, s text)');
    await db.query("INSERT INTO big SELECT i, 'r' || i FROM generate_series(1, 100000) i");
    await db.query("INSERT INTO big VALUES (100001, 'x')");
    await expect(db.query("INSERT INTO big VALUES (100001, 'y')")).rejects.toMatchObject({
      code: '23505',
      message: 'duplicate key value violates unique constraint "big_pkey"',
      detail: 'Key (id)=(100001) already exists.',
    });
    await expect(db.query("INSERT INTO big VALUES (50000, 'y')")).rejects.toMatchObject({ code: '23505', detail: 'Key (id)=(50000) already exists.' });
    await db.query('DELETE FROM big WHERE id = 50000');
    await db.query("INSERT INTO big VALUES (50000, 'y')");
    // A key beyond 2^53 is kept exactly, apart from its rounded neighbour.
    await db.query("INSERT INTO big VALUES (9007199254740993, 'z')");
    await db.query("INSERT INTO big VALUES (9007199254740992, 'z')");
    await expect(db.query("INSERT INTO big VALUES (9007199254740993, 'w')")).rejects.toMatchObject({ code: '23505', detail: 'Key (id)=(9007199254740993) already exists.' });
    expect((await db.query('SELECT count(*) FROM big')).rows).toEqual([[100003]]);
    await db.close();
  });

  it('an int4 and a date unique key with NULLs, indexed from the committed columns: as PostgreSQL decides', async () => {
    const pg = newPGlite();
    const db = await Database.create({ path: fresh() });
    const script = [
      'CREATE TABLE w (id int PRIMARY KEY, k int UNIQUE, d date UNIQUE)',
      "INSERT INTO w SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i * 2 END, CASE WHEN i % 7 = 0 THEN NULL ELSE date '2000-01-01' + i END FROM generate_series(1, 30000) i",
      "INSERT INTO w VALUES (30001, NULL, NULL)",
      "INSERT INTO w VALUES (30002, 59998, NULL)",
      "INSERT INTO w VALUES (30003, 59999, date '2000-01-01' + 29999)",
      "INSERT INTO w VALUES (30004, 59999, date '2000-01-01' + 30001)",
      "INSERT INTO w VALUES (30005, 60001, date '2000-01-01' + 30001)",
      "INSERT INTO w VALUES (30006, -4, NULL), (30007, -4, NULL)",
      'UPDATE w SET k = k + 1 WHERE id = 30001',
      'UPDATE w SET k = 4 WHERE id = 30005',
      'SELECT count(*) AS n, count(k) AS nk, count(d) AS nd, sum(k) AS s FROM w',
    ];
    for (const sql of script) {
      const theirs = await pg.query(sql).then(
        (r) => ({ ok: true, rows: r.rows.map((x) => Object.values(x as object).map(String)) }),
        (e: { code?: string; detail?: string }) => ({ ok: false, code: e.code, detail: e.detail }),
      );
      const ours = await db.query(sql).then(
        (r) => ({ ok: true, rows: r.rows.map((x) => x.map(String)) }),
        (e: { code?: string; detail?: string }) => ({ ok: false, code: e.code, detail: e.detail }),
      );
      expect(ours, sql).toEqual(theirs);
    }
    await db.close();
    await pg.close();
  });

  it('a table whose only key is one int4 column, INSERT … SELECT checked straight from the column: as PostgreSQL decides', async () => {
    const pg = newPGlite();
    const db = await Database.create({ path: fresh() });
    const script = [
      'CREATE TABLE p1 (id int PRIMARY KEY, s text)',
      'CREATE TABLE u1 (k int UNIQUE, s text)',
      "INSERT INTO p1 SELECT i, 'r' || i FROM generate_series(1, 20000) i",
      // A duplicate within the statement's own rows, late in its last batch.
      "INSERT INTO p1 SELECT CASE WHEN i = 9000 THEN 20500 ELSE i END, 'x' FROM generate_series(20001, 29000) i",
      // A duplicate of a committed row.
      "INSERT INTO p1 SELECT i, 'y' FROM generate_series(29001, 31000) i UNION ALL SELECT 17, 'dup'",
      "INSERT INTO p1 SELECT -i, 'neg' FROM generate_series(1, 5000) i",
      'BEGIN',
      "INSERT INTO p1 SELECT i, 'tx' FROM generate_series(40001, 41000) i",
      // A duplicate of the block's own uncommitted rows.
      "INSERT INTO p1 SELECT i, 'tx2' FROM generate_series(41000, 41010) i",
      'ROLLBACK',
      "INSERT INTO p1 SELECT i, 'after' FROM generate_series(40001, 41000) i",
      // NULLs never conflict; -2147483648 and 2147483647 are keys like any other.
      "INSERT INTO u1 SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i END, 'u' FROM generate_series(1, 9000) i",
      "INSERT INTO u1 SELECT NULL, 'n' FROM generate_series(1, 5000) i",
      "INSERT INTO u1 VALUES (-2147483648, 'min'), (2147483647, 'max')",
      "INSERT INTO u1 SELECT CASE WHEN i = 5 THEN 2147483647 ELSE 100000 + i END, 'm' FROM generate_series(1, 10) i",
      "INSERT INTO u1 SELECT i * 3, 'v' FROM generate_series(1, 3000) i",
      "INSERT INTO u1 SELECT i * 3 + 1, 'w' FROM generate_series(3000, 4000) i",
      'SELECT count(*) AS n, sum(id) AS s, count(DISTINCT s) AS d FROM p1',
      'SELECT count(*) AS n, count(k) AS nk, sum(k) AS s FROM u1',
    ];
    for (const sql of script) {
      const theirs = await pg.query(sql).then(
        (r) => ({ ok: true, rows: r.rows.map((x) => Object.values(x as object).map(String)) }),
        (e: { code?: string; detail?: string }) => ({ ok: false, code: e.code, detail: e.detail }),
      );
      const ours = await db.query(sql).then(
        (r) => ({ ok: true, rows: r.rows.map((x) => x.map(String)) }),
        (e: { code?: string; detail?: string }) => ({ ok: false, code: e.code, detail: e.detail }),
      );
      expect(ours, sql).toEqual(theirs);
    }
    await db.close();
    await pg.close();
  });

  it('two sessions inserting one key: the second waits for the first and fails with 23505 when it commits', async () => {
    const db = await Database.create({ path: fresh() });
    const a = db.connect();
    const b = db.connect();
    await a.query('CREATE TABLE k (id int PRIMARY KEY, v text)');
    // Both in blocks: the second INSERT of the key waits for the first block, which commits.
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query("INSERT INTO k VALUES (1, 'a')");
    const second = b.query("INSERT INTO k VALUES (1, 'b')");
    second.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 60));
    await a.query('COMMIT');
    await expect(second).rejects.toMatchObject({ code: '23505', detail: 'Key (id)=(1) already exists.' });
    await b.query('ROLLBACK');
    // A row committed by another session is a conflict at INSERT, inside a block or not.
    await b.query('BEGIN');
    await expect(b.query("INSERT INTO k VALUES (1, 'b')")).rejects.toMatchObject({ code: '23505' });
    await b.query('ROLLBACK');
    await expect(b.query("INSERT INTO k VALUES (1, 'b')")).rejects.toMatchObject({ code: '23505' });
    // Rows of a rolled-back block never reach the index.
    await a.query('BEGIN');
    await a.query("INSERT INTO k VALUES (2, 'a')");
    await a.query('ROLLBACK');
    await b.query("INSERT INTO k VALUES (2, 'b')");
    expect((await a.query('SELECT id, v FROM k ORDER BY id')).rows).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    await db.close();
  });

  it('a bulk load into a table with no key yet hands its checked keys to the index: as PostgreSQL decides afterwards', async () => {
    const pg = newPGlite();
    const db = await Database.create({ path: fresh() });
    const script = [
      'CREATE TABLE h1 (id int PRIMARY KEY, s text)',
      'CREATE TABLE h2 (id int PRIMARY KEY, a int, b text, UNIQUE (a, b))',
      'CREATE TABLE h3 (id int PRIMARY KEY, s text)',
      'CREATE TABLE h4 (id int PRIMARY KEY, s text)',
      // Into an empty table, then one-row INSERTs against the keys it brought.
      "INSERT INTO h1 SELECT i, 'r' || i FROM generate_series(1, 10000) i",
      "INSERT INTO h1 VALUES (5000, 'dup')",
      "INSERT INTO h1 VALUES (10000, 'dup')",
      "INSERT INTO h1 VALUES (10001, 'new')",
      "INSERT INTO h1 VALUES (10001, 'again')",
      "INSERT INTO h1 SELECT i, 'more' FROM generate_series(9990, 10010) i",
      // Two keys, one of them composite with NULLs (kept out of the set).
      "INSERT INTO h2 SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 1000 END, 'b' || (i / 1000) FROM generate_series(1, 9000) i",
      "INSERT INTO h2 VALUES (9001, 7, 'b0')",
      "INSERT INTO h2 VALUES (9002, 5, 'b0')",
      "INSERT INTO h2 VALUES (9003, NULL, 'b0')",
      "INSERT INTO h2 VALUES (42, 999, 'zz')",
      // A rolled-back bulk load, then another: only the committed one's keys are taken.
      'BEGIN',
      "INSERT INTO h3 SELECT i, 'gone' FROM generate_series(1, 8000) i",
      'ROLLBACK',
      "INSERT INTO h3 SELECT i, 'kept' FROM generate_series(20001, 28000) i",
      "INSERT INTO h3 VALUES (100, 'was rolled back')",
      "INSERT INTO h3 VALUES (25000, 'dup')",
      // A bulk load in a block with a one-row INSERT after it: the block commits more than the bulk.
      'BEGIN',
      "INSERT INTO h4 SELECT i, 'bulk' FROM generate_series(1, 6000) i",
      "INSERT INTO h4 VALUES (7000, 'one')",
      'COMMIT',
      "INSERT INTO h4 VALUES (7000, 'dup')",
      "INSERT INTO h4 VALUES (3000, 'dup')",
      "INSERT INTO h4 VALUES (6500, 'new')",
      // A small bulk load whose rows go into the open batch at COMMIT.
      'CREATE TABLE h5 (id int PRIMARY KEY)',
      'INSERT INTO h5 SELECT i FROM generate_series(1, 300) i',
      'INSERT INTO h5 VALUES (150)',
      'INSERT INTO h5 VALUES (301)',
      'SELECT count(*) AS n, sum(id) AS s FROM h1',
      'SELECT count(*) AS n, sum(id) AS s, count(a) AS na FROM h2',
      'SELECT count(*) AS n, sum(id) AS s FROM h3',
      'SELECT count(*) AS n, sum(id) AS s FROM h4',
      'SELECT count(*) AS n, sum(id) AS s FROM h5',
    ];
    for (const sql of script) {
      const theirs = await pg.query(sql).then(
        (r) => ({ ok: true, rows: r.rows.map((x) => Object.values(x as object).map(String)) }),
        (e: { code?: string; detail?: string }) => ({ ok: false, code: e.code, detail: e.detail }),
      );
      const ours = await db.query(sql).then(
        (r) => ({ ok: true, rows: r.rows.map((x) => x.map(String)) }),
        (e: { code?: string; detail?: string }) => ({ ok: false, code: e.code, detail: e.detail }),
      );
      expect(ours, sql).toEqual(theirs);
    }
    await db.close();
    await pg.close();
  });

  it('the first one-row INSERT after a bulk load into an empty table adds one key, not the table\'s', async () => {
    const db = await Database.create({ path: fresh() });
    await db.query('CREATE TABLE b (id int PRIMARY KEY, v float8)');
    await db.query('INSERT INTO b SELECT i, i * 0.5 FROM generate_series(1, 50000) i');
    const insert = vi.spyOn(KeySet.prototype, 'insert');
    try {
      await db.query('INSERT INTO b VALUES (50001, 1)');
      await expect(db.query('INSERT INTO b VALUES (25000, 1)')).rejects.toMatchObject({ code: '23505', detail: 'Key (id)=(25000) already exists.' });
      await db.query('INSERT INTO b VALUES (50002, 1)');
      expect(insert.mock.calls.length).toBeLessThan(10);
    } finally {
      insert.mockRestore();
    }
    expect((await db.query('SELECT count(*)::int, max(id) FROM b')).rows).toEqual([[50002, 50002]]);
    await db.close();
  });

  it('a one-row DELETE hands the key it frees to the index: the next INSERT adds one key, not the table\'s', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE d (id int PRIMARY KEY, s text UNIQUE)');
    await db.query("INSERT INTO d SELECT i, 's' || i FROM generate_series(1, 50000) i");
    await db.query("INSERT INTO d VALUES (50001, 'x')");
    const insert = vi.spyOn(KeySet.prototype, 'insert');
    try {
      await db.query('DELETE FROM d WHERE id = 70');
      await db.query("INSERT INTO d VALUES (70, 's70')");
      await expect(db.query("INSERT INTO d VALUES (71, 'y')")).rejects.toMatchObject({ code: '23505', detail: 'Key (id)=(71) already exists.' });
      await db.query('DELETE FROM d WHERE id IN (5, 6) OR s = \'s9\'');
      await expect(db.query("INSERT INTO d VALUES (5, 's5'), (6, 's6'), (9, 's8')")).rejects.toMatchObject({ code: '23505', detail: 'Key (s)=(s8) already exists.' });
      await db.query("INSERT INTO d VALUES (5, 's5'), (6, 's6'), (9, 's9')");
      // A DELETE rolled back leaves its keys taken.
      const a = db.connect();
      await a.query('BEGIN');
      await a.query('DELETE FROM d WHERE id = 12');
      await a.query('ROLLBACK');
      await expect(db.query("INSERT INTO d VALUES (12, 'z')")).rejects.toMatchObject({ code: '23505' });
      expect(insert.mock.calls.length).toBeLessThan(40);
    } finally {
      insert.mockRestore();
    }
    expect((await db.query('SELECT count(*)::int, sum(id)::int8 FROM d')).rows).toEqual([[50001, 50001 * 25000 + 50001]]);
    await db.close();
  });

  it('sessions bulk loading side by side: each set is taken only when its batches are what committed', async () => {
    const db = await Database.create({ path: fresh() });
    const a = db.connect();
    const b = db.connect();
    await a.query('CREATE TABLE s (id int PRIMARY KEY)');
    await a.query('BEGIN');
    await a.query('INSERT INTO s SELECT i FROM generate_series(1, 10000) i');
    // b checks and commits its own bulk load while a's is pending: b's set is offered last.
    await b.query('INSERT INTO s SELECT i FROM generate_series(20001, 30000) i');
    await a.query('COMMIT');
    for (const k of [1, 5000, 10000, 20001, 25000, 30000]) {
      await expect(b.query(`INSERT INTO s VALUES (${k})`), String(k)).rejects.toMatchObject({ code: '23505' });
    }
    await b.query('INSERT INTO s VALUES (15000), (30001)');
    // a's block checked first, b committed a row in between: a's set describes other rows.
    await a.query('BEGIN');
    await a.query('INSERT INTO s SELECT i FROM generate_series(40001, 45000) i');
    await b.query('INSERT INTO s VALUES (50000)');
    await a.query('COMMIT');
    await expect(a.query('INSERT INTO s VALUES (50000)')).rejects.toMatchObject({ code: '23505' });
    await expect(a.query('INSERT INTO s VALUES (44444)')).rejects.toMatchObject({ code: '23505' });
    expect((await a.query('SELECT count(*)::int FROM s')).rows).toEqual([[25003]]);
    await db.close();
  });
});
