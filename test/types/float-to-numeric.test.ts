/**
 * float8 → numeric (15 significant digits, float4 6, as PostgreSQL's float8_numeric and float4_numeric
 * print them) against PostgreSQL (PGlite): doubles of short and long decimal forms, tiny and huge
 * magnitudes, negatives, and a typmod that rounds again; doubles exactly halfway between two 15-digit
 * (or 6-digit) decimals, which printf rounds to even where JavaScript's toExponential rounds away from
 * zero, also through float output with extra_float_digits <= 0 (C's %g).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';

let sql: SqlDiff;

beforeAll(async () => {
  sql = await SqlDiff.start('CREATE TABLE f AS SELECT i FROM generate_series(1, 3000) AS s(i)');
}, 60_000);
afterAll(async () => {
  await sql.close();
});

describe('float8 to numeric', () => {
  it('matches PostgreSQL digit for digit', async () => {
    const exprs = [
      'CAST(i AS float8) / 7',
      'CAST(i AS float8) * 0.1',
      'CAST(-i AS float8) / 1000',
      '1 / CAST(i AS float8)',
      'CAST(i AS float8) * 1234567.891',
      'power(CAST(10 AS float8), i % 44 - 22) * i',
      'power(CAST(10 AS float8), i % 44 - 22) / 3',
      'CAST(i AS float8) * 100000000000000 + 0.25',
      'CAST(i % 7 AS float8) - 3',
      'CAST(i AS float8) / 8',
      'CAST(i AS float4) / 7',
      'CAST(i AS float4) * CAST(1e-10 AS float4)',
    ];
    const qs: string[] = [];
    for (const e of exprs) {
      qs.push(`SELECT i, CAST(${e} AS numeric) FROM f ORDER BY i`);
      qs.push(`SELECT i, CAST(${e} AS numeric(20,2)) FROM f WHERE abs(${e}) < 1e17 ORDER BY i`);
    }
    qs.push("SELECT CAST(x AS numeric) FROM (VALUES (CAST('-0' AS float8)), (0.1), (1e21), (1e-7), (123456789012345.6), (0.30000000000000004), (CAST('NaN' AS float8)), (CAST('Infinity' AS float8)), (5e-324), (1.7976931348623157e308)) AS v(x)");
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('rounds exact ties to even as printf does', async () => {
    // k + 0.5 and k + 0.25 / 0.75 at 15 and 16 significant digits: exact in a double, so exact ties.
    const exprs = [
      'CAST(100000000000000 + i AS float8) + 0.5',
      '-(CAST(100000000000000 + i AS float8) + 0.5)',
      'CAST(10000000000000 + i AS float8) + 0.25',
      'CAST(10000000000000 + i AS float8) + 0.75',
      'CAST(999999999999000 + i AS float8) + 0.5',
      'CAST(i AS float8) / 64 + 1000000000000',
    ];
    const qs: string[] = [];
    for (const e of exprs) qs.push(`SELECT i, CAST(${e} AS numeric) FROM f ORDER BY i`);
    // float4: 6 digits; 1234.5-style ties and their neighbours.
    qs.push('SELECT i, CAST(CAST(100000 + i AS float4) + CAST(0.5 AS float4) AS numeric) FROM f WHERE i < 8000 ORDER BY i');
    qs.push('SELECT i, CAST(CAST(i AS float4) / 16 + 1000 AS numeric) FROM f ORDER BY i');
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('prints floats with extra_float_digits <= 0 as %g does, ties to even', async () => {
    const qs: string[] = [];
    for (const digits of [0, -3, -14]) {
      qs.push(`SET extra_float_digits = ${digits}`);
      for (const e of ['CAST(100000000000000 + i AS float8) + 0.5', 'CAST(i AS float8) / 64 + 1000000000000', 'CAST(i AS float8) * 12.5', 'CAST(i AS float8) / 7 * 1e-6', 'CAST(i AS float4) / 16 + 1000']) {
        qs.push(`SELECT i, CAST(${e} AS text) FROM f ORDER BY i`);
      }
    }
    qs.push('RESET extra_float_digits');
    expect(await sql.mismatches(qs)).toEqual([]);
  });
});
