import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Interval } from '../../src/common/interval.js';
import { T } from '../../src/common/types.js';
import { formatValue } from '../../src/common/format-value.js';
import { parseValue } from '../../src/common/parse-value.js';
import { atTimeZoneLocalToUtc, atTimeZoneOffsetSeconds, localToUtc, normalizeTimeZoneSetting, utcOffsetSeconds } from '../../src/common/timezone.js';
import { ours, pgBatch, pgOne, rng, startPg } from './pg-helper.js';

let pg: PGlite;
beforeAll(async () => {
  pg = await startPg();
});
afterAll(async () => {
  await pg.close();
});

const rand = rng(99);
const ivals = [
  '1 day 2 hours', '1 year 2 mons 3 days 04:05:06.5', '-1 days +02:00', '1 mon', '-1 mon', '30 days', '25:00:00', '1.5 days', '0',
  '-1 year -2 mons +3 days -04:00:00.000001', '3 mons 15 days', '7 days', '00:00:00.000001', '100 years', '1 mon 1 day 00:00:01',
];
for (let i = 0; i < 40; i++) {
  const m = Math.floor((rand() - 0.5) * 50);
  const d = Math.floor((rand() - 0.5) * 80);
  const us = Math.floor((rand() - 0.5) * 4e11);
  ivals.push(new Interval(m, d, us).toString());
}

describe('interval arithmetic', () => {
  it('mul / div by floats', async () => {
    const factors = ['2', '0.5', '-1.5', '3.3', '0.1', '1e-3', '7', '-0.333'];
    const args: [string, string][] = [];
    for (const iv of ivals) for (const f of factors) args.push([iv, f]);
    const em = await pgBatch(pg, '$1::interval * $2::float8', args);
    expect(args.map(([iv, f]) => Interval.parse(iv).mul(Number(f)).toString())).toEqual(em);
    const ed = await pgBatch(pg, '$1::interval / $2::float8', args);
    expect(args.map(([iv, f]) => Interval.parse(iv).div(Number(f)).toString())).toEqual(ed);
  });
  it('add / sub / neg / compare / justify', async () => {
    const pairs: [string, string][] = [];
    for (let i = 0; i < ivals.length; i++) pairs.push([ivals[i]!, ivals[(i * 7 + 3) % ivals.length]!]);
    expect(pairs.map(([a, b]) => Interval.parse(a).add(Interval.parse(b)).toString())).toEqual(await pgBatch(pg, '$1::interval + $2::interval', pairs));
    expect(pairs.map(([a, b]) => Interval.parse(a).sub(Interval.parse(b)).toString())).toEqual(await pgBatch(pg, '$1::interval - $2::interval', pairs));
    expect(pairs.map(([a, b]) => String(Math.sign(Interval.parse(a).compare(Interval.parse(b)))))).toEqual(
      await pgBatch(pg, 'sign(interval_cmp($1::interval, $2::interval))', pairs),
    );
    const one = ivals.map((s) => [s]);
    expect(ivals.map((s) => Interval.parse(s).neg().toString())).toEqual(await pgBatch(pg, '-$1::interval', one));
    expect(ivals.map((s) => Interval.parse(s).justifyHours().toString())).toEqual(await pgBatch(pg, 'justify_hours($1::interval)', one));
    expect(ivals.map((s) => Interval.parse(s).justifyDays().toString())).toEqual(await pgBatch(pg, 'justify_days($1::interval)', one));
    expect(ivals.map((s) => Interval.parse(s).justifyInterval().toString())).toEqual(await pgBatch(pg, 'justify_interval($1::interval)', one));
  });
  it('division by zero', async () => {
    const e = await pgOne(pg, "select ('1 day'::interval / 0::float8)::text");
    expect(ours(() => Interval.parse('1 day').div(0).toString()).code).toBe(e.code);
  });
});

