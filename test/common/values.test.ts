import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import type { DataType } from '../../src/common/types.js';
import { T, type } from '../../src/common/types.js';
import { formatValue } from '../../src/common/format-value.js';
import { parseValue } from '../../src/common/parse-value.js';
import { Interval } from '../../src/common/interval.js';
import { ours, pgBatch, pgOne, rng, startPg } from './pg-helper.js';

let pg: PGlite;
beforeAll(async () => {
  pg = await startPg();
});
afterAll(async () => {
  await pg.close();
});

const rand = rng(7);

/** Compares value-or-SQLSTATE of PostgreSQL's `$1::type::text` with formatValue(parseValue()). */
async function differential(sqlType: string, t: DataType, inputs: string[], tz = 'UTC'): Promise<unknown[]> {
  const bad: unknown[] = [];
  if (tz !== 'UTC') await pg.query(`set timezone='${tz}'`);
  try {
    for (const s of inputs) {
      const e = await pgOne(pg, `select $1::text::${sqlType}::text`, [s]);
      if (sqlType === 'bool' && e.value !== undefined) e.value = e.value === 'true' ? 't' : 'f';
      const o = ours(() => formatValue(parseValue(s, t, { timezone: tz }), t, { timezone: tz }));
      const ev = e.code ?? e.value;
      const ov = o.code ?? o.value;
      if (ev !== ov || (e.code !== undefined && e.message !== o.message)) bad.push(JSON.stringify({ s, pg: e, ours: o }));
    }
  } finally {
    if (tz !== 'UTC') await pg.query(`set timezone='UTC'`);
  }
  return bad;
}

describe('bool', () => {
  it('input and output', async () => {
    const inputs = ['t', 'true', 'TRUE', ' yes ', 'y', 'on', '1', 'f', 'false', 'no', 'off', 'of', '0', 'o', '', 'tr', 'fa', 'yess', '2', 'n', 'ON', ' t', 'truex'];
    expect(await differential('bool', T.bool, inputs)).toEqual([]);
  });
});

describe('integers', () => {
  it('int2/int4/int8 input, ranges and errors', async () => {
    const inputs = [
      '0', '-0', '+5', ' 42 ', '32767', '32768', '-32768', '-32769', '2147483647', '2147483648', '-2147483648', '-2147483649',
      '9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '1_000', '0x1F', '0o17', '0b101',
      '-0x80000000', '1.5', 'abc', '', ' ', '1e3', '--1', '1_', '12 3', '0x', '9007199254740993', '00012',
    ];
    for (const [sql, t] of [['int2', T.int2], ['int4', T.int4], ['int8', T.int8]] as const) {
      expect(await differential(sql, t, inputs)).toEqual([]);
    }
  });
});

describe('floats', () => {
  it('float8 output of random doubles matches PostgreSQL', async () => {
    const vals: number[] = [0.1, 1e15, 1e-5, 1.5e-5, 123456789012345, 1234567890123456, 1e21, 1e-4, 0.0001234, 5e-324, 1.7976931348623157e308, 100, 1e14, 2 ** 53];
    const buf = new DataView(new ArrayBuffer(8));
    for (let i = 0; i < 1500; i++) {
      if (i % 3 === 0) {
        buf.setUint32(0, (rand() * 2 ** 32) >>> 0);
        buf.setUint32(4, (rand() * 2 ** 32) >>> 0);
        const v = buf.getFloat64(0);
        if (Number.isFinite(v)) vals.push(v);
      } else vals.push((rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20));
    }
    const inputs = vals.map((v) => v.toExponential());
    const e = await pgBatch(pg, '$1::float8', inputs.map((s) => [s]));
    const got = inputs.map((s) => formatValue(parseValue(s, T.float8), T.float8));
    const bad = inputs.map((s, i) => [s, e[i], got[i]]).filter((x) => x[1] !== x[2]);
    expect(bad.slice(0, 10)).toEqual([]);
  });

  it('float4 output of random floats matches PostgreSQL', async () => {
    const vals: number[] = [1e6, 123456, 0.0001, 1e-5, 3.4028235e38, 1e-45, 0.1, 16777217, 1.17549435e-38];
    const buf = new DataView(new ArrayBuffer(4));
    for (let i = 0; i < 1500; i++) {
      if (i % 2 === 0) {
        buf.setUint32(0, (rand() * 2 ** 32) >>> 0);
        const v = buf.getFloat32(0);
        if (Number.isFinite(v)) vals.push(v);
      } else vals.push(Math.fround((rand() - 0.5) * 10 ** Math.floor(rand() * 20 - 10)));
    }
    // Feed PostgreSQL the exact float32 value through float8 so both sides start from the same bits.
    const inputs = vals.map((v) => Math.fround(v).toExponential());
    const e = await pgBatch(pg, '$1::float8::float4', inputs.map((s) => [s]));
    const got = inputs.map((s) => formatValue(Math.fround(Number(s)), T.float4));
    const bad = inputs.map((s, i) => [s, e[i], got[i]]).filter((x) => x[1] !== x[2]);
    expect(bad.slice(0, 10)).toEqual([]);
  });

  it('float input specials and errors', async () => {
    const inputs = ['NaN', 'nan', 'Infinity', '-Infinity', 'inf', '+inf', '-inf', ' 1.5 ', '1e308', '1e309', '-1e309', '1e-400', '1e-310', '.5', '5.', '-0', 'abc', '', '1e', '1.5.5', '0.0', '+1E+2', '0x1A', '0x1.8p1', '-0x10', '0x'];
    expect(await differential('float8', T.float8, inputs)).toEqual([]);
    expect(await differential('float4', T.float4, [...inputs, '1e38', '1e39', '1e-46', '1e-40', '3.4028236e38'])).toEqual([]);
  });
});

