/**
 * numeric arithmetic on integers and constants cast to float8 on doubles (src/physical/scaled-numeric-float.ts),
 * and INSERT … SELECT's number casts computed in the projection (planned-dml.ts): every double must be the
 * one PostgreSQL gets from the exact numeric (compared with PGlite bit for bit, -0 included), rows the
 * doubles cannot do exactly (beyond 2^53, bigints, scales past 22) must fall back, NULLs propagate, and
 * errors stay PostgreSQL's. An integer column never holds -0 (float8 → int8 of -0.3 made one).
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { expectSameError } from '../common/pg-helper.js';
import { newPGlite } from '../common/pglite.js';

let pgl: PGlite;
let db: Database;

// Integers of every width, signs, zero, NULL, and values around 2^53 (int8 beyond it is held as a bigint).
const ROWS = `(1, 1, 1, 1), (2, -1, -7, -3), (3, 0, 0, 0), (4, null, null, null), (5, 32767, 2147483647, 9007199254740991),
  (6, -32768, -2147483648, -9007199254740991), (7, 7, 123456789, 9007199254740993), (8, 3, 10, 4503599627370497),
  (9, -9, -3, -9223372036854775808), (10, 12, 999999999, 9223372036854775807), (11, 5, 333, 1099511627776), (12, 1, 3, 7)`;

beforeAll(async () => {
  pgl = newPGlite();
  db = await Database.create();
  for (const sql of ['CREATE TABLE n (id int, s int2, i int4, b int8)', `INSERT INTO n VALUES ${ROWS}`]) {
    await db.query(sql);
    await pgl.query(sql);
  }
});
afterAll(async () => {
  await pgl.close();
  await db.close();
});

/** Rows as Quire returns them and as PGlite does, doubles compared exactly (Object.is tells -0 from 0). */
async function same(sql: string): Promise<void> {
  const mine = (await db.query(sql)).rows;
  const theirs = (await pgl.query<unknown[]>(sql, [], { rowMode: 'array' })).rows;
  expect(mine.length).toBe(theirs.length);
  mine.forEach((row, r) =>
    row.forEach((v, c) => {
      const w = theirs[r]![c];
      if (typeof v === 'number' && typeof w === 'number') expect(Object.is(v, w) || (Number.isNaN(v) && Number.isNaN(w)), `${sql}: row ${r}, column ${c}: ${v} vs ${w}`).toBe(true);
      else expect(String(v), `${sql}: row ${r}, column ${c}`).toBe(String(w));
    }),
  );
}

const sameError = (sql: string): Promise<void> => expectSameError(pgl, db, sql);

const EXPRS = [
  'i * 0.5',
  's * 0.1',
  'i * 0.1',
  'b * 0.1',
  'b * 0.5',
  'i * -0.25',
  'i * 0.0',
  'i * -0.00',
  'b * -0.5 + 0.0',
  'i * 1.7976931348623157',
  'i * 0.000000000000000000001',
  'i * 0.00000000000000000000001',
  'b * 1000000.5',
  'i * 3.3 + 0.7',
  '(i * 0.1 + s * 0.01) * 3',
  'i - i * 1.5',
  's + 0.1',
  '0.3 - i',
  'b + 0.5',
  'b - 0.000001',
  'i * 0.1 * 0.1 * 0.1',
  'b * 123456789.123456789',
  'i * 12345678901234567890.5',
  's::numeric',
  'b::numeric',
  '-(i * 0.5)',
  'i * 0.5 / 3',
];

describe('numeric arithmetic cast to float8', () => {
  it.each(EXPRS)('(%s)::float8 is PostgreSQL’s double', async (e) => {
    await same(`SELECT id, (${e})::float8 FROM n ORDER BY id`);
  });

  it('keeps numeric’s own errors on the rows that fall back', async () => {
    await sameError('SELECT (i * 1e300 * 1e300 * 1e300)::float8 FROM n ORDER BY id');
  });
});