describe('time zones', () => {
  const zones = ['UTC', 'America/New_York', 'Europe/London', 'Asia/Kolkata', 'Australia/Lord_Howe', 'America/Sao_Paulo', 'PST8PDT', 'EST5EDT', 'UTC+3', '-05:30', 'XYZ5', 'ABC-3DEF', 'GMT+2', 'Etc/GMT-14', 'Pacific/Chatham', 'America/St_Johns'];
  const instants: string[] = ['1970-01-01 00:00:00+00', '2000-03-26 01:30:00+00', '2018-03-11 06:59:59+00', '2018-03-11 07:00:00+00', '2018-11-04 05:59:59+00', '2018-11-04 06:00:00+00', '1950-06-01 00:00+00', '2037-07-01 00:00+00', '2100-01-15 12:00+00'];
  for (let i = 0; i < 60; i++) instants.push(new Date(Date.UTC(1900, 0, 1) + rand() * 200 * 365.25 * 86400000).toISOString());
  it('utcOffsetSeconds renders like PostgreSQL for session zones', async () => {
    const bad: string[] = [];
    for (const z of zones) {
      await pg.query(`set timezone='${z}'`);
      const e = await pgBatch(pg, '$1::timestamptz', instants.map((s) => [s]));
      instants.forEach((s, i) => {
        const v = parseValue(s, T.timestamptz) as number;
        const got = formatValue(v, T.timestamptz, { timezone: z });
        if (got !== e[i]) bad.push(`${z} ${s}: pg ${e[i]} ours ${got}`);
      });
    }
    await pg.query(`set timezone='UTC'`);
    expect(bad.slice(0, 10)).toEqual([]);
  });
  it('localToUtc handles DST gaps and overlaps like PostgreSQL', async () => {
    const locals = ['2018-03-11 02:30', '2018-11-04 01:30', '2018-03-25 02:30', '2018-10-28 01:30', '2018-10-07 02:15', '2018-04-01 01:45', '2020-06-01 12:00', '1890-01-01 00:00'];
    const bad: string[] = [];
    for (const z of ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Australia/Sydney', 'PST8PDT', 'ABC-3DEF', 'America/Sao_Paulo']) {
      const e = await pgBatch(pg, `($1::timestamp at time zone '${z}')`, locals.map((s) => [s]));
      locals.forEach((s, i) => {
        const utc = localToUtc(z, parseValue(s, T.timestamp) as number);
        const got = formatValue(utc, T.timestamptz, { timezone: 'UTC' });
        if (got !== e[i]) bad.push(`${z} ${s}: pg ${e[i]} ours ${got}`);
      });
    }
    expect(bad).toEqual([]);
  });
  it('AT TIME ZONE spellings (POSIX sign inversion, abbreviations)', async () => {
    const bad: string[] = [];
    for (const z of ['+02', '-05:30', 'UTC+3', 'PST', 'CEST', 'CET', 'EST', 'utc', 'Z', 'GMT', 'Europe/Paris']) {
      const e = await pgOne(pg, `select ('2020-07-01 12:00:00+00'::timestamptz at time zone '${z}')::text`);
      const utc = parseValue('2020-07-01 12:00:00+00', T.timestamptz) as number;
      const got = formatValue(utc + atTimeZoneOffsetSeconds(z, utc) * 1e6, T.timestamp);
      if (got !== e.value) bad.push(`${z}: pg ${e.value} ours ${got}`);
    }
    expect(bad).toEqual([]);
  });
  it('timestamp AT TIME ZONE abbreviation vs session zone of the same name', async () => {
    const local = parseValue('2020-07-01 12:00', T.timestamp) as number;
    const e = await pgOne(pg, "select ('2020-07-01 12:00'::timestamp at time zone 'CET')::text");
    expect(formatValue(atTimeZoneLocalToUtc('CET', local), T.timestamptz)).toBe(e.value);
    await pg.query("set timezone='CET'");
    const s = await pgOne(pg, "select '2020-07-01 12:00:00+00'::timestamptz::text");
    await pg.query("set timezone='UTC'");
    expect(formatValue(parseValue('2020-07-01 12:00:00+00', T.timestamptz) as number, T.timestamptz, { timezone: 'CET' })).toBe(s.value);
    expect(utcOffsetSeconds('PST', 0)).toBe(-8 * 3600);
  });
  it('SET TIME ZONE numeric values are ISO-signed', async () => {
    for (const z of ['+02', '5', '-3.5']) {
      await pg.query(`set timezone='${z}'`);
      const e = await pgOne(pg, "select '2020-07-01 12:00:00+00'::timestamptz::text");
      const norm = normalizeTimeZoneSetting(z)!;
      const utc = parseValue('2020-07-01 12:00:00+00', T.timestamptz) as number;
      expect([z, formatValue(utc, T.timestamptz, { timezone: norm })]).toEqual([z, e.value]);
    }
    await pg.query(`set timezone='UTC'`);
    expect(normalizeTimeZoneSetting('Not/AZone')).toBeNull();
    expect(() => utcOffsetSeconds('Not/AZone', 0)).toThrowError(expect.objectContaining({ code: '22023' }));
  });
});
