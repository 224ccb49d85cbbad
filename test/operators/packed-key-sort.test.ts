/**
 * packedSort against the compiled comparator's stable sort on seeded random key sets: one- and two-word
 * codes (digits inside lo, inside hi and across both), a key wider than 31 bits, steps (gcd), NULLs
 * first/last, DESC, negative values, -0 and the cases that must decline (NaN, fractions, huge ranges).
 * The decoded key columns must equal the input columns gathered through the order.
 */
import { describe, expect, it } from 'vitest';
import { T, type DataType } from '../../src/common/types.js';
import { makeColumn, takeColumn, type Batch, type Column } from '../../src/common/column.js';
import { packedSort, packedSortSteps } from '../../src/physical/packed-key-sort.js';
import { compileComparator, type SortKey } from '../../src/physical/sort-key.js';
import { identity, sortRunAsync } from '../../src/physical/operators/sort.js';
import { makeExecContext } from '../../src/execution/context.js';
import { rng } from '../window/window-gen.js';

interface Spec {
  type: DataType;
  /** Value generator for one row (null = NULL). */
  gen: () => number | null;
}

function column(spec: Spec, n: number): Column {
  const vals = Array.from({ length: n }, spec.gen);
  const data = spec.type.name === 'int4' ? new Int32Array(n) : spec.type.name === 'bool' ? new Uint8Array(n) : new Float64Array(n);
  let nulls: Uint8Array | null = null;
  vals.forEach((v, i) => {
    if (v === null) {
      nulls ??= new Uint8Array(n);
      nulls[i] = 1;
      data[i] = 7; // storage under NULL is arbitrary
    } else data[i] = v;
  });
  return makeColumn(spec.type, data, nulls);
}

function check(b: Batch, keys: SortKey[]): 'packed' | 'declined' {
  const cmp = compileComparator(keys);
  const want = cmp.sort(identity(b.length), cmp.view(b));
  const got = packedSort(b, keys);
  if (got === null) return 'declined';
  expect(Array.from(got.order)).toEqual(Array.from(want));
  for (const [col, c] of got.sorted) {
    const g = takeColumn(b.columns[col]!, want, b.length);
    const nullsOf = (x: Column): number[] => Array.from({ length: b.length }, (_, i) => (x.nulls !== null && x.nulls[i] === 1 ? 1 : 0));
    expect(nullsOf(c)).toEqual(nullsOf(g));
    const vals = (x: Column): (number | null)[] => Array.from({ length: b.length }, (_, i) => (x.nulls !== null && x.nulls[i] === 1 ? null : Number(x.data[i])));
    expect(vals(c)).toEqual(vals(g));
    // -0 must survive: a decoded column never replaces one that holds -0.
    for (let i = 0; i < b.length; i++) if (g.nulls?.[i] !== 1) expect(Object.is(c.data[i], g.data[i])).toBe(true);
  }
  return 'packed';
}

