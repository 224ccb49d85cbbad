/**
 * pg_get_viewdef prints a subset of queries exactly as PostgreSQL does (test/slt/view_def.slt compares
 * with PGlite); outside that subset it refuses (0A000) rather than print a different definition.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { newPGlite } from '../common/pglite.js';

let db: Database;
let pg: PGlite;
beforeAll(async () => {
  db = await Database.create();
  pg = newPGlite();
  await db.query('CREATE TABLE vdt (a int, b text, c numeric)');
  const typed = 'CREATE TABLE vdk (i int, n numeric, f float8, bi bigint, si smallint, d date, ts timestamp, tz timestamptz, tm time, iv interval, v varchar(3))';
  await db.query(typed);
  await pg.query(typed);
});
afterAll(async () => {
  await db.close();
  await pg.close();
});

/**
 * Creates the view on both engines and returns [PostgreSQL's definition, Quire's], under the settings
 * given. PostgreSQL reads a timestamptz literal once, at CREATE VIEW, in that session's TimeZone and
 * DateStyle; Quire binds a view anew on each use, in the current settings, and prints it as it runs it,
 * so the view is created under the settings it is printed with.
 */
async function bothDefs(name: string, select: string, settings: readonly string[] = []): Promise<[unknown, unknown]> {
  const sets = ['RESET IntervalStyle', 'RESET DateStyle', "SET TimeZone = 'UTC'", ...settings, `DROP VIEW IF EXISTS ${name}`, `CREATE VIEW ${name} AS ${select}`];
  for (const s of sets) {
    await pg.query(s);
    await db.query(s);
  }
  const p = (await pg.query<{ d: string }>(`SELECT pg_get_viewdef('${name}') AS d`)).rows[0]!.d;
  const q = (await db.query(`SELECT pg_get_viewdef('${name}')`)).rows[0]![0];
  return [p, q];
}

