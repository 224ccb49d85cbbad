/**
 * Unique keys under REPEATABLE READ: a key another session committed after the transaction's
 * snapshot is taken although the snapshot does not show its row. As in PostgreSQL, the INSERT or
 * UPDATE writing it fails at once with 23505 (ON CONFLICT, which cannot skip or update a row it does
 * not see, with 40001), not at COMMIT; a key the transaction itself freed, and keys nobody took, stay
 * writable. Each scenario's expected outcomes are PostgreSQL's: with QUIRE_TEST_PG_DSN set (.ci/run
 * starts a server) the same scenarios run against it too and must give the same outcomes.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { pending } from '../harness/waits.js';

const DSN = process.env.QUIRE_TEST_PG_DSN;

interface Conn {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/** 'ok' or the SQLSTATE the statement failed with. */
function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'ok',
    (e: { code?: string }) => e.code ?? String(e),
  );
}

interface Scenario {
  name: string;
  table: string;
  /** Rows before the transaction starts. */
  seed: string[];
  /** What another session commits after the transaction's snapshot. */
  other: string[];
  /** The transaction's statements after its snapshot, then COMMIT: each one's expected outcome. */
  steps: [sql: string, expected: string, params?: unknown[]][];
  /** The table at the end, ordered. */
  final: unknown[][];
}

const T = 'rr_keys';

const scenarios: Scenario[] = [
  {
    name: 'INSERT … VALUES of the key: 23505 at the INSERT',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [`INSERT INTO ${T} VALUES (1, 'seed')`],
    other: [`INSERT INTO ${T} VALUES (5, 'other')`],
    steps: [[`INSERT INTO ${T} VALUES (5, 'mine')`, '23505'], ['COMMIT', 'ok']],
    final: [[1, 'seed'], [5, 'other']],
  },
  {
    name: 'a multi-row INSERT: 23505',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [],
    other: [`INSERT INTO ${T} VALUES (5, 'other')`],
    steps: [[`INSERT INTO ${T} VALUES (4, 'mine'), (5, 'mine')`, '23505'], ['COMMIT', 'ok']],
    final: [[5, 'other']],
  },
  {
    name: 'a parameter INSERT: 23505',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [],
    other: [`INSERT INTO ${T} VALUES (6, 'other')`],
    steps: [[`INSERT INTO ${T} VALUES ($1, $2)`, '23505', [6, 'mine']], ['COMMIT', 'ok']],
    final: [[6, 'other']],
  },
  {
    name: 'INSERT … SELECT: 23505',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [],
    other: [`INSERT INTO ${T} VALUES (7, 'other')`],
    steps: [[`INSERT INTO ${T} SELECT g, 'mine' FROM generate_series(1, 10) g`, '23505'], ['COMMIT', 'ok']],
    final: [[7, 'other']],
  },
  {
    name: 'ON CONFLICT DO NOTHING: 40001',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [],
    other: [`INSERT INTO ${T} VALUES (5, 'other')`],
    steps: [[`INSERT INTO ${T} VALUES (5, 'mine') ON CONFLICT DO NOTHING`, '40001'], ['COMMIT', 'ok']],
    final: [[5, 'other']],
  },
  {
    name: 'ON CONFLICT DO UPDATE: 40001',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [],
    other: [`INSERT INTO ${T} VALUES (5, 'other')`],
    steps: [[`INSERT INTO ${T} VALUES (5, 'mine') ON CONFLICT (id) DO UPDATE SET v = 'updated'`, '40001'], ['COMMIT', 'ok']],
    final: [[5, 'other']],
  },
  {
    name: 'ON CONFLICT DO NOTHING of a key nobody took goes in',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [],
    other: [`INSERT INTO ${T} VALUES (5, 'other')`],
    steps: [[`INSERT INTO ${T} VALUES (4, 'mine') ON CONFLICT DO NOTHING`, 'ok'], ['COMMIT', 'ok']],
    final: [[4, 'mine'], [5, 'other']],
  },
  {
    name: 'an UPDATE giving a row the key: 23505',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [`INSERT INTO ${T} VALUES (1, 'seed')`],
    other: [`INSERT INTO ${T} VALUES (5, 'other')`],
    steps: [[`UPDATE ${T} SET id = 5 WHERE id = 1`, '23505'], ['COMMIT', 'ok']],
    final: [[1, 'seed'], [5, 'other']],
  },
  {
    name: 'a key another session gave a row by UPDATE (a rewrite, not an append): 23505',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [`INSERT INTO ${T} VALUES (1, 'seed'), (2, 'seed')`],
    other: [`UPDATE ${T} SET id = 5 WHERE id = 2`],
    steps: [[`INSERT INTO ${T} VALUES (5, 'mine')`, '23505'], ['COMMIT', 'ok']],
    final: [[1, 'seed'], [5, 'seed']],
  },
  {
    name: 'keys nobody took, and a key this transaction freed, stay writable',
    table: `${T} (id int PRIMARY KEY, v text)`,
    seed: [`INSERT INTO ${T} VALUES (1, 'seed'), (2, 'seed')`],
    other: [`INSERT INTO ${T} VALUES (6, 'other')`, `UPDATE ${T} SET v = 'touched' WHERE id = 1`],
    steps: [
      [`INSERT INTO ${T} VALUES (5, 'mine')`, 'ok'],
      [`DELETE FROM ${T} WHERE id = 2`, 'ok'],
      [`INSERT INTO ${T} VALUES (2, 'again')`, 'ok'],
      ['COMMIT', 'ok'],
    ],
    final: [[1, 'touched'], [2, 'again'], [5, 'mine'], [6, 'other']],
  },
  {
    name: 'a two-column key with text and NULL parts',
    table: `${T} (a int, b text, UNIQUE (a, b))`,
    seed: [],
    other: [`INSERT INTO ${T} VALUES (1, 'ü'), (2, NULL)`],
    steps: [
      [`INSERT INTO ${T} VALUES (2, NULL), (1, 'u')`, 'ok'],
      [`INSERT INTO ${T} VALUES (1, 'ü')`, '23505'],
      ['ROLLBACK', 'ok'],
    ],
    final: [[1, 'ü'], [2, null]],
  },
];

