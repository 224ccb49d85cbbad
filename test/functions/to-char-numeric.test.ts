/**
 * to_char with numeric templates (int4, int8, numeric, float4, float8) and to_number, against
 * PostgreSQL over a grid of values × templates: padding, rounding across a digit boundary, '#'
 * overflow, every sign pattern, FM, RN, TH, V, EEEE, float digit limits, int8 past 2^53, NaN and
 * infinities, and the template errors. Errors compare by SQLSTATE and message.
 */
import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, f4, f8, i4, i8, num, Pg, txt, type Arg } from './harness.js';
import { startEngines, type SqlDiff } from './sql-diff.js';

let pg: Pg;
let sql: SqlDiff;
beforeAll(async () => {
  ({ pg, sql } = await startEngines('create table n (i int4, v float8); insert into n values (1, 1e20), (2, 1), (3, null)'));
});
afterAll(async () => {
  await sql.close();
});

const TEMPLATES = [
  '9', '99', '999', '9999', '99999999999999999999', '0000', '0099', '9990', '9.9', '99.99', '999.999', '0.00',
  '9D99', '00.00', 'FM9', 'FM999.99', 'FM999.00', 'FM0.99', 'FM9.', 'FM9.9', 'FM0000.0000', 'FM999,999.00',
  '999,999.99', '9G999D99', ',999', 'S9999', '9999S', 'S9.99', '9.99S', 'FMS999', 'S0000', 'MI999', '999MI',
  'FM999MI', 'PL999', '999PL', 'FMPL999', 'SG999', '999SG', 'FMSG999', '9SG99', '999PR', 'FM999.99PR',
  'L999.99', 'FML999', 'RN', 'rn', 'FMRN', 'FMrn', '"n="RN', '999th', '99TH', 'FM999th', 'FM99TH', '999.9th',
  '99V9', '9V99', '999V999', 'FM9V9', '9.9EEEE', '9.99EEEE', '99.99EEEE', '9EEEE', '0.000EEEE', 'FM',
  '"Total: "999.99', '9 9 9', '"x"FM9.99"y"', '\\"999', 'B999', 'C999', 'SP999', '999 "a\\"b"', 'x9x9', '',
  // Invalid templates.
  '9.9.9', '9D9.9', '9.99EEEE9', 'FM9.9EEEE', 'S9.9EEEE', '9.9EEEEEEEE', 'S99S', 'S99MI', 'PL9S', 'PR9',
  '99PR0', '9V.9', '9.9V', 'RN9.9', 'RNRN', 'SRN', '9V99EEEE',
];

const INTS = [0, 1, -1, 5, -5, 12, 22, -22, 111, 1234, -1234, 99999, 123456789, 2147483647, -2147483648, 3999, 4000];
const INT8S = [...INTS.map((v) => BigInt(v)), 9007199254740993n, -9007199254740993n, 123456789012345678n, 9223372036854775807n, -9223372036854775808n];
const NUMERICS = [
  '0', '0.1', '-0.1', '0.05', '0.005', '9.995', '-9.995', '99.95', '0.999', '1234.5678', '-1234.5678', '5.5', '0.5',
  '1.00', '3999.4', '3999.5', '-0.00001', '12345678901234567890.123456789', '1e-10', '-1e20', 'NaN', 'Infinity', '-Infinity',
];
const FLOATS = [
  0, -0, -0.001, 0.1, -0.1, 0.5, 2.5, -2.5, 0.125, 0.05, 9.995, 1.005, 2.675, 1234.5678, -1234.5678, 1e20, 1e-5, 123456789012345.67,
  1e300, 5e-324, 1.7976931348623157e308, 3999.5, NaN, Infinity, -Infinity,
];
const FLOAT4S = [0, 0.1, -2.5, 1234.567, 99.995, 1e10, 3.4e38, 0.125, -1e-5, NaN, Infinity, -Infinity];

function grid(values: Arg[]): { name: string; args: Arg[] }[] {
  return values.flatMap((v) => TEMPLATES.map((t) => ({ name: 'to_char', args: [v, txt(t)] })));
}

