/**
 * Type modifiers of interval (`interval day`, `interval hour to minute`, `interval(2)`,
 * `interval second(3)`) and timestamp(p) against PostgreSQL (PGlite): how a bare number is read under
 * the fields, truncation to the fields, rounding to the precision (half away from zero, both signs,
 * both sides of 2000-01-01), columns of those types, casts between modifiers, type names
 * and the errors for bad modifiers. Before, `interval '26' day` was 26 seconds and timestamp(2) kept
 * all six digits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { storedType } from '../../src/storage/persist/stored-type.js';
import { outcomeText, pgliteAndQuire, quireConnection, type SqlConnection } from '../harness/connection.js';

const SETUP = [
  "SET TimeZone = 'UTC'",
  'create table ti (id int, d interval day, p interval(1), hm interval hour to minute, ms interval minute to second(2), ym interval year to month, ts timestamp(2), tz timestamptz(0))',
  `insert into ti values
     (1, '3 days 4 hours', '1.26 seconds', '5 hours 6 min 7 s', '1:30.125', '1-7', '2020-01-01 10:00:00.125', '2020-01-01 10:00:00.5'),
     (2, '-3 days -4 hours', '-1.25 seconds', '-5 hours -6 min', '-1:30.135', '-1-7', '1969-12-31 23:59:59.995', '1999-12-31 23:59:59.5'),
     (3, '26', '2.05', '90', '75', '14', '1985-06-01 12:00:00.005', '1985-06-01 12:00:00.5'),
     (4, null, null, null, null, null, 'infinity', '-infinity')`,
  'create table src (id int, s text, i interval, t timestamp)',
  `insert into src values
     (1, '26', interval '1 day 02:03:04.5678', '2001-02-03 04:05:06.789'),
     (2, '1 day 2 hours', interval '-1 day -02:03:04.5678', '1970-01-01 00:00:00.5'),
     (3, '3 4:05', interval '1 year 2 months 3 days', '1999-12-31 23:59:59.999999')`,
];

const QUERIES = [
  // Literals: the unit of a bare number, truncation, precision.
  "select interval '26' day, interval '1' year, interval '2' hour, interval '90' minute, interval '10' second",
  "select interval '1-2' year to month, interval '14' year to month, interval '5' month, interval '1.5' year",
  "select interval '1 day 2 hours' day, interval '1.5' day, interval '3 4:05' day to minute, interval '1 2' day to hour",
  "select interval '1:30' minute to second, interval '1:30' hour to minute, interval '1:30' hour to second, interval '1:30' day to second",
  "select interval '2 3:04:05.678' day to second, interval '2 3:04:05.678' day to second(1), interval '3:04:05.678' hour to second(0)",
  "select interval(2) '1.23456 seconds', interval '1.23456' second(2), interval(0) '0.5 s', interval(0) '-0.5 s', interval(0) '1.5 s', interval(3) '-2.0005 s'",
  "select interval '1 2 hours', interval '-26' day, interval '7 days 5 hours' hour, interval '2 years 3 months 4 days' month",
  "select interval '1 year 6 months' year, interval '-1 year -6 months' year, interval '100 minutes 59 seconds' minute",
  "select '26'::interval day, cast('5' as interval month), '1.5'::interval hour, 'infinity'::interval day, '-infinity'::interval(2)",
  // Casts between modifiers and from other types.
  'select id, i::interval day, i::interval(2), i::interval hour to minute, i::interval year, i::interval month from src order by id',
  'select id, s::interval day from src order by id',
  'select id, t::timestamp(0), t::timestamp(3), t::timestamptz(1), t::date::timestamp(2) from src order by id',
  "select '2020-01-01 10:00:00.123456'::timestamp(2), '2020-01-01 10:00:00.125'::timestamp(2), '1969-12-31 23:59:59.125'::timestamp(2), '1990-01-01 00:00:00.125'::timestamp(2)",
  "select '2020-01-01 10:00:00.5'::timestamptz(0), '1999-12-31 23:59:59.5'::timestamptz(0), timestamp(1) '2000-01-01 00:00:00.05', '294276-12-31 23:59:59.999999'::timestamp(6)",
  "select 'infinity'::timestamp(0), '-infinity'::timestamptz(3)",
  // Columns of modified types: stored values, comparisons, arithmetic.
  'select * from ti order by id',
  'select id, d + interval \'1 hour\', hm * 2, ms / 2, ym + ym from ti order by id',
  "select id from ti where d = interval '26 days' or hm = interval '01:30'",
  "update ti set d = '5 days 6 hours', ts = '2021-06-01 00:00:00.999' where id = 1 returning d, ts",
  'select id, d, ts from ti order by id',
  // Type names.
  'select pg_typeof(interval \'1\' day), pg_typeof(d), pg_typeof(ts) from ti where id = 1',
  // Errors.
  "select interval '1 2' minute",
  "select interval '1 2 3' day to hour",
  "select interval '90:30' minute to second",
  "select 'x'::interval day",
  "select '1'::timestamp(-1)",
  "select '1'::interval(-2)",
  "insert into ti (id, d) values (9, 'junk')",
  "select d = 1 from ti",
];

const outcome = outcomeText;

let pgl: SqlConnection;
let q: SqlConnection;

beforeAll(async () => {
  ({ pg: pgl, q } = await pgliteAndQuire(SETUP));
}, 120_000);
afterAll(async () => {
  await pgl.close?.();
  await q.close?.();
});

describe('interval fields and precision, timestamp(p): as PostgreSQL', () => {
  for (const sql of QUERIES) {
    it(sql, async () => {
      expect(await outcome(q, sql)).toBe(await outcome(pgl, sql));
    });
  }
});

describe('modified interval and timestamp columns in a database directory', () => {
  it('keep their modifiers across a reopen (after a checkpoint and from the log)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-typmod-'));
    try {
      const rows = async (db: Database): Promise<string> => outcome(quireConnection(db), 'select * from m order by id');
      let db = await Database.create({ path: dir });
      await db.query('create table m (id int, d interval day, s interval minute to second(1), t timestamp(1))');
      await db.query("insert into m values (1, '26', '1:30.25', '2020-01-01 00:00:00.25')");
      await db.close();
      db = await Database.create({ path: dir });
      // Read back after a reopen, and the modifiers still apply to new rows.
      await db.query("insert into m values (2, '4 days 5 hours', '2:05', '2020-01-01 00:00:00.35')");
      const before = await rows(db);
      expect(before).toBe('1|26 days|00:01:30.3|2020-01-01 00:00:00.3\n2|4 days|00:02:05|2020-01-01 00:00:00.4');
      await db.close();
      db = await Database.create({ path: dir, readOnly: true });
      expect(await rows(db)).toBe(before);
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('read an interval modifier written in the older encoding (the bare field mask)', () => {
    // interval day was stored as 8 (1 << DAY), interval(2) as the full range 0x7fff.
    expect(storedType({ name: 'interval', typmod: 8 })).toEqual({ ...storedType({ name: 'interval', typmod: (8 << 16) | 0xffff }) });
    expect(storedType({ name: 'interval', typmod: 0x7fff }).typmod).toBe(-1);
    expect(storedType({ name: 'interval', typmod: (8 << 16) | 2 }).typmod).toBe((8 << 16) | 2);
    expect(storedType({ name: 'timestamp', typmod: 3 }).typmod).toBe(3);
  });
});
