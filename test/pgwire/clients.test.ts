/**
 * Real clients against the wire-protocol server: node-postgres (pg) and pg-cursor, psql (the
 * binary, as a child process) including \set FETCH_COUNT paging and \d, and the PostgreSQL JDBC
 * driver with setFetchSize (a small Java program compiled at test time). psql and Java tests skip,
 * saying so, when the tools are not installed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './helpers.js';

const PASSWORD = 'test-password';
let fx: Fixture;
const tmp = mkdtempSync(join(tmpdir(), 'quire-pgwire-'));

beforeAll(async () => {
  fx = await startFixture({ password: PASSWORD });
  await fx.db.query('create table big (id int, grp int, label text)');
  await fx.db.query("insert into big select i, i % 17, 'item ' || i from generate_series(1, 50000) i");
});
afterAll(async () => {
  await fx.server.close();
  rmSync(tmp, { recursive: true, force: true });
});

function client(): pg.Client {
  return new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', password: PASSWORD, database: 'quire' });
}

function which(cmd: string): string | null {
  try {
    return execFileSync('which', [cmd], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

function run(cmd: string, args: string[], input: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(input);
  });
}

describe('node-postgres', () => {
  it('queries with parameters, types and errors', async () => {
    const c = client();
    await c.connect();
    try {
      expect((await c.query('select $1::int + 1 as x, $2::text as y', [41, 'hi'])).rows).toEqual([{ x: 42, y: 'hi' }]);
      const r = await c.query('select a, c, d, e, g from t where a <= $1 order by a', [2]);
      expect(r.rows[1]).toEqual({ a: 2, c: 3, d: '0.50', e: new Date('2024-01-03T00:00:00'), g: true });
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([23, 701, 1700, 1082, 16]);
      await expect(c.query('select nosuch from t')).rejects.toMatchObject({ code: '42703', position: '8' });
      // The connection survives the error.
      expect((await c.query('select count(*)::int as n from t')).rows).toEqual([{ n: 10 }]);
      const ins = await c.query('insert into t (a, b) values ($1, $2), ($3, $4)', [100, 'x', 101, 'y']);
      expect(ins.rowCount).toBe(2);
      await c.query('delete from t where a >= 100');
    } finally {
      await c.end();
    }
  });

  it('pg-cursor pages through a portal with Execute max_rows', async () => {
    const c = client();
    await c.connect();
    try {
      const cur = c.query(new Cursor('select id from big where grp = $1 order by id', [3]));
      const seen: number[] = [];
      const sizes: number[] = [];
      for (;;) {
        const rows = (await cur.read(1000)) as { id: number }[];
        sizes.push(rows.length);
        if (rows.length === 0) break;
        seen.push(...rows.map((r) => r.id));
      }
      await cur.close();
      expect(fx.executes.filter((e) => e.maxRows === 1000).length).toBeGreaterThanOrEqual(sizes.length - 1);
      const expected = Array.from({ length: 50000 }, (_, i) => i + 1).filter((i) => i % 17 === 3);
      expect(seen).toEqual(expected);
      expect(sizes.slice(0, -2).every((s) => s === 1000)).toBe(true);
      expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await c.end();
    }
  });

  it('DBeaver-style LIMIT n OFFSET m re-execution returns the right pages', async () => {
    const c = client();
    await c.connect();
    try {
      const plan = (await c.query('explain (format quire) select * from big order by label\nLIMIT 200 OFFSET 10000')).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
      // A bounded Top-N (heap of offset + limit rows), not a full sort, per page.
      expect(plan).toMatch(/top-?n/i);
      for (const offset of [0, 200, 25000]) {
        const page = await c.query(`select id from big order by id\nLIMIT 200 OFFSET ${offset}`);
        expect(page.rows.map((r: { id: number }) => r.id)).toEqual(Array.from({ length: 200 }, (_, i) => offset + i + 1));
      }
    } finally {
      await c.end();
    }
  });

  it('current_schemas() arrives as text[] in text and binary format', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query('select current_schemas(false) as a, current_schemas(true) as b, current_schema() as s');
      // current_schema() is name in PostgreSQL (OID 19); current_schemas() stays text[] for pg's array parser.
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([1009, 1009, 19]);
      // pg parses OID 1009 with its array parser: the text format must be PostgreSQL's.
      expect(r.rows).toEqual([{ a: ['public'], b: ['pg_catalog', 'public'], s: 'public' }]);
      const q = await c.query(`select '{a,"b,c",NULL,"","x\\"y"}'::text[] as v, $1::text = any($2::text[]) as hit`, ['b,c', ['a', 'b,c']]);
      expect(q.rows).toEqual([{ v: ['a', 'b,c', null, '', 'x"y'], hit: true }]);
      const bin = await c.query({ text: 'select current_schemas(true) as v', values: [], binary: true });
      // pg-types decodes binary text[] (array_send's layout) with its own array reader.
      expect(bin.rows).toEqual([{ v: ['pg_catalog', 'public'] }]);
      // Clients spell current_schemas' PostgreSQL type, name[]: OID 1003, which pg leaves as array text
      // (it registers no parser for it, against PostgreSQL too).
      const named = await c.query("select '{a,b}'::name[] as n, 'text[]'::regtype as t, 'name[]'::regtype as u");
      expect(named.fields.map((f) => f.dataTypeID)).toEqual([1003, 23, 23]);
      expect(named.rows).toEqual([{ n: '{a,b}', t: 1009, u: 1003 }]);
      await c.query('set search_path = information_schema, public');
      expect((await c.query('select current_schemas(false) as a')).rows).toEqual([{ a: ['information_schema', 'public'] }]);
    } finally {
      await c.end();
    }
  });

  it('PREPARE / EXECUTE / DEALLOCATE over simple and extended query', async () => {
    const c = client();
    const other = client();
    await c.connect();
    await other.connect();
    try {
      await c.query('prepare byid (int) as select id, label from big where id = $1');
      expect((await c.query('execute byid(7)')).rows).toEqual([{ id: 7, label: 'item 7' }]);
      // EXECUTE through Parse/Bind: the outer statement's $1 feeds the prepared statement's argument.
      const ext = await c.query('execute byid($1)', [12]);
      expect(ext.rows).toEqual([{ id: 12, label: 'item 12' }]);
      expect(ext.fields.map((f) => [f.name, f.dataTypeID])).toEqual([['id', 23], ['label', 25]]);
      await expect(c.query('prepare byid as select 1')).rejects.toMatchObject({ code: '42P05', message: 'prepared statement "byid" already exists' });
      const listed = await c.query('select name, statement, parameter_types, result_types, from_sql, generic_plans, custom_plans, prepare_time <= now() as past from pg_prepared_statements');
      expect(listed.rows).toEqual([
        { name: 'byid', statement: 'prepare byid (int) as select id, label from big where id = $1', parameter_types: ['integer'], result_types: ['integer', 'text'], from_sql: true, generic_plans: '0', custom_plans: '2', past: true },
      ]);
      await expect(c.query('execute byid')).rejects.toMatchObject({ code: '42601' });
      // Prepared statements belong to the session.
      await expect(other.query('execute byid(1)')).rejects.toMatchObject({ code: '26000', message: 'prepared statement "byid" does not exist' });
      await c.query('prepare ins (int, text) as insert into big values ($1, $1 % 17, $2)');
      expect((await c.query("execute ins(60001, 'extra')")).command).toBe('INSERT');
      expect((await c.query('execute byid(60001)')).rows).toEqual([{ id: 60001, label: 'extra' }]);
      await c.query('delete from big where id = 60001');
      expect((await c.query('deallocate byid')).command).toBe('DEALLOCATE');
      await expect(c.query('execute byid(1)')).rejects.toMatchObject({ code: '26000' });
      await expect(c.query('deallocate byid')).rejects.toMatchObject({ code: '26000' });
      await c.query('deallocate all');
      await expect(c.query("execute ins(1, 'x')")).rejects.toMatchObject({ code: '26000' });
    } finally {
      await c.end();
      await other.end();
    }
  });

  it('transactions with a SQL cursor across statements', async () => {
    const c = client();
    await c.connect();
    try {
      await c.query('begin');
      await c.query('declare c1 scroll cursor for select id from big order by id');
      expect((await c.query('fetch 2 from c1')).rows).toEqual([{ id: 1 }, { id: 2 }]);
      expect((await c.query('fetch absolute 1000 from c1')).rows).toEqual([{ id: 1000 }]);
      expect((await c.query('fetch prior from c1')).rows).toEqual([{ id: 999 }]);
      await c.query('commit');
      await expect(c.query('fetch 1 from c1')).rejects.toMatchObject({ code: '34000' });
    } finally {
      await c.end();
    }
  });
});

const PSQL = which('psql');

describe.skipIf(PSQL === null)('psql', () => {
  const psql = (input: string, args: string[] = []) =>
    run(PSQL!, ['-X', '-h', '127.0.0.1', '-p', String(fx.server.port), '-U', 'psql', '-d', 'quire', '-v', 'ON_ERROR_STOP=0', ...args], input, { PGPASSWORD: PASSWORD });

  it('runs queries and reports errors', async () => {
    const r = await psql('select a, b from t where a <= 2 order by a;\nselect 1/0;\nselect version();\n');
    expect(r.stdout).toContain(' a |   b   \n---+-------\n 1 | row 1\n 2 | row 2\n(2 rows)');
    expect(r.stderr).toContain('ERROR:  division by zero');
    expect(r.stdout).toContain('PostgreSQL 16.0 (Quire)');
  });

  it('\\set FETCH_COUNT pages through a cursor', async () => {
    const before = fx.statements.length;
    const r = await psql('\\set FETCH_COUNT 3\nselect a from t order by a;\n');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => /^\s*\d+\s*$/.test(l)).map((l) => Number(l.trim()));
    expect(lines).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(r.stdout).toContain('(10 rows)');
    const sent = fx.statements.slice(before);
    expect(sent.some((s) => /^DECLARE _psql_cursor NO SCROLL CURSOR FOR/.test(s))).toBe(true);
    // Four FETCHes of 3 (the last returns 1 row, the next would return none).
    expect(sent.filter((s) => s === 'FETCH FORWARD 3 FROM _psql_cursor').length).toBeGreaterThanOrEqual(4);
  });

  it('\\dt and \\d describe tables from pg_catalog', async () => {
    const r = await psql('\\dt\n\\d t\n\\d nosuch\n\\dn\n');
    expect(r.stdout).toMatch(/ public \| big  \| table \| quire/);
    expect(r.stdout).toMatch(/ public \| t    \| table \| quire/);
    expect(r.stdout).toContain('Table "public.t"');
    expect(r.stdout).toMatch(/ d\s+\| numeric\(10,2\)\s+\|/);
    expect(r.stdout).toMatch(/ f\s+\| timestamp with time zone\s+\|/);
    expect(r.stderr).toContain('Did not find any relation named "nosuch".');
    expect(r.stdout).toMatch(/ public\s+\| quire/);
  });

  it('\\dt+, \\d, \\dv, \\l and search_path-aware visibility', async () => {
    await fx.db.query('create view pv as select a, b from t');
    try {
      const fallbacksBefore = fx.fallbacks.length;
      const r = await psql('\\dt+\n\\d\n\\dv\n\\l\nset search_path = information_schema;\n\\dt\nselect current_schemas(true);\n');
      // With public off the search path, pg_table_is_visible hides its tables from \\dt, as in PostgreSQL
      // (psql says so on stderr).
      expect(r.stderr).toBe('Did not find any relations.\n');
      // pg_table_size / pg_size_pretty: 10 rows of t take a few hundred bytes, 50000 of big about a megabyte.
      expect(r.stdout).toMatch(/ public \| t +\| table \| quire \| permanent +\| heap +\| \d{3} bytes +\|/);
      expect(r.stdout).toMatch(/ public \| big +\| table \| quire \| permanent +\| heap +\| 1\d{3} kB +\|/);
      expect(r.stdout).toMatch(/ public \| pv +\| view +\| quire\n/);
      expect(r.stdout).toMatch(/ quire +\| quire +\| UTF8 /);
      expect(r.stdout).toContain('{pg_catalog,information_schema}');
      // None of these needed the "no rows" fallback for unbindable catalog queries.
      expect(fx.fallbacks.slice(fallbacksBefore)).toEqual([]);
    } finally {
      await fx.db.query('drop view pv');
    }
  });

  it('COPY FROM STDIN and \\copy', async () => {
    const r = await psql('create table pc (x int, y text);\ncopy pc from stdin;\n1\tone\n2\ttwo\n\\.\n\\copy pc to stdout\n');
    expect(r.stdout).toContain('COPY 2');
    expect(r.stdout).toContain('1\tone\n2\ttwo\n');
  });

  it('\\d lists foreign keys and the tables referencing a table', async () => {
    await fx.db.query('create table fkp (id int primary key)');
    await fx.db.query('create table fkc (id int, pid int references fkp on delete cascade)');
    try {
      const r = await psql('\\d fkc\n\\d fkp\n');
      expect(r.stdout).toContain('Foreign-key constraints:\n    "fkc_pid_fkey" FOREIGN KEY (pid) REFERENCES fkp(id) ON DELETE CASCADE\n');
      expect(r.stdout).toContain('Referenced by:\n    TABLE "fkc" CONSTRAINT "fkc_pid_fkey" FOREIGN KEY (pid) REFERENCES fkp(id) ON DELETE CASCADE\n');
    } finally {
      await fx.db.query('drop table fkc, fkp');
    }
  });

  it('\\d lists a table\u2019s indexes, \\di lists them all, and pg_indexes holds their definitions', async () => {
    await fx.db.query('create table ix (id int primary key, code text unique, n int, at date)');
    await fx.db.query('create index ix_n on ix (n desc nulls last)');
    await fx.db.query("create index ix_at_part on ix (at) where n > 10");
    await fx.db.query('create index ix_brin on ix using brin (at)');
    try {
      const fallbacksBefore = fx.fallbacks.length;
      const r = await psql("\\d ix\n\\di\nselect indexname, indexdef from pg_indexes where tablename = 'ix' order by 1;\n");
      expect(r.stdout).toContain(
        [
          'Indexes:',
          '    "ix_pkey" PRIMARY KEY, btree (id)',
          '    "ix_at_part" btree (at) WHERE (n > 10)',
          '    "ix_brin" brin (at)',
          '    "ix_code_key" UNIQUE CONSTRAINT, btree (code)',
          '    "ix_n" btree (n DESC NULLS LAST)',
          '',
        ].join('\n'),
      );
      expect(r.stdout).toMatch(/ public \| ix_n +\| index \| quire +\| ix\n/);
      expect(r.stdout).toMatch(/ public \| ix_pkey +\| index \| quire +\| ix\n/);
      expect(r.stdout).toContain(' ix_pkey     | CREATE UNIQUE INDEX ix_pkey ON public.ix USING btree (id)');
      expect(r.stdout).toContain(' ix_at_part  | CREATE INDEX ix_at_part ON public.ix USING btree (at) WHERE (n > 10)');
      // The index queries bound and ran (\\d's statistics and publication queries still fall back to no rows).
      expect(fx.fallbacks.slice(fallbacksBefore).filter((f) => /pg_index|pg_indexes/.test(f.sql))).toEqual([]);
    } finally {
      await fx.db.query('drop table ix');
    }
  });

  it('rejects a wrong password', async () => {
    const r = await run(PSQL!, ['-X', '-h', '127.0.0.1', '-p', String(fx.server.port), '-U', 'psql', '-d', 'quire', '-c', 'select 1'], '', { PGPASSWORD: 'wrong' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('password authentication failed for user "psql"');
  });
});

const JAVAC = which('javac');
const JAVA = which('java');
const JDBC_JAR = ['/usr/share/java/postgresql.jar', process.env.QUIRE_JDBC_JAR ?? ''].find((p) => p !== '' && existsSync(p)) ?? null;
const haveJava = JAVAC !== null && JAVA !== null && JDBC_JAR !== null;
if (!haveJava) {
  // Visible in the test output, so a skipped JDBC test is never mistaken for a passing one.
  console.warn(`pgwire: skipping the JDBC test: ${JAVAC === null ? 'javac not found' : JAVA === null ? 'java not found' : 'PostgreSQL JDBC driver not found (apt-get install libpostgresql-jdbc-java)'}`);
}

describe.skipIf(!haveJava)('JDBC (PostgreSQL driver)', () => {
  it('connects with SCRAM, pages with setFetchSize, switches to binary on reuse', async () => {
    const out = join(tmp, 'jdbc');
    execFileSync(JAVAC!, ['-d', out, join(import.meta.dirname, 'JdbcSmoke.java')]);
    const before = fx.statements.length;
    const execBefore = fx.executes.length;
    const r = await run(JAVA!, ['-cp', `${JDBC_JAR}:${out}`, 'JdbcSmoke', String(fx.server.port), PASSWORD], '');
    expect(r.stderr).toBe('');
    const kv = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(/=(.*)/s, 2) as [string, string]));
    expect(kv.product).toBe('PostgreSQL 16.0');
    expect(kv.fetch).toBe('rows=10 sum=55');
    expect(kv.row1).toBe('1|row 1|1.5|0.25|2024-01-02|2024-01-01T01:00:00Z|false');
    // Executions 6 to 8 use a named server statement with binary results.
    expect(kv.row8).toBe('8|row 8|12.0|2.00|2024-01-09|2024-01-01T08:00:00Z|true');
    expect(kv.error).toBe('22012');
    expect(kv.isolation).toBe('read committed');
    expect(kv.tables?.split(',')).toContain('t');
    expect(kv.inserted).toBe('1');
    expect(kv.done).toBe('ok');
    expect(fx.statements.slice(before)).toContain('select a from t order by a');
    // setFetchSize(3) over 10 rows: Executes of 3 rows, suspended three times, then complete.
    const paged = fx.executes.slice(execBefore).filter((e) => e.maxRows === 3);
    expect(paged.map((e) => e.result)).toEqual(['suspended', 'suspended', 'suspended', 'complete']);
    // The reused statement's later executions ask for binary int4, float8, numeric, date, timestamptz.
    expect(fx.executes.slice(execBefore).some((e) => e.binaryColumns >= 5)).toBe(true);
    await fx.db.query('delete from t where a = 100');
  }, 60_000);

  it("DBeaver's connect and open-table sequence: metadata, catalog probes, current_schemas, paging, PREPARE", async () => {
    const out = join(tmp, 'jdbc-meta');
    execFileSync(JAVAC!, ['-d', out, join(import.meta.dirname, 'JdbcMetadata.java')]);
    const fallbacksBefore = fx.fallbacks.length;
    const execBefore = fx.executes.length;
    const r = await run(JAVA!, ['-cp', `${JDBC_JAR}:${out}`, 'JdbcMetadata', String(fx.server.port), PASSWORD], '');
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    // A failed step prints "key!=SQLSTATE message".
    expect(lines.filter((l) => /^\w+!=/.test(l))).toEqual([]);
    const kv = Object.fromEntries(lines.map((l) => l.split(/=(.*)/s, 2) as [string, string]));
    expect(kv.version).toBe('PostgreSQL 16.0 (Quire)');
    expect(kv.current_database).toBe('quire');
    expect(kv.current_schema).toBe('public|quire');
    // getArray() on the name[]-typed result: the driver decodes PostgreSQL's array text format.
    expect(kv.current_schemas).toBe('text:public:{public}');
    expect(kv.current_schemas_true).toBe('{pg_catalog,public}');
    expect(kv.search_path).toBe('"$user", public');
    expect(kv.settings).toBe('server_version_num|160000;standard_conforming_strings|on');
    expect(kv.any_array).toBe('pg_catalog;public');
    expect(kv.privilege).toBe('t|t|t');
    expect(kv.format_type).toBe('a|integer;b|text;c|double precision;d|numeric(10,2);e|date;f|timestamp with time zone;g|boolean');
    expect(kv.dbeaver_database).toBe('16383|quire|t');
    expect(kv.dbeaver_schemas).toBe('information_schema|null;pg_catalog|null;public|null');
    expect(kv.dbeaver_tables?.split(';')).toEqual(expect.arrayContaining(['t|r|f|null', 'big|r|f|null']));
    expect(kv.dbeaver_columns).toBe('a|23|1|f|null;b|25|2|f|null;c|701|3|f|null;d|1700|4|f|null;e|1082|5|f|null;f|1184|6|f|null;g|16|7|f|null');
    expect(kv.dbeaver_types).toBe('int4|N|0|1007;text|S|0|1009;_text|A|25|0');
    expect(kv.dbeaver_setting).toBe('"$user", public');
    // getSchemas() subscripts current_schemas(true); getTables/getColumns join pg_class, pg_attribute, pg_type.
    expect(kv.schemas).toBe('information_schema;pg_catalog;public');
    expect(kv.tables?.split(';')).toEqual(expect.arrayContaining(['public|big|TABLE', 'public|t|TABLE']));
    expect(kv.columns).toBe('a|int4|4|10|0|1|1;b|text|12|2147483647|0|1|2;c|float8|8|17|17|1|3;d|numeric|2|10|2|1|4;e|date|91|13|0|1|5;f|timestamptz|93|35|6|1|6;g|bool|-7|1|0|1|7');
    // getTypeInfo() reads pg_type through current_schemas(false) and array_upper; text[] is java.sql.Types.ARRAY.
    expect(kv.typeinfo?.split(',')).toEqual(expect.arrayContaining(['int4:4', 'text:12', 'numeric:2', 'timestamptz:93', '_text:2003']));
    expect(kv.fetch).toBe('id:int4,label:text rows=50000 sum=1250025000');
    // setFetchSize(100) in a transaction: 500 Executes of 100 rows; the last one completes the portal
    // (the server looks ahead, so no empty trailing page).
    const paged = fx.executes.slice(execBefore).filter((e) => e.maxRows === 100);
    expect(paged.map((e) => e.result)).toEqual([...Array<string>(499).fill('suspended'), 'complete']);
    expect(kv.page0).toBe('200:1-200');
    expect(kv.page200).toBe('200:201-400');
    expect(kv.page49900).toBe('100:49901-50000');
    expect(kv.prepare).toBe('item 42');
    expect(kv.done).toBe('ok');
    // Only getPrimaryKeys/getIndexInfo, built on information_schema._pg_expandarray over pg_index
    // (Quire catalogs no indexes), fall back to "no rows"; every other step above ran for real.
    const fell = fx.fallbacks.slice(fallbacksBefore);
    expect(fell.length).toBe(2);
    expect(fell.every((f) => f.sql.includes('_pg_expandarray(i.indkey)'))).toBe(true);
  }, 60_000);
});
