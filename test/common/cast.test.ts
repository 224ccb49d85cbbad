import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import type { DataType, TypeName } from '../../src/common/types.js';
import { T, type } from '../../src/common/types.js';
import { formatValue } from '../../src/common/format-value.js';
import { castContext, castValue, commonSupertype } from '../../src/common/cast.js';
import { ours, pgOne, startPg } from './pg-helper.js';

let pg: PGlite;
beforeAll(async () => {
  pg = await startPg();
});
afterAll(async () => {
  await pg.close();
});

const SQL: Record<TypeName, string> = {
  bool: 'bool', int2: 'int2', int4: 'int4', int8: 'int8', float4: 'float4', float8: 'float8', numeric: 'numeric',
  text: 'text', varchar: 'varchar', bpchar: 'bpchar', date: 'date', timestamp: 'timestamp', timestamptz: 'timestamptz',
  interval: 'interval', unknown: 'unknown',
};

async function castDiff(fromSql: string, from: DataType, toSql: string, to: DataType, inputs: string[], tz = 'UTC'): Promise<string[]> {
  const bad: string[] = [];
  if (tz !== 'UTC') await pg.query(`set timezone='${tz}'`);
  try {
    for (const s of inputs) {
      const e = await pgOne(pg, `select $1::text::${fromSql}::${toSql}::text`, [s]);
      const o = ours(() => {
        const src = castValue(s, T.text, from, { timezone: tz });
        const v = castValue(src, from, to, { timezone: tz });
        if (to.name === 'bool') return v ? 'true' : 'false';
        const out = formatValue(v, to, { timezone: tz });
        // PostgreSQL's char(n)::text drops the padding, which is what the oracle prints.
        return to.name === 'bpchar' && out !== null ? out.replace(/ +$/, '') : out;
      });
      if ((e.code ?? e.value) !== (o.code ?? o.value) || e.message !== o.message) {
        bad.push(JSON.stringify({ s, cast: `${fromSql}->${toSql}`, pg: e, ours: o }));
      }
    }
  } finally {
    if (tz !== 'UTC') await pg.query(`set timezone='UTC'`);
  }
  return bad;
}

const numbers = [
  '0', '1', '-1', '2.5', '-2.5', '3.5', '0.5', '-0.5', '1.4999', '32767', '32768', '-32768', '-32769', '32767.5', '-32768.5',
  '2147483647', '2147483648', '-2147483648', '2147483647.5', '-2147483648.5', '9223372036854775807', '9223372036854775808',
  '-9223372036854775808', '9223372036854775806', '1e10', '1e19', '1e300', '1e-300', 'NaN', 'Infinity', '-Infinity', '123.456',
  '0.1', '16777217', '9007199254740993', '1.23456789012345678', '3.4028235e38', '3.5e38', '1e-46',
];

describe('numeric casts', () => {
  const types: [string, DataType][] = [['int2', T.int2], ['int4', T.int4], ['int8', T.int8], ['float4', T.float4], ['float8', T.float8], ['numeric', T.numeric]];
  for (const [fs, ft] of types) {
    it(`from ${fs}`, async () => {
      const bad: string[] = [];
      for (const [ts, tt] of [...types, ['text', T.text] as [string, DataType], ['numeric(5,2)', type('numeric', ((5 << 16) | 2) + 4)] as [string, DataType]]) {
        if (ts === fs) continue;
        bad.push(...(await castDiff(fs, ft, ts, tt, numbers)));
      }
      expect(bad.slice(0, 10)).toEqual([]);
    });
  }
  it('bool <-> int4, text', async () => {
    const bad = [
      ...(await castDiff('int4', T.int4, 'bool', T.bool, ['0', '1', '-5', '7'])),
      ...(await castDiff('bool', T.bool, 'int4', T.int4, ['t', 'f'])),
      ...(await castDiff('bool', T.bool, 'text', T.text, ['t', 'f'])),
      ...(await castDiff('bool', T.bool, 'varchar(3)', type('varchar', 7), ['t', 'f'])),
      ...(await castDiff('text', T.text, 'bool', T.bool, ['yes', 'off', 'x'])),
    ];
    expect(bad).toEqual([]);
  });
});

describe('string casts', () => {
  it('explicit varchar(n)/char(n) truncate; char to text drops padding', async () => {
    const inputs = ['ab', 'abcd', 'abc  ', 'a b c d', '', 'é😀xy'];
    const bad = [
      ...(await castDiff('text', T.text, 'varchar(3)', type('varchar', 7), inputs)),
      ...(await castDiff('text', T.text, 'char(3)', type('bpchar', 7), inputs)),
      ...(await castDiff('char(5)', type('bpchar', 9), 'text', T.text, inputs)),
      ...(await castDiff('char(5)', type('bpchar', 9), 'varchar', T.varchar, inputs)),
      ...(await castDiff('varchar', T.varchar, 'char(2)', type('bpchar', 6), inputs)),
    ];
    expect(bad).toEqual([]);
  });
  it('assignment casts raise 22001', () => {
    expect(() => castValue('abcd', T.text, type('varchar', 7), {}, false)).toThrowError(expect.objectContaining({ code: '22001', message: 'value too long for type character varying(3)' }));
    expect(castValue('abc   ', T.text, type('varchar', 7), {}, false)).toBe('abc');
    expect(castValue('abcd', T.text, type('varchar', 7), {}, true)).toBe('abc');
  });
  it('text to other types uses the input function', async () => {
    const bad = [
      ...(await castDiff('text', T.text, 'int4', T.int4, ['12', ' 12 ', 'x', '1e3'])),
      ...(await castDiff('text', T.text, 'date', T.date, ['2004-07-09', 'x'])),
      ...(await castDiff('text', T.text, 'interval', T.interval, ['1 day', 'x'])),
      ...(await castDiff('varchar', T.varchar, 'numeric', T.numeric, ['1.50', 'x'])),
      ...(await castDiff('interval', T.interval, 'text', T.text, ['1 day 02:00', '-1 mon'])),
      ...(await castDiff('float8', T.float8, 'text', T.text, ['0.1', '1e20', '-0'])),
      ...(await castDiff('numeric', T.numeric, 'varchar(4)', type('varchar', 8), ['123.456'])),
    ];
    expect(bad).toEqual([]);
  });
});