describe('INSERT … SELECT casts numbers in the projection', () => {
  const targets = ['float8', 'float4', 'int2', 'int4', 'int8', 'numeric', 'numeric(12,3)'];

  it.each(targets)('into a %s column stores what PostgreSQL stores', async (type) => {
    const exprs = ['i * 0.5', 's * 0.1 - 0.05', 'b * 0.25', 'i', 's * 1.5', '(i * 0.1)::float8', 'b'];
    for (const target of [db, pgl]) {
      await target.query(`DROP TABLE IF EXISTS dst`);
      await target.query(`CREATE TABLE dst (id int, v ${type})`);
    }
    for (const e of exprs) {
      // Values the type cannot hold fail as a whole statement in both (checked below); the rest must match.
      const where = type === 'int2' ? 'AND b between -30000 and 30000 AND i between -30000 and 30000' : type === 'int4' || type === 'numeric(12,3)' ? 'AND b between -2000000000 and 2000000000' : '';
      const sql = `INSERT INTO dst SELECT id, ${e} FROM n WHERE true ${where}`;
      await db.query(sql);
      await pgl.query(sql);
    }
    // A real is returned as its double by the library and as its shortest text by PGlite: compared as text.
    await same(type === 'float4' ? 'SELECT id, v::text FROM dst ORDER BY 1, v' : 'SELECT id, v, v::text FROM dst ORDER BY 1, 2');
  });

  it('raises the cast’s own error, as PostgreSQL does', async () => {
    for (const target of [db, pgl]) {
      await target.query('DROP TABLE IF EXISTS dst');
      await target.query('CREATE TABLE dst (id int, v int4, w int2, x numeric(5,2))');
    }
    await sameError('INSERT INTO dst (id, v) SELECT id, b * 0.5 FROM n');
    await sameError('INSERT INTO dst (id, w) SELECT id, i * 0.5 FROM n');
    await sameError('INSERT INTO dst (id, x) SELECT id, i * 0.5 FROM n');
    await sameError("INSERT INTO dst (id, v) SELECT id, 'x' || i FROM n");
    expect((await db.query('SELECT count(*) FROM dst')).rows).toEqual([[0]]);
  });

  it('refuses NULLs in NOT NULL columns, typed ones too', async () => {
    for (const target of [db, pgl]) {
      await target.query('DROP TABLE IF EXISTS nn');
      await target.query('CREATE TABLE nn (id int NOT NULL, v float8 NOT NULL, t text NOT NULL)');
    }
    await sameError("INSERT INTO nn SELECT i, 1.5, 'x' FROM n");
    await sameError("INSERT INTO nn SELECT id, i * 0.5, 'x' FROM n");
    await sameError("INSERT INTO nn SELECT id, 1.5, 'x' || i FROM n");
    await db.query("INSERT INTO nn SELECT id, id * 0.5, 'x' || id FROM n");
    await pgl.query("INSERT INTO nn SELECT id, id * 0.5, 'x' || id FROM n");
    await same('SELECT * FROM nn ORDER BY id');
  });

  it('leaves the moved cast out of EXPLAIN, as PostgreSQL shows the query under the insert', async () => {
    await db.query('DROP TABLE IF EXISTS dst');
    await db.query('CREATE TABLE dst (id int, v float8)');
    await pgl.query('DROP TABLE IF EXISTS dst');
    await pgl.query('CREATE TABLE dst (id int, v float8)');
    const sql = 'EXPLAIN (VERBOSE, COSTS OFF) INSERT INTO dst SELECT id, i * 0.5 FROM n';
    const output = (lines: string[]): string | undefined => lines.find((l) => l.trim().startsWith('Output: ') && l.includes('0.5'))?.trim();
    const mine = output((await db.query(sql)).rows.map((r) => String(r[0])));
    const theirs = output((await pgl.query<[string]>(sql, [], { rowMode: 'array' })).rows.map((r) => r[0]));
    expect(mine).toBe('Output: n.id, ((n.i)::numeric * 0.5)');
    expect(theirs).toBe(mine);
  });

  it('keeps NULLs, and the text built from integers', async () => {
    for (const target of [db, pgl]) {
      await target.query('DROP TABLE IF EXISTS dst');
      await target.query('CREATE TABLE dst (id int, v float8, t text)');
    }
    const sql = "INSERT INTO dst SELECT id, i * 0.5, 'row-' || i || '-' || b || s FROM n";
    await db.query(sql);
    await pgl.query(sql);
    await same('SELECT id, v, t FROM dst ORDER BY id');
  });
});
