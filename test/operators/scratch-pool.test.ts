/**
 * Scratch buffers (src/execution/scratch.ts) are reused across sorts, so sorts that interleave at their
 * yields must never share one: two packed-key sorts stepped alternately, and a third started while
 * they run, each give exactly the order a plain comparison sort gives.
 */
import { describe, expect, it } from 'vitest';
import { T } from '../../src/common/types.js';
import { makeColumn, type Batch } from '../../src/common/column.js';
import { give, takeU32 } from '../../src/execution/scratch.js';
import { packedSortSteps, type PackedSort } from '../../src/physical/packed-key-sort.js';
import type { SortKey } from '../../src/physical/sort-key.js';
import { radixSteps } from '../../src/physical/operators/sort.js';

function batch(n: number, seed: number): Batch {
  let s = seed;
  const rnd = (): number => (s = (s * 1103515245 + 12345) >>> 0) / 4294967296;
  const g = new Int32Array(n);
  const ts = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    g[i] = Math.floor(rnd() * 700);
    ts[i] = (1.6e9 + Math.floor(rnd() * 94_608_000)) * 1e6;
  }
  return { columns: [makeColumn(T.int4, g, null), makeColumn(T.timestamp, ts, null)], length: n };
}

const KEYS: SortKey[] = [
  { col: 0, type: T.int4, desc: false, nullsFirst: false },
  { col: 1, type: T.timestamp, desc: true, nullsFirst: false },
];

function reference(b: Batch): number[] {
  const g = b.columns[0]!.data as Int32Array;
  const ts = b.columns[1]!.data as Float64Array;
  return Array.from({ length: b.length }, (_, i) => i).sort((x, y) => g[x]! - g[y]! || ts[y]! - ts[x]! || x - y);
}

/** The first index where the arrays differ, or -1 (a whole-array diff of 300k rows is unreadable). */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

function check(b: Batch, r: PackedSort | null): void {
  expect(r).not.toBeNull();
  expect(firstDifference(r!.order, reference(b))).toBe(-1);
  const g = b.columns[0]!.data as Int32Array;
  const decoded = r!.sorted.get(0)!.data as Int32Array;
  expect(firstDifference(decoded, Array.from(r!.order, (row) => g[row]!))).toBe(-1);
}

describe('scratch buffers shared by sorts', () => {
  it('interleaved sorts each keep their own buffers', () => {
    // Above 2^18 rows the sorts yield between pieces, and their scratch arrays are pooled.
    const a = batch(300_000, 1);
    const b = batch(280_000, 2);
    const c = batch(310_000, 3);
    const ga = packedSortSteps(a, KEYS);
    const gb = packedSortSteps(b, KEYS);
    let gc: ReturnType<typeof packedSortSteps> | null = null;
    let ra: PackedSort | null | undefined;
    let rb: PackedSort | null | undefined;
    let rc: PackedSort | null | undefined;
    for (let step = 0; ra === undefined || rb === undefined || rc === undefined; step++) {
      if (ra === undefined) {
        const x = ga.next();
        if (x.done) ra = x.value;
      }
      if (rb === undefined) {
        const x = gb.next();
        if (x.done) rb = x.value;
      }
      if (step === 7) gc = packedSortSteps(c, KEYS);
      if (gc !== null && rc === undefined) {
        const x = gc.next();
        if (x.done) rc = x.value;
      }
      // Scribble over whatever the pool hands out in between, as another statement would.
      const t = takeU32(300_000);
      t.fill(0xdeadbeef);
      give(t);
    }
    check(a, ra);
    check(b, rb);
    check(c, rc);
  });

  it('interleaved single-key radix sorts, with NULLs, each keep their own buffers', () => {
    const n = 400_000;
    const cols = [0, 1].map((seed) => {
      const v = new Float64Array(n);
      const nulls = new Uint8Array(n);
      let s = seed + 11;
      for (let i = 0; i < n; i++) {
        s = (s * 1103515245 + 12345) >>> 0;
        v[i] = (s % 100_000) / 7 - 5000;
        nulls[i] = s % 17 === 0 ? 1 : 0;
      }
      return { v, nulls };
    });
    const gens = cols.map((c, i) => radixSteps(c.v, c.nulls, n, i === 1, i === 0));
    const out: (Uint32Array | undefined)[] = [undefined, undefined];
    while (out.some((o) => o === undefined)) {
      gens.forEach((g, i) => {
        if (out[i] !== undefined) return;
        const x = g.next();
        if (x.done) out[i] = x.value;
      });
      const t = takeU32(n);
      t.fill(7);
      give(t);
    }
    cols.forEach((c, i) => {
      const desc = i === 1;
      const nullsFirst = i === 0;
      const want = Array.from({ length: n }, (_, r) => r).sort((x, y) => {
        const nx = c.nulls[x] === 1;
        const ny = c.nulls[y] === 1;
        if (nx || ny) return nx && ny ? x - y : nx === nullsFirst ? -1 : 1;
        return (desc ? c.v[y]! - c.v[x]! : c.v[x]! - c.v[y]!) || x - y;
      });
      expect(firstDifference(out[i]!, want)).toBe(-1);
    });
  });

  it('a taken buffer is not handed out twice', () => {
    const x = takeU32(200_000);
    give(x);
    const y = takeU32(200_000);
    const z = takeU32(200_000);
    expect(y.buffer).not.toBe(z.buffer);
    give(y, z);
  });
});
