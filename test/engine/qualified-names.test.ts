/**
 * Statements that name a relation in a schema this database does not have fail as in PostgreSQL
 * (42P01 for DML, 3F000 for DDL and COPY, 0A000 for another database) and leave the table of the same
 * name in public untouched; public.x and pg_temp.x name the permanent and the TEMP relation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database } from '../../src/index.js';
import { startPg } from '../common/pg-helper.js';

const SETUP = ["create table t (a int primary key, b text)", "insert into t values (1, 'x'), (2, 'y')", 'create view v as select a from t'];

/** Statements whose SQLSTATE must match PostgreSQL's; each is followed by a check that t is intact. */
const REFUSED = [
  'delete from nosuch.t',
  "update nosuch.t set b = 'z'",
  'insert into nosuch.t values (3)',
  "insert into nosuch.t select 3, 'z'",
  'truncate nosuch.t',
  'drop table nosuch.t',
  'drop view nosuch.v',
  'create index on nosuch.t (b)',
  'create index on t (no_such_column)',
  'create index on no_such_table (b)',
  'create view nosuch.w as select 1',
  'create table nosuch.z (a int)',
  'create table nosuch.z as select 1',
  'select 1 into nosuch.z',
  'copy nosuch.t from stdin',
  'copy nosuch.t to stdout',
  'delete from otherdb.public.t',
];

describe('schema-qualified relation names in DML and DDL', () => {
  let pg: PGlite;
  let db: Database;
  beforeAll(async () => {
    pg = await startPg();
    db = await Database.create();
    for (const s of SETUP) {
      await pg.query(s);
      await db.query(s);
    }
  }, 60_000);
  afterAll(async () => {
    await pg?.close();
    await db?.close();
  });

  for (const sql of REFUSED) {
    it(sql, async () => {
      const want = await pg.query(sql).then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      );
      const got = await db.query(sql).then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      );
      expect(want).not.toBe('ok');
      expect(got).toBe(want);
      expect((await db.query('select a, b from t order by a')).rows).toEqual([
        [1, 'x'],
        [2, 'y'],
      ]);
    });
  }

  it('DROP … IF EXISTS of a missing schema is a notice, and public.t / pg_temp.x name the right tables', async () => {
    const r = await db.query('drop table if exists nosuch.t');
    expect(r.notices.join(' ')).toContain('schema "nosuch" does not exist, skipping');
    await db.query('create table pg_temp.tt (a int)');
    await db.query('insert into pg_temp.tt values (7)');
    expect((await db.query('select * from tt')).rows).toEqual([[7]]);
    await db.query('delete from public.t where a = 2');
    expect((await db.query('select count(*) from t')).rows).toEqual([[1]]);
    await db.query('drop table pg_temp.tt');
    await expect(db.query('select * from tt')).rejects.toMatchObject({ code: '42P01' });
  });

  it('tables cannot be created or changed in pg_catalog or information_schema', async () => {
    await expect(db.query('create table pg_catalog.x (a int)')).rejects.toMatchObject({ code: '42501' });
    await expect(db.query('delete from information_schema.x')).rejects.toMatchObject({ code: '42501' });
  });

  it('CREATE UNIQUE INDEX is enforced (never accepted and ignored); a plain index changes nothing', async () => {
    await db.query('create unique index on public.t (b)');
    await expect(db.query("insert into t values (3, 'x')")).rejects.toMatchObject({ code: '23505', message: 'duplicate key value violates unique constraint "t_b_idx"' });
    await db.query('create index t_b on t (b desc)');
    await db.query('drop index t_b_idx');
    await db.query("insert into t values (3, 'x')");
  });
});
