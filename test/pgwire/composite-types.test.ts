/**
 * Named composite types and PL/pgSQL over the PostgreSQL protocol: record output in text format as
 * PostgreSQL prints it, the type's own OID (listed in pg_type), RAISE NOTICE as NoticeResponse, and
 * the REST JSON form (the record's text).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './helpers.js';
import { jsonValue } from '../../src/server/rest/formats.js';
import { RecordValue } from '../../src/common/record-value.js';
import { T, compositeType } from '../../src/common/types.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({});
  await fx.db.query('create type cpair as (a integer, b integer, c text)');
  await fx.db.query('create table ctab (id int, p cpair)');
  await fx.db.query(`insert into ctab values (1, row(1, 3, 'foo')), (2, row(0, null, 'a b')), (3, null)`);
  await fx.db.query(`create function cnote(x cpair) returns int as $$ begin raise notice 'a is %, c is %', x.a, x.c; return x.a; end $$ language plpgsql`);
  await fx.db.query(`create function cwarn(x int) returns int as $$ begin raise warning 'careful: %', x; return x; end $$ language plpgsql`);
});
afterAll(async () => {
  await fx.server.close();
});

function client(): pg.Client {
  return new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire', types: { getTypeParser: () => (v: unknown) => v } as never });
}

describe('composite types on the PostgreSQL protocol', () => {
  it('prints records in text format with the type OID pg_type lists', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query({ text: 'select p, array[p] as ps from ctab order by id', rowMode: 'array' });
      expect(r.rows).toEqual([
        ['(1,3,foo)', '{"(1,3,foo)"}'],
        ['(0,,"a b")', '{"(0,,\\"a b\\")"}'],
        [null, '{NULL}'],
      ]);
      const t = await c.query({ text: "select oid, typtype, typarray from pg_type where typname = 'cpair'", rowMode: 'array' });
      expect(t.rows).toHaveLength(1);
      const [oid, typtype, typarray] = t.rows[0] as string[];
      expect(typtype).toBe('c');
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([Number(oid), Number(typarray)]);
    } finally {
      await c.end();
    }
  });

  it('sends RAISE NOTICE as a notice before the rows', async () => {
    const c = client();
    const notices: string[] = [];
    c.on('notice', (n) => notices.push(n.message ?? ''));
    await c.connect();
    try {
      const r = await c.query({ text: 'select cnote(p) from ctab where id < 3 order by id', rowMode: 'array' });
      expect(r.rows).toEqual([['1'], ['0']]);
      expect(notices).toEqual(['a is 1, c is foo', 'a is 0, c is a b']);
    } finally {
      await c.end();
    }
  });

  it('sends RAISE WARNING with severity WARNING and SQLSTATE 01000', async () => {
    const c = client();
    const notices: { severity?: string; code?: string; message?: string }[] = [];
    c.on('notice', (n) => notices.push({ severity: n.severity, code: n.code, message: n.message }));
    await c.connect();
    try {
      await c.query('select cwarn(7)');
      expect(notices).toEqual([{ severity: 'WARNING', code: '01000', message: 'careful: 7' }]);
    } finally {
      await c.end();
    }
  });

  it('gives REST clients the record text', () => {
    const t = compositeType({ name: 'cpair', oid: 1, fields: [{ name: 'a', type: T.int4 }, { name: 'c', type: T.text }] });
    expect(jsonValue(new RecordValue([1, 'x y'], [T.int4, T.text]), t, 'UTC')).toBe('(1,"x y")');
  });

  it('sends a Parquet file\'s groups as record (2249), lists of groups as record[] (2287), lists as their arrays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-pg-nested-'));
    const file = join(dir, 'n.parquet');
    const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
    const duck = await inst.connect();
    await duck.run(`COPY (SELECT i::INTEGER AS id, {'a': i, 'b': 'x y'} AS s, [{'p': i}] AS ls, [i, NULL]::INTEGER[] AS l FROM range(2) t(i)) TO '${file}' (FORMAT parquet)`);
    duck.closeSync();
    const files = await startFixture({ allowFiles: [dir] });
    const c = new pg.Client({ host: '127.0.0.1', port: files.server.port, user: 'node', database: 'quire', types: { getTypeParser: () => (v: unknown) => v } as never });
    await c.connect();
    try {
      const r = await c.query({ text: `select s, ls, l from read_parquet('${file}') order by id`, rowMode: 'array' });
      expect(r.rows).toEqual([
        ['(0,"x y")', '{(0)}', '{0,NULL}'],
        ['(1,"x y")', '{(1)}', '{1,NULL}'],
      ]);
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([2249, 2287, 1007]);
    } finally {
      await c.end();
      await files.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
