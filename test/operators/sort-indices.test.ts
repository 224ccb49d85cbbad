import { describe, expect, it } from 'vitest';
import type { ExecContext } from '../../src/execution/context.js';
import { sortIndices } from '../../src/execution/sort-indices.js';

const ctx = { params: [], outer: [], worktables: new Map(), initPlans: new Map(), analyze: false, ticker: { last: performance.now(), count: 0 } } as unknown as ExecContext;

describe('sortIndices (runs merged with yields between them)', () => {
  for (const n of [0, 1, 7, 16384, 16385, 50_000, 100_003]) {
    it(`sorts ${n} rows stably, as Array.prototype.sort does`, async () => {
      let seed = n + 1;
      const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 997);
      const keys = Array.from({ length: n }, rnd);
      const cmp = (a: number, b: number): number => keys[a]! - keys[b]!;
      const got = Array.from(await sortIndices(n, cmp, ctx));
      const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => cmp(a, b) || a - b);
      expect(got).toEqual(want);
    });
  }

  it('stops with 57014 when the statement is cancelled mid-sort', async () => {
    const ac = new AbortController();
    ac.abort();
    const cancelled = { ...ctx, signal: ac.signal } as ExecContext;
    await expect(sortIndices(100_000, (a, b) => a - b, cancelled)).rejects.toMatchObject({ code: '57014' });
  });
});
