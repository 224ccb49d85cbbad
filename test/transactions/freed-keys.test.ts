/**
 * Unique keys another session gave up (a DELETE of the row holding the key, an UPDATE moving the row
 * to another key) while a transaction runs: PostgreSQL's unique check ignores a row whose deleter
 * committed, whatever the checking transaction's snapshot, so under REPEATABLE READ the key can be
 * written again although the snapshot still shows the old row (which a later SELECT then shows next
 * to the new one). A key given up by a session still open makes the writer wait; the key is free once
 * the deleter commits and taken again if it rolls back. READ COMMITTED runs alongside for contrast.
 *
 * Each scenario's expected outcomes are PostgreSQL 15's: with QUIRE_TEST_PG_DSN set
 * (.ci/start-postgres.sh starts a server) the same scenarios run against it too and must give the
 * same outcomes, statement by statement, and leave the same table.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { runSteps, type Conn, type Step } from '../harness/session-steps.js';

const DSN = process.env.QUIRE_TEST_PG_DSN;
const T = 'freed_keys';

interface Scenario {
  name: string;
  isolation: 'REPEATABLE READ' | 'READ COMMITTED';
  /** The table; (id int PRIMARY KEY, v text) holding (1..3, 'seed') unless given. */
  table?: string;
  seed?: string[];
  steps: Step[];
  /** The table at the end, ordered by every column. */
  final: unknown[][];
}

const seed3 = [`INSERT INTO ${T} VALUES (1, 'seed'), (2, 'seed'), (3, 'seed')`];
const sel = `SELECT * FROM ${T} ORDER BY 1, 2`;
const RR = 'REPEATABLE READ';
const RC = 'READ COMMITTED';

// The directory COPY reads its file from: the PostgreSQL server, another user, reads it too.
const dir = mkdtempSync(join(tmpdir(), 'quire-freed-keys-'));
chmodSync(dir, 0o755);
const copyFile = join(dir, 'rows.csv');
writeFileSync(copyFile, '1,copied\n4,copied\n');
chmodSync(copyFile, 0o644);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scenarios: Scenario[] = [];

