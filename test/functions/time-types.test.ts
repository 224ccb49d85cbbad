/**
 * time and timetz against PostgreSQL (PGlite): input forms, output, typmods, comparisons with NULLs and
 * ties, hashing (GROUP BY / DISTINCT / joins), casts, arithmetic, extract / date_part, and RANGE frames
 * with interval offsets over seeded random data (ASC and DESC, NULLS FIRST and LAST, invalid offsets).
 * Every statement's text output (or error SQLSTATE and message) must match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { rng } from '../window/window-gen.js';

let pg: SqlConnection;
let q: SqlConnection;

const TIMES = ['00:00', '10:00', '10:00:00.5', '23:59:59.999999', '24:00:00', '12:30', '12:30', '06:15:30.25', '18:00'];
const TIMETZS = ['10:00+02', '08:00+00', '09:00+01', '10:00 BST', '23:30-05', '00:15+05:30', '12:00-08', '12:00-08', '03:00:00.125+14'];

beforeAll(async () => {
  const setup = [
    'CREATE TABLE tt (id int, t time, tz timetz)',
    `INSERT INTO tt VALUES ${TIMES.map((t, i) => `(${i}, '${t}', '${TIMETZS[i]}')`).join(', ')}, (100, NULL, NULL)`,
  ];
  ({ pg, q } = await pgliteAndQuire(setup));
}, 60_000);

afterAll(async () => {
  await pg?.close?.();
  await q?.close?.();
});

async function same(sqls: readonly string[]): Promise<void> {
  const diffs: string[] = [];
  for (const sql of sqls) {
    const want = await outcomeText(pg, sql);
    const got = await outcomeText(q, sql);
    if (want !== got) diffs.push(`${sql}\n  postgres: ${want}\n  quire:    ${got}`);
  }
  expect(diffs).toEqual([]);
}

describe('time and timetz', () => {
  it('input forms and output', async () => {
    const times = [
      '10:00', '10:00:00', '10:00:00.123456', '10:00:00.1234567', '1:02:03', '01:02:03.5', '24:00:00', 'allballs',
      '10:00 BST', '10:00+02', '1:02:03 PM', '12:00 AM', '12:00 PM', '2003-04-12 04:05:06', '04:05:06 PST',
      '23:59:59.9999999', ' 10:00 ', '25:00', '10:60', '24:00:01', 'abc', '', '13:00 PM', '10:00:61',
      'T10:00', '-10:00', '100000', '1000', 'T100000', '100000.25', '10', '10:00 America/New_York', '2024-06-01 10:00 America/New_York',
      '23:59:60', '24:00:00.1', '10:00:00.999999999',
    ];
    const timetzs = [
      '10:00+02', '10:00-07', '10:00:00.5+05:30', '10:00 BST', '10:00 PST', '10:00 UTC', 'allballs', '10:00+0530',
      '24:00:00+01', '04:05:06-08:00', '2003-04-12 04:05:06+03', '10:00+16', '10:00+15:59', '10:00 +02',
      '10:00 America/New_York', '2024-07-01 10:00 America/New_York', '2024-01-01 10:00 Europe/London',
      '10:00:00+02:30:15', '10:00 Z', '12:00 zulu', '+02', '100000.5', '10:00 +02',
    ];
    await same([
      ...times.map((s) => `SELECT '${s}'::time`),
      ...times.slice(0, 8).map((s) => `SELECT ('${s}'::time)::text, '${s}'::time(0), '${s}'::time(3), '${s}'::time(6)`),
      ...timetzs.map((s) => `SELECT '${s}'::timetz`),
      ...timetzs.slice(0, 6).map((s) => `SELECT ('${s}'::timetz)::text, '${s}'::timetz(0), '${s}'::timetz(2)`),
      `SELECT time '23:59:59.6'::time(0), time with time zone '23:59:59.6+01'::time(0) with time zone`,
      `SELECT pg_typeof(time '10:00'), pg_typeof(timetz '10:00+01'), pg_typeof('1:00'::time(2)), pg_typeof('1:00'::time(2) with time zone)`,
      'SELECT t, tz FROM tt ORDER BY id',
      `SELECT ARRAY['10:00', '11:30:00.5']::time[], ARRAY['10:00+01']::timetz[]`,
    ]);
  });

  it('comparisons, NULLs, ties, ordering, hashing', async () => {
    await same([
      'SELECT a.id, b.id, a.t < b.t, a.t = b.t, a.t >= b.t, a.tz < b.tz, a.tz = b.tz, a.tz <> b.tz FROM tt a, tt b ORDER BY 1, 2',
      'SELECT id, t FROM tt ORDER BY t, id',
      'SELECT id, t FROM tt ORDER BY t DESC NULLS LAST, id',
      'SELECT id, tz FROM tt ORDER BY tz, id',
      'SELECT id, tz FROM tt ORDER BY tz DESC NULLS FIRST, id',
      'SELECT t, count(*) FROM tt GROUP BY t ORDER BY t',
      'SELECT tz, count(*) FROM tt GROUP BY tz ORDER BY tz',
      'SELECT DISTINCT t FROM tt ORDER BY 1',
      'SELECT DISTINCT tz FROM tt ORDER BY 1',
      'SELECT count(DISTINCT t), count(DISTINCT tz), min(t), max(t), min(tz), max(tz) FROM tt',
      'SELECT a.id, b.id FROM tt a JOIN tt b ON a.t = b.t ORDER BY 1, 2',
      'SELECT a.id, b.id FROM tt a JOIN tt b ON a.tz = b.tz ORDER BY 1, 2',
      `SELECT timetz '10:00+02' = timetz '08:00+00', timetz '10:00+02' < timetz '08:00+00', timetz '10:00+02' > timetz '09:00+00'`,
      `SELECT time '10:00' = timetz '10:00+00', time '10:00' < time '10:00:00.000001', time '24:00' > time '23:59:59.999999'`,
      'SELECT t FROM tt WHERE t BETWEEN time \'06:00\' AND time \'13:00\' ORDER BY 1',
      `SELECT t FROM tt WHERE t IN ('10:00', '12:30', '18:00') ORDER BY 1`,
      'SELECT greatest(time \'10:00\', time \'09:00\'), least(timetz \'10:00+02\', timetz \'09:00+00\')',
    ]);
  });

  it('casts', async () => {
    await same([
      `SELECT timestamp '2024-02-29 13:45:12.345678'::time, timestamp 'infinity'::time, timestamptz '2024-02-29 13:45:12+03'::time`,
      `SELECT timestamptz '2024-02-29 13:45:12+03'::timetz, timestamptz '-infinity'::timetz`,
      `SELECT time '10:30'::interval, interval '1 day 02:03:04.5'::time, interval '-1 hour'::time, interval '27 hours'::time, interval '1 mon'::time`,
      `SELECT timetz '10:00+02'::time, time '10:00'::text, timetz '10:00:00.5-01'::varchar`,
      `SELECT interval 'infinity'::time`,
      `SELECT 'now'::time IS NOT NULL, localtime IS NOT NULL, current_time IS NOT NULL, localtime(0) IS NOT NULL`,
      `SELECT CAST(time '10:00' AS timetz(0))`,
      `SELECT time '10:00'::date`,
      `SELECT date '2024-01-01'::time`,
    ]);
  });

  it('arithmetic', async () => {
    const ivs = ['1 hour', '-1 hour', '15 hours', '25 hours', '1 day 1 hour', '1 mon 2 min', '-36 hours 30 seconds', '0', '00:00:00.000001'];
    const stmts: string[] = [];
    for (const iv of ivs) {
      stmts.push(
        `SELECT t + interval '${iv}', t - interval '${iv}', interval '${iv}' + t FROM tt ORDER BY id`,
        `SELECT tz + interval '${iv}', tz - interval '${iv}', interval '${iv}' + tz FROM tt ORDER BY id`,
      );
    }
    stmts.push(
      'SELECT a.t - b.t FROM tt a, tt b ORDER BY a.id, b.id',
      `SELECT date '2024-02-29' + t, t + date '1999-12-31', date 'infinity' + t FROM tt ORDER BY id`,
      `SELECT date '2024-02-29' + tz, tz + date '1999-12-31' FROM tt ORDER BY id`,
      `SELECT time '10:00' + interval 'infinity'`,
      `SELECT time '10:00' - interval 'infinity'`,
      `SELECT timetz '10:00+01' + interval '-infinity'`,
    );
    await same(stmts);
  });

  it('extract and date_part', async () => {
    const fields = ['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'epoch', 'timezone', 'timezone_hour', 'timezone_minute', 'day', 'bogus'];
    const stmts: string[] = [];
    for (const f of fields) {
      stmts.push(
        `SELECT extract(${f} FROM t), date_part('${f}', t) FROM tt ORDER BY id`,
        `SELECT extract(${f} FROM tz), date_part('${f}', tz) FROM tt ORDER BY id`,
      );
    }
    stmts.push(`SELECT extract(timezone_minute FROM timetz '10:00-05:30'), extract(epoch FROM timetz '00:00:00.5-05:30')`);
    await same(stmts);
  });

  it('RANGE frames with interval offsets over time and timetz (random offsets)', async () => {
    const r = rng(20261204);
    const rows: string[] = [];
    for (let id = 1; id <= 60; id++) {
      const null_ = r.chance(0.1);
      const h = r.int(24);
      const m = r.pick([0, 0, 15, 30, 45]);
      const t = null_ ? 'NULL' : `'${h}:${m}'`;
      const off = r.pick(['+00', '+01', '-05', '+05:30']);
      const tz = null_ ? 'NULL' : `'${h}:${m}${off}'`;
      rows.push(`(${id}, ${r.int(3)}, ${t}, ${tz})`);
    }
    await pg.query('CREATE TABLE rt (id int, p int, t time, tz timetz)');
    await q.query('CREATE TABLE rt (id int, p int, t time, tz timetz)');
    const ins = `INSERT INTO rt VALUES ${rows.join(', ')}`;
    await pg.query(ins);
    await q.query(ins);
    const offsets = ["'0'", "'30 min'", "'70 min'", "'2 hours'", "'1 day 1 hour'", "'1 mon'", "'25 hours'"];
    const stmts: string[] = [];
    for (let k = 0; k < 40; k++) {
      const col = r.pick(['t', 'tz']);
      const dir = r.pick(['', ' DESC']);
      const nulls = r.pick(['', ' NULLS FIRST', ' NULLS LAST']);
      const a = r.pick(offsets);
      const b = r.pick(offsets);
      const start = r.pick([`${a}::interval PRECEDING`, `${a}::interval FOLLOWING`, 'CURRENT ROW', 'UNBOUNDED PRECEDING']);
      const end = r.pick([`${b}::interval FOLLOWING`, `${b}::interval PRECEDING`, 'CURRENT ROW', 'UNBOUNDED FOLLOWING']);
      const part = r.chance(0.5) ? 'PARTITION BY p ' : '';
      stmts.push(
        `SELECT id, count(*) OVER w, min(id) OVER w, max(id) OVER w, sum(id) OVER w FROM rt WINDOW w AS (${part}ORDER BY ${col}${dir}${nulls} RANGE BETWEEN ${start} AND ${end}) ORDER BY id`,
      );
    }
    stmts.push(
      `SELECT id, count(*) OVER (ORDER BY t RANGE BETWEEN '-1 min'::interval PRECEDING AND CURRENT ROW) FROM rt ORDER BY id`,
      `SELECT id, count(*) OVER (ORDER BY tz RANGE BETWEEN CURRENT ROW AND '-infinity'::interval FOLLOWING) FROM rt ORDER BY id`,
      `SELECT id, count(*) OVER (ORDER BY t RANGE BETWEEN '-1 day'::interval PRECEDING AND CURRENT ROW) FROM rt ORDER BY id`,
      `SELECT id, count(*) OVER (ORDER BY t RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM rt ORDER BY id`,
      `SELECT id, count(*) OVER (ORDER BY t RANGE BETWEEN 'infinity'::interval PRECEDING AND 'infinity'::interval FOLLOWING) FROM rt ORDER BY id`,
      `SELECT id, count(*) OVER (ORDER BY t NULLS FIRST RANGE BETWEEN 'infinity'::interval PRECEDING AND '1 hour'::interval PRECEDING) FROM rt ORDER BY id`,
      `SELECT id, count(*) OVER (ORDER BY t DESC RANGE BETWEEN 'infinity'::interval PRECEDING AND CURRENT ROW) FROM rt ORDER BY id`,
    );
    await same(stmts);
  });
});
