/**
 * decimalDigitsToDouble against JavaScript's own conversion (correctly rounded): shortest round-trip
 * spellings of random doubles, random 16–18 digit decimals, spellings next to a midpoint between two
 * doubles, and leading zeros. It may decline (NaN), never answer differently. The same for
 * mantissaOverPow10, which gets the mantissa as a running double and its low 32 bits, up to 19 digits.
 */
import { describe, expect, it } from 'vitest';
import { decimalDigitsToDouble, mantissaOverPow10 } from '../../src/storage/decimal-digits-to-double.js';
import { rng } from '../common/pg-helper.js';

/** Converts `s` ([digits].[digits]) or returns undefined when it is not a case the function takes. */
function convert(s: string): number | undefined {
  const b = Buffer.from(s);
  const dot = s.indexOf('.');
  const scale = s.length - dot - 1;
  let m = 0;
  let digits = 0;
  for (const ch of s) {
    if (ch === '.') continue;
    m = m * 10 + (ch.charCodeAt(0) - 48);
    digits++;
  }
  if (m < 2 ** 53 || dot < 0 || scale < 1 || scale > 22) return undefined;
  return decimalDigitsToDouble(b, 0, b.length, digits, scale, m);
}

function check(cases: string[]): { taken: number; declined: number } {
  let taken = 0;
  let declined = 0;
  const wrong: string[] = [];
  for (const s of cases) {
    const v = convert(s);
    if (v === undefined) continue;
    taken++;
    if (Number.isNaN(v)) declined++;
    else if (v !== Number(s)) wrong.push(`${s}: ${v} instead of ${Number(s)}`);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  return { taken, declined };
}

describe('decimalDigitsToDouble', () => {
  const r = rng(18);
  it('matches Number() on shortest spellings of random doubles, declining few', () => {
    const cases: string[] = [];
    for (let i = 0; i < 200_000; i++) cases.push(String(r() * 10 ** Math.floor(r() * 5)));
    for (let k = 0; k < 10007; k++) cases.push(String(k / 10007));
    const { taken, declined } = check(cases.filter((s) => !s.includes('e')));
    expect(taken).toBeGreaterThan(50_000);
    expect(declined / taken).toBeLessThan(0.001);
  });

  it('matches Number() on random 16-18 digit decimals and leading zeros', () => {
    const cases: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const n = 16 + Math.floor(r() * 3);
      let d = String(1 + Math.floor(r() * 9));
      for (let j = 1; j < n; j++) d += String(Math.floor(r() * 10));
      const at = 1 + Math.floor(r() * (n - 1));
      cases.push(d.slice(0, at) + '.' + d.slice(at), '0.' + d, '0.000' + d.slice(0, 15));
    }
    expect(check(cases).taken).toBeGreaterThan(200_000);
  });

  it('matches Number() next to midpoints between doubles', () => {
    const cases: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const x = r() * 100;
      // x and its neighbour's midpoint, written with 17 and 18 significant digits.
      const next = x + x * 2 ** -52;
      const mid = (x + next) / 2;
      cases.push(x.toPrecision(17), x.toPrecision(18), mid.toPrecision(17), mid.toPrecision(18));
    }
    check(cases);
  });
});

/** `s` ([digits][.digits]) through mantissaOverPow10 the way the readers accumulate it. */
function convertOnePass(s: string): number {
  let m = 0;
  let low = 0;
  for (const ch of s) {
    if (ch === '.') continue;
    const d = ch.charCodeAt(0) - 48;
    m = m * 10 + d;
    low = (Math.imul(low, 10) + d) | 0;
  }
  const dot = s.indexOf('.');
  return mantissaOverPow10(m, low, dot < 0 ? 0 : s.length - dot - 1);
}

describe('mantissaOverPow10', () => {
  const r = rng(19);
  const digitString = (n: number): string => {
    let d = String(1 + Math.floor(r() * 9));
    for (let j = 1; j < n; j++) d += String(Math.floor(r() * 10));
    return d;
  };

  it('matches Number() on 16-19 digit decimals, integers beyond 2^53 and shortest spellings', () => {
    const cases: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const n = 16 + Math.floor(r() * 4);
      const d = digitString(n);
      const at = 1 + Math.floor(r() * (n - 1));
      cases.push(d, d.slice(0, at) + '.' + d.slice(at), '0.' + d, '0.000' + d, String(r() * 10 ** Math.floor(r() * 5)));
    }
    // Largest mantissas taken, and the powers of two where the spacing of doubles changes.
    cases.push('17999999999999999999', '1799999999999999999.9', '9007199254740993', '18014398509481985', '0.9007199254740993');
    let declined = 0;
    const wrong: string[] = [];
    for (const s of cases) {
      if (s.includes('e')) continue;
      const v = convertOnePass(s);
      if (Number.isNaN(v)) declined++;
      else if (v !== Number(s)) wrong.push(`${s}: ${v} instead of ${Number(s)}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(declined / cases.length).toBeLessThan(0.001);
  });

  it('matches Number() next to midpoints between doubles, and declines mantissas from 1.8e19 on', () => {
    const wrong: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const x = r() * 1000;
      const mid = (x + (x + x * 2 ** -52)) / 2;
      for (const s of [mid.toPrecision(17), mid.toPrecision(19), x.toPrecision(19)]) {
        const v = convertOnePass(s);
        if (!Number.isNaN(v) && v !== Number(s)) wrong.push(`${s}: ${v} instead of ${Number(s)}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(convertOnePass('18000000000000000000')).toBeNaN();
    expect(convertOnePass('1.8446744073709551616')).toBeNaN();
  });
});
