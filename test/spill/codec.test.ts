/** The spill frame codec round-trips every storage class and value shape exactly, with and without zlib. */
import { describe, expect, it } from 'vitest';
import { Interval } from '../../src/common/interval.js';
import { Numeric } from '../../src/common/numeric.js';
import { T, type DataType, type Value } from '../../src/common/types.js';
import { batchRows, ColumnBuilder, numericsPending, scaledNumbers, scaledNumericColumn, sliceBatch, type Batch } from '../../src/common/column.js';
import { decodeBatch, encodeBatch, FRAME_HEADER } from '../../src/execution/spill/codec.js';
import { FUZZ_FIELDS, fuzzBatches, rowKey } from './helpers.js';
import { formatValue } from '../../src/common/format-value.js';
import { Point } from '../../src/common/point.js';
import { RecordValue } from '../../src/common/record-value.js';

function roundTrip(b: Batch, types: readonly DataType[], compress: boolean): Batch {
  const f = encodeBatch(b, compress);
  expect(f.readUInt32LE(0)).toBe(f.length - FRAME_HEADER);
  return decodeBatch(f.subarray(FRAME_HEADER), f[4]!, types);
}

function build(types: readonly DataType[], rows: Value[][]): Batch {
  const bs = types.map((t) => new ColumnBuilder(t));
  for (const r of rows) r.forEach((v, c) => bs[c]!.push(v));
  return { columns: bs.map((x) => x.finish()), length: rows.length };
}

describe('spill codec', () => {
  it('keeps a scaled numeric column as its doubles (scale, NULLs and values near 2^53 exact)', () => {
    const unscaled = Float64Array.of(0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 12345, 7, 99);
    const nulls = Uint8Array.of(0, 0, 0, 0, 1, 0, 0);
    const types = [T.numeric, T.int4, T.numeric];
    const other = scaledNumericColumn(T.numeric, Float64Array.of(1, 2, 3, 4, 5, 6, 7), 0, null);
    void other.data; // built already: still written as doubles
    const ints = build([T.int4], Array.from({ length: 7 }, (_, i) => [i])).columns[0]!;
    // A slice: its doubles start inside a larger buffer.
    const b = sliceBatch({ columns: [scaledNumericColumn(T.numeric, unscaled, 4, nulls), ints, other], length: 7 }, 1, 7);
    for (const z of [false, true]) {
      const got = roundTrip(b, types, z);
      expect(numericsPending(got.columns[0]!)).toBe(true);
      expect(scaledNumbers(got.columns[0]!)!.scale).toBe(4);
      expect(scaledNumbers(got.columns[2]!)!.scale).toBe(0);
      expect(batchRows(got).map((r) => r.map((v) => (v === null ? null : String(v))))).toEqual([
        ['-0.0001', '1', '2'],
        ['900719925474.0991', '2', '3'],
        ['-900719925474.0991', '3', '4'],
        [null, '4', '5'],
        ['0.0007', '5', '6'],
        ['0.0099', '6', '7'],
      ]);
    }
  });

  it('round-trips edge values', () => {
    const types = [T.int4, T.int8, T.float8, T.text, T.bool, T.numeric, T.interval, T.text];
    const rows: Value[][] = [
      [0, 0, -0, '', true, Numeric.parse('0.000'), Interval.ZERO, 'ascii'],
      [null, null, null, null, null, null, null, null],
      [-2147483648, 2n ** 63n - 1n, NaN, '\u{1F600}é\uD800', false, Numeric.NaN, Interval.POSITIVE_INFINITY, 'x'],
      [2147483647, -(2n ** 63n), -Infinity, 'a\u0000b', true, Numeric.parse('-123456789012345678901234567890.5'), new Interval(-1, 2, -3), ''],
      [1, 9007199254740991, 1e-310, 'z'.repeat(100000), false, Numeric.NEGATIVE_INFINITY, Interval.NEGATIVE_INFINITY, null],
    ];
    const b = build(types, rows);
    for (const z of [false, true]) {
      const got = batchRows(roundTrip(b, types, z)).map(rowKey);
      expect(got).toEqual(rows.map(rowKey));
    }
  });

  it('round-trips arrays, records and points (nested, with NULLs and special floats)', () => {
    const rec = (fields: Value[], types: DataType[]): RecordValue => new RecordValue(fields, types);
    const types = [T._int4, T.record, T.point, T._text];
    const rows: Value[][] = [
      [[1, null, -3], rec([1, 'a b', null], [T.int4, T.text, T.numeric]), new Point(1.5, -0), ['é', null, '']],
      [[], rec([], []), new Point(NaN, Infinity), []],
      [null, null, null, null],
      [[2147483647], rec([rec([Numeric.parse('-1.50'), new Point(1e-300, 2)], [T.numeric, T.point]), [1, 2]], [T.record, T._int4]), new Point(0, 0), ['x'.repeat(1000)]],
    ];
    const b = build(types, rows);
    const text = (r: readonly Value[]): (string | null)[] => r.map((v, i) => formatValue(v, types[i]!));
    for (const z of [false, true]) {
      const got = batchRows(roundTrip(b, types, z));
      expect(got.map(text)).toEqual(rows.map(text));
      expect((got[0]![1] as RecordValue).types).toEqual([T.int4, T.text, T.numeric]);
      expect(Object.is((got[0]![2] as Point).y, -0)).toBe(true);
    }
  });

  it('round-trips fuzzed batches, including zero-row batches', () => {
    const types = FUZZ_FIELDS.map((f) => f.type);
    for (const b of [...fuzzBatches(3, 3000, FUZZ_FIELDS, 1000), build(types, [])]) {
      for (const z of [false, true]) expect(batchRows(roundTrip(b, types, z)).map(rowKey)).toEqual(batchRows(b).map(rowKey));
    }
  });
});
