import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Numeric } from '../../src/common/numeric.js';
import { ours, pgBatch, pgOne, rng, startPg } from './pg-helper.js';

let pg: PGlite;
beforeAll(async () => {
  pg = await startPg();
});
afterAll(async () => {
  await pg.close();
});

const rand = rng(42);
function randNumericString(): string {
  const r = rand();
  if (r < 0.03) return '0';
  const intLen = Math.floor(rand() * (rand() < 0.5 ? 4 : 25));
  const fracLen = Math.floor(rand() * (rand() < 0.5 ? 4 : 25));
  let s = '';
  for (let i = 0; i < intLen; i++) s += String(Math.floor(rand() * 10));
  if (s === '') s = '0';
  if (fracLen > 0) {
    s += '.';
    for (let i = 0; i < fracLen; i++) s += String(Math.floor(rand() * 10));
  }
  if (rand() < 0.3) {
    // tiny or huge magnitudes
    s = (rand() < 0.5 ? '0.' + '0'.repeat(Math.floor(rand() * 12)) : '') + s.replace('.', '');
  }
  return rand() < 0.4 ? '-' + s : s;
}

const operands: [string, string][] = [];
for (let i = 0; i < 600; i++) operands.push([randNumericString(), randNumericString()]);
const hand: [string, string][] = [
  ['1', '3'],
  ['10', '3'],
  ['2', '3'],
  ['1', '7'],
  ['100', '7'],
  ['1.0', '3'],
  ['0.001', '3'],
  ['99999', '0.0001'],
  ['1', '10000'],
  ['12345678901234567890', '0.000003'],
  ['-7.5', '2.25'],
  ['0', '5'],
  ['0.00', '-5.1'],
  ['1e20', '7'],
  ['9999', '9999'],
  ['10000', '9999'],
  ['1', '1.0001'],
];
operands.push(...hand);

function check(op: string, f: (a: Numeric, b: Numeric) => Numeric, filter: (a: Numeric, b: Numeric) => boolean = () => true) {
  it(`${op} matches PostgreSQL`, async () => {
    const args = operands.filter(([a, b]) => filter(Numeric.parse(a), Numeric.parse(b)));
    const expected = await pgBatch(pg, `$1::numeric ${op} $2::numeric`, args);
    const got = args.map(([a, b]) => f(Numeric.parse(a), Numeric.parse(b)).toString());
    const bad = args.map((a, i) => [a, expected[i], got[i]]).filter((x) => x[1] !== x[2]);
    expect(bad.slice(0, 10)).toEqual([]);
  });
}

