import { afterAll, beforeAll, describe as group, expect, it } from 'vitest';
import { compareAll, f4, f8, i2, i4, i8, num, numericReady, Pg, rng, type Arg } from './harness.js';

let pg: Pg;
beforeAll(async () => {
  pg = await Pg.start();
});
afterAll(async () => {
  await pg.close();
});

const INT2 = [0, 1, -1, 7, -7, 2, 32767, -32768, 181, 182, 1000, -1000];
const INT4 = [0, 1, -1, 3, -3, 2147483647, -2147483648, 46341, 65536, -65536, 123456789, 1000000];
const INT8: (number | bigint)[] = [
  0, 1, -1, 5, -5, 2 ** 31, 2 ** 32, 3037000499, 3037000500, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER,
  9223372036854775807n, -9223372036854775808n, 4611686018427387904n, 9007199254740993n,
];
const FLOAT = [0, -0, 1, -1, 0.5, 1.5, 2.5, 1e308, -1e308, 1e-308, 5e-324, 3.14159, NaN, Infinity, -Infinity, 1e15, 123456.789];
const OPS = ['+', '-', '*', '/', '%'];

function pairs<A>(xs: A[]): [A, A][] {
  const out: [A, A][] = [];
  for (const a of xs) for (const b of xs) out.push([a, b]);
  return out;
}

group('integer operators', () => {
  it('int2 × int2', async () => {
    const cases = OPS.flatMap((name) => pairs(INT2).map(([a, b]) => ({ name, args: [i2(a), i2(b)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('int4 × int4', async () => {
    const cases = OPS.flatMap((name) => pairs(INT4).map(([a, b]) => ({ name, args: [i4(a), i4(b)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('int8 × int8', async () => {
    const cases = OPS.flatMap((name) => pairs(INT8).map(([a, b]) => ({ name, args: [i8(a), i8(b)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('mixed widths', async () => {
    const cases: { name: string; args: Arg[] }[] = [];
    for (const name of ['+', '-', '*', '/']) {
      for (const a of INT2) for (const b of INT4.slice(0, 8)) cases.push({ name, args: [i2(a), i4(b)] }, { name, args: [i4(b), i2(a)] });
      for (const a of INT4.slice(0, 8)) for (const b of INT8) cases.push({ name, args: [i4(a), i8(b)] }, { name, args: [i8(b), i4(a)] });
      for (const a of INT2.slice(0, 6)) for (const b of INT8) cases.push({ name, args: [i2(a), i8(b)] }, { name, args: [i8(b), i2(a)] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('random int4 and int8', async () => {
    const r = rng(42);
    const cases: { name: string; args: Arg[] }[] = [];
    const rint4 = () => Math.floor((r() - 0.5) * 2 ** (1 + Math.floor(r() * 32)));
    const rint8 = () => BigInt.asIntN(64, BigInt(Math.floor(r() * 2 ** 32)) * BigInt(Math.floor(r() * 2 ** (1 + Math.floor(r() * 32)))));
    for (let k = 0; k < 300; k++) {
      const name = OPS[k % OPS.length]!;
      cases.push({ name, args: [i4(Math.max(-2147483648, Math.min(2147483647, rint4()))), i4(Math.max(-2147483648, Math.min(2147483647, rint4())) || 1)] });
      cases.push({ name, args: [i8(rint8()), i8(rint8() || 3n)] });
    }
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('unary minus', async () => {
    const cases = [
      ...INT2.map((v) => ({ name: 'neg', args: [i2(v)] })),
      ...INT4.map((v) => ({ name: 'neg', args: [i4(v)] })),
      ...INT8.map((v) => ({ name: 'neg', args: [i8(v)] })),
      ...FLOAT.map((v) => ({ name: 'neg', args: [f8(v)] })),
      ...FLOAT.map((v) => ({ name: 'neg', args: [f4(v)] })),
    ];
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});

group('float operators', () => {
  it('float8 × float8', async () => {
    const cases = ['+', '-', '*', '/'].flatMap((name) => pairs(FLOAT).map(([a, b]) => ({ name, args: [f8(a), f8(b)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('float4 and mixed float4/float8', async () => {
    const F4 = [0, 1, -1, 0.1, 3.4e38, -3.4e38, 1e-38, 1e-45, NaN, Infinity, 2.5, 100.25];
    const cases = ['+', '-', '*', '/'].flatMap((name) =>
      pairs(F4).flatMap(([a, b]) => [
        { name, args: [f4(a), f4(b)] },
        { name, args: [f4(a), f8(b)] },
        { name, args: [f8(a), f4(b)] },
      ]),
    );
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('power edge cases', async () => {
    const P = [0, -0, 1, -1, 2, -2, 0.5, -0.5, 10, 1000, -1000, NaN, Infinity, -Infinity];
    const cases = pairs(P).map(([a, b]) => ({ name: '^', args: [f8(a), f8(b)] }));
    // V8's Math.pow may differ from C's pow in the last bit.
    expect(await compareAll(pg, cases, { ulps: 1 })).toEqual([]);
  });
  it('random float8', async () => {
    const r = rng(7);
    const rf = () => (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
    const cases = Array.from({ length: 300 }, (_, k) => ({ name: ['+', '-', '*', '/'][k % 4]!, args: [f8(rf()), f8(rf())] }));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});

group.skipIf(!numericReady)('numeric operators (skipped until src/common/numeric.ts is implemented)', () => {
  const N = ['0', '1', '-1', '1.5', '-2.25', '10', '3', '0.001', '123456789.123456789', '1e20', 'NaN', 'Infinity', '-Infinity'];
  it('numeric × numeric', async () => {
    const cases = ['+', '-', '*', '/', '%'].flatMap((name) => pairs(N).map(([a, b]) => ({ name, args: [num(a), num(b)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
  it('numeric ^ integer exponents', async () => {
    const B = ['2', '-2', '0', '1.5', '0.5', '7.1', '0.9', '10', '-3.25', '123.456'];
    const E = ['0', '1', '2', '3', '-3', '12', '30', '-1', '2.0', '0.5', '-0.5', '1.5', '2.25', '0.001', '-2.5', '100.5'];
    const cases = B.flatMap((b) => E.map((e) => ({ name: '^', args: [num(b), num(e)] })));
    expect(await compareAll(pg, cases)).toEqual([]);
  });
});
