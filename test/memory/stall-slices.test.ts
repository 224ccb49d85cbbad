/**
 * Large gathers and large hash sets give the event loop back while they grow: concatBatchesAsync
 * yields between pieces, the split key sets keep SameValueZero equality, and UNION, a text-keyed
 * join and a text sort over a few hundred thousand rows let a 1 ms timer keep firing and stop soon
 * after their AbortSignal fires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { T } from '../../src/common/types.js';
import { concatBatches, makeColumn, type Batch } from '../../src/common/column.js';
import { concatBatchesAsync } from '../../src/execution/concat-batches-async.js';
import type { ExecContext } from '../../src/execution/context.js';
import { ShardedKeyMap, ShardedKeySet, type ShardKey } from '../../src/physical/key-shards.js';
import { makeCtx, rng } from '../operators/helpers.js';
import { beside } from './timer-beside.js';

const TYPES = [T.int4, T.text, T.float8];

function batches(rows: number, size: number): Batch[] {
  const r = rng(7);
  const out: Batch[] = [];
  for (let s = 0; s < rows; s += size) {
    const n = Math.min(size, rows - s);
    const a = new Int32Array(n);
    const t: (string | null)[] = new Array(n);
    const tn = new Uint8Array(n);
    const f = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      a[i] = s + i;
      if (r() < 0.1) {
        tn[i] = 1;
        t[i] = null;
      } else t[i] = `v${Math.floor(r() * 1e6)}`;
      f[i] = r();
    }
    out.push({ columns: [makeColumn(T.int4, a, null), makeColumn(T.text, t, tn), makeColumn(T.float8, f, null)], length: n });
  }
  return out;
}

/** Milliseconds of CPU this process has used (all threads). */

describe('concatBatchesAsync', () => {
  it('gives the same batch as concatBatches and lets a timer run while it copies', async () => {
    const parts = batches(1_200_000, 4096);
    const want = concatBatches(TYPES, parts);
    const ctx: ExecContext = { ...makeCtx(), ticker: { last: performance.now(), count: 0 } };
    const { value: got, ticks } = await beside(() => concatBatchesAsync(TYPES, parts, ctx));
    // The copy runs in pieces of about a millisecond and parks every few of them.
    expect(ticks).toBeGreaterThan(0);
    expect(got.length).toBe(1_200_000);
    for (let c = 0; c < TYPES.length; c++) {
      const g = got.columns[c]!;
      const w = want.columns[c]!;
      expect(g.type).toBe(w.type);
      expect(g.nulls === null).toBe(w.nulls === null);
      let differ = 0;
      for (let i = 0; i < got.length; i++) {
        if (g.data[i] !== w.data[i] || (g.nulls !== null && g.nulls[i] !== w.nulls![i])) differ++;
      }
      expect(differ).toBe(0);
    }
  });

  it('fails with 57014 when the deadline passes mid-copy', async () => {
    const parts = batches(1_200_000, 4096);
    const t0 = performance.now();
    const ctx: ExecContext = { ...makeCtx(), ticker: { last: t0, count: 0 }, deadline: t0 + 1 };
    await expect(concatBatchesAsync(TYPES, parts, ctx)).rejects.toMatchObject({ code: '57014' });
  });

  it('returns a single batch as it is and an empty list as no rows', async () => {
    const parts = batches(100, 4096);
    const ctx = makeCtx();
    expect(await concatBatchesAsync(TYPES, parts, ctx)).toBe(parts[0]);
    expect((await concatBatchesAsync(TYPES, [], ctx)).length).toBe(0);
  });
});

describe('split key sets', () => {
  it('treat keys as the engine Set does (SameValueZero), over every key type', () => {
    const r = rng(11);
    const pool: ShardKey[] = [0, -0, NaN, -NaN, 1, 1.5, -1.5, 2 ** 40, -(2 ** 40), 2n ** 70n, -(2n ** 70n), true, false, null, '', 'a', 'A', 'ab', 'ba', '0', '1.5', 'é', '\u0000'];
    for (let i = 0; i < 20_000; i++) {
      const x = r();
      pool.push(x < 0.4 ? `k${Math.floor(r() * 5000)}` : x < 0.7 ? Math.floor(r() * 5000) - 2500 : x < 0.9 ? Math.floor(r() * 100) / 8 : BigInt(Math.floor(r() * 100)) * 2n ** 60n);
    }
    const want = new Set<ShardKey>();
    const wantMap = new Map<ShardKey, number>();
    const got = new ShardedKeySet();
    const gotMap = new ShardedKeyMap<number>();
    for (let i = 0; i < pool.length; i++) {
      const k = pool[i]!;
      const fresh = !want.has(k);
      want.add(k);
      expect(got.addNew(k)).toBe(fresh);
      if (!wantMap.has(k)) {
        wantMap.set(k, i);
        expect(gotMap.get(k)).toBeUndefined();
        gotMap.set(k, i);
      }
    }
    for (const k of pool) {
      expect(got.has(k)).toBe(true);
      expect(gotMap.get(k)).toBe(wantMap.get(k));
    }
    for (const k of ['absent', 123456789, 0.125001, 3n ** 50n, 'k5000'] as ShardKey[]) {
      expect(got.has(k)).toBe(want.has(k));
      expect(gotMap.get(k)).toBe(wantMap.get(k));
    }
  });
});

describe('heavy statements share the event loop and stop when cancelled', () => {
  const ROWS = 300_000;
  let db: Database;

  beforeAll(async () => {
    db = await Database.create();
    await db.query(`create table big as select i as id, (i::int8 * 7919 % 1000003)::float8 as v, 'k' || (i % 50000) as s from generate_series(1, ${ROWS}) i`);
    await db.query(`create table big2 as select i as id from generate_series(1, ${ROWS}) i`);
  }, 120_000);

  afterAll(async () => {
    await db.close();
  });

  const cases: [string, string, number][] = [
    ['union over text', 'select count(*) from (select s from big union select id::text from big2) x', ROWS + 50_000],
    // Each of k1 … k49999 is six rows of big and one of the built side.
    ['join on a text key', "select count(*) from big a join big2 b on a.s = 'k' || b.id::text", 6 * 49_999],
    ['sort by text, float', 'select count(*) from (select * from big order by s, v) x', ROWS],
  ];

  for (const [name, sql, count] of cases) {
    it(`${name}: correct, a 1 ms timer keeps firing, and a cancel stops it within 100 ms`, async () => {
      const { value, ticks, gap } = await beside(() => db.query(sql));
      expect(Number(value.rows[0]![0])).toBe(count);
      expect(ticks).toBeGreaterThan(5);
      // Generous (the process's CPU includes the collector's helper threads): the longest step of each
      // of these is a few tens of milliseconds.
      expect(gap).toBeLessThan(250);

      const ac = new AbortController();
      let firedAt = 0;
      const timer = setTimeout(() => {
        firedAt = performance.now();
        ac.abort();
      }, 50);
      const outcome = await db.query(sql, [], { signal: ac.signal }).then(
        () => 'finished',
        (e: unknown) => (e as { code?: string }).code,
      );
      clearTimeout(timer);
      if (outcome === 'finished') return;
      expect(outcome).toBe('57014');
      expect(performance.now() - firedAt).toBeLessThan(100);
    }, 120_000);
  }
});