describe('numeric input', () => {
  it('typmods through parseValue', async () => {
    const t = type('numeric', ((5 << 16) | 2) + 4);
    expect(await differential('numeric(5,2)', t, ['1.005', '999.994', '999.995', '-0.001', 'NaN', 'inf', '12.3', 'x'])).toEqual([]);
  });
});

describe('strings', () => {
  it('varchar(n)/char(n) input function', async () => {
    const vc3 = type('varchar', 3 + 4);
    const bp3 = type('bpchar', 3 + 4);
    const inputs = ['ab', 'abc', 'abcd', 'abc  ', 'ab   x', '', 'é😀x', 'é😀xy'];
    const bad: unknown[] = [];
    for (const s of inputs) {
      // `'x'::varchar(3)` is an explicit cast (truncates); the input function proper is what
      // an INSERT uses, so test through a table.
      for (const [sql, t] of [['varchar(3)', vc3], ['char(3)', bp3]] as const) {
        await pg.query(`create temp table if not exists s_${sql.slice(0, 2)} (v ${sql})`);
        const e = await pgOne(pg, `insert into s_${sql.slice(0, 2)} values ($1) returning v::text || '|'`, [s]);
        const o = ours(() => String(parseValue(s, t)).replace(/ +$/, '') + '|');
        if ((e.code ?? e.value) !== (o.code ?? o.value) || e.message !== o.message) bad.push({ s, sql, e, o });
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('date/time', () => {
  const dates = [
    '2004-07-09', '1999-01-08', '0044-03-15 BC', '2000-02-29', '2001-02-29', '1999-13-01', '1999-00-10', '0000-01-01', 'infinity', '-infinity',
    'epoch', 'Jan 8 1999', 'January 8, 1999', '1/8/1999', '01/02/2003', '19990108', '990108', '1999.008', '08-Jan-1999', 'Jan-08-1999',
    '08-Jan-99', '99-Jan-08', 'J2451187', '2004-07-09 10:17:35', '2004-07-09T10:17:35', '10000-01-01', 'foo', '', '2004-07', ' 2004-07-09 ',
    '1 BC', 'Wed Jan 08 1999', '8 January 1999', '1999 January 8', '5874897-12-31', '5874898-01-01', '4714-11-24 BC', '4714-11-23 BC',
    '-0044-03-15', '2004/07/09', '12-31-1999', '2004-07-09 25:00', 'allballs',
  ];
  it('date', async () => {
    expect(await differential('date', T.date, dates)).toEqual([]);
  });
  const stamps = [
    '2004-07-09 10:17:35', '2004-07-09T10:17:35.5', '2004-07-09 10:17:35.123456', '2004-07-09 10:17:35.1234567', '2004-07-09 10:17',
    '2004-07-09', 'infinity', '-infinity', 'epoch', '2004-07-09 24:00:00', '2004-07-09 24:00:01', '2004-07-09 23:59:60', '2004-07-09 23:60:00',
    '2004-07-09 1:02 pm', '2004-07-09 12:30 am', '2004-07-09 12:30 pm', '2004-07-09 13:00 pm', '0044-03-15 10:00 BC', '2004-07-09 10:17:35+02',
    '2004-07-09 10:17:35Z', '2004-07-09 10:17:35 PST', '2004-07-09 10:17:35 America/New_York', '2004-07-09 10:17:35-0700',
    '2004-07-09 10:17:35+05:30', '2004-07-09 10:17:35-7', 'Sat Jul 04 00:00:00 2020 PST', 'Jan 8 1999 04:05:06', '1999-01-08 04:05:06.789 -8:00',
    '2004-07-09 10:17:35 foo', '10:17:35', 'allballs', 'now-ish', '294276-12-31', '294277-01-01', '1999-01-08 04:05:06 +15:00',
    '1999-01-08 04:05:06 +16:00', '2018-03-11 02:30', '2018-11-04 01:30', '1800-06-01 12:00', '2004-07-09T101735', '20040709 101735',
    '2004-07-09 10:17:35.', '1999-01-08 04:05:06 Europe/London', '1999-07-08 04:05:06 Europe/London', '2004-07-09 10:17:35 +00:00',
  ];
  it('timestamp', async () => {
    expect(await differential('timestamp', T.timestamp, stamps)).toEqual([]);
  });
  for (const tz of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Europe/Berlin', 'Australia/Lord_Howe', 'PST8PDT', 'UTC+3', '-05:30']) {
    it(`timestamptz in ${tz}`, async () => {
      expect(await differential('timestamptz', T.timestamptz, stamps, tz)).toEqual([]);
    });
  }
  it('random timestamps round trip and match', async () => {
    const inputs: string[] = [];
    for (let i = 0; i < 400; i++) {
      const us = Math.floor((rand() - 0.3) * 4e18);
      const d = new Date(Math.floor(us / 1000));
      if (Number.isNaN(d.getTime())) continue;
      const y = d.getUTCFullYear();
      if (y < 1 || y > 9999) continue;
      inputs.push(d.toISOString().replace('T', ' ').replace('Z', '') + String(Math.abs(us % 1000)).padStart(3, '0'));
    }
    for (const tz of ['UTC', 'America/Los_Angeles', 'Asia/Tokyo']) {
      await pg.query(`set timezone='${tz}'`);
      for (const [sql, t] of [['timestamp', T.timestamp], ['timestamptz', T.timestamptz], ['date', T.date]] as const) {
        const e = await pgBatch(pg, `$1::${sql}`, inputs.map((s) => [s]));
        const got = inputs.map((s) => formatValue(parseValue(s, t, { timezone: tz }), t, { timezone: tz }));
        const bad = inputs.map((s, i) => [tz, sql, s, e[i], got[i]]).filter((x) => x[3] !== x[4]);
        expect(bad.slice(0, 5)).toEqual([]);
      }
    }
    await pg.query(`set timezone='UTC'`);
  });
  it("'now' without a clock is 0A000; with one it works", () => {
    expect(() => parseValue('now', T.timestamptz)).toThrowError(expect.objectContaining({ code: '0A000' }));
    expect(parseValue('today', T.date, { now: 86_400_000_000 * 3 + 5 })).toBe(3);
  });
});

describe('interval', () => {
  it('input/output', async () => {
    const inputs = [
      '1 day 2 hours', '1-2', 'P1Y2M', '@ 1 minute ago', '01:02:03.5', '-1 days +02:00', '1 year 2 mons 3 days 04:05:06.5', '0', '00:00:00',
      '1:02.5', '5', '1 2:03:04', '-1-2', '1 2', 'P1Y2M3DT4H5M6.5S', 'P0001-02-03T04:05:06', '1 day -02:00 ago', 'infinity', '-infinity',
      '1 day 2 days', '1.5', '1 day 5', '-1 day -5', '1:2:3:4', '10:20', '1 h', '2hours 3min', '1 mon -1 day', '-1 year +1 mon',
      '1 year -1 mon +1 day -1 hour', '1.123456789 sec', '0.0000005 sec', '100000 hours', '-0.5 days', '1 millennium 1 century 1 decade',
      '3 ms 4 us', 'PT1.5S', 'P1W', 'P1.5Y', 'PT-1H', '-P1D', '1 week ago', ' 1 day ', '+1 day', '1-2 3 4:05:06', '1 day 02:03', '1.5 years',
      '1.01 years', '1.5 months', '1.5 days', '1.5 weeks', '0.1 months', '1.3 mons', 'foo', '', '1 fortnight', '-00:00:01', '-1 hours',
      '1 hour 1 minute', '25:00:00', '1 mon 1 mon', 'ago', '12:60', '1 sec ago', '1 day ago 2 hours', '99999 years', '2 decades', '1 day +1 hour',
      '1 day -1 hour', '-1 day +1 hour', '-1 day -1 hour', '1 year 1 day', '-1 year -1 day',
    ];
    expect(await differential('interval', T.interval, inputs)).toEqual([]);
  });
});

describe('generated date/time and interval spellings', () => {
  it('match PostgreSQL', async () => {
    const r = rng(1234);
    const pick = <X,>(a: X[]): X => a[Math.floor(r() * a.length)]!;
    const num = (lo: number, hi: number, w = 0) => String(Math.floor(lo + r() * (hi - lo + 1))).padStart(w, '0');
    const mons = ['Jan', 'February', 'mar', 'APR', 'May', 'Jun', 'July', 'aug', 'Sep', 'Oct', 'Nov', 'December'];
    const gens: (() => string)[] = [
      () => `${num(1, 2100, 4)}-${num(1, 12, 2)}-${num(1, 31, 2)}`,
      () => `${pick(mons)} ${num(1, 31)} ${num(1, 2100)}`,
      () => `${num(1, 31)} ${pick(mons)} ${num(1, 2100)}`,
      () => `${pick(mons)} ${num(1, 31)}, ${num(1000, 2100)} ${num(0, 23)}:${num(0, 59, 2)}`,
      () => `${num(1, 12)}/${num(1, 31)}/${num(0, 99, 2)}`,
      () => `${num(1, 12)}/${num(1, 31)}/${num(1000, 2100)} ${num(1, 12)}:${num(0, 59, 2)} ${pick(['am', 'pm', 'AM', 'PM'])}`,
      () => `${num(1900, 2100, 4)}-${num(1, 12, 2)}-${num(1, 28, 2)}${pick([' ', 'T'])}${num(0, 23, 2)}:${num(0, 59, 2)}:${num(0, 59, 2)}.${num(0, 999999)}${pick(['', 'Z', '+02', '-05:30', '+0100', ' UTC', ' EST', ' America/Chicago', ' -3'])}`,
      () => `${num(1, 31, 2)}-${pick(mons).slice(0, 3)}-${num(0, 2100, pick([2, 4]))}`,
      () => `${num(1000, 2100, 4)}${num(1, 12, 2)}${num(1, 31, 2)}${pick(['', ' 101010', 'T1010'])}`,
      () => `${pick(['Mon', 'Tuesday', 'wed', ''])} ${pick(mons)} ${num(1, 31, 2)} ${num(0, 23, 2)}:${num(0, 59, 2)}:${num(0, 59, 2)} ${num(1900, 2100)} ${pick(['PST', 'PDT', 'GMT', ''])}`,
      () => `${num(1, 4000, 4)}-${num(1, 12, 2)}-${num(1, 31, 2)} ${pick(['BC', 'AD', ''])}`,
    ];
    const bad: string[] = [];
    for (let i = 0; i < 250; i++) {
      const s = pick(gens)().trim();
      for (const [sql, t] of [['date', T.date], ['timestamp', T.timestamp], ['timestamptz', T.timestamptz]] as const) {
        const e = await pgOne(pg, `select $1::text::${sql}::text`, [s]);
        const o = ours(() => formatValue(parseValue(s, t), t));
        if ((e.code ?? e.value) !== (o.code ?? o.value)) bad.push(`${sql} ${JSON.stringify(s)}: pg ${e.code ?? e.value} ours ${o.code ?? o.value} ${o.message ?? ''}`);
      }
    }
    const units = ['year', 'years', 'mon', 'months', 'day', 'days', 'hour', 'h', 'min', 'minutes', 'sec', 's', 'week', 'ms', 'us', 'decade'];
    for (let i = 0; i < 250; i++) {
      const parts: string[] = [];
      const n = 1 + Math.floor(r() * 3);
      const used = new Set<string>();
      for (let j = 0; j < n; j++) {
        const u = pick(units);
        if (used.has(u)) continue;
        used.add(u);
        parts.push(`${pick(['', '-', '+'])}${num(0, 100)}${pick(['', '.5', '.25', '.333'])} ${u}`);
      }
      if (r() < 0.3) parts.push(`${pick(['', '-', '+'])}${num(0, 30, 2)}:${num(0, 59, 2)}${pick(['', ':' + num(0, 59, 2), ':' + num(0, 59, 2) + '.' + num(0, 999)])}`);
      if (r() < 0.2) parts.push('ago');
      const s = (r() < 0.1 ? '@ ' : '') + parts.join(' ');
      const e = await pgOne(pg, `select $1::text::interval::text`, [s]);
      const o = ours(() => Interval.parse(s).toString());
      if ((e.code ?? e.value) !== (o.code ?? o.value)) bad.push(`interval ${JSON.stringify(s)}: pg ${e.code ?? e.value} ours ${o.code ?? o.value}`);
    }
    expect(bad.slice(0, 10)).toEqual([]);
  });
});
