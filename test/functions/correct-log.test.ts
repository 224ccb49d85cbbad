/**
 * float8 ln, log and log10 are correctly rounded (glibc's log, which PostgreSQL calls, is; V8's
 * Math.log misses the nearest double for a few percent of inputs). The reference is Quire's own
 * numeric logarithm at 40 decimal places of the exact decimal value of each double, rounded once.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { lnRounded, log10Rounded } from '../../src/functions/scalar/support/correct-log.js';

/** The exact decimal expansion of a finite positive double. */
function exactDecimal(x: number): string {
  let m = x;
  let e = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  if (e === 0) return BigInt(m).toString();
  const digits = ((BigInt(m) * 10n ** BigInt(e)) / 2n ** BigInt(e)).toString().padStart(e + 1, '0');
  return `${digits.slice(0, -e)}.${digits.slice(-e)}`;
}

describe('correctly rounded float8 logarithms', () => {
  const cases: [string, number[]][] = [
    ['integers', Array.from({ length: 1500 }, (_, i) => i + 1)],
    ['fractions below and above 1', Array.from({ length: 1500 }, (_, i) => (i + 1) / 1024)],
    ['odd fractions near 1', Array.from({ length: 600 }, (_, i) => 1 + (i - 300) / 7 / 65536)],
    ['large and tiny', Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 3 ** (i / 4) * 2 ** 600 : 7 ** -(i / 5)))],
  ];
  for (const [name, xs] of cases) {
    it(name, async () => {
      const db = await Database.create();
      const values = xs.map((x) => `(${exactDecimal(x)}::numeric)`).join(', ');
      const scale = '1.' + '0'.repeat(40);
      const r = await db.query(`SELECT ln(v * ${scale})::text, log(10, v * ${scale})::text FROM (VALUES ${values}) t(v)`);
      const wrong: string[] = [];
      (r.rows as [string, string][]).forEach(([ln, log10], i) => {
        const x = xs[i]!;
        if (lnRounded(x) !== Number(ln)) wrong.push(`ln(${x}) = ${lnRounded(x)}, nearest ${Number(ln)}`);
        if (log10Rounded(x) !== Number(log10)) wrong.push(`log10(${x}) = ${log10Rounded(x)}, nearest ${Number(log10)}`);
      });
      expect(wrong.slice(0, 5)).toEqual([]);
    });
  }

  it('through SQL: exact at powers of ten, errors and specials as PostgreSQL', async () => {
    const db = await Database.create();
    const r = await db.query("SELECT ln(3::float8)::text, log(1000::float8)::text, log10(1e-5::float8)::text, ln(1::float8)::text, ln('Infinity'::float8)::text, ln('NaN'::float8)::text, ln(5e-324::float8)::text");
    expect(r.rows[0]).toEqual(['1.0986122886681098', '3', '-5', '0', 'Infinity', 'NaN', '-744.4400719213812']);
    await expect(db.query('SELECT ln(0::float8)')).rejects.toMatchObject({ code: '2201E' });
    await expect(db.query('SELECT log10(-1::float8)')).rejects.toMatchObject({ code: '2201E' });
  });
});
