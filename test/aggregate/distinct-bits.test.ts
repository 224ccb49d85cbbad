/**
 * count/sum/avg/min/max(DISTINCT x) over int2, int4 and date columns, the case group-value-set.ts holds
 * as bits while every row is of one group: compared with PostgreSQL (PGlite) when values arrive
 * increasing, decreasing (the low bound moves down and every held bit moves), negative, NULL, within
 * FILTER, and when a later batch spans too wide a range or a GROUP BY brings a second group only after
 * the first batches (the bits then move into the hash table, and nothing already seen is counted twice).
 * Such aggregates take each batch's new values straight away (hash-aggregate.ts, OrderedInput.direct):
 * a group that first comes in a batch where FILTER keeps none of its rows still gets its values later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database } from '../../src/index.js';
import { newPGlite } from '../common/pglite.js';
import { runOnBoth, textRowsOfBoth } from '../common/pg-text-rows.js';

let pg: PGlite;
let db: Database;

async function both(sql: string): Promise<void> {
  await runOnBoth(db, pg, sql);
}

async function same(sql: string): Promise<void> {
  const { ours, theirs } = await textRowsOfBoth(db, pg, sql);
  expect(ours, sql).toEqual(theirs);
}

beforeAll(async () => {
  pg = await newPGlite();
  db = await Database.create();
  await both('CREATE TABLE t (i int4, a int4, b int4, s int2, d date, g int4)');
  // Ten batches: a rises with i, b falls (every batch lowers the bound), NULLs every 17th row, s
  // repeats, g is 0 for the first 20,000 rows (sorted by group, so a GROUP BY meets group 1 late).
  await both(
    "INSERT INTO t SELECT i, i * 3, 50000 - i * 7, CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 300 - 150)::int2 END, DATE '2020-01-01' + (i % 2000), CASE WHEN i <= 20000 THEN 0 ELSE 1 + i % 4 END FROM generate_series(1, 40000) i",
  );
}, 120_000);

afterAll(async () => {
  await pg?.close();
  await db?.close();
});

describe('DISTINCT over one group held as bits', () => {
  it('count, sum, avg, min and max of distinct values, rising, falling, negative and NULL', async () => {
    await same('SELECT count(DISTINCT a), sum(DISTINCT a), count(DISTINCT b), sum(DISTINCT b), min(b), max(b) FROM t');
    await same('SELECT count(DISTINCT s), sum(DISTINCT s), avg(DISTINCT s)::numeric(20,6), count(s) FROM t');
    await same('SELECT count(DISTINCT d), min(DISTINCT d)::text, max(DISTINCT d)::text FROM t');
    await same('SELECT count(DISTINCT a % 1000), count(DISTINCT b / 3) FROM t');
    await same('SELECT count(DISTINCT a) FILTER (WHERE i % 3 = 0), count(DISTINCT s) FILTER (WHERE s < 0) FROM t');
    await same('SELECT count(DISTINCT a) FROM t WHERE i > 39990');
  });

  it('a later batch whose values span too wide a range moves the bits into the table', async () => {
    // a is 3..120000 until row 40,000; these rows reach past 2^26 from it, among values already seen.
    await both('CREATE TABLE w AS SELECT * FROM t');
    await both('INSERT INTO w SELECT i, CASE WHEN i % 2 = 0 THEN 200000000 + i ELSE (i % 40000) * 3 END, 0, 0, NULL, 0 FROM generate_series(40001, 46000) i');
    await same('SELECT count(DISTINCT a), sum(DISTINCT a), min(a), max(a) FROM w');
    await both('INSERT INTO w SELECT i, -2000000000 + i, 0, 0, NULL, 0 FROM generate_series(1, 5000) i');
    await same('SELECT count(DISTINCT a), sum(DISTINCT a::int8) FROM w');
  });

  it('a GROUP BY whose second group comes after batches of the first', async () => {
    await same('SELECT g, count(DISTINCT a), count(DISTINCT s), sum(DISTINCT s) FROM t GROUP BY g ORDER BY g');
    await same('SELECT g, count(DISTINCT a % 500) FROM t GROUP BY g ORDER BY g');
    // Groups 1 to 4 arrive in batches whose rows the FILTER drops, and keep values only later.
    await same('SELECT g, count(DISTINCT a) FILTER (WHERE i <= 12000 OR i > 28000), sum(DISTINCT s) FILTER (WHERE i > 30000), count(*) FROM t GROUP BY g ORDER BY g');
  });
});
