/**
 * A transaction holding more keys than fit a small registry: a bulk INSERT … SELECT, a COPY, a
 * DELETE or a key-moving UPDATE of 150,000 rows in a block. As in PostgreSQL, another session's
 * writer of any of those keys waits for the block to end, then finds the key taken or free by how it
 * ended, however many keys the block wrote (the registry once stopped at 100,000 keys, past which the
 * writer went on and one of the two failed at its COMMIT, or a key given up was refused at once).
 *
 * The expected outcomes are PostgreSQL 15's: with QUIRE_TEST_PG_DSN set (.ci/start-postgres.sh starts
 * a server) the same steps run against it too and must give the same outcomes.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { runSteps, type Conn, type Step } from '../harness/session-steps.js';

const DSN = process.env.QUIRE_TEST_PG_DSN;
const T = 'many_keys';
const N = 150_000;
const all = `INSERT INTO ${T} SELECT g FROM generate_series(1, ${N}) g`;
const summary = `SELECT count(*)::int, min(id), max(id) FROM ${T}`;

// COPY's file, which the PostgreSQL server (another user) reads too.
const dir = mkdtempSync(join(tmpdir(), 'quire-many-keys-'));
chmodSync(dir, 0o755);
const copyFile = join(dir, 'keys.csv');
writeFileSync(copyFile, Array.from({ length: N }, (_, i) => `${i + 1}\n`).join(''));
chmodSync(copyFile, 0o644);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  name: string;
  /** Rows before the steps. */
  seed: string[];
  steps: Step[];
  /** `summary` at the end: count, min, max. */
  final: string;
}

const cases: Case[] = [
  {
    name: 'a bulk INSERT … SELECT in a block, committed: a writer of its last keys waits, then 23505',
    seed: [],
    steps: [['a', 'BEGIN', 'ok'], ['a', all, `ok ${N}`], ['b', `INSERT INTO ${T} VALUES (${N - 10})`, 'waits'], ['a', 'COMMIT', 'ok'], ['b', 'await', '23505'], ['b', `INSERT INTO ${T} VALUES (${N + 1})`, 'ok 1']],
    final: `[[${N + 1},1,${N + 1}]]`,
  },
  {
    name: 'a bulk INSERT … SELECT in a block, rolled back: ON CONFLICT DO NOTHING waits, then inserts',
    seed: [],
    steps: [['a', 'BEGIN', 'ok'], ['a', all, `ok ${N}`], ['b', `INSERT INTO ${T} VALUES (${N - 10}) ON CONFLICT DO NOTHING`, 'waits'], ['a', 'ROLLBACK', 'ok'], ['b', 'await', 'ok 1']],
    final: `[[1,${N - 10},${N - 10}]]`,
  },
  {
    name: 'COPY in a block, committed: ON CONFLICT DO NOTHING waits, then skips',
    seed: [],
    steps: [['a', 'BEGIN', 'ok'], ['a', `COPY ${T} FROM '${copyFile}'`, `ok ${N}`], ['b', `INSERT INTO ${T} VALUES (${N - 1}) ON CONFLICT DO NOTHING`, 'waits'], ['a', 'COMMIT', 'ok'], ['b', 'await', 'ok 0']],
    final: `[[${N},1,${N}]]`,
  },
  {
    name: 'a DELETE of every row in a block, committed: a writer of a key it gave up waits, then inserts',
    seed: [all],
    steps: [['a', 'BEGIN', 'ok'], ['a', `DELETE FROM ${T}`, `ok ${N}`], ['b', `INSERT INTO ${T} VALUES (${N - 5})`, 'waits'], ['a', 'COMMIT', 'ok'], ['b', 'await', 'ok 1']],
    final: `[[1,${N - 5},${N - 5}]]`,
  },
  {
    name: 'an UPDATE moving every key in a block, rolled back: a writer of a key it gave up waits, then 23505',
    seed: [all],
    steps: [['a', 'BEGIN', 'ok'], ['a', `UPDATE ${T} SET id = id + ${N}`, `ok ${N}`], ['b', `INSERT INTO ${T} VALUES (${N - 7})`, 'waits'], ['a', 'ROLLBACK', 'ok'], ['b', 'await', '23505']],
    final: `[[${N},1,${N}]]`,
  },
  {
    name: 'an UPDATE moving every key in a block, committed: a writer of a key it took waits, then 23505',
    seed: [all],
    steps: [['a', 'BEGIN', 'ok'], ['a', `UPDATE ${T} SET id = id + ${N}`, `ok ${N}`], ['b', `INSERT INTO ${T} VALUES (${2 * N - 3})`, 'waits'], ['a', 'COMMIT', 'ok'], ['b', 'await', '23505']],
    final: `[[${N},${N + 1},${2 * N}]]`,
  },
];

async function run(c: Case, a: Conn, b: Conn): Promise<{ got: string[]; final: string }> {
  await b.query(`DROP TABLE IF EXISTS ${T}`);
  await b.query(`CREATE TABLE ${T} (id int PRIMARY KEY)`);
  for (const sql of c.seed) await b.query(sql);
  const got = await runSteps(c.steps, a, b);
  const res = await b.query(summary);
  return { got, final: JSON.stringify(res.rows) };
}

describe('a block holding more than 100,000 keys (Quire)', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const db = await Database.create();
      try {
        const { got, final } = await run(c, db.connect(), db.connect());
        expect(got).toEqual(c.steps.map((x) => x[2]));
        expect(final).toBe(c.final);
      } finally {
        await db.close();
      }
    }, 60_000);
  }
});

describe.skipIf(DSN === undefined)('a block holding more than 100,000 keys: the same outcomes on PostgreSQL', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const clients = [new pg.Client({ connectionString: DSN }), new pg.Client({ connectionString: DSN })];
      for (const x of clients) await x.connect();
      try {
        const conn = (x: pg.Client): Conn => ({ query: (sql, params) => x.query({ text: sql, values: params, rowMode: 'array' }) });
        const { got, final } = await run(c, conn(clients[0]!), conn(clients[1]!));
        expect(got).toEqual(c.steps.map((x) => x[2]));
        expect(final).toBe(c.final);
        await clients[1]!.query(`DROP TABLE IF EXISTS ${T}`);
      } finally {
        for (const x of clients) await x.end();
      }
    }, 60_000);
  }
});
