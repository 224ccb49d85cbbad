/**
 * The typed partition-boundary helpers the Window operator uses between batches (key-changes.ts):
 * trailingRunStart, leadingRunEnd and sameKeys must agree with the sort comparator's equality on every
 * storage class, with NULLs (null map or null in plain storage), NaN, -0 against 0, text with surrogate
 * pairs, and keys that take the comparator (numeric as plain values).
 */
import { describe, expect, it } from 'vitest';
import { makeColumn, type Batch, type Column } from '../../src/common/column.js';
import { Numeric } from '../../src/common/numeric.js';
import { T, type DataType, type Value } from '../../src/common/types.js';
import { leadingRunEnd, sameKeys, trailingRunStart } from '../../src/physical/key-changes.js';
import { compileComparator, type SortKey } from '../../src/physical/sort-key.js';
import { rng } from '../common/pg-helper.js';

type Gen = (r: () => number) => Value;

const KINDS: { type: DataType; values: Gen; build(vals: Value[]): Column }[] = [
  {
    type: T.int4,
    values: (r) => (r() < 0.15 ? null : Math.floor(r() * 3) - 1),
    build: (vals) => typed(T.int4, new Int32Array(vals.length), vals),
  },
  {
    type: T.float8,
    values: (r) => [null, NaN, -0, 0, 1.5, -Infinity][Math.floor(r() * 6)]!,
    build: (vals) => typed(T.float8, new Float64Array(vals.length), vals),
  },
  {
    // Plain storage with NULL as null (no null map).
    type: T.text,
    values: (r) => [null, '', 'a', 'a😀', 'a\uffff'][Math.floor(r() * 5)]!,
    build: (vals) => makeColumn(T.text, vals.slice(), null),
  },
  {
    // Plain storage with a null map (the data under NULL is arbitrary).
    type: T.text,
    values: (r) => [null, 'x', 'y'][Math.floor(r() * 3)]!,
    build: (vals) => {
      const nulls = new Uint8Array(vals.length);
      const data = vals.map((v, i) => (v === null ? ((nulls[i] = 1), i % 2 === 0 ? 'junk' : null) : v));
      return makeColumn(T.text, data, nulls);
    },
  },
];

function typed(type: DataType, data: Int32Array | Float64Array, vals: Value[]): Column {
  const nulls = new Uint8Array(vals.length);
  vals.forEach((v, i) => {
    if (v === null) {
      nulls[i] = 1;
      data[i] = i; // arbitrary storage under NULL
    } else data[i] = v as number;
  });
  return makeColumn(type, data, nulls);
}

/** A sorted-looking batch: runs of equal keys, as the Window receives after its Sort. */
function batch(r: () => number, kinds: number[], rows: number): Batch {
  const cols: Value[][] = kinds.map(() => []);
  while (cols[0]!.length < rows) {
    const run = 1 + Math.floor(r() * 4);
    const vals = kinds.map((k) => KINDS[k]!.values(r));
    for (let j = 0; j < run && cols[0]!.length < rows; j++) cols.forEach((c, k) => c.push(vals[k]!));
  }
  return { columns: kinds.map((k, i) => KINDS[k]!.build(cols[i]!)), length: rows };
}

describe('typed key runs agree with the comparator', () => {
  it('trailingRunStart, leadingRunEnd and sameKeys on random batches', () => {
    const r = rng(99);
    for (let t = 0; t < 400; t++) {
      const nk = 1 + Math.floor(r() * 3);
      const kinds = Array.from({ length: nk }, () => Math.floor(r() * KINDS.length));
      const keys: SortKey[] = kinds.map((k, col) => ({ col, type: KINDS[k]!.type, desc: r() < 0.5, nullsFirst: r() < 0.5 }));
      const cmp = compileComparator(keys);
      const rows = 1 + Math.floor(r() * 12);
      const a = batch(r, kinds, rows);
      const b = batch(r, kinds, 1 + Math.floor(r() * 12));
      const ra = cmp.rows(cmp.view(a));
      let want = rows - 1;
      while (want > 0 && ra(want - 1, want) === 0) want--;
      expect(trailingRunStart(a, keys, cmp)).toBe(want);
      const limit = Math.floor(r() * (rows + 1));
      let lead = Math.min(1, limit);
      while (lead < limit && ra(lead - 1, lead) === 0) lead++;
      expect(leadingRunEnd(a, keys, cmp, limit)).toBe(lead);
      const x = cmp.cross(cmp.view(a), cmp.view(b));
      for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) expect(sameKeys(a, i, b, j, keys, cmp)).toBe(x(i, j) === 0);
    }
  });

  it('keys in plain storage that are not text take the comparator', () => {
    const keys: SortKey[] = [{ col: 0, type: T.numeric, desc: false, nullsFirst: false }];
    const cmp = compileComparator(keys);
    const col = (vals: string[]): Batch => ({ columns: [makeColumn(T.numeric, vals.map((v) => Numeric.parse(v)), null)], length: vals.length });
    const a = col(['1.0', '1.00', '2', '2.0']);
    expect(trailingRunStart(a, keys, cmp)).toBe(2);
    expect(leadingRunEnd(a, keys, cmp, 4)).toBe(2);
    expect(sameKeys(a, 3, col(['2.000']), 0, keys, cmp)).toBe(true);
  });
});