describe('date/time casts', () => {
  const stamps = ['2004-07-09 10:17:35', '2004-07-09 00:00', '0044-03-15 10:00 BC', 'infinity', '-infinity', '2018-03-11 02:30', '2018-11-04 01:30', '1999-12-31 23:59:59.999999', '1800-06-01 12:00'];
  const dates = ['2004-07-09', '2018-03-11', '2018-11-04', '0044-03-15 BC', 'infinity', '-infinity', '1800-01-01'];
  for (const tz of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Europe/London', '-05:30', 'EST5EDT']) {
    it(`in ${tz}`, async () => {
      const bad = [
        ...(await castDiff('timestamp', T.timestamp, 'timestamptz', T.timestamptz, stamps, tz)),
        ...(await castDiff('timestamptz', T.timestamptz, 'timestamp', T.timestamp, stamps, tz)),
        ...(await castDiff('timestamp', T.timestamp, 'date', T.date, stamps, tz)),
        ...(await castDiff('timestamptz', T.timestamptz, 'date', T.date, stamps, tz)),
        ...(await castDiff('date', T.date, 'timestamp', T.timestamp, dates, tz)),
        ...(await castDiff('date', T.date, 'timestamptz', T.timestamptz, dates, tz)),
        ...(await castDiff('timestamptz', T.timestamptz, 'text', T.text, stamps, tz)),
        ...(await castDiff('date', T.date, 'text', T.text, dates, tz)),
      ];
      expect(bad).toEqual([]);
    });
  }
});

const ALL: TypeName[] = ['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'varchar', 'bpchar', 'date', 'timestamp', 'timestamptz', 'interval'];

describe('castContext', () => {
  it('matches pg_cast plus I/O conversion rules', async () => {
    const r = await pg.query<[string, string, string]>(
      `select s.typname, t.typname, c.castcontext from pg_cast c join pg_type s on s.oid = c.castsource join pg_type t on t.oid = c.casttarget`,
      [],
      { rowMode: 'array' },
    );
    const pgc = new Map<string, string>();
    for (const [s, t, c] of r.rows) pgc.set(`${s}->${t}`, c === 'i' ? 'implicit' : c === 'a' ? 'assignment' : 'explicit');
    const bad: string[] = [];
    for (const a of ALL) {
      for (const b of ALL) {
        if (a === b) continue;
        let expected: string | null = pgc.get(`${a}->${b}`) ?? null;
        if (expected === null) {
          if (b === 'text' || b === 'varchar' || b === 'bpchar') expected = 'assignment';
          else if (a === 'text' || a === 'varchar' || a === 'bpchar') expected = 'explicit';
        }
        const got = castContext(a, b);
        if (got !== expected) bad.push(`${a}->${b}: pg ${expected} ours ${got}`);
      }
    }
    expect(bad).toEqual([]);
    expect(castContext('unknown', 'int4')).toBe('implicit');
  });
});

describe('commonSupertype', () => {
  it('matches UNION resolution', async () => {
    const lists: TypeName[][] = [];
    for (const a of ALL) for (const b of ALL) lists.push([a, b]);
    lists.push(['unknown', 'unknown'], ['unknown', 'int4'], ['int4', 'unknown', 'numeric'], ['int2', 'int8', 'float4'], ['varchar', 'bpchar'], ['date', 'timestamp'], ['int4', 'float4']);
    const bad: string[] = [];
    for (const l of lists) {
      const sql = l.map((t) => (t === 'unknown' ? 'select null as v' : `select null::${SQL[t]} as v`)).join(' union all ');
      const e = await pgOne(pg, `select pg_typeof(v)::text from (${sql}) s limit 1`);
      const got = commonSupertype(l.map((t) => type(t)));
      const gotName = got === null ? null : formatTypeForPg(got.name);
      const exp = e.code !== undefined ? null : e.value;
      if (gotName !== exp) bad.push(`${l.join(',')}: pg ${exp} ours ${gotName}`);
    }
    expect(bad).toEqual([]);
  });
  it('keeps a shared typmod', () => {
    expect(commonSupertype([type('varchar', 7), type('varchar', 7)])!.typmod).toBe(7);
    expect(commonSupertype([type('varchar', 7), type('varchar', 8)])!.typmod).toBe(-1);
  });
});

function formatTypeForPg(n: TypeName): string {
  const m: Partial<Record<TypeName, string>> = {
    bool: 'boolean', int2: 'smallint', int4: 'integer', int8: 'bigint', float4: 'real', float8: 'double precision',
    varchar: 'character varying', bpchar: 'character', timestamp: 'timestamp without time zone', timestamptz: 'timestamp with time zone',
  };
  return m[n] ?? n;
}
