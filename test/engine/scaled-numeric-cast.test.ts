/**
 * CAST(x AS numeric(p, s)) of doubles and integers as unscaled doubles (src/physical/scaled-numeric-cast.ts),
 * against PGlite: every value as PostgreSQL's two roundings give it (15 significant digits, then s places),
 * above all the doubles near a half (1.005, 0.285 written as 0.28499999999999998), signs, zero and -0,
 * NULLs; sum, avg, min, max, grouping and Top-N over the result; NaN kept, and the errors of an infinity
 * or a value the precision cannot hold, worded as PostgreSQL words them.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { expectSameError, rng } from '../common/pg-helper.js';
import { newPGlite } from '../common/pglite.js';

let pgl: PGlite;
let db: Database;

const N = 3000;
function values(): string {
  const r = rng(11);
  const rows: string[] = [];
  for (let id = 0; id < N; id++) {
    const x = r();
    let v: number | null;
    if (x < 0.05) v = null;
    else if (x < 0.35) v = Math.round(r() * 2_000_000 - 1_000_000) / 1000 + 0.0005 * (r() < 0.5 ? 1 : -1); // a half at the third place
    else if (x < 0.5) v = Math.round(r() * 200_000 - 100_000) / 100 + 0.005; // x.xx5 as a double: either side of the half
    else if (x < 0.55) v = [0, -0, 0.005, -0.005, 0.28499999999999998, 1.005, 2.675, 0.125, -0.125, 1.0049999999999999, 9999999999.994, -9999999999.995][Math.floor(r() * 12)]!;
    else if (x < 0.8) v = (r() - 0.5) * 10 ** Math.floor(r() * 10);
    else v = r() * 1000;
    const i = Math.floor((r() - 0.5) * 2_000_000);
    const b = r() < 0.1 ? null : Math.floor((r() - 0.5) * 2e12);
    rows.push(`(${id}, ${id % 17}, ${v === null ? 'NULL' : Object.is(v, -0) ? "'-0'" : `'${v}'`}, ${i}, ${b ?? 'NULL'}, ${id % 300 - 150})`);
  }
  return rows.join(',\n');
}

beforeAll(async () => {
  pgl = newPGlite();
  db = await Database.create();
  for (const sql of ['CREATE TABLE f (id int, g int, v float8, i int4, b int8, s int2)', `INSERT INTO f VALUES ${values()}`]) {
    await db.query(sql);
    await pgl.query(sql);
  }
}, 60_000);
afterAll(async () => {
  await pgl.close();
  await db.close();
});

async function same(sql: string): Promise<void> {
  const mine = (await db.query(sql)).rows.map((row) => row.map((v) => (v === null ? null : String(v))));
  const theirs = (await pgl.query<unknown[]>(sql, [], { rowMode: 'array' })).rows.map((row) => row.map((v) => (v === null ? null : String(v))));
  expect(mine.length, sql).toBe(theirs.length);
  for (let r = 0; r < mine.length; r++) expect(mine[r], `${sql}: row ${r}`).toEqual(theirs[r]);
}

const sameError = (sql: string): Promise<void> => expectSameError(pgl, db, sql);

describe('CAST(x AS numeric(p, s)) on unscaled doubles', () => {
  const typmods = ['numeric(12,2)', 'numeric(15,2)', 'numeric(15,4)', 'numeric(13,0)', 'numeric(14,3)', 'numeric(15,1)'];

  it('gives every value PostgreSQL gives, doubles near a half included', async () => {
    for (const t of typmods) {
      await same(`SELECT id, CAST(v AS ${t})::text FROM f WHERE abs(v) < 1e9 OR v IS NULL ORDER BY id`);
      await same(`SELECT id, CAST(v * 3 AS ${t}), CAST(i AS ${t}), CAST(s AS ${t}) FROM f WHERE abs(v) < 1e8 ORDER BY id`);
    }
    await same(`SELECT id, CAST(b AS numeric(15,2)) FROM f WHERE abs(b) < 1e12 ORDER BY id`);
  });

  it('sums, averages, compares, groups and takes the top rows as PostgreSQL does', async () => {
    for (const t of typmods.slice(0, 3)) {
      const x = `(SELECT id, g, CAST(v AS ${t}) AS x FROM f WHERE abs(v) < 1e9 OR v IS NULL) q`;
      await same(`SELECT g, sum(x), avg(x), min(x), max(x), count(x) FROM ${x} GROUP BY g ORDER BY g`);
      await same(`SELECT sum(x), avg(x) FROM ${x}`);
      await same(`SELECT id, x FROM ${x} ORDER BY x DESC, id LIMIT 10`);
      await same(`SELECT id, x FROM ${x} ORDER BY x NULLS FIRST, id LIMIT 25`);
      await same(`SELECT count(*) FROM ${x} WHERE x > 100.5`);
      await same(`SELECT x, count(*) FROM ${x} GROUP BY x ORDER BY count(*) DESC, x LIMIT 10`);
    }
  });

  it('takes the top rows over many batches: each candidate row compared alone, ties, NULLs, OFFSET and WITH TIES', async () => {
    // 40,000 rows (ten batches), a thirteenth NULL, values repeating every 1,000 rows: ties at every value.
    const create = 'CREATE TABLE big AS SELECT i AS id, CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 7919) % 1000) / 7.0::float8 - 50 END AS v FROM generate_series(1, 40000) i';
    await db.query(create);
    await pgl.query(create);
    const x = '(SELECT id, CAST(v AS numeric(12,2)) AS x FROM big) q';
    await same(`SELECT id, x FROM ${x} ORDER BY x DESC, id LIMIT 10`);
    await same(`SELECT id, x FROM ${x} ORDER BY x, id DESC LIMIT 10 OFFSET 37`);
    await same(`SELECT id, x FROM ${x} ORDER BY x DESC NULLS LAST, id LIMIT 3`);
    await same(`SELECT id, x FROM ${x} ORDER BY x NULLS FIRST, id LIMIT 5`);
    await same(`SELECT x FROM ${x} ORDER BY x DESC FETCH FIRST 5 ROWS WITH TIES`);
    await same(`SELECT count(*) FROM (SELECT id FROM ${x} ORDER BY x FETCH FIRST 50 ROWS WITH TIES) t`);
    await same(`SELECT id, x FROM ${x} WHERE id % 3 = 0 ORDER BY abs(x), id LIMIT 8`);
  });

  it('keeps NaN and raises PostgreSQL errors for infinities and values the precision cannot hold', async () => {
    await db.query(`CREATE TABLE e (id int, v float8)`);
    await pgl.query(`CREATE TABLE e (id int, v float8)`);
    const ins = `INSERT INTO e SELECT i, i * 0.37 FROM generate_series(1, 5000) i`;
    await db.query(ins);
    await pgl.query(ins);
    for (const [v, t] of [
      ["'NaN'", 'numeric(12,2)'],
      ['123456.785', 'numeric(8,2)'],
      ['9999999.994', 'numeric(9,2)'],
      ['-0.004', 'numeric(3,2)'],
    ]) {
      await db.query(`INSERT INTO e VALUES (0, ${v})`);
      await pgl.query(`INSERT INTO e VALUES (0, ${v})`);
      await same(`SELECT sum(CAST(v AS ${t})) FILTER (WHERE id = 0)::text, count(*) FROM e`);
      await db.query(`DELETE FROM e WHERE id = 0`);
      await pgl.query(`DELETE FROM e WHERE id = 0`);
    }
    for (const [v, t] of [
      ["'Infinity'", 'numeric(12,2)'],
      ["'-Infinity'", 'numeric(12,2)'],
      ['123456.785', 'numeric(7,2)'],
      ['9999999.995', 'numeric(9,2)'],
      ['1e15', 'numeric(15,0)'],
    ]) {
      await db.query(`INSERT INTO e VALUES (0, ${v})`);
      await pgl.query(`INSERT INTO e VALUES (0, ${v})`);
      await sameError(`SELECT sum(CAST(v AS ${t})) FROM e`);
      await db.query(`DELETE FROM e WHERE id = 0`);
      await pgl.query(`DELETE FROM e WHERE id = 0`);
    }
    await sameError(`SELECT sum(CAST(i AS numeric(7,2))) FROM f`);
    await same(`SELECT sum(CAST(i AS numeric(9,2))) FROM f`);
  });

  it('leaves numeric(p, s) past 15 digits, unconstrained numeric and float4 to the general way, with the same answers', async () => {
    await same(`SELECT id, CAST(v AS numeric(20,2)), CAST(v AS numeric(16,10)), CAST(v::float4 AS numeric(12,2)) FROM f WHERE abs(v) < 1e5 ORDER BY id`);
    await same(`SELECT sum(CAST(v AS numeric(20,2))), sum(CAST(v AS numeric)) FROM f WHERE abs(v) < 1e9`);
  });
});