describe('packedSort', () => {
  const r = rng(2024);
  const n = 1500;
  const nul = (p: number, f: () => number): (() => number | null) => () => (r.chance(p) ? null : f());
  const specs: Record<string, Spec> = {
    small: { type: T.int4, gen: nul(0.1, () => r.int(9) - 4) },
    mid: { type: T.int4, gen: () => r.int(1 << 20) - (1 << 19) },
    full: { type: T.int4, gen: nul(0.05, () => r.int(2 ** 32) - 2 ** 31) },
    bool: { type: T.bool, gen: nul(0.2, () => r.int(2)) },
    seconds: { type: T.timestamp, gen: nul(0.05, () => 1.7e15 + r.int(1e8) * 1e6) },
    micros: { type: T.timestamp, gen: () => 1.7e15 + r.int(2 ** 30) * 4096 + r.int(4096) },
    int8: { type: T.int8, gen: nul(0.1, () => (r.int(2 ** 21) - 2 ** 20) * 3) },
    floatInt: { type: T.float8, gen: nul(0.1, () => (r.chance(0.1) ? -0 : r.int(100) - 50)) },
    floatFrac: { type: T.float8, gen: () => r.int(100) / 4 },
    nan: { type: T.float8, gen: () => (r.chance(0.05) ? NaN : r.int(10)) },
    huge: { type: T.int8, gen: () => (r.chance(0.5) ? -(2 ** 52) : 2 ** 52) },
  };
  const names = Object.keys(specs);
  const batch: Batch = { columns: names.map((k) => column(specs[k]!, n)), length: n };

  it('agrees with the comparator on random key lists (and packs most of them)', () => {
    let packed = 0;
    for (let t = 0; t < 150; t++) {
      const m = 1 + r.int(3);
      const keys: SortKey[] = [];
      for (let q = 0; q < m; q++) {
        const col = r.int(names.length);
        keys.push({ col, type: specs[names[col]!]!.type, desc: r.chance(0.5), nullsFirst: r.chance(0.5) });
      }
      if (check(batch, keys) === 'packed') packed++;
    }
    expect(packed).toBeGreaterThan(40);
  });

  it('uses both code words, digits across them, and a key wider than 31 bits', () => {
    const k = (name: string, desc = false, nullsFirst = false): SortKey => ({ col: names.indexOf(name), type: specs[name]!.type, desc, nullsFirst });
    // 21 + 27 bits: two words, the middle digit straddles bit 32.
    expect(check(batch, [k('int8'), k('seconds', true)])).toBe('packed');
    // 42-bit timestamp key alone, then under a partition key.
    expect(check(batch, [k('micros')])).toBe('packed');
    expect(check(batch, [k('small', false, true), k('micros', true)])).toBe('packed');
    expect(check(batch, [k('bool', true, true), k('full'), k('small')])).toBe('packed');
    expect(check(batch, [k('floatInt', true, false), k('mid')])).toBe('packed');
  });

  it('declines NaN, fractional floats, ranges beyond 2^52 and codes beyond 53 bits', () => {
    const k = (name: string): SortKey => ({ col: names.indexOf(name), type: specs[name]!.type, desc: false, nullsFirst: false });
    expect(check(batch, [k('nan')])).toBe('declined');
    expect(check(batch, [k('floatFrac')])).toBe('declined');
    expect(check(batch, [k('huge')])).toBe('declined');
    expect(check(batch, [k('full'), k('micros')])).toBe('declined');
  });
});

