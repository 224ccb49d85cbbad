/** Quire loads the demo database and answers a few queries on it exactly like PostgreSQL. */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadDemo } from '../../src/demo/index.js';
import { Database, formatValue } from '../../src/index.js';
import { CHECKS, pgDemo, pgText } from './pg-reference.js';

let pg: PGlite;

beforeAll(async () => {
  pg = await pgDemo();
}, 120_000);

afterAll(async () => {
  await pg.close();
});

it('loads the demo database and answers like PostgreSQL', async () => {
  const db = await Database.create();
  await loadDemo(db);
  for (const sql of CHECKS) {
    const r = await db.query(sql);
    const got = r.rows.map((row) => row.map((v, j) => formatValue(v, r.columns[j].type, { timezone: 'UTC' })));
    expect(got, sql).toEqual(await pgText(pg, sql));
  }
}, 120_000);
