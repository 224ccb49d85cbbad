/** Unit tests for the pieces the differential test reaches only indirectly: in_range edge cases, the segment tree. */
import { describe, expect, it } from 'vitest';
import { Numeric } from '../../src/common/numeric.js';
import { T, type Value } from '../../src/common/types.js';
import { lookupAggregate } from '../../src/functions/aggregate/registry.js';
import type { SlidingAccumulator } from '../../src/functions/aggregate/aggregate-function.js';
import { makeInRange } from '../../src/functions/window/frame.js';
import { SegmentTree } from '../../src/functions/window/segment-tree.js';

describe('in_range', () => {
  it('integers: exact beyond 2^53 and past the int8 range', () => {
    const r = makeInRange(T.int8, 'UTC');
    const max = 9223372036854775807n;
    // base + offset overflows int8: every value is <= it, none is >= it.
    expect(r(max, max, false, true)(max)).toBe(true);
    expect(r(max, max, false, false)(max)).toBe(false);
    expect(r(2 ** 53, 1, false, true)(2 ** 53 + 1)).toBe(true);
    expect(() => r(1, -1, false, true)).toThrow(/invalid preceding or following size/);
  });
  it('floats: NaN sorts last, infinite offsets around infinite bases', () => {
    const r = makeInRange(T.float8, 'UTC');
    expect(r(1, 5, false, true)(NaN)).toBe(false);
    expect(r(1, 5, false, false)(NaN)).toBe(true);
    expect(r(NaN, 5, true, false)(NaN)).toBe(true);
    expect(r(Infinity, Infinity, true, false)(-Infinity)).toBe(true);
    expect(r(3, Infinity, true, false)(-Infinity)).toBe(true);
    expect(() => r(1, NaN, false, true)).toThrow();
  });
  it('numeric: infinite offset', () => {
    const r = makeInRange(T.numeric, 'UTC');
    const n = (s: string): Numeric => Numeric.parse(s);
    expect(r(n('1'), n('Infinity'), false, true)(n('1e100'))).toBe(true);
    expect(r(n('1'), n('Infinity'), true, true)(n('-1e100'))).toBe(false);
    expect(r(n('Infinity'), n('Infinity'), true, false)(n('-Infinity'))).toBe(true);
  });
});

describe('segment tree', () => {
  it('answers every range like a fresh aggregation, in row order', () => {
    const agg = lookupAggregate('string_agg')!.resolve([T.text, T.text])!;
    const vals: Value[] = Array.from({ length: 203 }, (_, i) => (i % 7 === 0 ? null : `v${i}`));
    const add = (acc: SlidingAccumulator, i: number): void => acc.add([vals[i]!, ',']);
    const ps = 5;
    const pe = 200;
    const tree = new SegmentTree(() => agg.sliding(), add, ps, pe);
    for (let s = ps; s <= pe; s += 3) {
      for (let e = s; e <= pe; e += 5) {
        const a = agg.sliding();
        tree.query(a, s, e);
        const b = agg.sliding();
        for (let i = s; i < e; i++) add(b, i);
        expect(a.value()).toBe(b.value());
      }
    }
  });
});