describe('packedSort in pieces', () => {
  // Over 2^18 rows a piece: 600k rows make every loop (scan, encode, histogram, scatter) cross two piece
  // boundaries, so state carried between pieces (min/max/step, counters) is exercised.
  const r = rng(77);
  const n = 600_000;
  const g = new Int32Array(n);
  const v = new Float64Array(n);
  const ts = new Float64Array(n);
  const gNulls = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    g[i] = r.int(1000);
    if (r.chance(0.01)) gNulls[i] = 1;
    v[i] = r.int(1 << 20) - (1 << 19);
    ts[i] = 1.7e15 + r.int(2 ** 30) * 1e6;
  }
  const batch: Batch = { columns: [makeColumn(T.int4, g, gNulls), makeColumn(T.float8, v, null), makeColumn(T.timestamp, ts, null)], length: n };
  const same = (a: Uint32Array, b: Uint32Array): number => {
    let bad = 0;
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) bad++;
    return bad;
  };

  it('one- and two-word codes agree with the comparator and yield between pieces', () => {
    for (const keys of [
      [{ col: 0, type: T.int4, desc: false, nullsFirst: true }, { col: 1, type: T.float8, desc: true, nullsFirst: false }],
      [{ col: 0, type: T.int4, desc: true, nullsFirst: false }, { col: 2, type: T.timestamp, desc: false, nullsFirst: false }],
    ] satisfies SortKey[][]) {
      const cmp = compileComparator(keys);
      const want = cmp.sort(identity(n), cmp.view(batch));
      const steps = packedSortSteps(batch, keys, true);
      let pieces = 0;
      let res = steps.next();
      while (res.done !== true) {
        pieces++;
        res = steps.next();
      }
      expect(res.value).not.toBeNull();
      expect(same(res.value!.order, want)).toBe(0);
      expect(pieces).toBeGreaterThan(6);
      const dec = res.value!.sorted.get(1) ?? res.value!.sorted.get(2)!;
      const src = batch.columns[keys[1]!.col]!.data as Float64Array;
      let bad = 0;
      for (let i = 0; i < n; i++) if (dec.data[i] !== src[want[i]!]!) bad++;
      expect(bad).toBe(0);
    }
  });

  it('declines when a value in a later piece cannot pack', () => {
    const f = Float64Array.from(v);
    f[n - 3] = 0.5;
    const b: Batch = { columns: [makeColumn(T.float8, f, null)], length: n };
    expect(packedSort(b, [{ col: 0, type: T.float8, desc: false, nullsFirst: false }])).toBeNull();
  });

  it('sortRunAsync takes the stepped numeric paths (packed, several keys) with the comparator\'s order', async () => {
    const ev = { timezone: 'UTC', statementTime: 0, transactionTime: 0, random: () => 0.5, setSeed: () => {}, setting: () => undefined };
    const ctx = makeExecContext({ eval: ev, params: [], analyze: false });
    const f = Float64Array.from(v, (x, i) => (i % 7 === 0 ? x + 0.25 : x)); // fractions: the packed sort declines
    const b: Batch = { columns: [makeColumn(T.int4, g, gNulls), makeColumn(T.float8, f, null)], length: n };
    const keys: SortKey[] = [{ col: 0, type: T.int4, desc: false, nullsFirst: false }, { col: 1, type: T.float8, desc: true, nullsFirst: false }];
    const cmp = compileComparator(keys);
    const want = cmp.sort(identity(n), cmp.view(b));
    expect(same((await sortRunAsync(b, keys, cmp, ctx)).order, want)).toBe(0);
  });

  it('sorts past the narrow-digit threshold (4M rows): order, stability and decoded keys', () => {
    // Above 2^22 rows: one scatter into 2^8 top-digit buckets sorted in cache, or (a bucket too large)
    // 8-bit LSD passes over the whole array; checked in O(n) against the keys.
    bigSort(77, (rr) => rr.int(1000));
    bigSort(78, (rr) => (rr.chance(0.3) ? 7 : rr.int(1000)));
  }, 120_000);
});

function bigSort(seed: number, partition: (rr: ReturnType<typeof rng>) => number): void {
  {
    const m = (1 << 22) + 4321;
    const rr = rng(seed);
    const gk = new Int32Array(m);
    const gn = new Uint8Array(m);
    const ts = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      gk[i] = partition(rr);
      gn[i] = rr.chance(0.01) ? 1 : 0;
      ts[i] = 1.58e15 + rr.int(94_000_000) * 1e6;
    }
    const b: Batch = { columns: [makeColumn(T.int4, gk, gn), makeColumn(T.timestamp, ts, null)], length: m };
    const keys: SortKey[] = [{ col: 0, type: T.int4, desc: false, nullsFirst: false }, { col: 1, type: T.timestamp, desc: true, nullsFirst: false }];
    const got = packedSort(b, keys)!;
    expect(got).not.toBeNull();
    const o = got.order;
    const seen = new Uint8Array(m);
    let bad = 0;
    // NULLS LAST: a NULL g sorts above every value.
    const gOf = (r: number): number => (gn[r] === 1 ? 1e9 : gk[r]!);
    for (let i = 0; i < m; i++) {
      const r = o[i]!;
      if (seen[r] === 1) bad++;
      seen[r] = 1;
      if (i === 0) continue;
      const p = o[i - 1]!;
      const dg = gOf(p) - gOf(r);
      if (dg > 0 || (dg === 0 && (ts[p]! < ts[r]! || (ts[p] === ts[r] && p > r)))) bad++;
    }
    expect(bad).toBe(0);
    const sg = got.sorted.get(0)!;
    const st = got.sorted.get(1)!;
    for (let i = 0; i < m; i++) {
      const r = o[i]!;
      if ((sg.nulls?.[i] ?? 0) !== gn[r] || (gn[r] === 0 && sg.data[i] !== gk[r]) || st.data[i] !== ts[r]) bad++;
    }
    expect(bad).toBe(0);
  }
}