async function code(sql: string): Promise<string | undefined> {
  try {
    await db.query(sql);
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
}

describe('pg_get_viewdef', () => {
  it('prints a view with PostgreSQL layout', async () => {
    await db.query('CREATE VIEW vdv AS SELECT a, count(*) AS n FROM vdt WHERE c < 10 GROUP BY a');
    expect((await db.query("SELECT pg_get_viewdef('vdv')")).rows).toEqual([[' SELECT a,\n    count(*) AS n\n   FROM vdt\n  WHERE (c < (10)::numeric)\n  GROUP BY a;']]);
  });

  it('refuses what it cannot print exactly', async () => {
    // A numeric literal meeting an integer column is converted by an operator resolution the printer does not redo.
    await db.query('CREATE VIEW vdw AS SELECT a + 1.5 AS p FROM vdt');
    expect(await code("SELECT pg_get_viewdef('vdw')")).toBe('0A000');
    await db.query('CREATE VIEW vdx AS SELECT u FROM unnest(ARRAY[1, 2]) u');
    expect(await code("SELECT pg_get_viewdef('vdx')")).toBe('0A000');
  });

  // window.sql's view, printed with IntervalStyle postgres_verbose as the conformance harness sets it.
  const WINDOW_VIEW =
    "SELECT i, min(i) over (order by i range between '1 day' preceding and '10 days' following) as min_i FROM generate_series(now(), now()+'100 days'::interval, '1 hour') i";

  it("prints window.sql's generate_series over timestamptz with interval frame offsets", async () => {
    const [p, q] = await bothDefs('vd_win', WINDOW_VIEW, ['SET IntervalStyle = postgres_verbose']);
    expect(q).toBe(
      " SELECT i,\n    min(i) OVER (ORDER BY i RANGE BETWEEN '@ 1 day'::interval PRECEDING AND '@ 10 days'::interval FOLLOWING) AS min_i\n   FROM generate_series(now(), (now() + '@ 100 days'::interval), '@ 1 hour'::interval) i(i);",
    );
    expect(q).toBe(p);
    // Intervals print in the current IntervalStyle, not the one the view was created under.
    for (const s of ['RESET IntervalStyle', "SET TimeZone = 'UTC'"]) {
      await pg.query(s);
      await db.query(s);
    }
    const p2 = (await pg.query<{ d: string }>("SELECT pg_get_viewdef('vd_win') AS d")).rows[0]!.d;
    const q2 = (await db.query("SELECT pg_get_viewdef('vd_win')")).rows[0]![0];
    expect(q2).toContain("'1 day'::interval PRECEDING AND '10 days'::interval FOLLOWING");
    expect(q2).toBe(p2);
  });

  it.each([
    ['interval offsets over every date and time key', "SELECT min(i) OVER (ORDER BY d RANGE BETWEEN '1 day' PRECEDING AND '2 days 3 hours' FOLLOWING) AS a, min(i) OVER (ORDER BY ts RANGE '90 minutes' PRECEDING) AS b, min(i) OVER (ORDER BY tz RANGE BETWEEN CURRENT ROW AND '1 mon' FOLLOWING) AS c, min(i) OVER (ORDER BY tm RANGE '1 hour' PRECEDING) AS e, min(i) OVER (ORDER BY iv DESC RANGE '1 year' PRECEDING) AS g FROM vdk"],
    ['numeric offsets over integer and numeric keys', "SELECT sum(i) OVER (ORDER BY i RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING) AS a, sum(n) OVER (ORDER BY n RANGE BETWEEN 1 PRECEDING AND 2.5 FOLLOWING) AS b, sum(n) OVER (ORDER BY n RANGE '1.25' PRECEDING) AS c, sum(f) OVER (ORDER BY f RANGE BETWEEN '0.5' PRECEDING AND 1 FOLLOWING) AS e, sum(bi) OVER (ORDER BY bi RANGE '3' PRECEDING) AS g, sum(si) OVER (ORDER BY si RANGE 2 PRECEDING) AS h FROM vdk"],
    ['generate_series over timestamps', "SELECT x FROM generate_series('2020-01-01'::timestamp, '2020-02-01', '1 week') x"],
    ['generate_series over dates (converted to timestamptz)', "SELECT g FROM generate_series('2020-01-01'::date, '2020-03-01'::date, '1 month'::interval) g"],
    ['generate_series over timestamptz', "SELECT d FROM generate_series('2020-01-01 10:00+02'::timestamptz, '2020-01-03', '36 hours') AS d"],
    ['generate_series over integers', 'SELECT g FROM generate_series(1, 10, 2) g'],
    ['generate_series over numerics', 'SELECT g FROM generate_series(1.5, 10, 2) g'],
    ['generate_series over bigint', 'SELECT g FROM generate_series(1::bigint, 5) AS g'],
    ['LATERAL generate_series', 'SELECT g, n FROM generate_series(1, 3) g, generate_series(g, 5) n'],
    ['casts in the select list', "SELECT '1 day 02:00'::interval AS a, '2020-01-31'::date AS b, 5::bigint AS c, '5'::bigint AS e, '1.50'::numeric AS f, '-3'::int AS g, 1.5::float8 AS h, '2020-01-01 10:00'::timestamptz AS k, '12:00'::time AS l, 'abcdef'::varchar(3) AS m, 'yes'::boolean AS o, 5::int AS p, '2.5'::numeric(4,2) AS q, 'NaN'::numeric AS r, i::int AS s, i::numeric AS u FROM vdk"],
    ['untyped literals in comparisons and function arguments', "SELECT i FROM vdk WHERE d > '2020-01-01' AND ts < now() - '1 day'::interval AND date_trunc('day', tz) = '2020-01-02'"],
  ])('prints %s as PostgreSQL does', async (_what, select) => {
    for (const settings of [[], ['SET IntervalStyle = postgres_verbose'], ["SET DateStyle = 'German'"], ["SET DateStyle = 'SQL, DMY'", "SET TimeZone = 'America/New_York'"]]) {
      const [p, q] = await bothDefs('vd_each', select, settings);
      expect(q).toBe(p);
    }
  });

  it('needs a literal name; unknown relations are 42P01', async () => {
    expect(await code("SELECT pg_get_viewdef('nosuch')")).toBe('42P01');
    expect(await code("SELECT pg_get_viewdef(b) FROM vdt")).toBe('0A000');
    expect((await db.query("SELECT pg_get_viewdef('vdt')")).rows).toEqual([[null]]);
  });
});
