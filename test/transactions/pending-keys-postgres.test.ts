/**
 * Unique keys between concurrent sessions, compared with a real PostgreSQL server (.ci/run starts one
 * and exports QUIRE_TEST_PG_DSN): random scripts over three sessions of blocks and autocommit INSERTs
 * (plain and ON CONFLICT DO NOTHING) of a few keys, DELETEs freeing them and UPDATEs moving rows to
 * other keys (inside blocks, where the key stays taken until COMMIT; DELETEs in autocommit too),
 * failing statements inside blocks, COMMIT and ROLLBACK. After each statement both engines must agree on whether it is still waiting, on the
 * outcome of every statement that has finished (its row count or SQLSTATE), and at the end on the
 * table. Statements that could wait are only issued while no session waits, so no deadlock arises
 * (PostgreSQL picks its victim after deadlock_timeout, by timing). The scripts run with READ COMMITTED
 * blocks and again with REPEATABLE READ ones (their snapshot taken at once by a SELECT, as PostgreSQL
 * takes it at a block's first statement), which also read the table now and then: keys others
 * committed or gave up after the snapshot, rows the snapshot still shows.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const DSN = process.env.QUIRE_TEST_PG_DSN;
const TABLE = 'pending_keys_diff';
const SESSIONS = 3;
const KEYS = 4;

interface Engine {
  run(session: number, sql: string): Promise<string>;
}

/** The outcome of a statement as both engines can report it: a row count, the rows read, or a SQLSTATE. */
function settle(sql: string, p: Promise<{ rowCount: number | null; rows: unknown[] }>): Promise<string> {
  return p.then(
    (r) => (/^(INSERT|DELETE|UPDATE)/.test(sql) ? `ok ${r.rowCount}` : sql.startsWith('SELECT id') ? JSON.stringify(r.rows) : 'ok'),
    (e: { code?: string }) => `error ${e.code ?? String(e)}`,
  );
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.skipIf(DSN === undefined)('unique keys between sessions: as PostgreSQL decides', () => {
  let clients: pg.Client[] = [];

  // Fresh connections per script: a script that failed midway leaves blocks open on its own.
  beforeEach(async () => {
    clients = [];
    for (let i = 0; i < SESSIONS; i++) {
      const c = new pg.Client({ connectionString: DSN });
      await c.connect();
      clients.push(c);
    }
  });

  afterEach(async () => {
    for (const c of clients) await c.end();
  });

  afterAll(async () => {
    const c = new pg.Client({ connectionString: DSN });
    await c.connect();
    await c.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await c.end();
  });

  const runs: [string, boolean, number[]][] = [
    ['random script', false, [1, 2, 4, 5, 7]],
    ['REPEATABLE READ: random script', true, [2, 4, 9, 11, 13]],
  ];
  for (const [title, rr, seeds] of runs) for (const seed of seeds) {
    it(`${title} ${seed}`, async () => {
      const db = await Database.create();
      const sessions = Array.from({ length: SESSIONS }, () => db.connect());
      const setup = [`DROP TABLE IF EXISTS ${TABLE}`, `CREATE TABLE ${TABLE} (id int PRIMARY KEY, who text)`, `INSERT INTO ${TABLE} VALUES (1, 'base'), (2, 'base')`];
      for (const sql of setup) {
        await clients[0]!.query(sql);
        await db.query(sql);
      }
      const engines: Engine[] = [
        { run: (s, sql) => settle(sql, clients[s]!.query({ text: sql, rowMode: 'array' })) },
        { run: (s, sql) => settle(sql, sessions[s]!.query(sql)) },
      ];
      const rnd = seeded(seed);
      const inBlock = new Array<boolean>(SESSIONS).fill(false);
      const failed = new Array<boolean>(SESSIONS).fill(false);
      // Per session, the statement still waiting on each engine (its outcome once known).
      const waiting: ({ sql: string; outcomes: (string | null)[] } | null)[] = new Array(SESSIONS).fill(null);
      const log: string[] = [];
      let waits = 0;
      const finished = (w: { outcomes: (string | null)[] }): boolean[] => w.outcomes.map((o) => o !== null);
      for (let step = 0; step < 60; step++) {
        const anyWaiting = waiting.some((w) => w !== null);
        const free = [...Array(SESSIONS).keys()].filter((s) => waiting[s] === null);
        const s = free[Math.floor(rnd() * free.length)]!;
        const key = 1 + Math.floor(rnd() * KEYS);
        const who = `s${s}`;
        let sql: string;
        const r = rnd();
        if (!inBlock[s]) {
          if (r < 0.35) sql = rr ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN';
          else if (anyWaiting) sql = 'SELECT 1';
          // Autocommit DELETEs free keys again.
          else if (r < 0.55) sql = `DELETE FROM ${TABLE} WHERE id = ${key}`;
          else sql = r < 0.8 ? `INSERT INTO ${TABLE} VALUES (${key}, '${who}')` : `INSERT INTO ${TABLE} VALUES (${key}, '${who}') ON CONFLICT DO NOTHING`;
        } else if (r < 0.2) sql = 'COMMIT';
        else if (r < 0.3) sql = 'ROLLBACK';
        else if (r < 0.36) sql = 'SELECT 1/0';
        else if (rr && r < 0.4) sql = `SELECT id, who FROM ${TABLE} ORDER BY id, who`;
        else if (anyWaiting) sql = 'SELECT 1';
        // A block's DELETE, or UPDATE moving a row to another key, gives its key up only if it commits.
        else if (r < 0.46) sql = `DELETE FROM ${TABLE} WHERE id = ${key}`;
        else if (r < 0.54) sql = `UPDATE ${TABLE} SET id = ${1 + Math.floor(rnd() * KEYS)} WHERE id = ${key}`;
        else sql = r < 0.85 ? `INSERT INTO ${TABLE} VALUES (${key}, '${who}')` : `INSERT INTO ${TABLE} VALUES (${key}, '${who}') ON CONFLICT DO NOTHING`;
        const ctx = `seed ${seed} step ${step} session ${s}: ${sql}\n${log.join('\n')}`;
        const w = { sql, outcomes: [null, null] as (string | null)[] };
        const ran = engines.map((e, k) => e.run(s, sql).then((o) => (w.outcomes[k] = o)));
        // A statement that has not finished on both within 150 ms waits. One that has may have let a
        // waiting one go (COMMIT, ROLLBACK, DELETE): a moment more for that one to finish.
        const both = await Promise.race([Promise.all(ran).then(() => true), pause(150).then(() => false)]);
        if (both && waiting.some((y) => y !== null)) await pause(40);
        // Whether each statement (this one and those waiting before) has finished, the same on both.
        for (const x of [w, ...waiting.filter((y) => y !== null)]) {
          // One engine finished and the other not: give the slower one time (a loaded machine) before
          // calling it a difference; a statement that really waits stays unfinished on both.
          for (let t = 0; t < 30 && finished(x)[0] !== finished(x)[1]; t++) await pause(100);
          const done = finished(x);
          expect({ ctx, sql: x.sql, finished: finished(x) }).toEqual({ ctx, sql: x.sql, finished: [finished(x)[0], finished(x)[0]] });
          if (done[0]) expect({ ctx, sql: x.sql, outcome: x.outcomes[1] }).toEqual({ ctx, sql: x.sql, outcome: x.outcomes[0] });
        }
        log.push(`${s}: ${sql} -> ${w.outcomes[0] ?? 'waits'}`);
        for (let t = 0; t < SESSIONS; t++) if (waiting[t] !== null && waiting[t]!.outcomes[0] !== null) waiting[t] = null;
        if (w.outcomes[0] === null) {
          waiting[s] = w;
          waits++;
        }
        // Block state follows PostgreSQL's answers (the outcomes agree, as checked above).
        const track = (t: number, q: string, o: string): void => {
          if (q.startsWith('BEGIN')) inBlock[t] = true;
          else if (q === 'COMMIT' || q === 'ROLLBACK') {
            inBlock[t] = false;
            failed[t] = false;
          } else if (inBlock[t] && o.startsWith('error')) failed[t] = true;
        };
        if (w.outcomes[0] !== null) track(s, sql, w.outcomes[0]);
        // PostgreSQL takes a REPEATABLE READ snapshot at the block's first statement: take it now.
        if (rr && sql.startsWith('BEGIN')) {
          const read = `SELECT id, who FROM ${TABLE} ORDER BY id, who`;
          const o = await Promise.all(engines.map((e) => e.run(s, read)));
          expect({ ctx, snapshot: o[1] }).toEqual({ ctx, snapshot: o[0] });
          log.push(`${s}: ${read} -> ${o[0]}`);
        }
        // A failed block only takes ROLLBACK (COMMIT of it rolls back too).
        for (let t = 0; t < SESSIONS; t++) {
          if (failed[t] && waiting[t] === null) {
            const o = await Promise.all(engines.map((e) => e.run(t, 'ROLLBACK')));
            expect({ ctx, rollback: o[1] }).toEqual({ ctx, rollback: o[0] });
            inBlock[t] = false;
            failed[t] = false;
            log.push(`${t}: ROLLBACK`);
          }
        }
      }
      // End every block; what a waiting statement does once its holder ends is compared too.
      for (let round = 0; round < SESSIONS && waiting.some((w) => w !== null); round++) {
        for (let t = 0; t < SESSIONS; t++) {
          if (waiting[t] === null && inBlock[t]) {
            await Promise.all(engines.map((e) => e.run(t, 'COMMIT')));
            inBlock[t] = false;
          }
        }
        await pause(300);
        for (let t = 0; t < SESSIONS; t++) {
          const w = waiting[t];
          if (w === null) continue;
          expect({ sql: w.sql, outcome: w.outcomes[1] }).toEqual({ sql: w.sql, outcome: w.outcomes[0] });
          if (w.outcomes[0] !== null) waiting[t] = null;
        }
      }
      for (let t = 0; t < SESSIONS; t++) if (inBlock[t]) await Promise.all(engines.map((e) => e.run(t, 'COMMIT')));
      const content = `SELECT id, who FROM ${TABLE} ORDER BY id`;
      const theirs = (await clients[0]!.query({ text: content, rowMode: 'array' })).rows;
      const ours = (await db.query(content)).rows;
      expect({ seed, rows: ours }).toEqual({ seed, rows: theirs });
      if (process.env.PKLOG) console.log(log.join("\n"));
      // The script must have made statements wait, or it did not test what it is for.
      expect(waits).toBeGreaterThan(0);
      await db.close();
    }, 60_000);
  }
});
