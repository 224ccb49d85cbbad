/**
 * name against PostgreSQL (PGlite): input cut to 63 bytes (multibyte characters whole), comparisons with
 * name, text and untyped literals, casts, ordering, LIKE and regular expressions, concatenation, min/max,
 * pg_typeof, pg_get_viewdef's name constants and errors; then 6,000-row tables (hash and sort paths for
 * grouping, DISTINCT, joins, ORDER BY), COPY round trips, a database directory and the PostgreSQL
 * protocol (OID 19, text and binary, namerecv's length check).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { RawClient, names, rawFields, serialize, startFixture, type Fixture } from '../pgwire/helpers.js';
import { decodeParam, encoderFor } from '../../src/server/pgwire/types.js';
import { T } from '../../src/common/types.js';

// Words of mixed case, accents, astral characters and lengths around the 63-byte limit, so that ties,
// the cut and code point order (not UTF-16 order: U+FF5A sorts below U+1F600) all matter.
const FILL = `insert into big select g, g % 53,
  case when g % 17 = 0 then null
       when g % 5 = 0 then (chr(65 + g % 26) || repeat('é', g % 40) || g)
       when g % 7 = 0 then repeat(chr(97 + g % 3), 55 + g % 12) || '😀'
       when g % 11 = 0 then 'ｚ' || (g % 9)
       else chr(97 + g % 26) || (g % 300) end,
  'k' || (g % 250)
  from generate_series(1, 6000) g`;

const SETUP = [
  'create table nt (id int, n name, s text, v varchar(20))',
  "insert into nt values (1, 'abc', 'abc', 'abc'), (2, 'Abd', 'x', 'Abd'), (3, null, 'q', null), (4, 'é' || repeat('x', 70), 'b', 'b'), (5, 'zz', 'zz', 'zy'), (6, '', '', '')",
  'create table big (id int, k int, n name, s text)',
  FILL,
  "create view nv1 as select id from nt where n = 'abc'",
  "create view nv2 as select id from nt where n = s and n > 'a'::text",
  "create view nv3 as select n || 'x' as a, upper(n) as b from nt",
];

const outcome = outcomeText;

let pgl: SqlConnection;
let q: SqlConnection;
const dir = mkdtempSync(join(tmpdir(), 'quire-name-'));

beforeAll(async () => {
  ({ pg: pgl, q } = await pgliteAndQuire(SETUP));
}, 120_000);
afterAll(async () => {
  await pgl.close?.();
  await q.close?.();
  rmSync(dir, { recursive: true, force: true });
});

async function same(sqls: string[]): Promise<void> {
  for (const sql of sqls) {
    const want = await outcome(pgl, sql);
    expect(await outcome(q, sql), sql).toBe(want);
  }
}

describe('name against PostgreSQL', () => {
  it('cuts input at 63 bytes on a character boundary', async () => {
    await same([
      'select id, n, octet_length(n), length(n) from nt order by id',
      "select repeat('é', 40)::name, octet_length(repeat('é', 40)::name), (repeat('x', 62) || '€')::name",
      "select octet_length((repeat('x', 60) || '😀')::name), octet_length((repeat('x', 59) || '😀')::name), octet_length(repeat('a', 64)::name)",
      "select (repeat('é', 40)::text)::name = repeat('é', 31)::name, 'abc'::varchar::name, ('ab  '::char(4))::name || '|'",
      "select name 'x', name('y'), 12::name, 1.5::name, true::name, (-3)::int8::name, '2020-01-02'::date::name",
    ]);
  });

  it('compares with name, text and untyped literals', async () => {
    await same([
      "select id from nt where n = 'abc'",
      'select id from nt where n = s order by id',
      'select id from nt where s = n order by id',
      'select id from nt where n = v order by id',
      'select id from nt where n < s order by id',
      "select id from nt where n >= 'Abd' and n <= 'abc' order by id",
      "select id from nt where n <> 'abc' order by id",
      "select id from nt where n in ('zz', 'abc') order by id",
      "select 'a'::name < 'b'::name, 'B'::name < 'a'::name, 'é'::name > 'z'::name, '😀'::name > 'ｚ'::name, 'a'::name = 'a'::text, 'a'::text <> 'a'::name",
      "select 'ab'::name is distinct from 'ab'::text, nullif('a'::name, 'a'), greatest('a'::name, 'b'), least('b'::text, 'a'::name)",
      "select pg_typeof(greatest('a'::name, 'b'::text))::text, pg_typeof(coalesce(n, s))::text, pg_typeof(coalesce(s, n))::text from nt where id = 1",
      'select pg_typeof(case when id = 1 then n else s end)::text, pg_typeof(case when id = 1 then s else n end)::text from nt where id = 1',
    ]);
  });

  it('matches LIKE, ILIKE, SIMILAR TO and regular expressions', async () => {
    await same([
      "select id from nt where n like 'a%' order by id",
      "select id from nt where n not like '%b%' order by id",
      "select id from nt where n ilike 'A%' order by id",
      "select id from nt where n not ilike 'a%' order by id",
      "select id from nt where n ~ '^[aA]b' order by id",
      "select id from nt where n !~ 'b' order by id",
      "select id from nt where n ~* '^AB' order by id",
      "select id from nt where n !~* '^AB' order by id",
      "select id from nt where n similar to 'z%' order by id",
      "select id from nt where n like s order by id",
    ]);
  });

  it('concatenates and calls string functions through text', async () => {
    await same([
      "select n || 'x', n || s, s || n, n || n, n || 1, 1 || n, pg_typeof(n || 'x')::text from nt order by id",
      "select upper(n), lower(n), length(n), substr(n, 2, 3), replace(n, 'b', 'B'), pg_typeof(lower(n))::text from nt where id in (1, 2, 5) order by id",
      "select quote_ident(n), quote_literal(n), concat(n, '-', s), format('%s/%I', n, n), split_part(n, 'b', 1) from nt where id in (1, 2) order by id",
    ]);
  });

  it('aggregates with text semantics', async () => {
    await same([
      'select max(n), min(n), pg_typeof(max(n))::text, count(distinct n), count(n) from nt',
      "select string_agg(n, ',' order by n) from nt",
      'select array_agg(n order by n) from nt',
    ]);
  });

  it('casts to and from other types', async () => {
    await same([
      "select 'abc'::name::varchar(2), 'abc'::name::char(2), n::text, n::varchar from nt where id = 1",
      "select '12'::name::int, ' 7'::name::int8, '1.5'::name::numeric, 't'::name::bool",
      "select 'abc'::name::int",
      "select array['a', 'b']::name[], pg_typeof(array['a']::name[])::text, ('{x,y}'::name[])[2]",
      "select '1'::name + 1",
      "select 'a'::name - 'b'::name",
      'select id from nt where n = 1',
      "select 'a'::name(3)",
      'select pg_typeof(n)::text, pg_typeof(n::text)::text from nt limit 1',
      'select pg_typeof(current_user)::text, pg_typeof(session_user)::text, pg_typeof(current_database())::text, pg_typeof(current_schema)::text, pg_typeof(current_catalog)::text',
    ]);
  });

  it('prints name constants in pg_get_viewdef', async () => {
    await same(["select pg_get_viewdef('nv1')", "select pg_get_viewdef('nv2')", "select pg_get_viewdef('nv3')"]);
  });

  it('takes assignments through the cut', async () => {
    for (const c of [pgl, q]) {
      await c.query('create table na (id int, n name)');
      await c.query("insert into na values (1, repeat('y', 100)), (2, 42), (3, true), (4, repeat('ü', 40))");
      await c.query("update na set n = n || repeat('z', 80) where id = 2");
    }
    await same(['select id, n, octet_length(n) from na order by id']);
  });
});

describe('name on 6,000 rows', () => {
  it('groups, sorts, deduplicates and joins as PostgreSQL does', async () => {
    await same([
      'select id, n from big order by n, id limit 80',
      'select id, n from big order by n desc nulls last, id limit 80',
      'select n, count(*) from big group by n order by n nulls first limit 120',
      'select count(distinct n), count(n), min(n), max(n) from big',
      'select k, min(n), max(n), count(distinct n) from big group by k order by k',
      'select distinct n from big where n < \'c\' order by n',
      'select a.id, b.id from big a join big b on a.n = b.n and a.id < b.id order by 1, 2 limit 200',
      'select count(*) from big a join big b on a.n = b.s',
      'select count(*) from big a join big b on a.s = b.n',
      "select id from big where n like 'a%' order by id limit 50",
      'select n, row_number() over (partition by k order by n, id) from big where k < 3 order by k, n, id',
      'select id, n from big where n in (select s from big where k < 10) order by id limit 40',
      "select octet_length(n), count(*) from big group by 1 order by 1",
    ]);
  });
});

describe('name in files', () => {
  it('round-trips through COPY text and csv', async () => {
    const db = await Database.create();
    await db.query('create table c1 (id int, n name)');
    await db.query("insert into c1 values (1, 'a,b'), (2, 'tab\there'), (3, null), (4, ''), (5, repeat('é', 40)), (6, 'quote\"d')");
    for (const fmt of ['text', 'csv']) {
      const f = join(dir, `n.${fmt}`);
      await db.query(`copy c1 to '${f}' (format ${fmt})`);
      await db.query(`create table c_${fmt} (id int, n name)`);
      await db.query(`copy c_${fmt} from '${f}' (format ${fmt})`);
      expect((await db.query(`select count(*) from c1 full join c_${fmt} c using (id) where c1.n is distinct from c.n`)).rows).toEqual([[0]]);
    }
    // COPY FROM reads with namein: a longer field is cut, not refused.
    const long = join(dir, 'long.csv');
    writeFileSync(long, `7,${'w'.repeat(70)}\n8,${'ä'.repeat(40)}\n`);
    await db.query(`copy c1 from '${long}' (format csv)`);
    expect((await db.query('select id, octet_length(n) from c1 where id >= 7 order by id')).rows).toEqual([
      [7, 63],
      [8, 62],
    ]);
    expect(readFileSync(join(dir, 'n.text'), 'utf8').split('\n')[1]).toBe('2\ttab\\there');
    await db.close();
  });

  it('comes back from a database directory', async () => {
    const path = join(dir, 'db');
    let db = await Database.create({ path });
    await db.query('create table p (id int, n name)');
    await db.query("insert into p select g, 'n' || (g % 97) || repeat('é', g % 35) from generate_series(1, 3000) g");
    await db.query('insert into p values (0, null)');
    const check = "select n, count(*), pg_typeof(n)::text from p where n > 'n9' or n is null group by n order by n nulls first limit 6";
    const before = (await db.query(check)).rows;
    await db.close();
    db = await Database.create({ path });
    expect((await db.query(check)).rows).toEqual(before);
    expect(before[0]).toEqual([null, 1, 'name']);
    expect(before.length).toBe(6);
    await db.close();
  });
});

describe('name on the PostgreSQL protocol', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture({});
    await fx.db.query('create table nw (id int, n name)');
    await fx.db.query("insert into nw values (1, 'abc'), (2, 'ü😀'), (3, null)");
  });
  afterAll(async () => {
    await fx.server.close();
  });
  function client(): pg.Client {
    return new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire', types: { getTypeParser: () => (v: unknown) => v } as never });
  }

  it('reports OID 19, typlen 64, and takes text parameters through namein', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query({ text: 'select n, pg_typeof(n)::text, n::text from nw order by id', rowMode: 'array' });
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([19, 25, 25]);
      expect(r.rows).toEqual([
        ['abc', 'name', 'abc'],
        ['ü😀', 'name', 'ü😀'],
        [null, 'name', null],
      ]);
      const p = await c.query({ text: 'select id from nw where n = $1', values: ['abc'], rowMode: 'array' });
      expect(p.rows).toEqual([['1']]);
      const cut = await c.query({ text: 'select octet_length($1::name)', values: ['x'.repeat(80)], rowMode: 'array' });
      expect(cut.rows).toEqual([['63']]);
      // The catalogs' name columns are name, as PostgreSQL's.
      const cat = await c.query({ text: "select c.relname, a.attname, n.nspname, current_user, current_database() from pg_class c join pg_attribute a on a.attrelid = c.oid join pg_namespace n on n.oid = c.relnamespace where c.relname = 'nw' and a.attnum = 2", rowMode: 'array' });
      expect(cat.fields.map((f) => f.dataTypeID)).toEqual([19, 19, 19, 19, 19]);
      expect(cat.rows).toEqual([['nw', 'n', 'public', 'quire', 'quire']]);
      // information_schema's sql_identifier columns reach clients as name, as PostgreSQL sends the domain's base type.
      const info = await c.query({ text: "select column_name, data_type, udt_name, table_name from information_schema.columns where table_name = 'nw' order by ordinal_position", rowMode: 'array' });
      expect([info.fields[0]!.dataTypeID, info.fields[2]!.dataTypeID, info.fields[3]!.dataTypeID]).toEqual([19, 19, 19]);
      expect(info.rows).toEqual([
        ['id', 'integer', 'int4', 'nw'],
        ['n', 'name', 'name', 'nw'],
      ]);
      const t = await c.query({ text: 'select typname, typlen, typcategory from pg_type where oid in (19, 1003) order by oid', rowMode: 'array' });
      expect(t.rows).toEqual([
        ['name', '64', 'S'],
        ['_name', '-1', 'A'],
      ]);
    } finally {
      await c.end();
    }
  });

  it('sends the bytes without padding and refuses a binary value of 64 bytes or more', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip([
      serialize.parse({ text: 'select n from nw where id = 2', types: [] }),
      serialize.bind({ values: [], binary: true }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(names(ms)).toContain('dataRow');
    const [v] = rawFields(c.rawRows.at(-1)!) as Buffer[];
    expect(v!.toString('utf8')).toBe('ü😀');
    expect(v!.length).toBe(6);
    c.end();
    expect(encoderFor(T.name, 1, {})('é')).toEqual(Buffer.from('é', 'utf8'));
    expect(decodeParam(Buffer.from('x'.repeat(63)), 1, T.name)).toBe('x'.repeat(63));
    expect(() => decodeParam(Buffer.from('x'.repeat(64)), 1, T.name)).toThrow(expect.objectContaining({ code: '42622', message: 'identifier too long' }));
  });
});
