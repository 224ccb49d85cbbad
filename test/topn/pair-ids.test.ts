/**
 * Two-column partition keys: PairIds numbers (a, b) pairs through a grid while both sides have few ids,
 * then hashes. The ids must stay the same across the grid's growth and the move to hashing, and queries
 * whose pairs outgrow the grid mid-input must still agree with PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, outcomeText, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';
import { PairIds } from '../../src/physical/operators/topn-ranking.js';
import { rng } from '../window/window-gen.js';

function check(pairs: PairIds, seed: number, n: number, rangeA: number, rangeB: number): void {
  const r = rng(seed);
  const want = new Map<string, number>();
  const a = new Int32Array(n);
  const b = new Int32Array(n);
  const out = new Int32Array(n);
  for (let round = 0; round < 4; round++) {
    // Ranges widen each round, so the grid grows (and may overflow) between and within batches.
    const wa = Math.ceil((rangeA * (round + 1)) / 4);
    const wb = Math.ceil((rangeB * (round + 1)) / 4);
    for (let i = 0; i < n; i++) {
      a[i] = r.int(wa);
      b[i] = r.int(wb);
    }
    pairs.assign(a, b, n, out);
    for (let i = 0; i < n; i++) {
      const key = `${a[i]},${b[i]}`;
      const seen = want.get(key);
      if (seen === undefined) {
        // A new pair gets the next id.
        expect(out[i]).toBe(want.size);
        want.set(key, out[i]!);
      } else expect(out[i], key).toBe(seen);
    }
  }
  expect(pairs.count).toBe(want.size);
}

describe('PairIds', () => {
  it('keeps ids through grid growth', () => {
    const p = new PairIds();
    check(p, 1, 5000, 300, 40);
    expect(p.gridded).toBe(true);
  });

  it('keeps ids when the grid gives way to hashing, within a batch', () => {
    const p = new PairIds(4096);
    check(p, 2, 20_000, 2000, 700);
    expect(p.gridded).toBe(false);
  });

  it('hashes when one side alone is wide', () => {
    const p = new PairIds(1 << 12);
    check(p, 3, 3000, 3, 100_000);
    expect(p.gridded).toBe(false);
  });
});

describe('two-column partition keys past the grid', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  // id % 1500 × h % 1000 would need 2048 × 1024 cells: the grid hashes part-way through the input.
  const TABLE = `CREATE TABLE pq AS SELECT i AS id, (i * 7919) % 1000003 AS h,
      CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 31) % 97)::float8 END AS v,
      CASE WHEN i % 23 = 0 THEN NULL ELSE (ARRAY['ä', 'b', '日本', 'Ω𝄞'])[1 + i % 4] END AS t
    FROM generate_series(1, 6000) i`;
  beforeAll(async () => {
    pg = await newPglite();
    q = quireConnection(await Database.create(), formatValue);
    await pg.query(TABLE);
    await q.query(TABLE);
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it('agrees with PostgreSQL', async () => {
    const parts = ['id % 1500, h % 1000', 'h % 7, id % 3000', 't, h % 50', 'h % 40, CASE WHEN id % 5 = 0 THEN NULL ELSE h % 3 END'];
    for (const part of parts) {
      for (const [fn, k] of [
        ['row_number', 1],
        ['row_number', 3],
        ['rank', 2],
        ['dense_rank', 2],
      ] as const) {
        const order = fn === 'row_number' ? 'v DESC NULLS LAST, id' : 'v';
        const sql = `SELECT id, rn FROM (SELECT id, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${order}) AS rn FROM pq) x WHERE rn <= ${k} ORDER BY id`;
        const want = await outcomeText(pg, sql);
        await q.query("SET quire.derive_topn = 'on'");
        const got = await outcomeText(q, sql);
        await q.query('RESET quire.derive_topn');
        expect(got, sql).toBe(want);
        expect(want.split('\n').length).toBeGreaterThan(20);
      }
    }
  }, 300_000);
});