describe('packedSort range and step scan', () => {
  // The scan settles an int key's step at 1 and then only tracks bounds; a float key's step is tested
  // with a multiply by its reciprocal. Extremes and step breakers are placed after the step settled,
  // in later pieces (2^18 rows each), and distances approach 2^52 where that test is least precise.
  const n = 300_000;
  const sortedAgrees = (cols: Column[], keys: SortKey[]): void => {
    const b: Batch = { columns: cols, length: n };
    const cmp = compileComparator(keys);
    const want = cmp.sort(identity(n), cmp.view(b));
    const got = packedSort(b, keys);
    expect(got).not.toBeNull();
    let bad = 0;
    for (let i = 0; i < n; i++) if (got!.order[i] !== want[i]) bad++;
    expect(bad).toBe(0);
    for (const [col, c] of got!.sorted) {
      const src = cols[col]!;
      let wrong = 0;
      for (let i = 0; i < n; i++) {
        const r = want[i]!;
        const isNull = src.nulls !== null && src.nulls[r] === 1;
        if (isNull !== (c.nulls !== null && c.nulls[i] === 1) || (!isNull && c.data[i] !== src.data[r])) wrong++;
      }
      expect(wrong).toBe(0);
    }
  };
  const r = rng(515);

  it('int keys: step settling to 1 mid-piece, bounds moving after it, with and without NULLs', () => {
    for (const withNulls of [false, true]) {
      const a = new Int32Array(n);
      const nulls = withNulls ? new Uint8Array(n) : null;
      // even values first (step 2), the first odd one at row 1000, new extremes only in the second piece
      for (let i = 0; i < n; i++) a[i] = 2 * r.int(500);
      a[1000] = 7;
      a[270_000] = -2_000_000;
      a[280_001] = 3_000_001;
      if (nulls !== null) for (let i = 0; i < n; i += 97) nulls[i] = 1;
      const p = new Int32Array(n);
      for (let i = 0; i < n; i++) p[i] = r.int(50);
      sortedAgrees(
        [makeColumn(T.int4, p, null), makeColumn(T.int4, a, nulls)],
        [
          { col: 0, type: T.int4, desc: true, nullsFirst: false },
          { col: 1, type: T.int4, desc: false, nullsFirst: true },
        ],
      );
    }
  });

  it('an int key whose step never settles (all multiples of 6) and one constant column', () => {
    const a = new Int32Array(n);
    const c = new Int32Array(n).fill(-5);
    for (let i = 0; i < n; i++) a[i] = 6 * (r.int(200_001) - 100_000);
    sortedAgrees(
      [makeColumn(T.int4, c, null), makeColumn(T.int4, a, null)],
      [
        { col: 0, type: T.int4, desc: false, nullsFirst: false },
        { col: 1, type: T.int4, desc: true, nullsFirst: false },
      ],
    );
  });

  it('float keys: steps 2, 3 and 10^6 over distances near 2^52, a late value that breaks the step', () => {
    for (const [step, span] of [
      [2, 2 ** 51 - 1],
      [3, 2 ** 50],
      [1e6, 2 ** 32],
    ] as const) {
      for (const breakStep of [false, true]) {
        const a = new Float64Array(n);
        const base = -(2 ** 51) + 12345 * step;
        for (let i = 0; i < n; i++) a[i] = base + step * r.int(span);
        a[5] = base;
        a[6] = base + step * (span - 1);
        if (breakStep) a[290_000] = base + step * 17 + 1;
        sortedAgrees([makeColumn(T.float8, a, null)], [{ col: 0, type: T.float8, desc: false, nullsFirst: false }]);
      }
    }
  });
});

