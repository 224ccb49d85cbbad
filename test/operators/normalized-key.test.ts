/**
 * Normalized sort keys (normalized-key.ts), the radix sort over them (key-radix-sort.ts), the sliced sort
 * that yields to the event loop (sortRunAsync), and the typed key table of DISTINCT, GROUP BY and joins (key-table.ts), checked
 * against the compiled comparator and compareValues / hashKey on every sortable type.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { compareValues, hashKey } from '../../src/common/compare.js';
import { Interval } from '../../src/common/interval.js';
import { Numeric } from '../../src/common/numeric.js';
import { T, type DataType, type Value } from '../../src/common/types.js';
import { ColumnBuilder, type Batch } from '../../src/common/column.js';
import type { ExecContext } from '../../src/execution/context.js';
import { KeyRadixSort } from '../../src/physical/key-radix-sort.js';
import { compareKeyBytes, encodeKeys, fitTextPrefix } from '../../src/physical/normalized-key.js';
import { identity, radixPermutation, sortPermutation, sortRunAsync } from '../../src/physical/operators/sort.js';
import { KeyTable } from '../../src/physical/key-table.js';
import { compileComparator, type SortKey } from '../../src/physical/sort-key.js';
import { makeCtx, rng } from './helpers.js';

const n = (s: string): Numeric => Numeric.parse(s);
const iv = (months: number, days: number, micros: number): Interval => new Interval(months, days, micros);

const POOLS: [DataType, Value[]][] = [
  [T.bool, [true, false]],
  [T.int2, [-32768, 32767, 0, -1, 1]],
  [T.int4, [-2147483648, 2147483647, 0, -1, 1, 65536, -65536]],
  [T.int8, [0, -1, 1, 4294967296, -4294967296, 9007199254740991, -9007199254740991, 9007199254740993n, -9007199254740993n, 9223372036854775807n, -9223372036854775808n]],
  [T.float4, [NaN, -0, 0, Infinity, -Infinity, 1.5, -2.25]],
  [T.float8, [NaN, -0, 0, Infinity, -Infinity, 1.5, -2.25, 5e-324, -5e-324, 1e308, -1e308]],
  [T.date, [0, -1, 1, 7000, Infinity, -Infinity]],
  [T.timestamp, [0, 1, -1, 1.6e15, -1.6e15, Infinity, -Infinity]],
  [T.timestamptz, [0, 1, -1, 1.6e15, Infinity, -Infinity]],
  [
    T.numeric,
    [n('1.10'), n('1.1'), n('0'), n('-0.001'), n('0.3'), n('0.30000000000000000001'), n('123456789012345678901234567890.1'), n('123456789012345678901234567890.2'), Numeric.NaN, Numeric.POSITIVE_INFINITY, Numeric.NEGATIVE_INFINITY],
  ],
  [
    T.interval,
    [iv(1, 0, 0), iv(0, 30, 0), iv(0, 1, 0), iv(0, 0, 86400000000), iv(-12, 0, 0), iv(0, 0, 1), iv(1200000000, 0, 0), iv(1199999999, 29, 0), Interval.POSITIVE_INFINITY, Interval.NEGATIVE_INFINITY],
  ],
  [T.text, ['', 'a', 'A', 'ab', 'abc', 'é', 'ß', '日本', '😀', '😀x', '\uE000', '\uFFFD', 'a😀', 'a\uFFFD', 'abcd', 'abcde', 'abcdf', 'a\u0000b', 'a\u0000c', 'a']],
  [T.varchar, ['x', 'xy', 'xyz', '']],
  [T.bpchar, ['ab', 'ab  ', '', ' ', 'a', 'abc']],
];

function column(t: DataType, vals: readonly Value[]): Batch {
  const b = new ColumnBuilder(t, vals.length);
  for (const v of vals) b.push(v);
  return { columns: [b.finish()], length: vals.length };
}

describe('normalized key images', () => {
  it('order every pair of values as compareValues does (prefixes only where marked inexact)', () => {
    for (const [t, pool] of POOLS) {
      const vals = [...pool, null];
      const b = column(t, vals);
      for (const desc of [false, true]) {
        for (const nullsFirst of [false, true]) {
          const key: SortKey = { col: 0, type: t, desc, nullsFirst };
          // A 3-byte text prefix makes most strings inexact; the default one most of them exact.
          for (const prefix of [3, 16]) {
            const nk = encodeKeys(b, [key], prefix)!;
            expect(nk).not.toBeNull();
            for (let i = 0; i < vals.length; i++) {
              for (let j = 0; j < vals.length; j++) {
                const a = vals[i]!;
                const c = vals[j]!;
                let want: number;
                if (a === null || c === null) want = a === c ? 0 : (a === null) === nullsFirst ? -1 : 1;
                else want = Math.sign(compareValues(a, c, t)) * (desc ? -1 : 1) || 0;
                const got = Math.sign(compareKeyBytes(nk.bytes, nk.width, i, j));
                const exact = nk.inexact === null || (nk.inexact[i] === 0 && nk.inexact[j] === 0);
                const what = `${t.name} ${String(a)} vs ${String(c)} desc=${desc} nullsFirst=${nullsFirst} prefix=${prefix}`;
                if (exact) expect(got, what).toBe(want);
                else if (want !== 0) expect(got === 0 || got === want, what).toBe(true);
                else expect(got, what).toBe(0);
              }
            }
          }
        }
      }
    }
  });

  it('fits the text prefix to the longest value, in UTF-8 bytes, up to the maximum', () => {
    const k = (t: DataType): SortKey[] => [{ col: 0, type: t, desc: false, nullsFirst: false }];
    expect(fitTextPrefix(column(T.text, ['ab', 'abcd', null]), k(T.text))).toBe(5);
    expect(fitTextPrefix(column(T.text, ['é', '日本']), k(T.text))).toBe(7);
    expect(fitTextPrefix(column(T.text, ['x'.repeat(100)]), k(T.text))).toBe(32);
    expect(fitTextPrefix(column(T.int4, [1, 2]), k(T.int4))).toBe(1);
  });

  it('has no image for text holding a lone surrogate; the sort still orders it by the comparator', () => {
    const vals = ['b', '\uD800', 'a', '\uDC00x', '\uE000', ...Array.from({ length: 400 }, (_, i) => `v${i % 37}`)];
    const b = column(T.text, vals);
    const keys: SortKey[] = [{ col: 0, type: T.text, desc: false, nullsFirst: false }];
    expect(encodeKeys(b, keys)).toBeNull();
    const cmp = compileComparator(keys);
    expect(Array.from(sortPermutation(b, keys, cmp))).toEqual(Array.from(cmp.sort(identity(vals.length), cmp.view(b))));
  });
});

/** A batch of random rows over several pools, with NULLs, for whole-sort comparisons. */
function randomBatch(types: readonly DataType[], rows: number, seed: number): Batch {
  const r = rng(seed);
  const cols = types.map((t) => {
    const pool = POOLS.find(([p]) => p === t)![1];
    const b = new ColumnBuilder(t, rows);
    for (let i = 0; i < rows; i++) b.push(r() < 0.1 ? null : pool[Math.floor(r() * pool.length)]!);
    return b.finish();
  });
  return { columns: cols, length: rows };
}