async function runScenario(s: Scenario, a: Conn, b: Conn): Promise<{ got: string[]; final: unknown[][] }> {
  await a.query(`DROP TABLE IF EXISTS ${T}`);
  await a.query(`CREATE TABLE ${s.table}`);
  for (const sql of s.seed) await a.query(sql);
  await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
  // The snapshot is taken by the transaction's first query.
  await a.query(`SELECT count(*) FROM ${T}`);
  for (const sql of s.other) await b.query(sql);
  const got: string[] = [];
  for (const [sql, , params] of s.steps) got.push(await outcome(a.query(sql, params)));
  const res = (await b.query(`SELECT * FROM ${T} ORDER BY 1, 2`)) as { rows: unknown[] };
  const final = res.rows.map((r) => (Array.isArray(r) ? r : Object.values(r as object)));
  return { got, final };
}

describe('unique keys under REPEATABLE READ (Quire)', () => {
  for (const s of scenarios) {
    it(s.name, async () => {
      const db = await Database.create();
      const { got, final } = await runScenario(s, db.connect(), db.connect());
      expect(got).toEqual(s.steps.map((x) => x[1]));
      expect(final).toEqual(s.final);
    });
  }

  it('a writer waiting for another block that commits the key fails at its INSERT', async () => {
    const db = await Database.create();
    const a = db.connect();
    const b = db.connect();
    await db.query(`CREATE TABLE ${T} (id int PRIMARY KEY, v text)`);
    for (const [stmt, code] of [[`INSERT INTO ${T} VALUES (5, 'a')`, '23505'], [`INSERT INTO ${T} VALUES (5, 'a') ON CONFLICT DO NOTHING`, '40001']] as const) {
      await db.query(`DELETE FROM ${T}`);
      await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await a.query(`SELECT count(*) FROM ${T}`);
      await b.query('BEGIN');
      await b.query(`INSERT INTO ${T} VALUES (5, 'b')`);
      const ins = outcome(a.query(stmt));
      expect(await pending(ins)).toBe(true);
      await b.query('COMMIT');
      expect(await ins).toBe(code);
      await a.query('ROLLBACK');
    }
  });
});

describe.skipIf(DSN === undefined)('unique keys under REPEATABLE READ: the same outcomes on PostgreSQL', () => {
  for (const s of scenarios) {
    it(s.name, async () => {
      const a = new pg.Client({ connectionString: DSN });
      const b = new pg.Client({ connectionString: DSN });
      await a.connect();
      await b.connect();
      try {
        const rowArrays = (c: pg.Client): Conn => ({ query: (sql, params) => c.query({ text: sql, values: params, rowMode: 'array' }) });
        const { got, final } = await runScenario(s, rowArrays(a), rowArrays(b));
        expect(got).toEqual(s.steps.map((x) => x[1]));
        expect(final).toEqual(s.final);
        await a.query(`DROP TABLE IF EXISTS ${T}`);
      } finally {
        await a.end();
        await b.end();
      }
    });
  }
});
