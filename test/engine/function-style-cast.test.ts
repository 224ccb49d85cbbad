/**
 * `float8(x)`, `int4(x)`, `text(x)`, …: a one-argument call of a type's name that no function takes is
 * an explicit cast, as PostgreSQL's function-style casts; results and errors match PostgreSQL (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database } from '../../src/index.js';
import { formatValue } from '../../src/common/format-value.js';
import type { Value } from '../../src/common/types.js';
import { startPg } from '../common/pg-helper.js';

let pg: PGlite;
let db: Database;
let parsers: Record<number, (v: string) => string>;

beforeAll(async () => {
  pg = await startPg();
  const oids = await pg.query<[number]>('select oid::int4 from pg_type', [], { rowMode: 'array' });
  parsers = {};
  for (const [oid] of oids.rows) parsers[oid] = (v: string) => v;
  db = await Database.create();
}, 60_000);
afterAll(async () => {
  await pg?.close();
  await db?.close();
});

async function outcome(run: () => Promise<string[][]>): Promise<string[][] | string> {
  return run().then(
    (r) => r,
    (e: { code?: string }) => `error ${e.code}`,
  );
}

describe('function-style casts', () => {
  for (const sql of [
    "select float8(3), int4(2.7), int4(-2.5), text(5), date('2024-01-02'), int8(3.5::float8), bool('t'), float4(1), int2(7), bpchar('ab')",
    'select upper(text(12)), float8(1) / 3, int4(float8(7) / 2)',
    "select int4('x')",
    'select int2(70000)',
    'select float8(1, 2)',
    'select nosuchtype(1)',
  ]) {
    it(sql, async () => {
      const want = await outcome(async () => (await pg.query<string[]>(sql, [], { rowMode: 'array', parsers })).rows);
      const got = await outcome(async () => {
        const r = await db.query(sql);
        return r.rows.map((row) => row.map((v, i) => formatValue(v as Value, r.columns[i]!.type)!));
      });
      expect(got).toEqual(want);
    });
  }
});
