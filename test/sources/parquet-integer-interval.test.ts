/**
 * integerInterval: the row filters over one INT32 column folded into one closed interval of int32
 * values, which the PLAIN-page filter tests in one pass. Every int32 value near the bounds must pass the
 * interval exactly when it passes every filter (the filters' own semantics, checked by brute force).
 */
import { describe, expect, it } from 'vitest';
import { integerInterval, type RowFilter } from '../../src/storage/table-functions/parquet-row-filter.js';

type Op = RowFilter['op'];
const f = (op: Op, value: number): RowFilter => ({ column: 'x', conjunct: 0, op, value, text: '' });
const passes = (x: number, fs: readonly RowFilter[]): boolean =>
  fs.every(({ op, value: k }) => (op === '=' ? x === k : op === '<' ? x < k : op === '<=' ? x <= k : op === '>' ? x > k : op === '>=' ? x >= k : x !== k));

const MIN = -2147483648;
const MAX = 2147483647;
const CASES: RowFilter[][] = [
  [f('>=', 10), f('<=', 20)],
  [f('>', 10.5), f('<', 20.5)],
  [f('>', -10.5), f('<=', -3.5)],
  [f('=', 7)],
  [f('=', 7.5)],
  [f('=', 7), f('>', 7)],
  [f('>=', 100), f('<=', 99)],
  [f('>', 3e9)],
  [f('<', -3e9)],
  [f('>=', -3e9), f('<', 3e9)],
  [f('>', Infinity)],
  [f('<', Infinity), f('>', -Infinity)],
  [f('>=', MIN), f('<=', MAX)],
  [f('>', MAX)],
  [f('<', MIN)],
  [f('<=', MIN)],
  [f('>=', MAX)],
];

describe('integerInterval', () => {
  for (const fs of CASES) {
    it(fs.map((x) => `${x.op} ${x.value}`).join(' AND '), () => {
      const iv = integerInterval(fs)!;
      expect(iv).not.toBeNull();
      const probes = new Set<number>([MIN, MIN + 1, MAX - 1, MAX, 0, -1, 1]);
      for (const x of fs) for (let d = -3; d <= 3; d++) if (Number.isFinite(x.value)) probes.add(Math.max(MIN, Math.min(MAX, Math.trunc(x.value) + d)));
      for (const x of probes) {
        const inside = iv.lo <= iv.hi && x >= iv.lo && x <= iv.hi;
        // The page filter's test: one unsigned comparison.
        const tested = iv.lo <= iv.hi && (x - iv.lo) >>> 0 <= iv.hi - iv.lo;
        expect([x, inside]).toEqual([x, passes(x, fs)]);
        expect([x, tested]).toEqual([x, inside]);
      }
    });
  }
  it('<> is not an interval', () => {
    expect(integerInterval([f('>', 1), f('<>', 5)])).toBeNull();
  });
});
