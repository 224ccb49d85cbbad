/**
 * Named composite types in the library API: values come back as RecordValue with the fields' types, a
 * database directory refuses columns of such types (the types themselves live in the process), and a
 * type created and dropped in one session leaves no trace for the next statement.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { RecordValue } from '../../src/common/record-value.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function code(db: Database, sql: string): Promise<string | undefined> {
  try {
    await db.query(sql);
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
}

describe('named composite types', () => {
  it('returns RecordValues typed by the composite type', async () => {
    const db = await Database.create();
    try {
      await db.query('CREATE TYPE cv AS (n int, s text)');
      const r = await db.query("SELECT ROW(1, 'x')::cv AS v, pg_typeof(ROW(1, 'x')::cv) AS t");
      const v = r.rows[0]![0] as RecordValue;
      expect(v).toBeInstanceOf(RecordValue);
      expect(v.fields).toEqual([1, 'x']);
      expect(v.types.map((t) => t.name)).toEqual(['int4', 'text']);
      expect(r.rows[0]![1]).toBe('cv');
      expect(r.columns[0]!.type.composite?.name).toBe('cv');
    } finally {
      await db.close();
    }
  });

  it('keeps composite columns out of a database directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-composite-'));
    dirs.push(dir);
    const db = await Database.create({ path: dir });
    try {
      await db.query('CREATE TYPE cd AS (a int)');
      expect(await code(db, 'CREATE TABLE ct (x cd)')).toBe('0A000');
      expect(await code(db, 'CREATE TABLE ct2 AS SELECT ROW(1)::cd AS x')).toBe('0A000');
      await db.query('CREATE TEMP TABLE ctt (x cd)');
      await db.query('INSERT INTO ctt VALUES (ROW(5))');
      expect((await db.query('SELECT (x).a FROM ctt')).rows).toEqual([[5]]);
    } finally {
      await db.close();
    }
  });

  it('drops a type with DROP TYPE and refuses builtin names', async () => {
    const db = await Database.create();
    try {
      await db.query('CREATE TYPE cx AS (a int)');
      expect(await code(db, 'CREATE TYPE int4 AS (a int)')).toBe('42710');
      expect(await code(db, 'DROP TYPE integer')).toBe('2BP01');
      await db.query('DROP TYPE cx');
      expect(await code(db, 'SELECT NULL::cx')).toBe('42704');
    } finally {
      await db.close();
    }
  });
});