describe('radix sort on normalized keys', () => {
  it('gives the stable comparator order on random multi-key lists, inexact prefixes included', () => {
    const r = rng(17);
    const types = POOLS.map(([t]) => t);
    for (let round = 0; round < 60; round++) {
      const nk = 1 + Math.floor(r() * 3);
      const picked = Array.from({ length: nk }, () => types[Math.floor(r() * types.length)]!);
      const b = randomBatch(picked, 300 + Math.floor(r() * 3000), round);
      const keys: SortKey[] = picked.map((type, col) => ({ col, type, desc: r() < 0.5, nullsFirst: r() < 0.5 }));
      const cmp = compileComparator(keys);
      const want = Array.from(cmp.sort(identity(b.length), cmp.view(b)));
      for (const prefix of [2, 16]) {
        const enc = encodeKeys(b, keys, prefix)!;
        const got = new KeyRadixSort(enc, enc.inexact === null ? null : cmp.rows(cmp.view(b))).run();
        expect(Array.from(got), `${keys.map((k) => `${k.type.name}${k.desc ? ' desc' : ''}`).join(', ')} prefix ${prefix}`).toEqual(want);
      }
    }
  });

  it('splits large ranges on 4-byte words (word columns past 65,536 rows): same stable order, inexact ties included', () => {
    const r = rng(29);
    const heads = ['', 'k', 'key-', 'é', '日本', '😀', 'x'.repeat(21), 'a\u0000'];
    const rows = 90_000;
    const t = new ColumnBuilder(T.text, rows);
    const v = new ColumnBuilder(T.int4, rows);
    for (let i = 0; i < rows; i++) {
      t.push(r() < 0.07 ? null : heads[Math.floor(r() * heads.length)]! + String(Math.floor(r() * 3000)));
      v.push(r() < 0.05 ? null : Math.floor(r() * 40) - 20);
    }
    const b: Batch = { columns: [t.finish(), v.finish()], length: rows };
    const lists: SortKey[][] = [
      [{ col: 0, type: T.text, desc: false, nullsFirst: true }],
      [
        { col: 0, type: T.text, desc: true, nullsFirst: false },
        { col: 1, type: T.int4, desc: false, nullsFirst: true },
      ],
      [
        { col: 1, type: T.int4, desc: true, nullsFirst: true },
        { col: 0, type: T.text, desc: false, nullsFirst: false },
      ],
    ];
    for (const keys of lists) {
      const cmp = compileComparator(keys);
      const want = Array.from(cmp.sort(identity(b.length), cmp.view(b)));
      // 3 and 6: prefixes shorter than many values (inexact rows, key ends inside a word); 32: all exact.
      for (const prefix of [3, 6, 32]) {
        const enc = encodeKeys(b, keys, prefix)!;
        const got = new KeyRadixSort(enc, enc.inexact === null ? null : cmp.rows(cmp.view(b))).run();
        expect(Array.from(got), `${JSON.stringify(keys)} prefix ${prefix}`).toEqual(want);
      }
    }
  });

  it('runs in slices: step() with a small budget reaches the same order', () => {
    const keys: SortKey[] = [
      { col: 0, type: T.text, desc: true, nullsFirst: false },
      { col: 1, type: T.int4, desc: false, nullsFirst: true },
    ];
    const b = randomBatch([T.text, T.int4], 20000, 3);
    const cmp = compileComparator(keys);
    const enc = encodeKeys(b, keys, 4)!;
    const s = new KeyRadixSort(enc, cmp.rows(cmp.view(b)));
    let steps = 0;
    while (!s.step(1000)) steps++;
    expect(steps).toBeGreaterThan(10);
    expect(Array.from(s.order)).toEqual(Array.from(cmp.sort(identity(b.length), cmp.view(b))));
  });
});

