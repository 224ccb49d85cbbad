/**
 * float8 ln, log, log10, exp and power are correctly rounded (glibc's log, exp and pow, which PostgreSQL
 * calls, nearly always are; V8's Math functions miss the nearest double for a few percent of inputs).
 * The reference is Quire's own numeric function at 40 decimal places of the exact decimal value of each
 * double, rounded once.
 */
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import {
  doubleDoubleOnly,
  expRounded,
  lnRounded,
  log10Rounded,
  powRounded,
} from '../../src/functions/scalar/support/correctly-rounded.js';

/** The exact decimal expansion of a finite positive double. */
function exactDecimal(x: number): string {
  if (x < 0) return `-${exactDecimal(-x)}`;
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

  const SCALE = '1.' + '0'.repeat(40);
  it('exp over [-30, 670] and near 0', async () => {
    const xs = [...Array.from({ length: 1000 }, (_, i) => i * 0.7 - 30), ...Array.from({ length: 600 }, (_, i) => (i - 300) / 256)];
    const db = await Database.create();
    const r = await db.query(`SELECT exp(v * ${SCALE})::text FROM (VALUES ${xs.map((x) => `(${exactDecimal(x)}::numeric)`).join(', ')}) t(v)`);
    const wrong = (r.rows as [string][]).flatMap(([e], i) => (expRounded(xs[i]!) === Number(e) ? [] : [`exp(${xs[i]}) = ${expRounded(xs[i]!)}, nearest ${Number(e)}`]));
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('power with fractional and negative exponents, negative bases with integer exponents', async () => {
    const pairs: [number, number][] = [];
    for (let i = 1; i <= 1500; i++) pairs.push([i / 64, ((i * 7) % 23) / 4 - 2.5]);
    for (let i = 1; i <= 300; i++) pairs.push([-(i % 17) - 1, (i % 9) - 4]);
    const db = await Database.create();
    const values = pairs.map(([a, b]) => `(${exactDecimal(a)}::numeric, ${exactDecimal(b)}::numeric)`).join(', ');
    const r = await db.query(`SELECT power(a * ${SCALE}, b * ${SCALE})::text FROM (VALUES ${values}) t(a, b)`);
    const wrong = (r.rows as [string][]).flatMap(([p], i) => {
      const [a, b] = pairs[i]!;
      return powRounded(a, b) === Number(p) ? [] : [`${a}^${b} = ${powRounded(a, b)}, nearest ${Number(p)}`];
    });
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('through SQL: exact at powers of ten, errors and specials as PostgreSQL', async () => {
    const db = await Database.create();
    const r = await db.query("SELECT ln(3::float8)::text, log(1000::float8)::text, log10(1e-5::float8)::text, ln(1::float8)::text, ln('Infinity'::float8)::text, ln('NaN'::float8)::text, ln(5e-324::float8)::text");
    expect(r.rows[0]).toEqual(['1.0986122886681098', '3', '-5', '0', 'Infinity', 'NaN', '-744.4400719213812']);
    const p = await db.query("SELECT power(2::float8, 10)::text, power(10::float8, -2)::text, power(-2::float8, 3)::text, exp(1::float8)::text, exp(0::float8)::text, power(2::float8, 0.5)::text");
    expect(p.rows[0]).toEqual(['1024', '0.01', '-8', '2.718281828459045', '1', '1.4142135623730951']);
    await expect(db.query('SELECT exp(710::float8)')).rejects.toMatchObject({ code: '22003' });
    await expect(db.query('SELECT power(-2::float8, 0.5)')).rejects.toMatchObject({ code: '2201F' });
    await expect(db.query('SELECT ln(0::float8)')).rejects.toMatchObject({ code: '2201E' });
    await expect(db.query('SELECT log10(-1::float8)')).rejects.toMatchObject({ code: '2201E' });
  });
});

describe('the fast paths agree with double-double arithmetic', () => {
  // A deterministic generator: the same inputs every run.
  let seed = 20261206;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296 + (Math.imul(seed, 69069) >>> 0) / 2 ** 64;
  };
  const N = 60_000;
  it('ln and log10 over wide, near-1, integer and subnormal inputs', () => {
    const gens = [() => Math.exp((rnd() - 0.5) * 1400), () => 1 + (rnd() - 0.5) * 1e-3, () => Math.floor(rnd() * 1e7) + 1, () => rnd() * 1e-310];
    const wrong: string[] = [];
    for (const g of gens) {
      for (let i = 0; i < N; i++) {
        const x = g();
        if (lnRounded(x) !== doubleDoubleOnly.ln(x)) wrong.push(`ln(${x})`);
        if (log10Rounded(x) !== doubleDoubleOnly.log10(x)) wrong.push(`log10(${x})`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
  it('exp over its whole normal range and near 0', () => {
    const gens = [() => (rnd() - 0.5) * 1400 + 4, () => (rnd() - 0.5) * 1e-2, () => (rnd() - 0.5) * 40];
    const wrong: string[] = [];
    for (const g of gens) {
      for (let i = 0; i < N; i++) {
        const x = g();
        if (x > -708 && x < 709.7 && expRounded(x) !== doubleDoubleOnly.exp(x)) wrong.push(`exp(${x})`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
  it('power with small and large exponents, bases near 1, negative bases', () => {
    const gens: (() => [number, number])[] = [
      () => [rnd() * 1e6 + 1, 0.3],
      () => [Math.exp((rnd() - 0.5) * 100), (rnd() - 0.5) * 10],
      () => [1 + (rnd() - 0.5) * 1e-4, (rnd() - 0.5) * 1e6],
      () => [-(rnd() * 100) - 0.5, Math.floor((rnd() - 0.5) * 100)],
    ];
    const wrong: string[] = [];
    for (const g of gens) {
      for (let i = 0; i < N; i++) {
        const [x, y] = g();
        const w = y * Math.log(Math.abs(x));
        if (y !== 0 && w > -707 && w < 709 && powRounded(x, y) !== doubleDoubleOnly.pow(x, y)) wrong.push(`power(${x}, ${y})`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