for (const iso of [RR, RC] as const) {
  const rr = iso === RR;
  scenarios.push(
    {
      name: 'a key another session deleted and committed: INSERT it, and the snapshot shows both rows',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine')`, 'ok 1'],
        ['a', sel, rr ? '[[1,"seed"],[2,"mine"],[2,"seed"],[3,"seed"]]' : '[[1,"seed"],[2,"mine"],[3,"seed"]]'],
        // Taken again, by this transaction's own row.
        ['a', `INSERT INTO ${T} VALUES (2, 'again')`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [3, 'seed']],
    },
    {
      name: 'a key another session deleted and committed: INSERT it and COMMIT',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine'), (4, 'mine')`, 'ok 2'],
        ['a', 'COMMIT', 'ok'],
      ],
      final: [[1, 'seed'], [2, 'mine'], [3, 'seed'], [4, 'mine']],
    },
    {
      name: 'a key another session moved its row off (UPDATE k → k2): k is free, k2 taken',
      isolation: iso,
      steps: [
        ['b', `UPDATE ${T} SET id = 5 WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine')`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (5, 'mine')`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [3, 'seed'], [5, 'seed']],
    },
    {
      name: 'a key whose row another session updated (not its key) stays taken',
      isolation: iso,
      steps: [
        ['b', `UPDATE ${T} SET v = 'touched' WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine')`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [2, 'touched'], [3, 'seed']],
    },
    {
      name: 'ON CONFLICT DO NOTHING on a key whose row another session updated',
      isolation: iso,
      steps: [
        ['b', `UPDATE ${T} SET v = 'touched' WHERE id = 2`, 'ok 1'],
        // REPEATABLE READ cannot skip a row version its snapshot does not show.
        ['a', `INSERT INTO ${T} VALUES (2, 'mine') ON CONFLICT DO NOTHING`, rr ? '40001' : 'ok 0'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [2, 'touched'], [3, 'seed']],
    },
    {
      name: 'ON CONFLICT DO UPDATE on a key whose row another session updated',
      isolation: iso,
      steps: [
        ['b', `UPDATE ${T} SET v = 'touched' WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine') ON CONFLICT (id) DO UPDATE SET v = excluded.v`, rr ? '40001' : 'ok 1'],
        ['a', 'COMMIT', 'ok'],
      ],
      final: [[1, 'seed'], [2, rr ? 'touched' : 'mine'], [3, 'seed']],
    },
    {
      name: 'a DELETE of the key written again over a deleted row',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine')`, 'ok 1'],
        // REPEATABLE READ also sees the deleted row, which it cannot delete again.
        ['a', `DELETE FROM ${T} WHERE id = 2`, rr ? '40001' : 'ok 1'],
        ['a', 'COMMIT', 'ok'],
      ],
      final: [[1, 'seed'], [3, 'seed']],
    },
    {
      name: 'a key another session deleted and wrote again stays taken',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['b', `INSERT INTO ${T} VALUES (2, 'other')`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine')`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [2, 'other'], [3, 'seed']],
    },
    {
      name: 'ON CONFLICT DO NOTHING on a deleted key inserts',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine') ON CONFLICT DO NOTHING`, 'ok 1'],
        ['a', sel, rr ? '[[1,"seed"],[2,"mine"],[2,"seed"],[3,"seed"]]' : '[[1,"seed"],[2,"mine"],[3,"seed"]]'],
        ['a', `INSERT INTO ${T} VALUES (2, 'again') ON CONFLICT DO NOTHING`, 'ok 0'],
        ['a', 'COMMIT', 'ok'],
      ],
      final: [[1, 'seed'], [2, 'mine'], [3, 'seed']],
    },
    {
      name: 'ON CONFLICT DO UPDATE on a deleted key inserts (and then updates its own row)',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine') ON CONFLICT (id) DO UPDATE SET v = 'upd'`, 'ok 1'],
        ['a', sel, rr ? '[[1,"seed"],[2,"mine"],[2,"seed"],[3,"seed"]]' : '[[1,"seed"],[2,"mine"],[3,"seed"]]'],
        ['a', `INSERT INTO ${T} VALUES (2, 'x') ON CONFLICT (id) DO UPDATE SET v = excluded.v || '!'`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (3, 'x'), (6, 'new') ON CONFLICT (id) DO UPDATE SET v = 'upd3'`, 'ok 2'],
        ['a', 'COMMIT', 'ok'],
      ],
      final: [[1, 'seed'], [2, 'x!'], [3, 'upd3'], [6, 'new']],
    },
    {
      name: "an UPDATE giving another row the deleted key",
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `UPDATE ${T} SET id = 2 WHERE id = 3`, 'ok 1'],
        ['a', sel, rr ? '[[1,"seed"],[2,"seed"],[2,"seed"]]' : '[[1,"seed"],[2,"seed"]]'],
        ['a', `UPDATE ${T} SET id = 2 WHERE id = 1`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [3, 'seed']],
    },
    {
      name: 'an UPDATE moving a row to the deleted key, committed',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `UPDATE ${T} SET id = id - 1 WHERE id = 3`, 'ok 1'],
        ['a', 'COMMIT', 'ok'],
      ],
      final: [[1, 'seed'], [2, 'seed']],
    },
    {
      name: 'an UPDATE of the row another session deleted',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        // REPEATABLE READ still sees the row and cannot update it; READ COMMITTED no longer sees it.
        ['a', `UPDATE ${T} SET v = 'x' WHERE id = 2`, rr ? '40001' : 'ok 0'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [3, 'seed']],
    },
    {
      name: 'INSERT … SELECT, a parameter INSERT and COPY of deleted keys',
      isolation: iso,
      seed: [`INSERT INTO ${T} VALUES (1, 'seed'), (2, 'seed'), (3, 'seed'), (7, 'seed'), (8, 'seed')`],
      steps: [
        ['b', `DELETE FROM ${T} WHERE id IN (2, 7, 8)`, 'ok 3'],
        ['a', `INSERT INTO ${T} SELECT g, 'select' FROM generate_series(7, 8) g`, 'ok 2'],
        ['a', `INSERT INTO ${T} SELECT g, 'select' FROM generate_series(8, 9) g`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
        ['a', rr ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN', 'ok'],
        ['a', sel, '[[1,"seed"],[3,"seed"]]'],
        ['b', `INSERT INTO ${T} VALUES (10, 'other')`, 'ok 1'],
        ['b', `DELETE FROM ${T} WHERE id IN (1, 3)`, 'ok 2'],
        ['a', `INSERT INTO ${T} VALUES ($1, 'param')`, 'ok 1'],
        ['a', `COPY ${T} FROM '${copyFile}' WITH (FORMAT csv)`, 'ok 2'],
        ['a', `COPY ${T} FROM '${copyFile}' WITH (FORMAT csv)`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[10, 'other']],
    },
    {
      name: 'keys freed while this transaction rewrote the table itself',
      isolation: iso,
      seed: [`INSERT INTO ${T} VALUES (1, 'seed'), (2, 'seed'), (3, 'seed'), (4, 'seed')`],
      steps: [
        ['a', `UPDATE ${T} SET v = 'mine' WHERE id = 1`, 'ok 1'],
        ['a', `DELETE FROM ${T} WHERE id = 4`, 'ok 1'],
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['b', `UPDATE ${T} SET id = 30 WHERE id = 3`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine'), (3, 'mine'), (4, 'mine')`, 'ok 3'],
        ['a', `INSERT INTO ${T} VALUES (30, 'mine')`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [4, 'seed'], [30, 'seed']],
    },
    {
      name: 'keys freed while this transaction rewrote the table itself, committed',
      isolation: iso,
      seed: [`INSERT INTO ${T} VALUES (1, 'seed'), (2, 'seed'), (3, 'seed'), (4, 'seed')`],
      steps: [
        ['a', `UPDATE ${T} SET v = 'mine' WHERE id = 1`, 'ok 1'],
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine')`, 'ok 1'],
        // Rows of the snapshot other than the deleted one move without their keys changing.
        ['a', `UPDATE ${T} SET v = v || '+' WHERE id <> 2`, 'ok 3'],
        ['a', `UPDATE ${T} SET id = id * 10 WHERE id = 4`, 'ok 1'],
        ['a', 'COMMIT', 'ok'],
      ],
      final: [[1, 'mine+'], [2, 'mine'], [3, 'seed+'], [40, 'seed+']],
    },
    {
      name: 'keys freed by two commits, each rewriting the table',
      isolation: iso,
      steps: [
        ['b', `DELETE FROM ${T} WHERE id = 2`, 'ok 1'],
        ['b', `UPDATE ${T} SET id = 30 WHERE id = 3`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES (2, 'mine'), (3, 'mine')`, 'ok 2'],
        // Row 1, untouched by both, is still the snapshot's: skipped, not a conflict.
        ['a', `INSERT INTO ${T} VALUES (1, 'mine') ON CONFLICT DO NOTHING`, 'ok 0'],
        ['a', `INSERT INTO ${T} VALUES (30, 'mine') ON CONFLICT DO NOTHING`, rr ? '40001' : 'ok 0'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [[1, 'seed'], [30, 'seed']],
    },
    {
      name: 'a text key freed by another session',
      isolation: iso,
      table: `${T} (k text PRIMARY KEY, n int UNIQUE)`,
      seed: [`INSERT INTO ${T} VALUES ('a', 1), ('b', 2), ('ü', 3)`],
      steps: [
        ['b', `DELETE FROM ${T} WHERE k = 'ü'`, 'ok 1'],
        ['b', `UPDATE ${T} SET n = 20 WHERE k = 'b'`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES ('ü', 2)`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES ('c', 3)`, 'ok 1'],
        ['a', `INSERT INTO ${T} VALUES ('b', 4)`, '23505'],
        ['a', 'ROLLBACK', 'ok'],
      ],
      final: [['a', 1], ['b', 20]],
    },
  );
  // Another session's DELETE (or key-moving UPDATE) not yet committed: the writer of the key waits,
  // then finds it free (the other committed) or taken (it rolled back).
  for (const end of ['COMMIT', 'ROLLBACK'] as const) {
    const committed = end === 'COMMIT';
    const afterDelete = committed ? [[1, 'seed'], [3, 'seed']] : [[1, 'seed'], [2, 'seed'], [3, 'seed']];
    const waiting = (name: string, freeing: string, stmt: string, after: string, final: unknown[][]): Scenario => ({
      name: `${name}, the other session's ${end}`,
      isolation: iso,
      steps: [['b', 'BEGIN', 'ok'], ['b', freeing, 'ok 1'], ['a', stmt, 'waits'], ['b', end, 'ok'], ['a', 'await', after], ['a', 'COMMIT', 'ok']],
      final,
    });
    scenarios.push(
      waiting('INSERT of a key being deleted', `DELETE FROM ${T} WHERE id = 2`, `INSERT INTO ${T} VALUES (2, 'mine')`, committed ? 'ok 1' : '23505', committed ? [[1, 'seed'], [2, 'mine'], [3, 'seed']] : afterDelete),
      waiting('INSERT of a key being moved off', `UPDATE ${T} SET id = 5 WHERE id = 2`, `INSERT INTO ${T} VALUES (2, 'mine')`, committed ? 'ok 1' : '23505', committed ? [[1, 'seed'], [2, 'mine'], [3, 'seed'], [5, 'seed']] : afterDelete),
      waiting('ON CONFLICT DO NOTHING on a key being deleted', `DELETE FROM ${T} WHERE id = 2`, `INSERT INTO ${T} VALUES (2, 'mine') ON CONFLICT DO NOTHING`, committed ? 'ok 1' : 'ok 0', committed ? [[1, 'seed'], [2, 'mine'], [3, 'seed']] : afterDelete),
      waiting('ON CONFLICT DO UPDATE on a key being deleted', `DELETE FROM ${T} WHERE id = 2`, `INSERT INTO ${T} VALUES (2, 'mine') ON CONFLICT (id) DO UPDATE SET v = 'upd'`, 'ok 1', committed ? [[1, 'seed'], [2, 'mine'], [3, 'seed']] : [[1, 'seed'], [2, 'upd'], [3, 'seed']]),
      waiting('an UPDATE to a key being deleted', `DELETE FROM ${T} WHERE id = 2`, `UPDATE ${T} SET id = 2 WHERE id = 3`, committed ? 'ok 1' : '23505', committed ? [[1, 'seed'], [2, 'seed']] : afterDelete),
    );
  }
}

/** Runs `s` on connections `a` and `b` of one engine: each step's outcome, and the table at the end. */
async function runScenario(s: Scenario, a: Conn, b: Conn): Promise<{ got: string[]; final: unknown[][] }> {
  await b.query(`DROP TABLE IF EXISTS ${T}`);
  await b.query(`CREATE TABLE ${s.table ?? `${T} (id int PRIMARY KEY, v text)`}`);
  for (const sql of s.seed ?? seed3) await b.query(sql);
  await a.query(`BEGIN ISOLATION LEVEL ${s.isolation}`);
  // The snapshot is taken by the transaction's first query.
  await a.query(`SELECT count(*) FROM ${T}`);
  const got = await runSteps(s.steps, a, b, [3]);
  const res = await b.query(`SELECT * FROM ${T} ORDER BY 1, 2`);
  return { got, final: res.rows as unknown[][] };
}

const expected = (s: Scenario): string[] => s.steps.map((x) => x[2]);

describe('keys another session gave up (Quire)', () => {
  for (const s of scenarios) {
    it(`${s.isolation}: ${s.name}`, async () => {
      const db = await Database.create();
      try {
        const { got, final } = await runScenario(s, db.connect(), db.connect());
        expect(got).toEqual(expected(s));
        expect(final).toEqual(s.final);
      } finally {
        await db.close();
      }
    });
  }
});

describe.skipIf(DSN === undefined)('keys another session gave up: the same outcomes on PostgreSQL', () => {
  for (const s of scenarios) {
    it(`${s.isolation}: ${s.name}`, async () => {
      const clients = [new pg.Client({ connectionString: DSN }), new pg.Client({ connectionString: DSN })];
      for (const c of clients) await c.connect();
      try {
        const conn = (c: pg.Client): Conn => ({ query: (sql, params) => c.query({ text: sql, values: params, rowMode: 'array' }) });
        const { got, final } = await runScenario(s, conn(clients[0]!), conn(clients[1]!));
        expect(got).toEqual(expected(s));
        expect(final).toEqual(s.final);
        await clients[1]!.query(`DROP TABLE IF EXISTS ${T}`);
      } finally {
        for (const c of clients) await c.end();
      }
    });
  }
});
