/**
 * int2/int4/int8/float8 input of decimal text, the strings most values arrive as (text parameters,
 * COPY, CSV), read as PostgreSQL reads them: values, -0, range edges, and the near-plain spellings
 * the general reading handles (a sign, a point at either end, spaces, underscores, exponents).
 */
import { describe, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';
import { rng } from './pg-helper.js';

const FIXED = [
  '0', '-0', '7', '-7', '007', '-007', '32767', '32768', '-32768', '-32769', '2147483647', '2147483648', '-2147483648', '-2147483649',
  '9007199254740991', '9007199254740992', '-9007199254740993', '999999999999999', '9999999999999999', '99999999999999999', '',
  '-', '+5', ' 5', '5 ', '1_000', '1.', '.5', '-.5', '0.5', '-0.5', '1.25', '-0.0', '00.100', '1e3', '1.5e-3', '12.', '1..2', '1.2.3', 'x1', '0x1F',
  '0.000000000000001', '123456789.123456', '-12345678901234.5',
];

function randomDecimal(next: () => number): string {
  const digits = 1 + Math.floor(next() * 16);
  let s = next() < 0.3 ? '-' : '';
  for (let i = 0; i < digits; i++) s += String(Math.floor(next() * 10));
  if (next() < 0.4) {
    const at = 1 + Math.floor(next() * Math.max(1, s.length - 1));
    s = s.slice(0, at) + '.' + s.slice(at);
  }
  return s;
}

describe('plain decimal input of integer and float8 columns', () => {
  const { agree } = agreementSuite(() => [], { pgRejects: 'any', withMessage: true });
  const next = rng(1806);
  const inputs = [...FIXED, ...Array.from({ length: 150 }, () => randomDecimal(next))];
  for (const type of ['int2', 'int4', 'int8', 'float8']) {
    it(`'…'::${type} as PostgreSQL`, async () => {
      await agree(inputs.map((s) => `SELECT '${s}'::${type}`));
    }, 60_000);
  }
});
