import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import type { DataType } from '../../src/common/types.js';
import { T } from '../../src/common/types.js';
import { parseValue } from '../../src/common/parse-value.js';
import { compareValues, equalValues, hashKey } from '../../src/common/compare.js';
import { Interval } from '../../src/common/interval.js';
import { Numeric } from '../../src/common/numeric.js';
import { startPg } from './pg-helper.js';

let pg: PGlite;
beforeAll(async () => {
  pg = await startPg();
});
afterAll(async () => {
  await pg.close();
});

/** Sorts `inputs` with PostgreSQL (C collation) and with compareValues; the orders must agree. */
async function sortDiff(sqlType: string, t: DataType, inputs: string[]): Promise<void> {
  const collatable = sqlType === 'text' || sqlType === 'bpchar';
  const r = await pg.query<[number]>(
    `select i from unnest($1::text[]) with ordinality as u(s, i) order by s::${sqlType}${collatable ? ' collate "C"' : ''}, i`,
    [inputs],
    { rowMode: 'array' },
  );
  const pgOrder = r.rows.map((x) => Number(x[0]) - 1);
  const vals = inputs.map((s) => parseValue(s, t));
  const ours = inputs.map((_, i) => i).sort((a, b) => compareValues(vals[a]!, vals[b]!, t) || a - b);
  expect(ours.map((i) => inputs[i])).toEqual(pgOrder.map((i) => inputs[i]));
  // equality and hash keys agree with PostgreSQL's '='
  const eq = await pg.query<[number, number, boolean]>(
    `select a.i, b.i, a.s::${sqlType} = b.s::${sqlType} from unnest($1::text[]) with ordinality as a(s, i), unnest($1::text[]) with ordinality as b(s, i)`,
    [inputs],
    { rowMode: 'array' },
  );
  const bad: string[] = [];
  for (const [ai, bi, e] of eq.rows) {
    const a = vals[Number(ai) - 1]!;
    const b = vals[Number(bi) - 1]!;
    const ourEq = equalValues(a, b, t);
    const keyEq = Object.is(hashKey(a, t), hashKey(b, t)) || hashKey(a, t) === hashKey(b, t);
    if (ourEq !== e || keyEq !== e) bad.push(`${inputs[Number(ai) - 1]} vs ${inputs[Number(bi) - 1]}: pg ${e} eq ${ourEq} key ${keyEq}`);
  }
  expect(bad).toEqual([]);
}

describe('ordering and equality match PostgreSQL', () => {
  it('float8', async () => {
    await sortDiff('float8', T.float8, ['NaN', '-Infinity', 'Infinity', '0', '-0', '1.5', '-1.5', '1e300', '-1e-300', 'nan', '3']);
  });
  it('float4', async () => {
    await sortDiff('float4', T.float4, ['NaN', '-Infinity', 'Infinity', '0', '-0', '1.5', '-1.5', '0.1', '3']);
  });
  it('int8 mixing number and bigint', async () => {
    await sortDiff('int8', T.int8, ['9223372036854775807', '-9223372036854775808', '9007199254740993', '9007199254740991', '5', '-5', '0', '9007199254740992']);
  });
  it('numeric', async () => {
    await sortDiff('numeric', T.numeric, ['1.0', '1.00', '1', 'NaN', 'Infinity', '-Infinity', '-1', '0', '0.000', '1e20', '123.456', '123.4560', 'nan']);
  });
  it('text in C collation (including astral characters)', async () => {
    await sortDiff('text', T.text, ['a', 'B', 'b', '', 'ab', 'a b', 'é', '😀', '\uffff', '\ue000', 'z', 'aé', 'a😀', 'a\uffff']);
  });
  it('char(n) ignores trailing spaces', async () => {
    await sortDiff('bpchar', T.bpchar, ['a', 'a ', 'a  ', 'b', ' a', '']);
  });
  it('interval', async () => {
    await sortDiff('interval', T.interval, ['1 mon', '30 days', '720 hours', '1 day', '24 hours', '-1 day', '0', '1 year', '360 days', 'infinity', '-infinity', '29 days 23:59:59.999999']);
  });
  it('bool, date, timestamp', async () => {
    await sortDiff('bool', T.bool, ['t', 'f', 'true']);
    await sortDiff('date', T.date, ['2004-07-09', 'infinity', '-infinity', '0044-03-15 BC', '1970-01-01']);
    await sortDiff('timestamp', T.timestamp, ['2004-07-09 10:00', 'infinity', '-infinity', '2004-07-09 10:00:00.000001', '1970-01-01']);
  });
});

describe('hash keys', () => {
  it('normalise equal values', () => {
    expect(hashKey(Numeric.parse('1.0'), T.numeric)).toBe(hashKey(Numeric.parse('1.000'), T.numeric));
    expect(hashKey(new Interval(1, 0, 0), T.interval)).toBe(hashKey(new Interval(0, 30, 0), T.interval));
    expect(hashKey(-0, T.float8)).toBe(0);
    expect(hashKey(5n, T.int8)).toBe(5);
    const m = new Map<unknown, number>();
    m.set(hashKey(NaN, T.float8), 1);
    expect(m.get(hashKey(NaN, T.float8))).toBe(1);
  });
});