/** A text column of `rows` values with ties and a shared long prefix, and an int column. */
function textRows(rows: number): Batch {
  const r = rng(5);
  const s = new ColumnBuilder(T.text, rows);
  const k = new ColumnBuilder(T.int4, rows);
  for (let i = 0; i < rows; i++) {
    s.push(r() < 0.05 ? null : `key-${Math.floor(r() * 50000)}`);
    k.push(Math.floor(r() * 1000));
  }
  return { columns: [s.finish(), k.finish()], length: rows };
}

describe('the sliced sort yields and stops at the deadline', () => {
  const keys: SortKey[] = [
    { col: 0, type: T.text, desc: false, nullsFirst: true },
    { col: 1, type: T.int4, desc: true, nullsFirst: false },
  ];

  it('lets the event loop turn while sorting, with the same result as the synchronous sort', async () => {
    // More rows than one slice partitions at once: the first passes are split across slices too.
    const b = textRows(600_000);
    const cmp = compileComparator(keys);
    const ctx: ExecContext = { ...makeCtx(), ticker: { last: performance.now(), count: 0 } };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const run = await sortRunAsync(b, keys, cmp, ctx);
    h.disable();
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    // Generous for a loaded machine; one slice is a few milliseconds on an idle one.
    expect(h.max / 1e6).toBeLessThan(400);
    expect(Array.from(run.order)).toEqual(Array.from(cmp.sort(identity(b.length), cmp.view(b))));
  });

  it('fails with 57014 soon after the deadline passes mid-sort', async () => {
    const b = textRows(1_000_000);
    const cmp = compileComparator(keys);
    const t0 = performance.now();
    const ctx: ExecContext = { ...makeCtx(), ticker: { last: t0, count: 0 }, deadline: t0 + 30 };
    await expect(sortRunAsync(b, keys, cmp, ctx)).rejects.toMatchObject({ code: '57014' });
    expect(performance.now() - t0).toBeLessThan(30 + 500);
  });
});

