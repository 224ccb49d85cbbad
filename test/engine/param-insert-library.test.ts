/**
 * query('INSERT INTO t VALUES ($1, …)', values) from the library: the row goes through the literal
 * INSERT's cached plan with each value converted for its column (runJsParamInsert). Every value and
 * error must be what the general path makes of the same statement (the same INSERT with RETURNING,
 * which this path never takes), in and out of transaction blocks, and the rows must be in the log
 * when query() returns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';

const COLUMNS = 'id int PRIMARY KEY, a int2, b int8, c float8, e text, f bool, h varchar(3), n numeric, k int NOT NULL';

const VALUES: unknown[][] = [
  [1, 2, 3, 0.5, 'x', true, 'abc', 1, 0],
  [2, null, null, null, null, null, null, null, 5],
  [3, -0, 2 ** 40, -0, '', false, null, null, 1],
  [4, 1.5, 1, 1, 'y', true, null, null, 1],
  [5, 40000, 1, 1, 'y', true, null, null, 1],
  [6, 1, 2 ** 60, 1e300, 'y', true, null, null, 1],
  [7, '12', '-7', '0.25', 'z', 'yes', 'toolong', '3.5', '8'],
  [8, 1, 1, Number.NaN, 'nan', true, null, null, 1],
  [9, 1, 1, Infinity, 'inf', true, null, null, 1],
  [1, 1, 1, 1, 'duplicate', true, null, null, 1],
  [10, 1, 1, 1, 'x', true, null, null, null],
  [11, true, 1, 1, 'x', 1, null, null, 1],
  [12, 2147483648, 1, 1, 'x', true, null, null, 1],
  [13, 1, 1, 1, 5, true, null, null, 1],
  [14, 1, 9007199254740993n, 1, 'x', true, null, null, 1],
];

type Outcome = string;

async function run(db: Database, sql: string, values: unknown[]): Promise<Outcome> {
  try {
    const r = await db.query(sql, values);
    return `ok ${r.rowCount}`;
  } catch (e) {
    if (!(e instanceof QuireError)) throw e;
    return `error ${e.code}`;
  }
}

async function rows(db: Database, table: string): Promise<string> {
  const r = await db.query(`SELECT * FROM ${table} ORDER BY id`);
  return JSON.stringify(r.rows, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && Object.is(v, -0) ? '-0' : v));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('library INSERT with parameter values', () => {
  it('stores and refuses exactly what the general INSERT does', async () => {
    const db = await Database.create();
    await db.query(`CREATE TABLE fast (${COLUMNS})`);
    await db.query(`CREATE TABLE general (${COLUMNS})`);
    const taken = vi.spyOn(Database.prototype as unknown as { jsParamInsertSync: () => unknown }, 'jsParamInsertSync');
    const fast: Outcome[] = [];
    const general: Outcome[] = [];
    for (const v of VALUES) {
      fast.push(await run(db, 'INSERT INTO fast VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', v));
      general.push(await run(db, 'INSERT INTO general VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING 0', v));
    }
    expect(fast).toEqual(general);
    expect(await rows(db, 'fast')).toEqual(await rows(db, 'general'));
    // Most rows went the parameter path (not the RETURNING ones, and not the values it leaves to the general path).
    expect(taken.mock.results.filter((x) => x.type === 'return' && x.value !== null).length).toBeGreaterThanOrEqual(3);
    // Columns named in another order, and a parameter used twice (left to the general path).
    expect(await run(db, 'INSERT INTO fast (k, e, id) VALUES ($1, $2, $3)', [4, 'named', 100])).toBe('ok 1');
    expect(await run(db, 'INSERT INTO fast (id, k) VALUES ($1, $1)', [101])).toBe('ok 1');
    expect(await run(db, 'INSERT INTO fast (id, k) VALUES ($1, $2)', [102])).toBe(await run(db, 'INSERT INTO general (id, k) VALUES ($1, $2) RETURNING 0', [102]));
    const r = await db.query('SELECT id, e, k FROM fast WHERE id >= 100 ORDER BY id');
    expect(r.rows).toEqual([
      [100, 'named', 4],
      [101, null, 101],
    ]);
  });

  it('a number into an integer column is what its text would be, and into float8 the number itself', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE t (id int, a int2, b int4, c int8, d float8)');
    const numbers = [0, -0, 1, -1, 32767, 32768, -32768, -32769, 2147483647, 2147483648, -2147483648, -2147483649, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 53 + 2, 1.5, -2.5, 1e21, Number.NaN, Infinity, -Infinity];
    const outcomes: string[] = [];
    let id = 0;
    for (const v of numbers) {
      for (const col of ['a', 'b', 'c']) {
        // The number, and its text (read by the column type's input function): the same outcome.
        const asNumber = await run(db, `INSERT INTO t (id, ${col}) VALUES ($1, $2)`, [++id, v]);
        const asText = await run(db, `INSERT INTO t (id, ${col}) VALUES ($1, $2)`, [-id, String(v)]);
        expect(asNumber, `${v} into ${col}`).toBe(asText);
        outcomes.push(asNumber);
      }
      await run(db, 'INSERT INTO t (id, d) VALUES ($1, $2)', [++id, v]);
    }
    // Both kinds of outcome were met: values stored and values refused (22P02, 22003).
    expect(outcomes).toContain('ok 1');
    expect(outcomes).toContain('error 22003');
    expect(outcomes).toContain('error 22P02');
    const stored = await db.query('SELECT id, a, b, c FROM t WHERE id > 0 AND d IS NULL ORDER BY id');
    const text = await db.query('SELECT -id, a, b, c FROM t WHERE id < 0 ORDER BY id DESC');
    expect(JSON.stringify(stored.rows, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x))).toBe(JSON.stringify(text.rows, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)));
    expect(stored.rows.length).toBeGreaterThan(10);
    // float8 keeps the number as it is, -0 and NaN included.
    const d = await db.query('SELECT d FROM t WHERE d IS NOT NULL ORDER BY id');
    const floats = d.rows.map((r) => r[0]);
    expect(floats.length).toBe(numbers.length);
    floats.forEach((f, i) => expect(Object.is(f, numbers[i]), `${numbers[i]} into float8 read ${String(f)}`).toBe(true));
  });

  it('inside a transaction block the rows go with the block; a failed block refuses them', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE t (id int PRIMARY KEY, e text)');
    const ins = 'INSERT INTO t VALUES ($1, $2)';
    await db.query('BEGIN');
    await db.query(ins, [1, 'a']);
    await db.query('ROLLBACK');
    await db.query('BEGIN');
    await db.query(ins, [2, 'b']);
    await expect(db.query(ins, [2, 'c'])).rejects.toMatchObject({ code: '23505' });
    await expect(db.query(ins, [3, 'd'])).rejects.toMatchObject({ code: '25P02' });
    await db.query('ROLLBACK');
    await db.query(ins, [4, 'e']);
    expect((await db.query('SELECT id, e FROM t ORDER BY id')).rows).toEqual([[4, 'e']]);
  });

  it('each row is in the database directory when query() returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-param-insert-'));
    try {
      const db = await Database.create({ path: dir });
      await db.query('CREATE TABLE t (id int PRIMARY KEY, v float8, s text)');
      for (let i = 1; i <= 50; i++) await db.query('INSERT INTO t VALUES ($1, $2, $3)', [i, i / 2, `row-${i}`]);
      // A reader of the directory replays the log: every acknowledged row is there before any close.
      const reader = await Database.create({ path: dir, readOnly: true });
      expect((await reader.query('SELECT count(*), sum(v), max(s) FROM t')).rows).toEqual([[50, 637.5, 'row-9']]);
      await reader.close();
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
