/**
 * Large accumulator doublings served from arrays prepared between batches (growth-reserve.ts): the
 * prepared array is the one the doubling gets, its contents are the old ones plus the fill, and GROUP BY
 * results across several such doublings match PostgreSQL.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Database } from '../../src/index.js';
import { GrowthReserve, withGrowthReserve } from '../../src/functions/aggregate/growth-reserve.js';
import { growF64, growI32, growU8 } from '../../src/functions/aggregate/support.js';
import { startPg } from '../common/pg-helper.js';

describe('GrowthReserve', () => {
  it('hands the prepared array to the next doubling, keeping old values and the fill', () => {
    const reserve = new GrowthReserve();
    let a = new Float64Array(0);
    // Up to 2^18 groups (2 MB of doubles): from then on the next doubling is prepared.
    a = withGrowthReserve(reserve, () => growF64(a, 1 << 18, -0));
    expect(a.length).toBe(1 << 18);
    for (let i = 0; i < a.length; i++) a[i] = i;
    // Not yet near the doubling: nothing is allocated.
    reserve.prepare(1 << 16, 4096);
    expect(reserve.take('f64', 1 << 19)).toBeNull();
    const again = new GrowthReserve();
    let b = withGrowthReserve(again, () => growF64(new Float64Array(0), 1 << 18, -0));
    for (let i = 0; i < b.length; i++) b[i] = i;
    for (let g = (1 << 18) - (1 << 15); g <= 1 << 18; g += 4096) again.prepare(g, 4096);
    const before = b;
    b = withGrowthReserve(again, () => growF64(b, (1 << 18) + 1, -0));
    expect(b).not.toBe(before);
    expect(b.length).toBe(1 << 19);
    expect(b[12345]).toBe(12345);
    expect(b[(1 << 18) - 1]).toBe((1 << 18) - 1);
    expect(Object.is(b[1 << 18], -0)).toBe(true);
    expect(Object.is(b[(1 << 19) - 1], -0)).toBe(true);
  });

  it('serves int and byte arrays, and only an exact kind and length', () => {
    const reserve = new GrowthReserve();
    reserve.expect('i32', 1 << 20, true);
    reserve.expect('u8', 1 << 22, false);
    reserve.prepare(1 << 22, 65536);
    expect(reserve.take('f64', 1 << 21)).toBeNull();
    expect(reserve.take('i32', 1 << 20)).toBeNull();
    const i32 = reserve.take('i32', 1 << 21);
    expect(i32).toBeInstanceOf(Int32Array);
    expect(i32!.length).toBe(1 << 21);
    expect(i32!.every((v) => v === 0)).toBe(true);
    expect(reserve.take('i32', 1 << 21)).toBeNull();
    // Growth through the helpers draws from the reserve when it holds the right array.
    const u = withGrowthReserve(reserve, () => growU8(new Uint8Array(1 << 22).fill(7), (1 << 22) + 1));
    expect(u.length).toBe(1 << 23);
    expect(u[(1 << 22) - 1]).toBe(7);
    expect(u[1 << 22]).toBe(0);
    const g = withGrowthReserve(reserve, () => growI32(new Int32Array(4), 100, -1));
    expect(Array.from(g.subarray(0, 6))).toEqual([0, 0, 0, 0, -1, -1]);
  });
});

describe('GROUP BY over doublings of several accumulators', () => {
  let pg: PGlite;
  const db = Database.create();
  beforeAll(async () => {
    pg = await startPg();
  }, 120_000);
  afterAll(async () => {
    await pg.close();
  });

  // 700,000 groups: every accumulator array doubles past 2^18 and 2^19 groups, the later doublings
  // from prepared arrays. Checksums weight each group's values by its key, so a value moved to another
  // group, lost or left at its fill changes them.
  const sql = `select count(*), sum(c * g), sum(s * (g % 97)), sum(mn * (g % 89)), sum(mx * (g % 83)),
      sum(round(a * 1000)::bigint * (g % 79)), sum(case when b then g % 73 else 0 end), sum(bo * (g % 71)),
      sum(round(f * 100)::bigint * (g % 67)), count(*) filter (where nn is null)
    from (select i % 700000 as g, count(*) as c, sum(i::bigint) as s, min(i) as mn, max(i * 3 % 1000) as mx,
            avg(i % 1000) as a, bool_and(i % 5 <> 0) as b, bit_or(i % 64) as bo, sum((i % 7)::float8 / 4) as f,
            max(case when i % 3 = 0 then i end) as nn
          from generate_series(1, 1500000) i group by 1) x`;

  it('matches PostgreSQL, its later doublings served from prepared arrays', async () => {
    const take = vi.spyOn(GrowthReserve.prototype, 'take');
    const ours = (await (await db).query(sql)).rows[0]!.map((v) => String(v));
    const served = take.mock.results.filter((r) => r.value !== null).length;
    take.mockRestore();
    // Fourteen arrays (count, sums, flags, ...) double at 2^18 and 2^19 groups.
    expect(served).toBeGreaterThanOrEqual(10);
    const theirs = (await pg.query<unknown[]>(sql, [], { rowMode: 'array' })).rows[0]!.map((v) => String(v));
    expect(ours).toEqual(theirs);
  }, 120_000);
});
