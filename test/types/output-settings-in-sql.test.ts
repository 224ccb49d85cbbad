/**
 * A value turned into text inside SQL (a cast, ||, concat, format, string_agg over casts) prints as
 * its type's output function does under the session's settings, as in PostgreSQL: DateStyle,
 * IntervalStyle and extra_float_digits, for constants folded at bind time and for column values alike;
 * and date input reads day, month and year in DateStyle's order (literals, casts of text, parameters).
 * Checked against PostgreSQL (PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';

let sql: SqlDiff;

beforeAll(async () => {
  sql = await SqlDiff.start(`CREATE TABLE v AS SELECT i, DATE '2020-01-31' + i AS d, TIMESTAMP '2021-03-04 05:06:07.5' + i * INTERVAL '1 day 1 hour' AS ts,
    TIMESTAMPTZ '2021-03-04 05:06:07+02' + i * INTERVAL '1 hour' AS tz, i * INTERVAL '1 day 2 hours 3.25 seconds' AS iv, CAST(i AS float8) / 3 AS f,
    CAST(i AS float4) / 3 AS r FROM generate_series(1, 40) AS s(i)`);
}, 60_000);
afterAll(async () => {
  await sql.close();
});

const SELECTS = [
  'SELECT i, CAST(d AS text), CAST(ts AS text), CAST(tz AS text), CAST(iv AS text), CAST(f AS text), CAST(r AS text) FROM v ORDER BY i',
  "SELECT i, 'd=' || d, concat(ts, ' ', iv), format('%s|%s', f, r), CAST(d AS varchar) FROM v ORDER BY i",
  'SELECT string_agg(CAST(d AS text), \',\' ORDER BY i), string_agg(CAST(f AS text), \';\' ORDER BY i) FROM v',
  "SELECT CAST(DATE '2024-02-29' AS text), CAST(TIMESTAMP '2024-02-29 10:11:12' AS text), CAST(INTERVAL '3 days 04:05:06' AS text), CAST(CAST(0.1 AS float8) * 3 AS text), 'x' || DATE '1999-12-31'",
];

describe('text output inside SQL follows the session settings', () => {
  it('DateStyle, IntervalStyle and extra_float_digits, set and reset', async () => {
    const qs: string[] = [];
    for (const set of [
      "SET datestyle = 'German'",
      "SET datestyle = 'SQL, DMY'",
      "SET datestyle = 'Postgres, MDY'",
      "SET intervalstyle = 'postgres_verbose'",
      'SET extra_float_digits = 0',
      'SET extra_float_digits = -4',
      'RESET ALL',
    ]) {
      qs.push(set, ...SELECTS);
    }
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('refuses the IntervalStyles it does not print rather than ignoring them', async () => {
    const db = sql.db;
    await db.query("SET intervalstyle = 'postgres_verbose'");
    for (const style of ['iso_8601', 'SQL_STANDARD']) {
      await expect(db.query(`SET intervalstyle = '${style}'`)).rejects.toMatchObject({ code: '0A000' });
    }
    await expect(db.query("SET intervalstyle = 'bogus'")).rejects.toMatchObject({ code: '22023' });
    // The refused SETs left the style as it was.
    expect((await db.query("SELECT CAST(INTERVAL '1 day 2 hours' AS text)")).rows).toEqual([['@ 1 day 2 hours']]);
    await db.query('RESET intervalstyle');
    expect((await db.query("SELECT CAST(INTERVAL '1 day 2 hours' AS text)")).rows).toEqual([['1 day 02:00:00']]);
  });

  it("reads '01/02/2020' in DateStyle's field order (MDY, DMY, YMD)", async () => {
    // Compared as ISO text: the harness prints result values in ISO whatever the session's DateStyle.
    const iso = (e: string): string => `to_char(${e}, 'YYYY-MM-DD HH24:MI:SS')`;
    const reads = [
      `SELECT ${["CAST('01/02/2020' AS date)", "CAST('03/04/05' AS date)", "CAST('1/2/2020 10:00' AS timestamp)", "CAST('2020-03-04' AS date)", "CAST('4-Mar-2020' AS date)", "DATE '12/11/10'"].map(iso).join(', ')}`,
      `SELECT i, ${iso("CAST(CAST(i % 12 + 1 AS text) || '/' || CAST(i % 28 + 1 AS text) || '/2021' AS date)")} FROM v ORDER BY i`,
      `SELECT ${iso("CAST('31/01/2020' AS date)")}`,
      `SELECT ${iso("CAST('2020/01/31' AS date)")}, ${iso("CAST('99/01/31' AS date)")}`,
      `SELECT ${iso("CAST('1999.01.31' AS date)")}, ${iso("CAST('01.02.03 10:11' AS timestamp)")}`,
      `SELECT ${iso("CAST('31.12.1999' AS date)")}`,
      // German output read back: a round trip.
      `SELECT ${iso("CAST(CAST(DATE '2024-02-29' AS text) AS date)")}`,
    ];
    const qs: string[] = [];
    for (const set of ["SET datestyle = 'ISO, DMY'", "SET datestyle = 'German'", "SET datestyle = 'SQL, YMD'", "SET datestyle = 'Postgres, MDY'", 'RESET datestyle']) {
      qs.push(set, ...reads);
    }
    expect(await sql.mismatches(qs)).toEqual([]);
    // A library parameter's text is read the same way.
    const db = sql.db;
    await db.query("SET datestyle = 'ISO, DMY'");
    expect((await db.query('SELECT CAST(CAST($1 AS date) AS text)', ['07/08/2022'])).rows).toEqual([['2022-08-07']]);
    await db.query('RESET datestyle');
  });
});