group('to_char numeric templates', () => {
  it('int4', async () => {
    expect(await compareAll(pg, grid(INTS.map(i4)))).toEqual([]);
  });
  it('int8, exact past 2^53', async () => {
    expect(await compareAll(pg, grid(INT8S.map(i8)))).toEqual([]);
  });
  it('numeric', async () => {
    expect(await compareAll(pg, grid(NUMERICS.map(num)))).toEqual([]);
  });
  it('float8: DBL_DIG digits, ties to even, NaN and infinities', async () => {
    expect(await compareAll(pg, grid(FLOATS.map(f8)))).toEqual([]);
  });
  it('float4: FLT_DIG digits', async () => {
    expect(await compareAll(pg, grid(FLOAT4S.map(f4)))).toEqual([]);
  });
  it('NULL in, NULL out', async () => {
    const cases = [
      { name: 'to_char', args: [i4(null), txt('999')] },
      { name: 'to_char', args: [num('1'), txt(null)] },
      { name: 'to_char', args: [f8(null), txt('9.9EEEE')] },
      { name: 'to_number', args: [txt(null), txt('999')] },
      { name: 'to_number', args: [txt('12'), txt(null)] },
    ];
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('through SQL: int2, literals, window sums (PostgreSQL window.sql), V overflow', async () => {
    expect(
      await sql.mismatches([
        "select to_char(12::int2, '999'), to_char(-7::int2, 'S9'), to_char(1234.5, 'FM9,999.00'), to_char(7, '99th')",
        "select to_char(sum(v) over (order by i rows between current row and 1 following), '999999999999999999999D9') from n order by i",
        "select to_char(1, '9V9999999999')",
        "select to_char(2147483647, '9V99')",
        "select to_char(1::int8, '9V9999999999999999999')",
        "select to_char(922337203685477580::int8, '9V99')",
        "select to_char(1.5::float4, '9V9'), to_char(12.5::float8, '999V99')",
        // The numeric overloads leave datetime arguments resolving as before.
        "select to_char(date '2024-03-05', 'YYYY-MM-DD'), to_char(timestamp '2024-03-05 10:00', 'HH24:MI')",
        "select to_number(12345, '99999')",
      ]),
    ).toEqual([]);
  });
});

group('to_number', () => {
  const INPUTS = [
    '12,454.8-', '-34,338,492', '<564646.654564>', '0.00001-', '5.01-', '.01', '.-01', '34,50', '123,000', '$1234.56',
    '  1,234.5 ', '1234', '-1234', '+12', '12.5', '99.995', 'XIV', 'mcmxciv', ' MMMCMXCIX', 'IIII', 'IXI', 'VX', 'CMC',
    'abc', '', '1 000', '１２', 'é12', '12e3', '12.34.56', '1,2,3', '12th', '-', '.', '5',
  ];
  const FORMATS = [
    '99G999D9S', '99,999,999', '999999.999999PR', '9.999999S', 'FM9.999999MI', 'S99', '99.99', '9999', '9G999',
    'L9999.99', 'FM9999.99', '99V99', '9999V9', 'RN', 'rn', 'FMRN', '999th', 'SG9999', 'PL999', 'MI999', '9,999',
    '"x"999', '0000.00', '.9', '9.9.9', '99EEEE', '',
  ];
  it('inputs × templates', async () => {
    const cases = INPUTS.flatMap((s) => FORMATS.map((f) => ({ name: 'to_number', args: [txt(s), txt(f)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('reads back what to_char wrote', async () => {
    const cases: { name: string; args: Arg[] }[] = [];
    for (const f of ['S99999.999', 'FM99,999.00', '99999.99PR', '99999.99MI', 'L99999.99']) {
      for (const v of ['12345.678', '-0.5', '7', '-99999.994']) {
        const shown = await pg.run(`select to_char(${v}::numeric, '${f}') as r`);
        if ('ok' in shown && shown.ok !== null) cases.push({ name: 'to_number', args: [txt(shown.ok), txt(f)] });
      }
    }
    expect(cases.length).toBe(20);
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});
