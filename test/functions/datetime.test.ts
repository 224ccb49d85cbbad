import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, f8, i4, makeCtx, ours, Pg, rng, STATEMENT_TIME, txt, type Arg } from './harness.js';
import { partsToMicros, ymdToDays } from '../../src/common/datetime-calendar.js';
import { Interval } from '../../src/common/interval.js';

let pg: Pg;
beforeAll(async () => {
  pg = await Pg.start();
});
afterAll(async () => {
  await pg.close();
});

type Case = { name: string; args: Arg[] };

const date = (y: number, m: number, d: number): Arg => ({ type: 'date', value: ymdToDays(y, m, d) });
const tsv = (y: number, m: number, d: number, h = 0, mi = 0, s = 0, us = 0): number => partsToMicros({ y, m, d, h, mi, s, us });
const ts = (y: number, m: number, d: number, h = 0, mi = 0, s = 0, us = 0): Arg => ({ type: 'timestamp', value: tsv(y, m, d, h, mi, s, us) });
const tstz = (y: number, m: number, d: number, h = 0, mi = 0, s = 0, us = 0): Arg => ({ type: 'timestamptz', value: tsv(y, m, d, h, mi, s, us) });
const iv = (months: number, days: number, micros: number): Arg => ({ type: 'interval', value: new Interval(months, days, micros) });
const H = 3_600_000_000;

const DATES = [date(2024, 2, 29), date(2023, 1, 31), date(1970, 1, 1), date(2000, 12, 31), date(-43, 3, 15), date(2021, 1, 3), date(2020, 12, 28), { type: 'date', value: Infinity } as Arg, { type: 'date', value: -Infinity } as Arg];
const TSS = [ts(2024, 2, 29, 13, 45, 12, 345678), ts(2023, 1, 31, 23, 59, 59, 999999), ts(1970, 1, 1), ts(1999, 12, 31, 0, 0, 0, 1), ts(-100, 6, 15, 12), ts(2021, 1, 3, 6, 7, 8), ts(2008, 12, 29, 1), { type: 'timestamp', value: Infinity } as Arg, { type: 'timestamp', value: -Infinity } as Arg];
const IVS = [iv(0, 0, 0), iv(1, 0, 0), iv(-1, 0, 0), iv(14, 3, 4 * H + 5 * 60e6 + 6.5e6), iv(0, 31, 0), iv(0, 0, 25 * H), iv(-13, -2, -3 * H - 1), iv(1200, 0, 0), iv(0, 0, 1), iv(0, 1, -H)];
const FIELDS = ['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year', 'decade', 'century', 'millennium', 'epoch', 'dow', 'isodow', 'doy', 'isoyear', 'julian', 'timezone', 'bogus', 'YEARS', 'ms'];

