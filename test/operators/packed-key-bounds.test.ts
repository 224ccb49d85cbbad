/**
 * Known bounds of int4 keys (zone maps of stored batches) let the packed sort plan a key without
 * scanning it. Bounds may be loose (an open batch's range covers rows it no longer holds), a column may
 * carry a NULL mask without NULLs, and a key may be all NULL: the order and the decoded key columns must
 * still be exactly the comparator's, in every direction and NULL placement.
 */
import { describe, expect, it } from 'vitest';
import { T } from '../../src/common/types.js';
import { makeColumn, takeColumn, type Batch } from '../../src/common/column.js';
import { packedSort } from '../../src/physical/packed-key-sort.js';
import { identity } from '../../src/physical/operators/sort.js';
import { compileComparator, type SortKey } from '../../src/physical/sort-key.js';
import { rng } from './helpers.js';

function intColumn(n: number, r: () => number, lo: number, span: number, nullRate: number, mask: boolean) {
  const d = new Int32Array(n);
  const nulls = mask ? new Uint8Array(n) : null;
  for (let i = 0; i < n; i++) {
    if (nulls !== null && r() < nullRate) {
      nulls[i] = 1;
      d[i] = 12345; // storage under NULL is arbitrary
    } else d[i] = lo + Math.floor(r() * span);
  }
  return makeColumn(T.int4, d, nulls);
}

function check(b: Batch, keys: SortKey[], bounds: Map<number, { min: number; max: number }>): void {
  const cmp = compileComparator(keys);
  const want = cmp.sort(identity(b.length), cmp.view(b));
  const got = packedSort(b, keys, true, false, bounds);
  expect(got).not.toBeNull();
  expect(Array.from(got!.order)).toEqual(Array.from(want));
  for (const [col, c] of got!.sorted) {
    const g = takeColumn(b.columns[col]!, want, b.length);
    for (let i = 0; i < b.length; i++) {
      const isNull = g.nulls !== null && g.nulls[i] === 1;
      expect(c.nulls !== null && c.nulls[i] === 1).toBe(isNull);
      if (!isNull) expect(c.data[i]).toBe(g.data[i]);
    }
  }
}

describe('packedSort with known int4 bounds', () => {
  const r = rng(77);
  const n = 3000;
  const g = intColumn(n, r, -50, 100, 0.1, true);
  const id = intColumn(n, r, 1_000_000, 200_000, 0, false);
  const masked = intColumn(n, r, 0, 7, 0, true); // a NULL mask, but no NULLs
  const allNull = makeColumn(T.int4, new Int32Array(n), new Uint8Array(n).fill(1));
  const b: Batch = { columns: [g, id, masked, allNull], length: n };

  it('exact and loose bounds, every direction and NULL placement', () => {
    const exact = new Map([
      [0, { min: -50, max: 49 }],
      [1, { min: 1_000_000, max: 1_199_999 }],
      [2, { min: 0, max: 6 }],
    ]);
    const loose = new Map([
      [0, { min: -70, max: 300 }],
      [1, { min: 900_000, max: 1_500_000 }],
      [2, { min: -3, max: 100 }],
    ]);
    for (const bounds of [exact, loose]) {
      for (const desc of [false, true]) {
        for (const nullsFirst of [false, true]) {
          check(b, [{ col: 0, type: T.int4, desc, nullsFirst }, { col: 1, type: T.int4, desc: !desc, nullsFirst }], bounds);
          check(b, [{ col: 2, type: T.int4, desc, nullsFirst: !nullsFirst }, { col: 0, type: T.int4, desc, nullsFirst }, { col: 1, type: T.int4, desc: false, nullsFirst: false }], bounds);
        }
      }
    }
  });

  it('a key whose bounds say every value is NULL', () => {
    check(b, [{ col: 3, type: T.int4, desc: false, nullsFirst: false }, { col: 0, type: T.int4, desc: true, nullsFirst: true }, { col: 1, type: T.int4, desc: false, nullsFirst: false }], new Map([[3, { min: 1, max: 0 }]]));
  });
});
