import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Value } from '../../src/common/types.js';
import { ColumnBuilder } from '../../src/common/column.js';
import { emitRuns, Sort, radixPermutation, sortPermutation } from '../../src/physical/operators/sort.js';
import { batchRows, concatBatches } from '../../src/common/column.js';
import { compareText, compileComparator } from '../../src/physical/sort-key.js';
import { PG_TIE_ORDER_MAX_ROWS } from '../../src/physical/pg-tie-order.js';
import { collect, F, gen, keyText, loadTable, newPg, orderBySql, pgRows, randomKeys, source, STD_FIELDS, stdRows, T, type KeySpec } from './helpers.js';

let pg: PGlite;
const rowsBySize = new Map<number, Value[][]>();

beforeAll(async () => {
  pg = await newPg();
  for (const [n, seed] of [
    [300, 1],
    [3000, 2],
  ] as const) {
    const rows = stdRows(gen(seed), n, n > 1000 ? 500 : 20);
    rowsBySize.set(n, rows);
    await loadTable(pg, `t${n}`, STD_FIELDS, rows);
  }
});
afterAll(async () => {
  await pg.close();
});

function sortKeys(keys: KeySpec[]) {
  return keys.map((k) => ({ col: k.col, type: STD_FIELDS[k.col]!.type, desc: k.desc, nullsFirst: k.nullsFirst }));
}

async function checkSort(n: number, keys: KeySpec[], seed: number): Promise<void> {
  const rows = rowsBySize.get(n)!;
  const g = gen(seed);
  const op = new Sort(source(STD_FIELDS, rows, g.r, seed % 2 === 0 ? 64 : 5000), sortKeys(keys));
  const out = await collect(op);
  const ids = (await pgRows(pg, `SELECT id FROM t${n} ORDER BY ${orderBySql(keys, STD_FIELDS)}`)).map((r) => Number(r[0]));
  expect(out.length).toBe(rows.length);
  const ours = out.map((r) => keyText(r, keys, STD_FIELDS));
  const theirs = ids.map((id) => keyText(rows[id]!, keys, STD_FIELDS));
  expect(ours).toEqual(theirs);
  // A small sort puts ties in PostgreSQL's order (the input is in id order, as the table PGlite scans).
  if (n <= PG_TIE_ORDER_MAX_ROWS) {
    expect(out.map((r) => Number(r[0]))).toEqual(ids);
    return;
  }
  // Larger ones are stable: equal keys keep input (= id) order.
  for (let i = 1; i < out.length; i++) {
    if (ours[i] === ours[i - 1]) expect(out[i]![0] as number).toBeGreaterThan(out[i - 1]![0] as number);
  }
}

describe('Sort vs PostgreSQL', () => {
  it('every single key, both directions and null placements', async () => {
    for (const n of [300, 3000]) {
      for (let col = 1; col <= 6; col++) {
        for (const desc of [false, true]) {
          for (const nullsFirst of [false, true]) await checkSort(n, [{ col, desc, nullsFirst }], col * 7 + (desc ? 1 : 0));
        }
      }
    }
  });

  it('random multi-key orders', async () => {
    const g = gen(99);
    for (let t = 0; t < 40; t++) await checkSort(t % 3 === 0 ? 3000 : 300, randomKeys(g), t);
  });

  it('runs again with a fresh result', async () => {
    const rows = rowsBySize.get(300)!;
    const op = new Sort(source(STD_FIELDS, rows, gen(5).r), sortKeys([{ col: 1, desc: false, nullsFirst: false }]));
    const a = await collect(op);
    const b = await collect(op);
    expect(b).toEqual(a);
  });

  it('merging several sorted runs equals one sort (the external-sort path)', () => {
    const rows = rowsBySize.get(3000)!;
    const g = gen(77);
    const keys = sortKeys([
      { col: 3, desc: false, nullsFirst: true },
      { col: 2, desc: true, nullsFirst: false },
    ]);
    const types = STD_FIELDS.map((f) => f.type);
    const parts = source(STD_FIELDS, rows, g.r, 900).batches.filter((b) => b.length > 0);
    const runs = parts.map((b) => ({ batch: b, order: sortPermutation(b, keys) }));
    const merged = [...emitRuns(runs, compileComparator(keys))].flatMap((b) => batchRows(b));
    const all = concatBatches(types, parts);
    const single = [...emitRuns([{ batch: all, order: sortPermutation(all, keys) }], compileComparator(keys))].flatMap((b) => batchRows(b));
    expect(merged).toEqual(single);
  });

  it('empty input and describe', async () => {
    const op = new Sort(source(STD_FIELDS, [], gen(1).r), sortKeys([{ col: 3, desc: true, nullsFirst: false }]));
    expect(await collect(op)).toEqual([]);
    expect(op.describe()).toBe('keys: [c DESC NULLS LAST]');
  });
});