group('date/time arithmetic', () => {
  it('date ± int, date - date, date + interval', async () => {
    const cases: Case[] = [];
    for (const d of DATES) {
      for (const n of [0, 1, -1, 365, -10000, 2147483647]) cases.push({ name: '+', args: [d, i4(n)] }, { name: '-', args: [d, i4(n)] }, { name: '+', args: [i4(n), d] });
      for (const e of DATES) cases.push({ name: '-', args: [d, e] });
      for (const v of IVS) cases.push({ name: '+', args: [d, v] }, { name: '-', args: [d, v] }, { name: '+', args: [v, d] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('timestamp ± interval, timestamp - timestamp', async () => {
    const cases: Case[] = [];
    for (const t of TSS) {
      for (const v of IVS) cases.push({ name: '+', args: [t, v] }, { name: '-', args: [t, v] }, { name: '+', args: [v, t] });
      for (const u of TSS) cases.push({ name: '-', args: [t, u] });
    }
    cases.push({ name: '+', args: [ts(2024, 1, 31), iv(1, 0, 0)] }, { name: '+', args: [ts(2023, 1, 31), iv(1, 0, 0)] }, { name: '-', args: [ts(2024, 3, 31), iv(1, 0, 0)] });
    cases.push({ name: '+', args: [ts(294276, 12, 31), iv(0, 1, 0)] }, { name: '+', args: [{ type: 'timestamp', value: Infinity }, { type: 'interval', value: Interval.NEGATIVE_INFINITY }] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('timestamptz arithmetic in UTC', async () => {
    const cases: Case[] = [];
    for (const v of IVS) cases.push({ name: '+', args: [tstz(2024, 2, 29, 13), v] }, { name: '-', args: [tstz(2024, 3, 31, 1), v] });
    cases.push({ name: '-', args: [tstz(2024, 3, 1), tstz(2023, 2, 28, 12)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('interval ± interval, * and / float8, unary minus', async () => {
    const cases: Case[] = [];
    for (const a of IVS) {
      for (const b of IVS.slice(0, 5)) cases.push({ name: '+', args: [a, b] }, { name: '-', args: [a, b] });
      for (const f of [0, 1, -1, 0.5, 1.5, 3, 0.1, 1e-7, 1e10, NaN]) cases.push({ name: '*', args: [a, f8(f)] }, { name: '*', args: [f8(f), a] }, { name: '/', args: [a, f8(f)] });
      cases.push({ name: 'neg', args: [a] });
    }
    cases.push({ name: '+', args: [iv(2147483647, 0, 0), iv(1, 0, 0)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('random timestamps ± random intervals', async () => {
    const r = rng(99);
    const cases: Case[] = [];
    for (let k = 0; k < 200; k++) {
      const t = ts(1900 + Math.floor(r() * 200), 1 + Math.floor(r() * 12), 1 + Math.floor(r() * 28), Math.floor(r() * 24), Math.floor(r() * 60), Math.floor(r() * 60), Math.floor(r() * 1e6));
      const v = iv(Math.floor((r() - 0.5) * 100), Math.floor((r() - 0.5) * 100), Math.floor((r() - 0.5) * 1e11));
      const u = ts(1900 + Math.floor(r() * 200), 1 + Math.floor(r() * 12), 1 + Math.floor(r() * 28), Math.floor(r() * 24));
      cases.push({ name: '+', args: [t, v] }, { name: '-', args: [t, v] }, { name: '-', args: [t, u] }, { name: 'age', args: [t, u] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});

group('date/time functions', () => {
  it('date_part and extract', async () => {
    const cases: Case[] = [];
    for (const f of FIELDS) {
      for (const t of TSS) cases.push({ name: 'date_part', args: [txt(f), t] }, { name: 'extract', args: [txt(f), t] });
      for (const t of TSS.slice(0, 4)) cases.push({ name: 'date_part', args: [txt(f), { ...t, type: 'timestamptz' }] }, { name: 'extract', args: [txt(f), { ...t, type: 'timestamptz' }] });
      for (const d of DATES) cases.push({ name: 'date_part', args: [txt(f), d] }, { name: 'extract', args: [txt(f), d] });
      for (const v of [...IVS, { type: 'interval', value: Interval.POSITIVE_INFINITY } as Arg]) cases.push({ name: 'date_part', args: [txt(f), v] }, { name: 'extract', args: [txt(f), v] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('date_trunc', async () => {
    const units = ['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year', 'decade', 'century', 'millennium', 'dow', 'nope'];
    const cases: Case[] = [];
    for (const u of units) {
      for (const t of TSS) cases.push({ name: 'date_trunc', args: [txt(u), t] }, { name: 'date_trunc', args: [txt(u), { ...t, type: 'timestamptz' }] });
      for (const v of IVS) cases.push({ name: 'date_trunc', args: [txt(u), v] });
      cases.push({ name: 'date_trunc', args: [txt(u), tstz(2024, 2, 29, 13, 45), txt('UTC')] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('age, make_*, justify_*, isfinite, to_timestamp(float8)', async () => {
    const cases: Case[] = [];
    for (const a of TSS) for (const b of TSS) cases.push({ name: 'age', args: [a, b] });
    cases.push({ name: 'age', args: [tstz(2024, 3, 31), tstz(2024, 2, 29, 12)] });
    for (const [y, m, d] of [[2024, 2, 29], [2023, 2, 29], [0, 1, 1], [-44, 3, 15], [2020, 13, 1], [5874897, 12, 31], [5874898, 1, 1]]) cases.push({ name: 'make_date', args: [i4(y!), i4(m!), i4(d!)] });
    for (const [h, mi, s] of [[0, 0, 0], [23, 59, 59.999999], [24, 0, 0], [24, 0, 1], [25, 0, 0], [1, 60, 0], [1, 0, 61], [1, 0, 1.5], [-1, 0, 0]]) {
      cases.push({ name: 'make_timestamp', args: [i4(2020), i4(2), i4(29), i4(h!), i4(mi!), f8(s!)] });
      cases.push({ name: 'make_timestamptz', args: [i4(2020), i4(2), i4(29), i4(h!), i4(mi!), f8(s!)] });
    }
    cases.push({ name: 'make_interval', args: [] }, { name: 'make_interval', args: [i4(1)] }, { name: 'make_interval', args: [i4(1), i4(2), i4(3), i4(4), i4(5), i4(6), f8(7.5)] }, { name: 'make_interval', args: [i4(0), i4(0), i4(0), i4(0), i4(0), i4(0), f8(-0.000001)] });
    for (const v of [...IVS, iv(0, 65, 100 * H), iv(1, -45, -3 * H), iv(-1, 35, 30 * H), iv(0, -1, 25 * H)]) {
      for (const name of ['justify_days', 'justify_hours', 'justify_interval', 'isfinite']) cases.push({ name, args: [v] });
    }
    for (const d of DATES) cases.push({ name: 'isfinite', args: [d] });
    for (const t of TSS) cases.push({ name: 'isfinite', args: [t] });
    for (const s of [0, 1.5, -1, 1e9, 1712345678.123456, NaN, Infinity, -Infinity, 1e20, 9224318016000]) cases.push({ name: 'to_timestamp', args: [f8(s)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('to_char', async () => {
    const pats = [
      'YYYY-MM-DD HH24:MI:SS', 'YYYY-MM-DD"T"HH24:MI:SS.US', 'Dy, DD Mon YYYY HH12:MI:SS AM', 'Day Month YYYY', 'FMDay FMMonth FMDD',
      'DDth "of" MONTH, yyyy', 'MS US FF1 FF3 FF6', 'YYY YY Y Y,YYY', 'IYYY-IW-ID IDDD', 'DDD D W WW Q CC J', 'hh hh12 hh24 mi ss am pm a.m. P.M.',
      'SSSS SSSSS', 'BC AD b.c. a.d.', 'RM rm FMRM', 'mon month dy day', 'HH24\\"MI', 'FMDDth FMDDTH FMMMth', '', 'TZ OF',
    ];
    const cases: Case[] = [];
    for (const p of pats) for (const t of [...TSS, ts(2021, 11, 2, 0, 5), ts(2022, 3, 3, 12, 1), ts(12, 1, 1, 12)]) cases.push({ name: 'to_char', args: [t, txt(p)] });
    for (const p of ['YYYY-MM-DD HH24:MI:SS TZ', 'TZH:TZM OF tz']) cases.push({ name: 'to_char', args: [tstz(2024, 2, 29, 13), txt(p)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('to_date / to_timestamp(text, text)', async () => {
    const pairs: [string, string][] = [
      ['2024-02-29', 'YYYY-MM-DD'], ['29/02/2024', 'DD/MM/YYYY'], ['20240229', 'YYYYMMDD'], ['2024-02-30', 'YYYY-MM-DD'],
      ['2024 Feb 29', 'YYYY Mon DD'], ['March 5, 2021', 'Month DD, YYYY'], ['05 Mar 21', 'DD Mon YY'], ['2021-13-01', 'YYYY-MM-DD'],
      ['2024-02-29 13:45:12', 'YYYY-MM-DD HH24:MI:SS'], ['2024-02-29 01:45:12 PM', 'YYYY-MM-DD HH:MI:SS AM'], ['12:00 am', 'HH12:MI am'],
      ['2024-02-29 13:45:12.345', 'YYYY-MM-DD HH24:MI:SS.MS'], ['2024-02-29 13:45:12.123456', 'YYYY-MM-DD HH24:MI:SS.US'],
      ['13:45', 'HH:MI'], ['2024-060', 'YYYY-DDD'], ['xx', 'YYYY'], ['2024', 'YYYY-MM'], ['2024-02-29 13:45 +02', 'YYYY-MM-DD HH24:MI TZH'],
      ['  2024 - 1 - 5', 'YYYY-MM-DD'], ['2024/03/04', 'YYYY-MM-DD'], ['2459000', 'J'], ['1 BC', 'YYYY BC'], ['Jan', 'Mon'], ['Foo', 'Mon'],
    ];
    const cases: Case[] = [];
    for (const [s, f] of pairs) cases.push({ name: 'to_date', args: [txt(s), txt(f)] }, { name: 'to_timestamp', args: [txt(s), txt(f)] });
    expect(await compareAll(pg, cases, { codeOnly: true })).toEqual([]);
  });
  it('now / current_date / clock_timestamp / version / current_setting', () => {
    const ctx = makeCtx();
    expect(ours('now', [], ctx)).toEqual({ ok: '2024-03-15 12:34:56.789123+00', type: 'timestamptz' });
    expect(ours('statement_timestamp', [], ctx)).toEqual(ours('transaction_timestamp', [], ctx));
    expect(ours('current_date', [], ctx)).toEqual({ ok: '2024-03-15', type: 'date' });
    const c = ours('clock_timestamp', [], ctx);
    expect('ok' in c && c.ok !== null && c.ok > '2026').toBe(true);
    expect(ours('version', [])).toEqual({ ok: 'PostgreSQL 16.0 (Quire)', type: 'text' });
    expect(ours('current_setting', [txt('TimeZone')], ctx)).toEqual({ ok: 'UTC', type: 'text' });
    expect(ours('current_setting', [txt('nope')], ctx)).toMatchObject({ error: '42704' });
    expect(ours('age', [ts(2024, 3, 14)], ctx)).toEqual({ ok: '1 day', type: 'interval' });
    void STATEMENT_TIME;
  });
});

group('timestamptz in a DST time zone', () => {
  const zone = 'America/New_York';
  const ctx = makeCtx(zone);
  it('arithmetic, truncation, fields and formatting follow the session zone', async () => {
    await pg.run(`set timezone='${zone}'`);
    try {
      const instants = [
        tstz(2024, 3, 10, 6, 30), // 01:30 EST, just before spring-forward
        tstz(2024, 3, 9, 7, 30),
        tstz(2024, 11, 3, 5, 30), // 01:30 EDT, the first of two 01:30s
        tstz(2024, 11, 3, 6, 30), // 01:30 EST, the second
        tstz(2024, 1, 31, 17),
        tstz(2024, 7, 4, 3, 59, 59, 500000),
      ];
      const ivs = [iv(0, 1, 0), iv(0, -1, 0), iv(1, 0, 0), iv(0, 0, 24 * H), iv(0, 1, H), iv(-1, 1, 0)];
      const cases: Case[] = [];
      for (const t of instants) {
        for (const v of ivs) cases.push({ name: '+', args: [t, v] }, { name: '-', args: [t, v] });
        for (const u of instants) cases.push({ name: '-', args: [t, u] }, { name: 'age', args: [t, u] });
        for (const unit of ['hour', 'day', 'week', 'month', 'year', 'minute']) cases.push({ name: 'date_trunc', args: [txt(unit), t] });
        cases.push({ name: 'date_trunc', args: [txt('day'), t, txt('Asia/Kolkata')] });
        for (const f of ['hour', 'day', 'timezone', 'timezone_hour', 'timezone_minute', 'epoch', 'dow', 'julian']) {
          cases.push({ name: 'date_part', args: [txt(f), t] }, { name: 'extract', args: [txt(f), t] });
        }
        cases.push({ name: 'to_char', args: [t, txt('YYYY-MM-DD HH24:MI:SS TZH:TZM OF')] });
      }
      cases.push({ name: 'make_timestamptz', args: [i4(2024), i4(3), i4(10), i4(2), i4(30), f8(0)] });
      cases.push({ name: 'make_timestamptz', args: [i4(2024), i4(11), i4(3), i4(1), i4(30), f8(0)] });
      cases.push({ name: 'make_timestamptz', args: [i4(2024), i4(6), i4(1), i4(12), i4(0), f8(0), txt('Europe/Berlin')] });
      cases.push({ name: 'to_timestamp', args: [txt('2024-03-10 02:30'), txt('YYYY-MM-DD HH24:MI')] });
      for (const z of ['UTC', 'Asia/Kolkata', 'America/New_York', 'nope']) {
        cases.push({ name: 'timezone', args: [txt(z), tstz(2024, 3, 10, 12)] }, { name: 'timezone', args: [txt(z), ts(2024, 3, 10, 2, 30)] });
      }
      cases.push({ name: 'to_timestamp', args: [txt('2024-07-01 12:00'), txt('YYYY-MM-DD HH24:MI')] });
      expect(await compareAll(pg, cases, { ctx })).toEqual([]);
    } finally {
      await pg.run("set timezone='UTC'");
    }
  });
});
