/**
 * SQL-level PREPARE / EXECUTE / DEALLOCATE and the text[] support catalog queries need
 * (current_schemas(), = ANY, a[i], array text format), run on Quire and on PGlite (real PostgreSQL)
 * statement by statement: same rows in text form, or the same SQLSTATE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSqlError, newPglite, newQuire, type SqlConnection } from '../harness/connection.js';

let quire: SqlConnection;
let pg: SqlConnection;

beforeAll(async () => {
  quire = await newQuire();
  pg = await newPglite();
});
afterAll(async () => {
  await quire.close?.();
  await pg.close?.();
});

async function outcome(c: SqlConnection, sql: string): Promise<unknown> {
  try {
    const r = await c.query(sql);
    return { rows: r.rows };
  } catch (e) {
    return { code: asSqlError(e).code };
  }
}

/** Runs each statement on both engines in order; returns the pairs that differ. */
async function compare(statements: string[]): Promise<{ sql: string; quire: unknown; pg: unknown }[]> {
  const diffs: { sql: string; quire: unknown; pg: unknown }[] = [];
  for (const sql of statements) {
    const a = await outcome(quire, sql);
    const b = await outcome(pg, sql);
    if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push({ sql, quire: a, pg: b });
  }
  return diffs;
}

describe('PREPARE / EXECUTE / DEALLOCATE', () => {
  it('matches PostgreSQL', async () => {
    const diffs = await compare([
      'create table pt (id int, name text, d date, v numeric(6,2))',
      "insert into pt values (1, 'a', '2024-01-01', 1.5), (2, 'b', '2024-02-29', null), (3, null, null, -2)",
      'prepare q1 (int) as select id, name from pt where id >= $1 order by id',
      'execute q1(2)',
      "execute q1('1')",
      'execute q1(1.6)',
      'execute q1(null)',
      'execute q1',
      'execute q1(1, 2)',
      'execute q1(true)',
      "execute q1('x')",
      'prepare q1 as select 1',
      'execute nosuch',
      "prepare q2 as select $1::date + 1 as x, $2::numeric * 2 as y",
      "execute q2('2024-02-28', '1.25')",
      "execute q2(date '2024-12-31', 3)",
      'prepare q3 (date) as select $1 as d, $1 + 1 as e from pt where d = $1 or $1 is null order by id',
      "execute q3('2024-02-29')",
      'execute q3(null)',
      'prepare ins (int, text) as insert into pt (id, name) values ($1, $2)',
      "execute ins(4, 'd')",
      "execute ins(5, upper('e'))",
      'select id, name from pt order by id',
      'prepare up (text, int) as update pt set name = $1 where id = $2 returning id, name',
      "execute up('zz', 4)",
      'prepare del (int) as delete from pt where id > $1',
      'execute del(3)',
      'select count(*) from pt',
      'prepare q4 (int) as select nosuch from pt',
      'execute q4(1)',
      'begin',
      'prepare intx as select 42',
      'rollback',
      'execute intx',
      'deallocate q1',
      'execute q1(1)',
      'deallocate q1',
      'deallocate prepare q2',
      'deallocate all',
      "execute q3('2024-02-29')",
      'prepare again as select 1',
      'discard all',
      'execute again',
    ]);
    expect(diffs).toEqual([]);
  });
});

describe('text[]: current_schemas, = ANY, subscripts, array text format', () => {
  it('matches PostgreSQL', async () => {
    const diffs = await compare([
      'select current_schemas(false), current_schemas(true), current_schema, current_schema()',
      'select current_schemas(true)::text, (current_schemas(true))[1], (current_schemas(true))[2], (current_schemas(true))[3], (current_schemas(true))[0]',
      "select '{a,\"b c\",NULL,\"\",\"null\",\"x\\\\\"y\", z }'::text[]",
      "select ('{x,y}'::text[])[2], array_upper('{x,y}'::text[], 1), array_lower('{x,y}'::text[], 1), array_length('{x,y}'::text[], 1), array_upper('{}'::text[], 1), array_length('{x}'::text[], 2)",
      "select 'public' = any(current_schemas(true)), 'zz' = any(current_schemas(true)), 'zz' <> all(current_schemas(true))",
      "select null = any('{}'::text[]), null = all('{}'::text[]), 'a' = any('{b,NULL}'::text[]), 'b' = any('{b,NULL}'::text[]), 'a' <> all('{b,NULL}'::text[]), 'a' < all('{b,c}'::text[])",
      "select 'a' = any(null::text[]), 'a' = any('{a}')",
      "select '{b,a}'::text[] < '{b,a,c}'::text[], '{b}'::text[] = '{b}'::text[], '{a,NULL}'::text[] > '{a,z}'::text[]",
      "select '{a'::text[]",
      "select 'x'::text[]",
      "select '{a}}'::text[]",
      `select distinct v from (values ('{a,b}'::text[]), ('{"a,b"}'::text[]), ('{a,b}'::text[]), (null)) x(v) order by v`,
      `select v, count(*) from (values ('{a,b}'::text[]), ('{"a,b"}'::text[]), ('{a,b}'::text[]), ('{}'::text[])) x(v) group by v order by v desc`,
      `select v from (values ('{b}'::text[]), ('{a,NULL}'::text[]), ('{a}'::text[]), ('{a,b}'::text[])) x(v) union select '{z}'::text[] order by 1`,
      `select min(v), max(v) from (values ('{b}'::text[]), ('{a}'::text[]), ('{a,a}'::text[])) x(v)`,
      "create table ta (k int, v text[])",
      "insert into ta values (1, '{x,y}'), (2, null), (3, '{}'), (4, '{NULL,z}')",
      'select k, v, v[1], v[2], array_upper(v, 1) from ta order by k',
      "select k from ta where 'y' = any(v) or 'z' = any(v) order by k",
      "select k, array_to_string(v, '/'), array_to_string(v, '/', '*') from ta order by k",
      "select array_to_string(current_schemas(true), ', ')",
      "select concat('{a}'::text[], 'x'), '{a}'::text[]::text || 'x'",
      "select '{a}'::text[] || 1",
      'set search_path = information_schema, "public", nosuch',
      'select current_schemas(true), current_schemas(false), current_schema()',
      'set search_path = nosuch',
      'select current_schemas(false), current_schema()',
      'set search_path = pg_catalog, public',
      'select current_schemas(true)',
    ]);
    expect(diffs).toEqual([]);
  });
});

describe('pg_size_pretty (psql \\dt+, DBeaver table properties)', () => {
  it('matches PostgreSQL at every unit boundary', async () => {
    const values = [0, 1, 1023, 10239, 10240, 10751, 10752, 20971007, 20971008, 20971519, 20971520, 10737418240, 21474836479, 21474836480, -10752, -20971520, 1e15, 2 ** 53, '9223372036854775807', '-9223372036854775808'];
    const diffs = await compare(values.map((v) => `select pg_size_pretty(${typeof v === 'string' ? `${v}::bigint` : `${v}::bigint`})`));
    expect(diffs).toEqual([]);
  });
});
