/**
 * Secondary indexes (CREATE INDEX … [WHERE]) and the scans that read through them: results with
 * indexes equal PostgreSQL's (PGlite) over random data and random predicates (NULLs, DESC, multi-column
 * and partial indexes, writes and rollbacks after CREATE INDEX), the plans that use an index and those
 * that must not, two sessions, and a database directory that keeps its indexes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { rng } from '../common/pg-helper.js';
import { planOperators } from '../harness/physical-plan.js';

const HOW = { verbose: false, qualify: false };

const rand = rng(20261206);
const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <V>(xs: readonly V[]): V => xs[Math.floor(rand() * xs.length)]!;

const ROWS = 700;
function setup(): string[] {
  const rows: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const a = rand() < 0.08 ? 'NULL' : String(int(0, 40));
    const c = rand() < 0.1 ? 'NULL' : `'${pick(['ab', 'b', 'abc', 'zz', 'B', 'a b', ''])}${int(0, 9)}'`;
    const d = rand() < 0.05 ? 'NULL' : String(int(-50, 50) / 4);
    rows.push(`(${a}, ${(i * 7919) % 1009}, ${c}, ${d})`);
  }
  return [
    'CREATE TABLE t (a int, b int, c text, d float8)',
    `INSERT INTO t VALUES ${rows.join(', ')}`,
    'CREATE INDEX t_a ON t (a)',
    'CREATE INDEX t_b_desc ON t (b DESC NULLS LAST)',
    'CREATE INDEX t_ab ON t (a, b)',
    'CREATE INDEX t_c ON t (c)',
    'CREATE INDEX t_d_nf ON t (d NULLS FIRST)',
    'CREATE INDEX t_b_prtl ON t (b) WHERE a < 20',
    "CREATE INDEX t_a_c_prtl ON t (a DESC, c) WHERE c < 'b'",
  ];
}

function constant(col: string): string {
  switch (col) {
    case 'a':
      return String(int(-2, 42));
    case 'b':
      return String(int(0, 1010));
    case 'c':
      return `'${pick(['ab', 'b', 'abc', 'zz', 'B', 'a b', ''])}${int(0, 9)}'`;
    default:
      return String(int(-52, 52) / 4);
  }
}

function conjunct(): string {
  const col = pick(['a', 'a', 'b', 'c', 'd']);
  switch (int(0, 7)) {
    case 0:
    case 1:
      return `${col} = ${constant(col)}`;
    case 2:
      return `${col} ${pick(['<', '<=', '>', '>='])} ${constant(col)}`;
    case 3:
      return `${col} BETWEEN ${constant(col)} AND ${constant(col)}`;
    case 4:
      return `${col} IS NULL`;
    case 5:
      return `${constant(col)} ${pick(['<', '>', '='])} ${col}`;
    case 6:
      return pick(['a < 20', 'a < 10', "c < 'b'", "c < 'a'", 'a = 5', 'a < 19']);
    default:
      return `${col} ${pick(['<', '>='])} ${constant(col)} AND ${col} ${pick(['>', '<='])} ${constant(col)}`;
  }
}

function query(): { sql: string; ordered: boolean } {
  const where = Array.from({ length: int(1, 3) }, conjunct).join(' AND ');
  if (rand() < 0.3) {
    // ORDER BY an index's order (or its reverse) and LIMIT: b is unique, so the rows are determined.
    const order = pick(['b', 'b DESC', 'b DESC NULLS LAST', 'a, b', 'a DESC, b DESC', 'b NULLS FIRST']);
    return { sql: `SELECT ${pick(['*', 'b, a', 'b', 'a, b, c'])} FROM t${rand() < 0.5 ? ` WHERE ${where}` : ''} ORDER BY ${order} LIMIT ${int(0, 30)} OFFSET ${int(0, 3)}`, ordered: true };
  }
  const cols = pick(['*', 'a', 'b', 'a, b', 'c, a', 'count(*)', 'd']);
  return { sql: `SELECT ${cols} FROM t WHERE ${where}`, ordered: false };
}

let pg: SqlConnection;
let q: SqlConnection;

beforeAll(async () => {
  ({ pg, q } = await pgliteAndQuire(setup()));
}, 120_000);

afterAll(async () => {
  await pg?.close?.();
  await q?.close?.();
});

async function same(sql: string, ordered: boolean): Promise<void> {
  const norm = (s: string): string => (ordered ? s : s.split('\n').sort().join('\n'));
  expect(norm(await outcomeText(q, sql)), sql).toBe(norm(await outcomeText(pg, sql)));
}

describe('secondary indexes against PostgreSQL', () => {
  it('random predicates and ORDER BY … LIMIT give PostgreSQL\u2019s rows, through indexes', async () => {
    let viaIndex = 0;
    for (let n = 0; n < 250; n++) {
      const { sql, ordered } = query();
      await same(sql, ordered);
      if ((await outcomeText(q, `EXPLAIN (FORMAT QUIRE) ${sql}`)).includes('IndexScan')) viaIndex++;
    }
    // Most random queries have an indexable conjunct or order: the test must exercise the index path.
    expect(viaIndex).toBeGreaterThan(120);
  }, 120_000);

  it('writes and rollbacks after CREATE INDEX: every statement sees its own rows through the index', async () => {
    const writes = [
      'INSERT INTO t VALUES (5, 2000, \'ab1\', 1), (NULL, 2001, NULL, NULL), (39, 2002, \'a\', -3)',
      'UPDATE t SET a = a + 1 WHERE b % 7 = 0',
      'DELETE FROM t WHERE b % 11 = 3',
      'BEGIN; UPDATE t SET a = NULL WHERE a = 6; DELETE FROM t WHERE a = 7; ROLLBACK',
      "UPDATE t SET c = 'b0' WHERE c = 'ab1'",
      'BEGIN; INSERT INTO t VALUES (6, 3000, \'zz0\', 0); COMMIT',
    ];
    for (const w of writes) {
      await pg.query(w);
      await q.query(w);
      for (let n = 0; n < 25; n++) {
        const { sql, ordered } = query();
        await same(sql, ordered);
      }
    }
    // One-row commits between indexed reads: the entries of each new list extend the previous ones.
    for (let n = 0; n < 40; n++) {
      const w = `INSERT INTO t VALUES (${rand() < 0.1 ? 'NULL' : int(0, 40)}, ${5000 + n}, 'a${n % 3}', ${n / 4})`;
      await pg.query(w);
      await q.query(w);
      const { sql, ordered } = query();
      await same(sql, ordered);
      await same(`SELECT b FROM t WHERE a = ${int(0, 40)}`, false);
    }
    // Inside a transaction, its own uncommitted rows are found through the index.
    for (const c of [pg, q]) await c.query("BEGIN; INSERT INTO t VALUES (41, 4000, 'b5', 2); UPDATE t SET a = 41 WHERE b = 14");
    await same('SELECT * FROM t WHERE a = 41', false);
    await same('SELECT b FROM t WHERE a = 41 ORDER BY a, b LIMIT 5', true);
    for (const c of [pg, q]) await c.query('ROLLBACK');
    await same('SELECT * FROM t WHERE a = 41', false);
  }, 120_000);

  it('a correlated subquery looks its rows up through the index once per outer row', async () => {
    const sql = 'SELECT b, (SELECT count(*) FROM t t2 WHERE t2.a = t.a) AS n, (SELECT max(b) FROM t t3 WHERE t3.a = t.a AND t3.b < t.b) AS m FROM t WHERE b < 300';
    expect(await outcomeText(q, `EXPLAIN (FORMAT QUIRE) ${sql}`)).toContain('IndexScan (index: t_a, cond: (a = outer.a)');
    await same(sql, false);
  });

  it('DROP INDEX, IF NOT EXISTS and names unique per schema', async () => {
    for (const sql of [
      'CREATE INDEX t_a ON t (b)',
      'CREATE INDEX IF NOT EXISTS t_a ON t (b)',
      'CREATE INDEX t ON t (b)',
      'CREATE INDEX ON t (c, d)',
      'DROP INDEX t_c_d_idx',
      'CREATE INDEX ON t (c, d)',
      'CREATE INDEX t_x ON t (nope)',
      'CREATE INDEX t_x ON nope (a)',
      'DROP INDEX t_c_d_idx',
      'DROP INDEX IF EXISTS t_c_d_idx',
      'DROP INDEX t_c_d_idx',
      'DROP INDEX t',
      // One unknown name drops nothing: t_a is still there to drop after.
      'DROP INDEX t_a, nope',
      'DROP INDEX t_a',
      'DROP INDEX t_a',
      // A BRIN index has no entries Quire reads, but its name is taken and DROP INDEX finds it.
      'CREATE INDEX t_brin ON t USING brin (a)',
      'CREATE INDEX t_brin ON t (b)',
      'SELECT count(*) FROM t WHERE a > 10',
      'DROP INDEX t_brin',
      'DROP INDEX t_brin',
      'CREATE INDEX ON t USING brin (d)',
      'DROP INDEX IF EXISTS t_d_idx, nope',
    ]) {
      expect(await outcomeText(q, sql), sql).toBe(await outcomeText(pg, sql));
    }
    await expect(q.query('CREATE INDEX t_e ON t ((a + 1))')).rejects.toMatchObject({ code: '0A000' });
  });
});

describe('plans through indexes', () => {
  let db: Database;
  beforeAll(async () => {
    db = await Database.create();
    await db.execute(`CREATE TABLE onek2 (unique1 int, unique2 int, stringu1 name, four int);
      INSERT INTO onek2 SELECT i, (i * 37) % 1000, chr(65 + i % 26) || 'TAAAA', i % 4 FROM generate_series(0, 999) i;
      CREATE INDEX onek2_u2_prtl ON onek2 (unique2) WHERE stringu1 < 'B';
      CREATE INDEX onek2_u1 ON onek2 (unique1);`);
  });
  const explain = async (sql: string): Promise<string> => ((await db.execute(`EXPLAIN (FORMAT QUIRE) ${sql}`)).at(-1)!.rows as string[][]).map((r) => r[0]).join('\n');

  it('partial index: used when the WHERE implies its predicate, implied conjuncts not checked again', async () => {
    const ops = await planOperators(db, "SELECT * FROM onek2 WHERE unique2 = 11 AND stringu1 = 'ATAAAA'");
    // Only the query's own conjunct stays above the scan: stringu1 < 'B' is the predicate itself.
    expect(ops.map((o) => o.name)).toEqual(['Filter', 'IndexScan']);
    expect(ops[0]!.describe()).toBe("(stringu1 = 'ATAAAA')");
    expect(ops[1]!.explainNode([], HOW)).toMatchObject({ label: 'Index Scan using onek2_u2_prtl on onek2', details: ['Index Cond: (unique2 = 11)'] });
    expect(ops[1]!.describe()).toBe('index: onek2_u2_prtl, cond: (unique2 = 11)');
    const only = await planOperators(db, "SELECT unique2 FROM onek2 WHERE unique2 = 11 AND stringu1 < 'B'");
    expect(only.map((o) => o.explainNode([], HOW).label)).toEqual(['Index Only Scan using onek2_u2_prtl on onek2']);
    expect(only[0]!.explainNode([], HOW).details).toEqual(['Index Cond: (unique2 = 11)']);
    // PostgreSQL's text, as select.sql expects it.
    expect((await db.execute("EXPLAIN SELECT * FROM onek2 WHERE unique2 = 11 AND stringu1 = 'ATAAAA'")).at(-1)!.rows).toEqual([['Index Scan using onek2_u2_prtl on onek2'], ['  Index Cond: (unique2 = 11)'], ["  Filter: (stringu1 = 'ATAAAA'::name)"]]);
    expect(await explain("SELECT unique2 FROM onek2 WHERE unique2 = 11 AND stringu1 < 'C'")).not.toContain('IndexScan');
    const rows = (sql: string): Promise<unknown> => db.execute(sql).then((r) => r.at(-1)!.rows);
    // unique2 = 11 is row 703, whose stringu1 is 'BTAAAA': outside the partial index, found by the scan.
    expect(await rows("SELECT unique1 FROM onek2 WHERE unique2 = 11 AND stringu1 < 'B'")).toEqual([]);
    expect(await rows("SELECT unique1 FROM onek2 WHERE unique2 = 0 AND stringu1 < 'B'")).toEqual([[0]]);
    expect(await rows("SELECT unique1 FROM onek2 WHERE unique2 = 11 AND stringu1 < 'C'")).toEqual([[703]]);
  });

  it('ORDER BY … LIMIT in index order is a Limit over the scan; the settings switch indexes off', async () => {
    expect(await explain('SELECT * FROM onek2 ORDER BY unique1 DESC LIMIT 3')).toBe('Limit (limit: 3)\n  ->  IndexScan (index: onek2_u1, backward)');
    expect((await db.execute('SELECT unique1 FROM onek2 WHERE four = 0 ORDER BY unique1 DESC LIMIT 3')).at(-1)!.rows).toEqual([[996], [992], [988]]);
    expect(await explain('SELECT * FROM onek2 WHERE unique1 = 5')).toContain('IndexScan (index: onek2_u1, cond: (unique1 = 5))');
    // A one-sided range may read most of the table: the scan is cheaper, unless switched off.
    expect(await explain('SELECT * FROM onek2 WHERE unique1 > 5')).not.toContain('IndexScan');
    await db.execute('SET enable_seqscan = off');
    expect(await explain('SELECT * FROM onek2 WHERE unique1 > 5')).toContain('IndexScan');
    await db.execute('RESET enable_seqscan; SET enable_indexscan = off');
    expect(await explain('SELECT * FROM onek2 WHERE unique1 = 5')).not.toContain('IndexScan');
    expect(await explain('SELECT unique1 FROM onek2 WHERE unique1 = 5')).toContain('index only');
    await db.execute('SET enable_indexonlyscan = off');
    expect(await explain('SELECT unique1 FROM onek2 WHERE unique1 = 5')).not.toContain('IndexScan');
    await db.execute("RESET enable_indexscan; RESET enable_indexonlyscan; SET quire.disabled_rules = 'choose-index-scan'");
    expect(await explain('SELECT * FROM onek2 WHERE unique1 = 5')).not.toContain('IndexScan');
    await db.execute('RESET quire.disabled_rules');
  });

  it('parameters are bounds evaluated per execution; a NULL bound matches nothing', async () => {
    const r = async (p: unknown): Promise<unknown> => (await db.execute('SELECT unique2 FROM onek2 WHERE unique1 = $1', [p])).at(-1)!.rows;
    expect(await r(10)).toEqual([[370]]);
    expect(await r(999)).toEqual([[963]]);
    expect(await r(null)).toEqual([]);
  });

  it('two sessions: an index one creates in its transaction is the other\u2019s only once committed', async () => {
    const s1 = db.connect();
    const s2 = db.connect();
    await s1.execute('BEGIN; CREATE INDEX onek2_four ON onek2 (four)');
    expect(((await s1.execute('EXPLAIN (FORMAT QUIRE) SELECT * FROM onek2 WHERE four = 1')).at(-1)!.rows as string[][]).join('\n')).toContain('onek2_four');
    expect(((await s2.execute('EXPLAIN (FORMAT QUIRE) SELECT * FROM onek2 WHERE four = 1')).at(-1)!.rows as string[][]).join('\n')).not.toContain('onek2_four');
    await s1.execute('INSERT INTO onek2 VALUES (5000, 5000, \'Q\', 1)');
    expect((await s1.execute('SELECT count(*) FROM onek2 WHERE four = 1')).at(-1)!.rows).toEqual([[251]]);
    expect((await s2.execute('SELECT count(*) FROM onek2 WHERE four = 1')).at(-1)!.rows).toEqual([[250]]);
    await s1.execute('COMMIT');
    expect(((await s2.execute('EXPLAIN (FORMAT QUIRE) SELECT * FROM onek2 WHERE four = 1')).at(-1)!.rows as string[][]).join('\n')).toContain('onek2_four');
    expect((await s2.execute('SELECT count(*) FROM onek2 WHERE four = 1')).at(-1)!.rows).toEqual([[251]]);
  });

  it('SELECT … FOR UPDATE reads through indexes, rechecks a partial index’s conditions, and locks the rows it read', async () => {
    const text = async (sql: string): Promise<string> => ((await db.execute(sql)).at(-1)!.rows as string[][]).map((r) => r[0]).join('\n');
    // PostgreSQL's plan for this statement (its regression file select.sql): the locked rows are rechecked.
    expect(await text("EXPLAIN (COSTS OFF) SELECT unique2 FROM onek2 WHERE unique2 = 11 AND stringu1 < 'B' FOR UPDATE")).toBe(
      ['LockRows', '  ->  Index Scan using onek2_u2_prtl on onek2', '        Index Cond: (unique2 = 11)', "        Filter: (stringu1 < 'B'::name)"].join('\n'),
    );
    expect(await text('EXPLAIN (COSTS OFF) SELECT * FROM onek2 WHERE unique1 BETWEEN 10 AND 12 ORDER BY unique1 DESC LIMIT 2 FOR UPDATE')).toContain('Index Scan Backward using onek2_u1 on onek2');
    expect(await text('EXPLAIN (VERBOSE, COSTS OFF) SELECT unique2 FROM onek2 WHERE unique1 = 3 FOR SHARE')).toContain('Output: onek2.unique2, onek2.ctid');
    const s1 = db.connect();
    const s2 = db.connect();
    try {
      await s1.execute('BEGIN');
      expect((await s1.execute('SELECT unique1, unique2 FROM onek2 WHERE unique1 = 10 FOR UPDATE')).at(-1)!.rows).toEqual([[10, 370]]);
      expect((await s1.execute('SELECT unique1 FROM onek2 WHERE unique1 BETWEEN 10 AND 12 ORDER BY unique1 DESC LIMIT 2 FOR UPDATE')).at(-1)!.rows).toEqual([[12], [11]]);
      // The other session meets the rows locked through the index, and only those.
      await expect(s2.execute('SELECT * FROM onek2 WHERE unique1 = 11 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
      expect((await s2.execute('SELECT unique1 FROM onek2 WHERE unique1 BETWEEN 9 AND 13 ORDER BY unique1 FOR UPDATE SKIP LOCKED')).at(-1)!.rows).toEqual([[9], [13]]);
      await s1.execute('UPDATE onek2 SET unique2 = -1 WHERE unique1 = 10');
      expect((await s1.execute('SELECT unique2 FROM onek2 WHERE unique1 = 10 FOR UPDATE')).at(-1)!.rows).toEqual([[-1]]);
      await s1.execute('ROLLBACK');
      expect((await s2.execute('SELECT unique2 FROM onek2 WHERE unique1 = 10 FOR UPDATE NOWAIT')).at(-1)!.rows).toEqual([[370]]);
    } finally {
      await s1.close?.();
      await s2.close?.();
    }
  });
});

describe('entries over appended rows', () => {
  it('extending the entries of an older list gives what a full build of the new list gives', async () => {
    const { indexEntries } = await import('../../src/physical/index-entries.js');
    const db = await Database.create();
    await db.execute("CREATE TABLE x (a int, b text); INSERT INTO x SELECT i % 13, 'k' || (i % 7) FROM generate_series(1, 3000) i");
    await db.execute("CREATE INDEX x_ba ON x (b DESC, a NULLS FIRST) WHERE a <> 3");
    const t = db.catalog.getTable('x') as unknown as import('../../src/storage/memory-table.js').MemoryTable;
    const def = t.indexes[0]!;
    const ctx = db.execContext([], [], false);
    const ext = t.batchExtends.bind(t);
    indexEntries(def, t.schema, t.snapshot(), ctx, ext);
    for (let n = 0; n < 30; n++) {
      await db.execute(n % 10 === 9 ? "INSERT INTO x SELECT i % 5, 'k' || (i % 3) FROM generate_series(1, 700) i" : `INSERT INTO x VALUES (${n % 4 === 0 ? 'NULL' : n % 13}, ${n % 6 === 0 ? 'NULL' : `'k${n % 9}'`})`);
      const grown = indexEntries(def, t.schema, t.snapshot(), ctx, ext);
      const fresh = indexEntries({ ...def }, t.schema, t.snapshot(), ctx);
      expect([...grown.rows]).toEqual([...fresh.rows]);
    }
  });

  it('carrying the entries over UPDATE and DELETE gives what a full build of the new list gives', async () => {
    const { indexEntries } = await import('../../src/physical/index-entries.js');
    const db = await Database.create();
    await db.execute("CREATE TABLE y (a int, b text, c int); INSERT INTO y SELECT i % 13, 'k' || (i % 7), i FROM generate_series(1, 5000) i");
    await db.execute("CREATE INDEX y_ba ON y (b DESC, a NULLS FIRST) WHERE a <> 3");
    await db.execute('CREATE INDEX y_a ON y (a)');
    const t = db.catalog.getTable('y') as unknown as import('../../src/storage/memory-table.js').MemoryTable;
    const ctx = db.execContext([], [], false);
    const ext = t.batchExtends.bind(t);
    for (const def of t.indexes) indexEntries(def, t.schema, t.snapshot(), ctx, ext);
    const writes = [
      'UPDATE y SET a = a + 1 WHERE c = 17',
      'DELETE FROM y WHERE c % 97 = 0',
      "UPDATE y SET b = 'k9', a = NULL WHERE c % 101 = 5",
      'DELETE FROM y WHERE c BETWEEN 1 AND 1100',
      "INSERT INTO y VALUES (3, 'k1', -1), (NULL, NULL, -2)",
      'UPDATE y SET a = 3 WHERE c % 3 = 0',
      'UPDATE y SET c = c + 1',
      'DELETE FROM y WHERE c > 4000',
      "BEGIN; UPDATE y SET b = 'k0' WHERE c % 5 = 0; INSERT INTO y VALUES (1, 'k2', 0); DELETE FROM y WHERE c % 7 = 1; COMMIT",
      'DELETE FROM y',
      "INSERT INTO y VALUES (2, 'k3', 1)",
    ];
    for (const w of writes) {
      await db.execute(w);
      for (const def of t.indexes) {
        const carried = indexEntries(def, t.schema, t.snapshot(), ctx, ext);
        const fresh = indexEntries({ ...def }, t.schema, t.snapshot(), ctx);
        expect({ w, rows: [...carried.rows] }).toEqual({ w, rows: [...fresh.rows] });
      }
    }
  });
});

describe('a database directory keeps its indexes', () => {
  it('defines them again on open, partial predicates included; DROP INDEX is kept too', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-idx-'));
    try {
      let db = await Database.create({ path: dir });
      await db.execute("CREATE TABLE t (a int, b text); INSERT INTO t SELECT i, 'v' || i FROM generate_series(1, 500) i");
      await db.execute("CREATE INDEX t_a_prtl ON t (a DESC) WHERE b < 'v5'; CREATE INDEX ON t (b); CREATE INDEX t_gone ON t (a); CREATE INDEX t_brin ON t USING brin (a)");
      await db.execute('DROP INDEX t_gone');
      await db.close();
      db = await Database.create({ path: dir });
      const plan = async (sql: string): Promise<string> => ((await db.execute(`EXPLAIN (FORMAT QUIRE) ${sql}`)).at(-1)!.rows as string[][]).join('\n');
      expect(await plan("SELECT a FROM t WHERE a = 3 AND b < 'v5'")).toContain('IndexScan (index: t_a_prtl, cond: (a = 3), index only)');
      expect(await plan("SELECT * FROM t WHERE b = 'v7'")).toContain('t_b_idx');
      expect((await db.execute("SELECT a FROM t WHERE b = 'v7'")).at(-1)!.rows).toEqual([[7]]);
      await expect(db.execute('CREATE INDEX t_gone ON t (a)')).resolves.toBeDefined();
      await expect(db.execute('CREATE INDEX t_b_idx ON t (a)')).rejects.toMatchObject({ code: '42P07' });
      // The BRIN index came back by name only; no plan reads through it.
      expect(await plan('SELECT * FROM t WHERE a = 9')).not.toContain('t_brin');
      await expect(db.execute('CREATE INDEX t_brin ON t (b)')).rejects.toMatchObject({ code: '42P07' });
      await db.execute('DROP INDEX t_brin');
      await expect(db.execute('DROP INDEX t_brin')).rejects.toMatchObject({ code: '42704' });
      await db.close();
      // Opening again without changes logs nothing: a read-only open works.
      db = await Database.create({ path: dir, readOnly: true });
      expect(await plan('SELECT * FROM t WHERE a = 9')).toMatch(/IndexScan \(index: t_gone/);
      await db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
