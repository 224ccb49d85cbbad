/**
 * A bare FROM-item name in an expression is PostgreSQL's whole-row reference: a record of the item's
 * columns, printed as record_out does. A column of that name still wins, and a name that is neither stays
 * 42703, as in PostgreSQL (PGlite).
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, formatValue } from '../../src/index.js';
import { newPGlite } from '../common/pglite.js';

type Outcome = { ok: true; rows: unknown[][] } | { ok: false; code: string | undefined; position: number | undefined };

let pg: PGlite;
let db: Database;

const SETUP = ['CREATE TABLE t (a int, b text)', "INSERT INTO t VALUES (1, 'x'), (2, NULL)"];

beforeAll(async () => {
  pg = newPGlite();
  db = await Database.create();
  for (const s of SETUP) {
    await pg.query(s);
    await db.query(s);
  }
});

afterAll(async () => {
  await pg.close();
  await db.close();
});

async function onPg(sql: string): Promise<Outcome> {
  try {
    const r = await pg.query(sql, [], { rowMode: 'array' });
    return { ok: true, rows: r.rows as unknown[][] };
  } catch (e) {
    const err = e as { code?: string; position?: string };
    return { ok: false, code: err.code, position: err.position === undefined ? undefined : Number(err.position) };
  }
}

async function onQuire(sql: string): Promise<Outcome> {
  try {
    const r = await db.query(sql);
    // Records come back as values; compare their output text, as PGlite returns it.
    const rows = r.rows.map((row) => row.map((v, i) => (r.columns[i]!.type.name === 'record' ? formatValue(v, r.columns[i]!.type) : v)));
    return { ok: true, rows };
  } catch (e) {
    const err = e as { code?: string; position?: number };
    return { ok: false, code: err.code, position: err.position };
  }
}

describe('whole-row references', () => {
  const wholeRow: string[] = [
    'select foo from (select 1 offset 0) as foo',
    "select foo from (select 'xyzzy', 1, null offset 0) as foo",
    'select t from t',
    'select a from t where t is not null',
    'select a from t where t is null',
    'select count(x) from t as x',
    'select (select s from t limit 1) from t as s',
    'select t, count(*) from t group by t',
    'select a, (select count(*) from t u where u = t) from t',
  ];
  for (const sql of wholeRow) {
    it(`reads ${sql} as a record, as PostgreSQL does`, async () => {
      const p = await onPg(sql);
      expect(p.ok).toBe(true);
      const q = await onQuire(sql);
      expect(q.ok).toBe(true);
      if (!p.ok || !q.ok) return;
      const key = (r: unknown[]): string => JSON.stringify(r);
      expect(q.rows.map(key).sort()).toEqual(p.rows.map(key).sort());
    });
  }

  const same: string[] = [
    // A column named like the FROM item is the column, in PostgreSQL too.
    'select t from (select 7 as t) t',
    'select x.t from (select 8 as t) x',
    'select a from t as a order by a',
  ];
  for (const sql of same) {
    it(`reads the column in ${sql} as PostgreSQL does`, async () => {
      const p = await onPg(sql);
      const q = await onQuire(sql);
      expect(p.ok).toBe(true);
      expect(q).toEqual({ ok: true, rows: (p as { rows: unknown[][] }).rows });
    });
  }

  const unknown: string[] = ['select nosuch from t', 'select t.a from t as u', 'select foo from (select 1) as bar'];
  for (const sql of unknown) {
    it(`fails ${sql} with PostgreSQL's code and position`, async () => {
      const p = await onPg(sql);
      const q = await onQuire(sql);
      expect(p.ok).toBe(false);
      expect(q).toEqual(p);
    });
  }
});
