import type { PGlite } from '@electric-sql/pglite';
import { expect } from 'vitest';
import { newPGlite } from './pglite.js';

/** One PGlite per test file; batched queries keep the differential suites fast. */
export async function startPg(): Promise<PGlite> {
  const pg = newPGlite();
  await pg.query("set timezone='UTC'");
  return pg;
}

/** Evaluates `expr` (using $1..$n as text parameters) for many argument tuples in one round trip. */
export async function pgBatch(pg: PGlite, expr: string, args: readonly (readonly string[])[]): Promise<string[]> {
  if (args.length === 0) return [];
  const n = args[0]!.length;
  const cols = Array.from({ length: n }, (_, i) => `c${i + 1}`);
  let body = expr;
  for (let i = n; i >= 1; i--) body = body.split(`$${i}`).join(`t.c${i}`);
  const unnest = cols.map((_, i) => `$${i + 1}::text[]`).join(', ');
  const sql = `select (${body})::text from unnest(${unnest}) with ordinality as t(${cols.join(', ')}, ord) order by ord`;
  const params = cols.map((_, i) => args.map((a) => a[i]!));
  const r = await pg.query<[string | null]>(sql, params, { rowMode: 'array' });
  return r.rows.map((row) => row[0] as string);
}

export interface PgOutcome {
  value?: string | null;
  code?: string;
  message?: string;
}

/** One query with error capture (errors abort batches, so error cases go one by one). */
export async function pgOne(pg: PGlite, sql: string, params: unknown[] = []): Promise<PgOutcome> {
  try {
    const r = await pg.query<[string | null]>(sql, params, { rowMode: 'array' });
    return { value: r.rows[0]![0] };
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { code: x.code, message: x.message };
  }
}

export function ours(f: () => string | null): PgOutcome {
  try {
    return { value: f() };
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { code: x.code, message: x.message };
  }
}

/** Deterministic PRNG so failures reproduce. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `sql` fails in PGlite, and in Quire with the same SQLSTATE and message. */
export async function expectSameError(pg: PGlite, db: { query(sql: string): Promise<unknown> }, sql: string): Promise<void> {
  let theirs: { code?: string; message?: string } | null = null;
  try {
    await pg.query(sql);
  } catch (e) {
    theirs = e as { code?: string; message?: string };
  }
  expect(theirs, `PGlite accepted ${sql}`).not.toBeNull();
  await expect(db.query(sql)).rejects.toMatchObject({ code: theirs!.code, message: theirs!.message });
}
