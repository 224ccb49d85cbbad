import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, f8, i2, i4, i8, num, numericReady, ours, Pg, rng, type Arg } from './harness.js';

let pg: Pg;
beforeAll(async () => {
  pg = await Pg.start();
});
afterAll(async () => {
  await pg.close();
});

const FLOATS = [0, -0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 2, 10, 100, 1e-10, 1e300, -1e300, 709.8, -745.2, NaN, Infinity, -Infinity];
type Case = { name: string; args: Arg[] };

group('float8 math', () => {
  it('one-argument functions', async () => {
    const fns = ['abs', 'ceil', 'ceiling', 'floor', 'round', 'trunc', 'sign', 'sqrt', 'cbrt', 'exp', 'ln', 'log', 'log10', 'degrees', 'radians', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan'];
    const cases: Case[] = fns.flatMap((name) => FLOATS.map((v) => ({ name, args: [f8(v)] })));
    // Transcendental functions are within one ulp of glibc/musl, not bit-identical.
    expect(await compareAll(pg, cases, { ulps: 1 })).toEqual([]);
  });
  it('two-argument functions', async () => {
    const xs = [0, 1, -1, 2, -2, 0.5, 3, NaN, Infinity];
    const cases: Case[] = [];
    for (const a of xs) for (const b of xs) cases.push({ name: 'power', args: [f8(a), f8(b)] }, { name: 'pow', args: [f8(a), f8(b)] }, { name: 'atan2', args: [f8(a), f8(b)] });
    expect(await compareAll(pg, cases, { ulps: 1 })).toEqual([]);
  });
  it('random inputs', async () => {
    const r = rng(11);
    const cases: Case[] = [];
    for (let k = 0; k < 150; k++) {
      const x = (r() - 0.3) * 10 ** Math.floor(r() * 8 - 3);
      for (const name of ['sqrt', 'ln', 'exp', 'round', 'trunc', 'floor', 'ceil', 'cbrt', 'sin', 'atan']) cases.push({ name, args: [f8(x)] });
    }
    expect(await compareAll(pg, cases, { ulps: 1 })).toEqual([]);
  });
  it('pi, width_bucket', async () => {
    const cases: Case[] = [{ name: 'pi', args: [] }];
    for (const op of [-1, 0, 0.5, 2.5, 5, 9.99, 10, 11, NaN]) {
      for (const [lo, hi] of [[0, 10], [10, 0], [0, 0], [-5, 5], [0, Infinity]] as const) {
        for (const n of [1, 3, 0, 2147483647]) cases.push({ name: 'width_bucket', args: [f8(op), f8(lo), f8(hi), i4(n)] });
      }
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});

group('integer math', () => {
  it('abs, mod, gcd, lcm, factorial', async () => {
    const cases: Case[] = [];
    for (const v of [0, 5, -5, -32768, 32767]) cases.push({ name: 'abs', args: [i2(v)] });
    for (const v of [0, 5, -5, -2147483648, 2147483647]) cases.push({ name: 'abs', args: [i4(v)] });
    for (const v of [0, -5, -9223372036854775808n, 9223372036854775807n, -9007199254740993n]) cases.push({ name: 'abs', args: [i8(v)] });
    const xs = [0, 1, -1, 12, -18, 7, 2147483647, -2147483648, 1000000];
    for (const a of xs) for (const b of xs) {
      cases.push({ name: 'mod', args: [i4(a), i4(b)] }, { name: 'gcd', args: [i4(a), i4(b)] }, { name: 'lcm', args: [i4(a), i4(b)] });
      cases.push({ name: 'gcd', args: [i8(a), i8(b)] }, { name: 'lcm', args: [i8(a), i8(b)] });
    }
    cases.push({ name: 'gcd', args: [i8(-9223372036854775808n), i8(0)] }, { name: 'lcm', args: [i8(9223372036854775807n), i8(2)] });
    for (const a of [0, 1, 5, 20, 25, -1, 40000]) cases.push({ name: 'factorial', args: [i8(a)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('random, setseed', async () => {
    const a = ours('random', []);
    expect('ok' in a && Number(a.ok) >= 0 && Number(a.ok) < 1).toBe(true);
    expect(await compareAll(pg, [{ name: 'setseed', args: [f8(2)] }, { name: 'setseed', args: [f8(-1.5)] }])).toEqual([]);
    expect(ours('setseed', [f8(0.5)])).toEqual({ ok: null, type: 'text' });
  });
});

group.skipIf(!numericReady)('numeric math (skipped until src/common/numeric.ts is implemented)', () => {
  const N = ['0', '1', '-1', '0.5', '-0.5', '1.5', '2.5', '-2.5', '123.456', '-123.456', '1e20', '0.0001', '2', '10', 'NaN', 'Infinity', '-Infinity'];
  it('one-argument functions', async () => {
    const cases: Case[] = ['abs', 'ceil', 'floor', 'round', 'trunc', 'sign', 'sqrt'].flatMap((name) => N.map((v) => ({ name, args: [num(v)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('round/trunc with scale, mod, div, gcd, power', async () => {
    const cases: Case[] = [];
    for (const v of N) for (const s of [-2, 0, 1, 3]) cases.push({ name: 'round', args: [num(v), i4(s)] }, { name: 'trunc', args: [num(v), i4(s)] });
    for (const a of ['7', '-7', '7.5', '0', '12', '1e20']) for (const b of ['2', '-2', '0.3', '0', '18']) {
      cases.push({ name: 'mod', args: [num(a), num(b)] }, { name: 'div', args: [num(a), num(b)] }, { name: 'gcd', args: [num(a), num(b)] }, { name: 'lcm', args: [num(a), num(b)] });
    }
    for (const a of ['2', '0.5', '1.1', '-3']) for (const b of ['0', '2', '10', '-2']) cases.push({ name: 'power', args: [num(a), num(b)] });
    for (const op of ['0', '5', '10', '2.5']) cases.push({ name: 'width_bucket', args: [num(op), num('0'), num('10'), i4(4)] });
    for (const v of ['2', '0.5', '1e10', '12345.6789', '0']) cases.push({ name: 'sqrt', args: [num(v)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('ln, exp, log, log10', async () => {
    const cases: Case[] = [];
    for (const v of ['1', '2', '10', '0.5', '0.95', '1.05', '1.0000001', '0.0001', '123456.789', '1e100', '1e-50', '9999', '10001', '0', '-1', 'NaN', 'Infinity', '-Infinity', '2.718281828459045']) {
      for (const name of ['ln', 'log', 'log10']) cases.push({ name, args: [num(v)] });
    }
    for (const v of ['0', '1', '-1', '0.5', '2.5', '10', '-10', '100', '-100', '1000', '-5000', '5000', '-7000', '12345', '0.001', 'NaN', 'Infinity', '-Infinity', '50000']) cases.push({ name: 'exp', args: [num(v)] });
    for (const b of ['2', '10', '0.5', '1', '1.5', '0']) for (const x of ['8', '1024', '0.125', '1', '3', '100000']) cases.push({ name: 'log', args: [num(b), num(x)] });
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});
