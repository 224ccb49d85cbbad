/**
 * GroupedScaledNumericSum's inline step (the one-pass aggregate loop): the step without a per-row scale
 * test is offered only while every group's sum has the batch's scale, and sums stay exact whichever
 * step ran. Driven as hash-aggregate drives it: the generated loop over the rows, and update() on the
 * rows it stops at (a new group, a first value, a sum leaving 2^53). Every result is compared with
 * Numerics added one by one.
 */
import { describe, expect, it } from 'vitest';
import { scaledNumericColumn, type Column } from '../../../src/common/column.js';
import { Numeric } from '../../../src/common/numeric.js';
import { T } from '../../../src/common/types.js';
import { GroupedScaledNumericSum } from '../../../src/functions/aggregate/scaled-numeric-sum.js';
import { inlineAggregateLoop } from '../../../src/physical/inline-aggregate-loop.js';

interface Batch {
  readonly keys: Int32Array;
  readonly unscaled: Float64Array;
  readonly scale: number;
  readonly nulls: Uint8Array | null;
}

/** Groups are keys 0 … groups-1; a key's group exists once a row of it went through update(). */
function run(acc: GroupedScaledNumericSum, batches: readonly Batch[], groups: number, tallied = false): { steps: ('short' | 'checked')[] } {
  const table = new Int32Array(groups);
  // Tallied: avg's row counts kept in the loop's tally and added when it stops (rowCountRef).
  const tally = new Int32Array(groups);
  let made = 0;
  const stepRefs: ('short' | 'checked')[] = [];
  for (const b of batches) {
    const col: Column = scaledNumericColumn(T.numeric, b.unscaled, b.scale, b.nulls);
    const n = b.keys.length;
    let j = 0;
    while (j < n) {
      const step = acc.inlineStep([col]);
      if (step !== null) {
        // The checked step binds the scales and the column's scale too.
        stepRefs.push(step.refs.length < 4 ? 'short' : 'checked');
        const loop = inlineAggregateLoop([step], [0], tallied);
        j = loop(b.keys, table, null, j, n, [b.unscaled], step.refs, tally);
        expect(tally.every((c) => c === 0)).toBe(true);
        if (j >= n) break;
      }
      // The row the loop stopped at (or every row when there is no step) through update().
      const k = b.keys[j]!;
      if (table[k] === 0) table[k] = ++made;
      acc.grow(made);
      const one = scaledNumericColumn(T.numeric, b.unscaled.subarray(j, j + 1), b.scale, b.nulls === null ? null : b.nulls.subarray(j, j + 1));
      acc.update(Int32Array.of(table[k]! - 1), 1, [one]);
      j++;
    }
  }
  return { steps: stepRefs };
}

/** The sums (or averages) by key, from Numerics added one by one. */
function expected(batches: readonly Batch[], groups: number, avg: boolean): (string | null)[] {
  const sums: (Numeric | null)[] = new Array(groups).fill(null);
  const counts = new Array<number>(groups).fill(0);
  for (const b of batches) {
    for (let i = 0; i < b.keys.length; i++) {
      if (b.nulls !== null && b.nulls[i] === 1) continue;
      const k = b.keys[i]!;
      const v = Numeric.of(BigInt(b.unscaled[i]!), b.scale);
      sums[k] = sums[k] === null ? v : sums[k]!.add(v);
      counts[k]!++;
    }
  }
  return sums.map((s, k) => (s === null ? null : avg ? s.div(Numeric.fromInt(counts[k]!)).toString() : s.toString()));
}

function results(acc: GroupedScaledNumericSum, batches: readonly Batch[], groups: number): (string | null)[] {
  // Group ids follow the order keys first appeared in.
  const order: number[] = [];
  for (const b of batches) for (const k of b.keys) if (!order.includes(k)) order.push(k);
  const out: (string | null)[] = new Array(groups).fill(null);
  order.forEach((k, g) => (out[k] = acc.result(g)?.toString() ?? null));
  return out;
}

const batch = (n: number, groups: number, scale: number, value: (i: number) => number, nullAt?: (i: number) => boolean): Batch => ({
  keys: Int32Array.from({ length: n }, (_, i) => (i * 7) % groups),
  unscaled: Float64Array.from({ length: n }, (_, i) => value(i)),
  scale,
  nulls: nullAt === undefined ? null : Uint8Array.from({ length: n }, (_, i) => (nullAt(i) ? 1 : 0)),
});