describe('comparators', () => {
  it('text order is code-point order (C collation)', () => {
    const xs = ['a', '\uFFFF', '\u{1F600}', '\uE000', '\uD7FF', 'a\u{10000}', 'a\uFFFF', '', 'é', '\u{10FFFF}'];
    const cp = (s: string) => Array.from(s).map((c) => c.codePointAt(0)!);
    const ref = (x: string, y: string) => {
      const a = cp(x);
      const b = cp(y);
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
      return Math.sign(a.length - b.length);
    };
    for (const x of xs) for (const y of xs) expect(Math.sign(compareText(x, y))).toBe(ref(x, y));
    const b = new ColumnBuilder(T.text);
    for (const x of xs) b.push(x);
    const batch = { columns: [b.finish()], length: xs.length };
    const perm = sortPermutation(batch, [{ col: 0, type: T.text, desc: false, nullsFirst: false }]);
    expect(Array.from(perm).map((i) => xs[i])).toEqual([...xs].sort(ref));
  });

  it('text prefix images: shared prefixes, surrogates, DESC, NULLs, against a reference order', () => {
    const g = gen(8);
    const parts = ['', 'a', 'b', '\uFFFF', '\u{1F600}', '\uE000', 'é', 'aa', 'ab', '\u{10000}a'];
    for (const prefix of ['', 'user_', '\u{1F600}']) {
      for (const desc of [false, true]) {
        for (const nullsFirst of [false, true]) {
          const vals: (string | null)[] = [];
          for (let i = 0; i < 500; i++) vals.push(g.r() < 0.05 ? null : prefix + g.pick(parts) + g.pick(parts) + g.pick(parts));
          const b = new ColumnBuilder(T.text);
          for (const x of vals) b.push(x);
          const batch = { columns: [b.finish()], length: vals.length };
          const perm = sortPermutation(batch, [{ col: 0, type: T.text, desc, nullsFirst }]);
          const ref = vals
            .map((v, i) => i)
            .sort((i, j) => {
              const x = vals[i]!;
              const y = vals[j]!;
              if (x === null || y === null) return x === y ? i - j : (x === null) === nullsFirst ? -1 : 1;
              return (desc ? -compareText(x, y) : compareText(x, y)) || i - j;
            });
          expect(Array.from(perm)).toEqual(ref);
        }
      }
    }
  });

  it('radix sort agrees with the comparator on floats with NaN, infinities, -0 and nulls, and on ints', () => {
    const g = gen(3);
    // 2,000 rows take 8-bit digits, 70,000 rows 16-bit ones.
    for (const n of [2000, 70_000]) {
      for (const type of [T.float8, T.int4]) {
        for (const desc of [false, true]) {
          for (const nullsFirst of [false, true]) {
            const b = new ColumnBuilder(type);
            for (let i = 0; i < n; i++) {
              if (type === T.float8) b.push(g.float8(0.1));
              else b.push(g.r() < 0.05 ? null : Math.floor((g.r() - 0.5) * 2 ** 32) | 0);
            }
            const col = b.finish();
            const batch = { columns: [col], length: n };
            const key = [{ col: 0, type, desc, nullsFirst }];
            const radix = radixPermutation(col.data as Float64Array | Int32Array, col.nulls, n, desc, nullsFirst);
            const cmp = compileComparator(key);
            const rc = cmp.rows(cmp.view(batch));
            const ref = Array.from({ length: n }, (_, i) => i).sort((x, y) => rc(x, y) || x - y);
            expect(Array.from(radix)).toEqual(ref);
          }
        }
      }
    }
  });

  it('int8 beyond the safe range compares exactly (bigint storage)', async () => {
    const vals: Value[] = [9007199254740993n, 9007199254740992, -9007199254740993n, 5, null, 9007199254740994n];
    const fields = [F('d', T.int8)];
    const op = new Sort(source(fields, vals.map((v) => [v]), gen(1).r), [{ col: 0, type: T.int8, desc: false, nullsFirst: false }]);
    expect((await collect(op)).map((r) => r[0])).toEqual([-9007199254740993n, 5, 9007199254740992, 9007199254740993n, 9007199254740994n, null]);
  });
});
