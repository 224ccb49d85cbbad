/**
 * decimalDigitsToDouble against JavaScript's own conversion (correctly rounded): shortest round-trip
 * spellings of random doubles, random 16–18 digit decimals, spellings next to a midpoint between two
 * doubles, and leading zeros. It may decline (NaN), never answer differently.
 */
import { describe, expect, it } from 'vitest';
import { decimalDigitsToDouble } from '../../src/storage/decimal-digits-to-double.js';
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