describe('GroupedScaledNumericSum inline step', () => {
  for (const [avg, tallied] of [[false, false], [true, false], [false, true], [true, true]]) {
    it(`${avg ? 'avg' : 'sum'}${tallied ? ', rows tallied' : ''}: one scale takes the step without a scale test once every group has a value`, () => {
      const batches = [0, 1, 2].map((b) => batch(4096, 10, 2, (i) => ((i + b) * 7919) % 1000003 - 500001));
      const acc = new GroupedScaledNumericSum(avg!);
      const { steps } = run(acc, batches, 10, tallied);
      expect(results(acc, batches, 10)).toEqual(expected(batches, 10, avg!));
      // Later batches: every group has the scale, the short step alone.
      expect(steps.slice(-2)).toEqual(['short', 'short']);
    });
  }

  it('a group that is still without a value (NULLs only) keeps the scale test until it has one', () => {
    const groups = 6;
    // Group of key 5 sees only NULLs in the first batch (the step is not offered over NULLs), values after.
    const first = batch(600, groups, 2, (i) => i * 3 - 700, (i) => (i * 7) % groups === 5);
    const second = batch(600, groups, 2, (i) => 1000 - i);
    const third = batch(600, groups, 2, (i) => i * 5 - 1400);
    const acc = new GroupedScaledNumericSum(false);
    const { steps } = run(acc, [first, second, third], groups);
    expect(results(acc, [first, second, third], groups)).toEqual(expected([first, second, third], groups, false));
    // The second batch takes the checked step (a group without a scale when it starts) to its end,
    // though that group's first value went through update() meanwhile: the loop is compiled once per
    // batch. The third takes the short one.
    expect(steps[0]).toBe('checked');
    expect(steps.filter((x) => x === 'short').length).toBe(1);
    expect(steps.at(-1)).toBe('short');
  });

  it('a group with only NULLs is NULL, one with only zeros is 0.00 (sum counts no rows in the short step)', () => {
    const groups = 4;
    const value = (i: number): number => ((i * 7) % groups === 2 ? 0 : i - 300);
    // Key 3 NULL on every row: that group has no scale, so every batch takes the checked step.
    const withNullGroup = [0, 1].map(() => batch(600, groups, 2, value, (i) => (i * 7) % groups === 3));
    // No NULLs: the short step from the second batch on.
    const withoutNulls = [0, 1, 2].map(() => batch(600, groups, 2, value));
    for (const [batches, short] of [[withNullGroup, false], [withoutNulls, true]] as const) {
      for (const avg of [false, true]) {
        const acc = new GroupedScaledNumericSum(avg);
        const { steps } = run(acc, batches, groups);
        expect(steps.includes('short')).toBe(short);
        const got = results(acc, batches, groups);
        expect(got).toEqual(expected(batches, groups, avg));
        expect(got[2]).toBe(avg ? '0.00000000000000000000' : '0.00');
        if (!short) expect(got[3]).toBeNull();
      }
    }
  });

  it('batches of another scale: sums move to the larger scale, the checked step from then on', () => {
    const groups = 5;
    const batches = [batch(500, groups, 2, (i) => i * 13 - 3000), batch(500, groups, 2, (i) => 7 - i), batch(500, groups, 4, (i) => -(i * 101) + 7), batch(500, groups, 2, (i) => i - 250), batch(500, groups, 0, (i) => i % 9)];
    for (const avg of [false, true]) {
      const acc = new GroupedScaledNumericSum(avg);
      const { steps } = run(acc, batches, groups);
      expect(results(acc, batches, groups)).toEqual(expected(batches, groups, avg));
      expect(steps).toContain('short');
      expect(steps.at(-1)).toBe('checked');
    }
  });

  it('sums leaving 2^53 in the short step go to the exact path; values at ±(2^53 - 1) and -2^53', () => {
    const groups = 3;
    const big = 2 ** 53 - 1;
    const edges = [big, -big, -(2 ** 53), big - 1, 1, -1, 0];
    const batches = [batch(300, groups, 2, (i) => edges[i % edges.length]!), batch(3000, groups, 2, (i) => (i % 2 === 0 ? big - i : -big + i)), batch(3000, groups, 2, (i) => big - (i % 5))];
    for (const avg of [false, true]) {
      const acc = new GroupedScaledNumericSum(avg);
      run(acc, batches, groups);
      expect(results(acc, batches, groups)).toEqual(expected(batches, groups, avg));
    }
  });
});
