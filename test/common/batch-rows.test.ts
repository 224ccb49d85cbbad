/** batchRows turns a batch into result rows column by column: every storage class, with and without NULLs. */
import { describe, expect, it } from 'vitest';
import { batchRows, getValue, makeColumn, type Batch } from '../../src/common/column.js';
import { T } from '../../src/common/types.js';

describe('batchRows', () => {
  it('reads every storage class and its NULLs as getValue does', () => {
    const n = 300;
    const nulls = Uint8Array.from({ length: n }, (_, i) => (i % 7 === 0 ? 1 : 0));
    const cols = [
      makeColumn(T.int4, Int32Array.from({ length: n }, (_, i) => i - 150), null),
      makeColumn(T.float8, Float64Array.from({ length: n }, (_, i) => (i % 5 === 0 ? NaN : i / 3)), nulls),
      makeColumn(T.bool, Uint8Array.from({ length: n }, (_, i) => i % 2), i3(n)),
      makeColumn(T.text, Array.from({ length: n }, (_, i) => `日${i}`), nulls),
      makeColumn(T.int8, Array.from({ length: n }, (_, i) => BigInt(i) * 10n ** 15n), null),
      makeColumn(T.int4, Int32Array.from({ length: n }, (_, i) => i), Uint8Array.from({ length: n }, () => 1)),
    ];
    const b: Batch = { columns: cols, length: n };
    const rows = batchRows(b);
    expect(rows.length).toBe(n);
    for (let i = 0; i < n; i++) expect(rows[i]).toEqual(cols.map((c) => getValue(c, i)));
    expect(rows[0]).toEqual([-150, null, null, null, 0n, null]);
    expect(rows[1]).toEqual([-149, 1 / 3, true, '日1', 10n ** 15n, null]);
    expect(batchRows({ columns: cols, length: 0 })).toEqual([]);
  });
});

function i3(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
}