describe('packedSort of two-word codes, top digit first', () => {
  // Between 2^16 and 2^22 rows a two-word code is scattered on its top bits, then each bucket is sorted
  // on the rest; a constant top digit or a bucket too large for the cache falls back to LSD over all
  // bits. Each shape is checked against the comparator's stable sort, decoded keys included.
  const r = rng(909);
  const run = (n: number, cols: Column[], keys: SortKey[]): void => {
    const b: Batch = { columns: cols, length: n };
    const cmp = compileComparator(keys);
    const want = cmp.sort(identity(n), cmp.view(b));
    const got = packedSort(b, keys);
    expect(got).not.toBeNull();
    let bad = 0;
    for (let i = 0; i < n; i++) if (got!.order[i] !== want[i]) bad++;
    expect(bad).toBe(0);
    for (const [col, c] of got!.sorted) {
      const src = cols[col]!;
      let wrong = 0;
      for (let i = 0; i < n; i++) {
        const w = want[i]!;
        const isNull = src.nulls !== null && src.nulls[w] === 1;
        if (isNull !== (c.nulls !== null && c.nulls[i] === 1) || (!isNull && c.data[i] !== src.data[w])) wrong++;
      }
      expect(wrong).toBe(0);
    }
  };
  const ints = (n: number, f: (i: number) => number, nullP = 0): Column => {
    const a = new Int32Array(n);
    const nulls = nullP > 0 ? new Uint8Array(n) : null;
    for (let i = 0; i < n; i++) {
      a[i] = f(i);
      if (nulls !== null && r.chance(nullP)) nulls[i] = 1;
    }
    return makeColumn(T.int4, a, nulls);
  };
  const stamps = (n: number, f: (i: number) => number, nullP = 0): Column => {
    const a = new Float64Array(n);
    const nulls = nullP > 0 ? new Uint8Array(n) : null;
    for (let i = 0; i < n; i++) {
      a[i] = f(i);
      if (nulls !== null && r.chance(nullP)) nulls[i] = 1;
    }
    return makeColumn(T.timestamp, a, nulls);
  };
  const key = (col: number, type: DataType, desc: boolean, nullsFirst: boolean): SortKey => ({ col, type, desc, nullsFirst });

  it('partition key and timestamp with NULLs and ties, every direction, at sizes around the threshold', () => {
    for (const n of [65_535, 65_536, 100_003, 300_000]) {
      const g = ints(n, () => r.int(300), 0.02);
      // 9 + 26 bits: a two-word code; equal timestamps within a partition keep input order
      const ts = stamps(n, () => 1.6e15 + r.int(50_000_000) * 1e6, 0.03);
      for (const [d1, d2, nf] of [
        [false, false, false],
        [true, false, true],
        [false, true, true],
        [true, true, false],
      ] as const) {
        run(n, [g, ts], [key(0, T.int4, d1, nf), key(1, T.timestamp, d2, !nf)]);
      }
    }
  });

  it('top digit within lo, across the words and within hi', () => {
    const n = 120_000;
    // 33 bits: the top digit straddles bit 32; 50 bits: it lies in hi; three keys, the last one small
    run(n, [ints(n, () => r.int(2)), stamps(n, () => r.int(2 ** 32))], [key(0, T.int4, false, false), key(1, T.timestamp, false, false)]);
    run(n, [stamps(n, () => (r.int(2 ** 25) * 2 ** 25 + r.int(2 ** 25)) * 3)], [key(0, T.timestamp, true, false)]);
    run(n, [ints(n, () => r.int(64)), stamps(n, () => r.int(2 ** 30)), ints(n, () => r.int(8))], [key(0, T.int4, false, false), key(1, T.timestamp, true, false), key(2, T.int4, false, false)]);
  });

  it('falls back when the top digit is constant or one bucket holds most rows', () => {
    const n = 200_000;
    // every row in one partition: constant top bits
    run(n, [ints(n, () => 5), stamps(n, () => r.int(2 ** 40))], [key(0, T.int4, false, false), key(1, T.timestamp, false, false)]);
    // 90% of the rows in one partition: a bucket past the in-cache limit
    run(n, [ints(n, () => (r.chance(0.9) ? 0 : r.int(1000))), stamps(n, () => r.int(2 ** 30) * 1e6)], [key(0, T.int4, false, false), key(1, T.timestamp, false, false)]);
  });
});