describe('the radix sort of one numeric key yields on large inputs', () => {
  it('gives radixPermutation\'s order over more rows than one piece, and stops at the deadline', async () => {
    const n = 2_500_000;
    const r = rng(21);
    const b = new ColumnBuilder(T.float8, n);
    for (let i = 0; i < n; i++) {
      const x = r();
      b.push(x < 0.05 ? null : x < 0.07 ? NaN : x < 0.09 ? -0 : Math.floor(r() * 1e6) - 5e5);
    }
    const col = b.finish();
    const batch: Batch = { columns: [col], length: n };
    const keys: SortKey[] = [{ col: 0, type: T.float8, desc: true, nullsFirst: false }];
    const cmp = compileComparator(keys);
    const ctx: ExecContext = { ...makeCtx(), ticker: { last: performance.now(), count: 0 } };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const run = await sortRunAsync(batch, keys, cmp, ctx);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    const want = radixPermutation(col.data as Float64Array, col.nulls, n, true, false);
    expect(Buffer.from(run.order.buffer).equals(Buffer.from(want.buffer))).toBe(true);
    // Spot-check the order itself: non-increasing keys, NaN first, NULLs last.
    const d = col.data as Float64Array;
    for (let i = 1; i < n; i += 997) {
      const a = run.order[i - 1]!;
      const c = run.order[i]!;
      if (col.nulls![c] === 1) continue;
      expect(col.nulls![a]).toBe(0);
      expect(compareValues(d[a]!, d[c]!, T.float8)).toBeGreaterThanOrEqual(0);
    }
    const t0 = performance.now();
    const late: ExecContext = { ...makeCtx(), ticker: { last: t0, count: 0 }, deadline: t0 + 5 };
    await expect(sortRunAsync(batch, keys, cmp, late)).rejects.toMatchObject({ code: '57014' });
  });
});

