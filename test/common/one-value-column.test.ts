/**
 * A one-row INSERT builds each column of its row with oneValueColumn instead of a ColumnBuilder: the
 * column must be the builder's own for every storage kind and value (same storage class, bytes,
 * values, no null map), and values the builder stores otherwise (a bigint into float storage) are
 * left to it.
 */
import { describe, expect, it } from 'vitest';
import { ColumnBuilder, getValue, oneValueColumn } from '../../src/common/column.js';
import { T, type DataType, type Value } from '../../src/common/types.js';

const CASES: [DataType, Value[]][] = [
  [T.bool, [true, false]],
  [T.int2, [0, -32768, 32767]],
  [T.int4, [0, -1, 2147483647, -2147483648]],
  [T.int8, [0, -0, 2 ** 53 - 1, -(2 ** 53) + 1, 9007199254740993n]],
  [T.float8, [0.5, -0, Number.NaN, Infinity, -Infinity, 5e-324]],
  [T.float4, [1.5, -0]],
  [T.date, [0, -1, 20000]],
  [T.timestamp, [0, 1.7e15]],
  [T.text, ['', 'x', 'é', 'a'.repeat(1000)]],
  [T.numeric, ['1.50', '-0']],
];

describe('oneValueColumn', () => {
  it('is the column a ColumnBuilder makes of the one value, or null where the builder widens', () => {
    let compared = 0;
    for (const [type, values] of CASES) {
      for (const v of values) {
        const built = new ColumnBuilder(type, 1);
        built.push(v);
        const expected = built.finish();
        const got = oneValueColumn(type, v);
        if (typeof v === 'bigint' && !Array.isArray(new ColumnBuilder(type, 1).finish().data)) {
          expect(got, `${type.name} ${String(v)}`).toBeNull();
          continue;
        }
        expect(got, `${type.name} ${String(v)}`).not.toBeNull();
        expect(got!.type).toBe(type);
        expect(got!.data.constructor).toBe(expected.data.constructor);
        expect(got!.data.length).toBe(expected.data.length);
        expect(got!.nulls).toBe(null);
        expect(expected.nulls).toBe(null);
        expect(Object.is(getValue(got!, 0), getValue(expected, 0)), `${type.name} ${String(v)}`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(30);
  });
});
