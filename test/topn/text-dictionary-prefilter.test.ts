/**
 * ORDER BY <text> … LIMIT over dictionary-coded text: the Top-N prefilter compares the dictionary's
 * text-order ranks with the boundary's, and falls back to string comparisons for large dictionaries
 * and boundaries outside the dictionary. Results against PostgreSQL (PGlite): ASC/DESC, NULLS FIRST/
 * LAST, ties broken by id, multibyte text and characters outside the BMP, small and large dictionaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database } from '../../src/index.js';
import { startPg } from '../common/pg-helper.js';

const ROWS = 30_000;
let pg: PGlite;
let db: Database;

/** A deterministic string per row: `distinct` values, some multibyte, some beyond the BMP, some NULL. */
function value(i: number, distinct: number, nulls: boolean): string | null {
  const x = (i * 7919 + 13) % distinct;
  if (nulls && x % 97 === 0) return null;
  const tail = x % 5 === 0 ? 'é' : x % 11 === 0 ? '😀' : '';
  return `k${(x * 31) % distinct}${tail}`;
}

beforeAll(async () => {
  pg = await startPg();
  db = await Database.create();
  for (const [name, distinct, nulls] of [
    ['small', 300, true],
    ['nonull', 500, false],
    ['large', 25_000, true],
  ] as const) {
    const id: number[] = [];
    const s: (string | null)[] = [];
    for (let i = 0; i < ROWS; i++) {
      id.push(i);
      s.push(value(i, distinct, nulls));
    }
    db.registerColumns(name, { id: Int32Array.from(id), s }, { id: 'integer', s: 'text' });
    await pg.query(`create table ${name} (id int, s text)`);
    for (let i = 0; i < ROWS; i += 5000) {
      const chunk = s.slice(i, i + 5000);
      await pg.query(`insert into ${name} select i + ${i}, v from unnest($1::text[]) with ordinality as u(v, i)`, [chunk]);
    }
    await pg.query(`update ${name} set id = id - 1`);
  }
}, 120_000);
afterAll(async () => {
  await pg?.close();
  await db?.close();
});

describe('Top-N on dictionary-coded text', () => {
  for (const table of ['small', 'nonull', 'large']) {
    for (const order of ['s desc, id', 's, id', 's desc nulls last, id desc', 's nulls first, id', 's collate "C" desc, id']) {
      for (const limit of [1, 100, 2500]) {
        const sql = `select id, s from ${table} order by ${order} limit ${limit}`;
        it(sql, async () => {
          const want = (await pg.query<{ id: number; s: string | null }>(sql)).rows.map((r) => [r.id, r.s]);
          const got = (await db.query(sql)).rows;
          expect(got).toEqual(want);
        });
      }
    }
  }
});