describe('numeric arithmetic', () => {
  check('+', (a, b) => a.add(b));
  check('-', (a, b) => a.sub(b));
  check('*', (a, b) => a.mul(b));
  check('/', (a, b) => a.div(b), (_a, b) => !b.isZero());
  check('%', (a, b) => a.mod(b), (_a, b) => !b.isZero());

  it('parse/print round trip', async () => {
    const inputs = [
      ...operands.map((o) => o[0]),
      ' 1.5 ', '1e5', '.5', '-.5', '1.', '+3', '1.50e1', '1.5e-3', '1E+2', '00012.3400', '0.000', '-0.00',
      'NaN', 'nan', 'inf', '-inf', '+inf', 'Infinity', '-Infinity', 'INFINITY', '1_000.5', '0x1F', '-0o17', '0b101',
      '1e-20', '123e-2', '1e1000',
    ];
    const expected = await pgBatch(pg, '$1::numeric', inputs.map((s) => [s]));
    expect(inputs.map((s) => Numeric.parse(s).toString())).toEqual(expected);
  });

  it('invalid input errors', async () => {
    for (const s of ['', ' ', 'abc', '1.2.3', '-nan', '1e', 'e5', '1_', '_1', '.', '1 2', '0x', '--1', '1e1.5']) {
      const e = await pgOne(pg, 'select $1::numeric::text', [s]);
      const o = ours(() => Numeric.parse(s).toString());
      expect([s, o]).toEqual([s, e]);
    }
  });

  it('specials in arithmetic', async () => {
    const sp = ['NaN', 'Infinity', '-Infinity', '0', '2', '-3.5'];
    const pairs: [string, string][] = [];
    for (const a of sp) for (const b of sp) pairs.push([a, b]);
    for (const [op, f] of [
      ['+', (a: Numeric, b: Numeric) => a.add(b)],
      ['-', (a: Numeric, b: Numeric) => a.sub(b)],
      ['*', (a: Numeric, b: Numeric) => a.mul(b)],
      ['/', (a: Numeric, b: Numeric) => a.div(b)],
      ['%', (a: Numeric, b: Numeric) => a.mod(b)],
      ['^', (a: Numeric, b: Numeric) => a.power(b)],
    ] as const) {
      for (const [a, b] of pairs) {
        const e = await pgOne(pg, `select ($1::numeric ${op} $2::numeric)::text`, [a, b]);
        const o = ours(() => f(Numeric.parse(a), Numeric.parse(b)).toString());
        expect([a, op, b, o.value ?? o.code]).toEqual([a, op, b, e.value ?? e.code]);
      }
    }
  });

  it('round/trunc/typmod', async () => {
    const args: [string, string][] = [];
    for (let i = 0; i < 200; i++) args.push([operands[i]![0], String(Math.floor(rand() * 12) - 4)]);
    args.push(['2.5', '0'], ['-2.5', '0'], ['0.5', '0'], ['1.5', '5'], ['1234.5678', '-2'], ['-0.0049', '2']);
    const er = await pgBatch(pg, 'round($1::numeric, $2::int)', args);
    expect(args.map(([a, s]) => Numeric.parse(a).round(Number(s)).toString())).toEqual(er);
    const et = await pgBatch(pg, 'trunc($1::numeric, $2::int)', args);
    expect(args.map(([a, s]) => Numeric.parse(a).trunc(Number(s)).toString())).toEqual(et);
    const typmods: [string, number, number][] = [
      ['1.5', 3, 5], ['123.456', 4, 2], ['inf', 4, 2], ['nan', 4, 2], ['99.995', 4, 2], ['99.994', 4, 2],
      ['0.00123', 3, 5], ['0.0123', 3, 5], ['12345', 3, -2], ['123456', 3, -2], ['0', 1, 0], ['-9.5', 1, 0], ['0.4', 1, 1], ['1', 2, 2],
    ];
    for (const [v, p, s] of typmods) {
      const e = await pgOne(pg, `select $1::numeric(${p},${s})::text`, [v]);
      const o = ours(() => Numeric.parse(v).applyTypmod(p, s).toString());
      expect(o).toEqual(e);
      if (e.code) {
        const r = await pg.query(`select $1::numeric(${p},${s})`, [v]).catch((x: { detail?: string }) => x);
        let detail: string | undefined;
        try {
          Numeric.parse(v).applyTypmod(p, s);
        } catch (x) {
          detail = (x as { detail?: string }).detail;
        }
        expect(detail).toBe((r as { detail?: string }).detail);
      }
    }
  });

  it('float conversions', async () => {
    const fl = [0.1, 1 / 3, 1e20, 1.5e-7, 123456789012345678, -2.5, 0, 1e-300, 6.02214076e23, 2 ** 53 + 1, 0.3];
    for (let i = 0; i < 100; i++) fl.push((rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20));
    const e = await pgBatch(pg, '$1::float8::numeric', fl.map((f) => [String(f)]));
    expect(fl.map((f) => Numeric.fromFloat(f).toString())).toEqual(e);
    const fl4 = fl.filter((f) => f === 0 || (Math.abs(f) < 3e38 && Math.abs(f) > 1e-37));
    const e4 = await pgBatch(pg, '$1::float4::numeric', fl4.map((f) => [String(f)]));
    expect(fl4.map((f) => Numeric.fromFloat4(Math.fround(f)).toString())).toEqual(e4);
    const back = await pgBatch(pg, '$1::numeric::float8', operands.map((o) => [o[0]]));
    const fmt = (x: number) => String(x);
    expect(operands.map((o) => fmt(Numeric.parse(o[0]).toNumber()))).toEqual(back.map((b) => fmt(Number(b))));
  });

  it('to integer rounding and errors', async () => {
    const vals = ['2.5', '-2.5', '3.4999', '-0.5', '9223372036854775807.4', 'NaN', 'inf'];
    for (const v of vals) {
      const e = await pgOne(pg, 'select $1::numeric::int8::text', [v]);
      const o = ours(() => Numeric.parse(v).toBigInt().toString());
      expect(o.value ?? o.code).toEqual(e.value ?? e.code);
    }
  });

  it('transcendental functions', async () => {
    const pos = ['2', '0.5', '10', '1', '0.9', '1.1', '1.0001', '123456.789', '0.000123', '1e-10', '1e20', '3.14159', '0.99999999', '7'];
    for (let i = 0; i < 30; i++) pos.push(Numeric.parse(randNumericString()).abs().add(Numeric.parse('0.001')).toString());
    const cases: [string, (a: Numeric) => Numeric][] = [
      ['sqrt($1::numeric)', (a) => a.sqrt()],
      ['ln($1::numeric)', (a) => a.ln()],
      ['log($1::numeric)', (a) => a.log10()],
      ['log(2::numeric, $1::numeric)', (a) => a.log(Numeric.fromInt(2))],
    ];
    for (const [sql, f] of cases) {
      const e = await pgBatch(pg, sql, pos.map((p) => [p]));
      expect(pos.map((p) => [sql, p, f(Numeric.parse(p)).toString()])).toEqual(pos.map((p, i) => [sql, p, e[i]]));
    }
    const ex = ['0', '1', '-1', '2.5', '10', '-10', '0.001', '100', '-100', '1.23456789', '50.5', '-0.5'];
    const ee = await pgBatch(pg, 'exp($1::numeric)', ex.map((p) => [p]));
    expect(ex.map((p) => Numeric.parse(p).exp().toString())).toEqual(ee);
    const pw: [string, string][] = [
      ['2', '3'], ['2', '0.5'], ['2', '-2'], ['2', '2.0'], ['1.5', '10'], ['10', '-3'], ['-2', '3'], ['0', '0'], ['0', '3'],
      ['3', '100'], ['1.0001', '10000'], ['7', '0.3333'], ['0.5', '-1'], ['123.456', '1'], ['2', '1000'], ['-1.5', '-3'],
      ['9.99', '2.5'], ['0.01', '0.5'], ['1.1', '1.1'],
    ];
    const ep = await pgBatch(pg, 'power($1::numeric, $2::numeric)', pw);
    expect(pw.map(([a, b]) => [a, b, Numeric.parse(a).power(Numeric.parse(b)).toString()])).toEqual(pw.map(([a, b], i) => [a, b, ep[i]]));
  });

  it('transcendental functions over random inputs', async () => {
    const xs: string[] = [];
    for (let i = 0; i < 60; i++) xs.push(Numeric.parse(randNumericString()).abs().add(Numeric.parse('0.0001')).toString());
    for (const [sql, f] of [
      ['sqrt($1::numeric)', (a: Numeric) => a.sqrt()],
      ['ln($1::numeric)', (a: Numeric) => a.ln()],
      ['log($1::numeric)', (a: Numeric) => a.log10()],
    ] as const) {
      const e = await pgBatch(pg, sql, xs.map((p) => [p]));
      const bad = xs.map((p, i) => [sql, p, e[i], f(Numeric.parse(p)).toString()]).filter((r) => r[2] !== r[3]);
      expect(bad.slice(0, 5)).toEqual([]);
    }
    const ex: string[] = [];
    for (let i = 0; i < 40; i++) ex.push(((rand() - 0.5) * 400).toFixed(Math.floor(rand() * 6)));
    const ee = await pgBatch(pg, 'exp($1::numeric)', ex.map((p) => [p]));
    expect(ex.map((p, i) => [p, ee[i]])).toEqual(ex.map((p) => [p, Numeric.parse(p).exp().toString()]));
    const pw: [string, string][] = [];
    for (let i = 0; i < 60; i++) {
      const b = (rand() * 50).toFixed(Math.floor(rand() * 4));
      const x = rand() < 0.5 ? String(Math.floor((rand() - 0.5) * 40)) : ((rand() - 0.5) * 20).toFixed(Math.floor(rand() * 4) + 1);
      if (Number(b) === 0) continue;
      pw.push([b, x]);
    }
    const ep = await pgBatch(pg, 'power($1::numeric, $2::numeric)', pw);
    const bad = pw.map(([a, b], i) => [a, b, ep[i], Numeric.parse(a).power(Numeric.parse(b)).toString()]).filter((r) => r[2] !== r[3]);
    expect(bad.slice(0, 5)).toEqual([]);
  });

  it('transcendental edge cases (large magnitudes, overflow, underflow)', async () => {
    const cases: [string, string[], (a: Numeric[]) => Numeric][] = [];
    for (const v of ['-5000', '5000', '-7000', '12345', '5999.99', '6000', '-6000', '-5999.5']) cases.push(['exp($1::numeric)', [v], (a) => a[0]!.exp()]);
    for (const [b, x] of [['2', '10000'], ['10', '-400'], ['1.000001', '1000000'], ['0.5', '2000'], ['10', '3000.5'], ['10', '-3000.5'], ['1.5', '4000.25'], ['123.456', '78.9'], ['2', '-1074.5']] as const) {
      cases.push(['power($1::numeric, $2::numeric)', [b, x], (a) => a[0]!.power(a[1]!)]);
    }
    for (const v of ['1e100000', '1e-16000', '0.999999999999999999999']) cases.push(['ln($1::numeric)', [v], (a) => a[0]!.ln()]);
    const bad: string[] = [];
    for (const [sql, args, f] of cases) {
      const e = await pgOne(pg, `select (${sql})::text`, args);
      const o = ours(() => f(args.map((x) => Numeric.parse(x))).toString());
      if ((e.code ?? e.value) !== (o.code ?? o.value) || e.message !== o.message) bad.push(`${sql} ${args.join(',')}`);
    }
    expect(bad).toEqual([]);
  });

  it('cmp', () => {
    const vals = ['-Infinity', '-5', '0', '0.0', '1', '1.00', 'Infinity', 'NaN'].map((s) => Numeric.parse(s));
    expect(vals[2]!.cmp(vals[3]!)).toBe(0);
    expect(vals[4]!.cmp(vals[5]!)).toBe(0);
    expect(vals[7]!.cmp(Numeric.NaN)).toBe(0);
    expect(vals[7]!.cmp(vals[6]!)).toBe(1);
    expect(vals[0]!.cmp(vals[1]!)).toBe(-1);
  });
  it('toNumber is the correctly rounded double of the decimal (exact division path and text path)', () => {
    let s = 7;
    const next = (): number => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    const texts = ['0.1', '0.3', '123456789012345.678', '9007199254740991', '9007199254740993', '-9007199254740992', '0.0000000000000000000001', '1.7976931348623157e308'];
    for (let i = 0; i < 20000; i++) {
      let d = String(Math.floor(next() * 10 ** (1 + Math.floor(next() * 18))));
      const scale = Math.floor(next() * 26);
      if (d.length <= scale) d = '0'.repeat(scale - d.length + 1) + d;
      texts.push((next() < 0.5 ? '-' : '') + (scale > 0 ? `${d.slice(0, d.length - scale)}.${d.slice(d.length - scale)}` : d));
    }
    const bad = texts.filter((t) => !Object.is(Numeric.parse(t).toNumber(), Number(t)) && !(Number(t) === 0 && Numeric.parse(t).toNumber() === 0));
    expect(bad).toEqual([]);
  });
});
