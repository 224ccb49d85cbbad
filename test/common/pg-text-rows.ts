/**
 * One query's rows from Quire and from PGlite, every value as text (NULL as null, a date as
 * YYYY-MM-DD), for tests that compare the two answers; and a statement run on both.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { Database } from '../../src/index.js';

export async function runOnBoth(db: Database, pg: PGlite, sql: string): Promise<void> {
  await db.query(sql);
  await pg.query(sql);
}

export async function textRowsOfBoth(db: Database, pg: PGlite, sql: string): Promise<{ ours: (string | null)[][]; theirs: (string | null)[][] }> {
  const ours = (await db.query(sql)).rows.map((r) => r.map((v) => (v === null ? null : String(v))));
  const theirs = (await pg.query<unknown[]>(sql, [], { rowMode: 'array' })).rows.map((r) => r.map((v) => (v === null ? null : v instanceof Date ? v.toISOString().slice(0, 10) : String(v))));
  return { ours, theirs };
}