describe('typed key table', () => {
  it('treats values equal under PostgreSQL equality as one key, and different tuples as different', () => {
    const types = [T.text, T.text, T.float8, T.numeric, T.bpchar, T.int8, T.interval, T.bool];
    const rows: Value[][] = [
      ['a', 'bc', 0, n('1.0'), 'x', 5, iv(1, 0, 0), true],
      ['ab', 'c', 0, n('1.0'), 'x', 5, iv(1, 0, 0), true],
      ['a', 'bc', -0, n('1.00'), 'x  ', 5, iv(0, 30, 0), true],
      ['a', 'bc', NaN, n('1'), 'x', 5, iv(1, 0, 0), true],
      ['a', 'bc', NaN, n('1'), 'x', 5, iv(1, 0, 0), true],
      [null, 'bc', 0, n('1'), 'x', 5, iv(1, 0, 0), true],
      [null, 'bc', 0, n('1'), 'x', 5, iv(1, 0, 0), true],
      ['', 'bc', 0, n('1'), 'x', 5, iv(1, 0, 0), true],
      ['a', 'bc', 0, n('1'), 'x', 9007199254740993n, iv(1, 0, 0), true],
      ['a', 'bc', 0, n('1'), 'x', 9007199254740993n, iv(1, 0, 0), true],
      ['a', 'bc', 0, n('1'), 'x', 5, iv(1, 0, 0), false],
      ['a', 'bc', 0, n('1'), 'x', 5, iv(1, 0, 0), null],
    ];
    const builders = types.map((t) => new ColumnBuilder(t));
    for (const r of rows) r.forEach((v, c) => builders[c]!.push(v));
    const b: Batch = { columns: builders.map((x) => x.finish()), length: rows.length };
    const set = new KeyTable(types);
    const sel = new Uint32Array(rows.length);
    const ids = Array.from(set.insert(b.columns, rows.length, sel).subarray(0, rows.length));
    const w = set.freshCount;
    // The reference: one canonical string per row from hashKey, NULL spelled apart.
    const seen = new Map<string, number>();
    rows.forEach((r, i) => {
      const k = JSON.stringify(r.map((v, c) => (v === null ? ['null'] : [String(typeof hashKey(v, types[c]!)), String(hashKey(v, types[c]!))])));
      if (!seen.has(k)) seen.set(k, i);
    });
    expect(Array.from(sel.subarray(0, w))).toEqual([...seen.values()]);
    expect(w).toBe(8);
    // Entry ids in first-seen order, equal keys sharing one.
    const first = [...seen.values()];
    rows.forEach((_, i) => expect(first[ids[i]!]).toBe(seen.get(JSON.stringify(rows[i]!.map((v, c) => (v === null ? ['null'] : [String(typeof hashKey(v, types[c]!)), String(hashKey(v, types[c]!))]))))));
    // A second batch with the same rows adds nothing; lookups find the same entries.
    set.insert(b.columns, rows.length, sel);
    expect(set.freshCount).toBe(0);
    expect(set.size).toBe(8);
    expect(Array.from(set.find(b.columns, rows.length).subarray(0, rows.length))).toEqual(ids);
    // A NULL is a key of its own, flagged so joins can skip it.
    set.find(b.columns, rows.length);
    expect(rows.map((_, i) => set.hasNull(i))).toEqual(rows.map((r) => r.includes(null)));
  });

  it('gives a typed column and the same values as a plain array the same keys', () => {
    const vals: Value[] = [1.5, null, -0, 0, NaN, NaN, null, 2];
    const typed = new ColumnBuilder(T.float8);
    for (const v of vals) typed.push(v);
    const ints: Value[] = [7, null, 7, -1, null, 0, 0, 2147483647];
    const typedInts = new ColumnBuilder(T.int4);
    for (const v of ints) typedInts.push(v);
    const set = new KeyTable([T.float8, T.int4]);
    const a = Array.from(set.insert([typed.finish(), typedInts.finish()], vals.length));
    const boxed = Array.from(
      set.insert(
        [
          { type: T.float8, data: vals.slice(), nulls: null },
          { type: T.int4, data: ints.slice(), nulls: null },
        ],
        vals.length,
      ).subarray(0, vals.length),
    );
    expect(boxed).toEqual(a.slice(0, vals.length));
    // Eight different pairs, and the boxed batch found every one of them again.
    expect(set.size).toBe(8);
  });

  it('keeps every distinct key through table growth', () => {
    const types = [T.text, T.int4];
    const set = new KeyTable(types);
    const r = rng(9);
    const ref = new Set<string>();
    let added = 0;
    for (let batch = 0; batch < 40; batch++) {
      const s = new ColumnBuilder(T.text);
      const g = new ColumnBuilder(T.int4);
      for (let i = 0; i < 2000; i++) {
        const a = `s${Math.floor(r() * 300)}`;
        const c = Math.floor(r() * 200);
        s.push(a);
        g.push(c);
        ref.add(`${a}|${c}`);
      }
      set.insert([s.finish(), g.finish()], 2000, new Uint32Array(2000));
      added += set.freshCount;
    }
    expect(added).toBe(ref.size);
    expect(set.size).toBe(ref.size);
    // A probe value missing from the text dictionary finds nothing.
    const s = new ColumnBuilder(T.text);
    const g = new ColumnBuilder(T.int4);
    s.push('s1');
    g.push(1);
    s.push('nope');
    g.push(1);
    const found = set.find([s.finish(), g.finish()], 2);
    expect(found[0]! >= 0).toBe(ref.has('s1|1'));
    expect(found[1]).toBe(-1);
  });
});
