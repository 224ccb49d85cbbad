/**
 * scaledNumericColumn: a numeric column held as unscaled doubles and one scale, its Numerics built on
 * the first read of `data`. Every column utility keeps the form (gathering, slicing, concatenating,
 * placeholders, memory estimates, single values) or drops it with the same values (concatenating
 * other scales or other columns), and never builds the Numerics of a column it only copies.
 */
import { describe, expect, it } from 'vitest';
import {
  batchRows,
  concatBatches,
  getValue,
  makeColumn,
  numericsPending,
  scaledNumbers,
  scaledNumericColumn,
  sliceBatch,
  takeBatch,
  takeColumn,
  type Batch,
  type Column,
} from '../../src/common/column.js';
import { Numeric } from '../../src/common/numeric.js';
import { T } from '../../src/common/types.js';
import { columnBytes } from '../../src/execution/memory-pool.js';

const N = 5000;
const unscaled = Float64Array.from({ length: N }, (_, i) => (i % 2 === 0 ? 1 : -1) * (i * 7919 + (i === 4 ? 2 ** 53 - 1 : 0)));
const nulls = Uint8Array.from({ length: N }, (_, i) => (i % 9 === 4 ? 1 : 0));
/** The values as Numerics, built independently of the column. */
const expected = (u: Float64Array, scale: number, nl: Uint8Array | null): (string | null)[] =>
  Array.from(u, (x, i) => (nl !== null && nl[i] === 1 ? null : Numeric.of(BigInt(x), scale).toString()));
const text = (c: Column, n: number): (string | null)[] => Array.from({ length: n }, (_, i) => getValue(c, i)?.toString() ?? null);
const col = (scale = 2): Column => scaledNumericColumn(T.numeric, unscaled, scale, nulls);

describe('scaledNumericColumn', () => {
  it('builds exact Numerics (scale kept, NULLs NULL) only when data is read', () => {
    const c = col();
    expect(numericsPending(c)).toBe(true);
    expect(getValue(c, 2)?.toString()).toBe('158.38');
    expect(getValue(c, 4)).toBeNull();
    expect(getValue(c, 3)?.toString()).toBe('-237.57');
    expect(numericsPending(c)).toBe(true);
    const d = c.data as (Numeric | null)[];
    expect(numericsPending(c)).toBe(false);
    expect(d.map((v) => v?.toString() ?? null)).toEqual(expected(unscaled, 2, nulls));
    expect((d[2] as Numeric).scale).toBe(2);
    // The doubles stay readable after data is built.
    expect(scaledNumbers(c)).toEqual({ unscaled, scale: 2 });
    expect(scaledNumbers(makeColumn(T.numeric, d, nulls))).toBeNull();
  });

  it('a value near 2^53 and scale 0 keep every digit', () => {
    const c = scaledNumericColumn(T.numeric, Float64Array.of(2 ** 53 - 1, -(2 ** 53 - 1), 0), 0, null);
    expect(text(c, 3)).toEqual(['9007199254740991', '-9007199254740991', '0']);
    const s = scaledNumericColumn(T.numeric, Float64Array.of(2 ** 53 - 1), 10, null);
    expect(text(s, 1)).toEqual(['900719.9254740991']);
  });

  it('takeColumn, sliceBatch and takeBatch keep the form without building Numerics', () => {
    const c = col();
    const sel = Uint32Array.from({ length: 700 }, (_, k) => (k * 13) % N);
    const t = takeColumn(c, sel, 700);
    expect(numericsPending(t)).toBe(true);
    const all = expected(unscaled, 2, nulls);
    expect(text(t, 700)).toEqual(Array.from(sel, (i) => all[i]!));
    const b: Batch = { columns: [c, makeColumn(T.int4, Int32Array.from({ length: N }, (_, i) => i), null)], length: N };
    const s = sliceBatch(b, 100, 900);
    expect(numericsPending(s.columns[0]!)).toBe(true);
    expect(scaledNumbers(s.columns[0]!)!.scale).toBe(2);
    expect(text(s.columns[0]!, 800)).toEqual(expected(unscaled, 2, nulls).slice(100, 900));
    // A placeholder for the column stays a placeholder through a later concatenation.
    const picked = takeBatch(b, sel, 700, [false, true]);
    expect(concatBatches([T.numeric, T.int4], [picked, picked]).columns[0]!.data.length).toBe(0);
    expect(numericsPending(c)).toBe(true);
  });

  it('concatBatches keeps one scale as doubles and builds Numerics for mixed inputs', () => {
    const types = [T.numeric];
    const whole: Batch = { columns: [col()], length: N };
    const parts = [sliceBatch(whole, 0, 1000), sliceBatch(whole, 1000, 2500), sliceBatch(whole, 2500, N)];
    const joined = concatBatches(types, parts);
    expect(numericsPending(joined.columns[0]!)).toBe(true);
    expect(text(joined.columns[0]!, N)).toEqual(expected(unscaled, 2, nulls));
    // Another scale, and a column of Numerics: the result is plain Numerics with the same values.
    const other = scaledNumericColumn(T.numeric, Float64Array.of(5, -7), 3, null);
    const plain = makeColumn(T.numeric, [Numeric.parse('1.5'), null], Uint8Array.of(0, 1));
    const mixed = concatBatches(types, [
      { columns: [col()], length: 10 },
      { columns: [other], length: 2 },
      { columns: [plain], length: 2 },
    ]);
    expect(scaledNumbers(mixed.columns[0]!)).toBeNull();
    expect(text(mixed.columns[0]!, 14)).toEqual([...expected(unscaled, 2, nulls).slice(0, 10), '0.005', '-0.007', '1.5', null]);
    expect(batchRows(mixed).map((r) => r[0]?.toString() ?? null)).toEqual(text(mixed.columns[0]!, 14));
  });

  it('memory estimates count the doubles, and do not build the Numerics', () => {
    const c = col();
    expect(columnBytes(c, N)).toBe(unscaled.byteLength + nulls.byteLength);
    expect(numericsPending(c)).toBe(true);
    void c.data;
    expect(columnBytes(c, N)).toBeGreaterThan(unscaled.byteLength + nulls.byteLength);
  });
});
