/**
 * The facts storage records about stored int4 / float8 columns (execution/column-stats.ts) when a
 * table grows by one-row commits into its open batch: the versions of that batch share one record,
 * widened by each commit's rows. Every batch any commit published must still get a range that bounds
 * all of its own values, and block bounds equal to those computed from its rows, however many
 * commits, rolled-back writes into the same slots and copies into larger buffers came after.
 */
import { describe, expect, it } from 'vitest';
import type { Batch } from '../../src/common/column.js';
import { Database } from '../../src/index.js';
import { BLOCK_ROWS, blockBounds, intRange } from '../../src/execution/column-stats.js';

/** The min and max of the non-NULL values of column `ci`'s first n rows, NaN when a block holds NULL or NaN. */
function expectedBlocks(b: Batch, ci: number, n: number): { min: number[]; max: number[] } {
  const c = b.columns[ci]!;
  const min: number[] = [];
  const max: number[] = [];
  for (let s = 0; s < n; s += BLOCK_ROWS) {
    let lo = Infinity;
    let hi = -Infinity;
    let unknown = false;
    for (let i = s; i < Math.min(n, s + BLOCK_ROWS); i++) {
      const x = c.data[i] as number;
      if ((c.nulls !== null && c.nulls[i] === 1) || Number.isNaN(x)) unknown = true;
      else {
        lo = Math.min(lo, x);
        hi = Math.max(hi, x);
      }
    }
    min.push(unknown ? NaN : lo);
    max.push(unknown ? NaN : hi);
  }
  return { min, max };
}

describe('column facts of a table grown by one-row commits', () => {
  it('every published batch keeps a range bounding its values and exact block bounds', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE t (id int, v float8)');
    const t = db.catalog.getMemoryTable('t');
    const held: Batch[] = [];
    for (let i = 0; i < 900; i++) {
      // Values that go down, then up, so later commits widen the shared range both ways.
      const id = i % 5 === 4 ? null : (i * 7919) % 1000 - (i < 300 ? i : 0);
      const v = i % 17 === 0 ? 'NaN' : String(i / 4);
      if (i % 2 === 0) await db.query(`INSERT INTO t VALUES ($1, $2)`, [id, v]);
      else await db.query(`INSERT INTO t VALUES (${id ?? 'NULL'}, '${v}')`);
      if (i % 89 === 3) {
        // Rows written into the open batch's slots and rolled back: no published range may take them in.
        await db.query('BEGIN');
        await db.query('INSERT INTO t VALUES (2000000000, 1e300)');
        await db.query('ROLLBACK');
      }
      if (i % 37 === 0) held.push(t.committedSnapshot().at(-1)!);
    }
    held.push(t.committedSnapshot().at(-1)!);
    let checked = 0;
    for (const b of held) {
      const c = b.columns[0]!;
      const r = intRange(c);
      expect(r, 'int4 column has a range').toBeDefined();
      for (let i = 0; i < b.length; i++) {
        if (c.nulls !== null && c.nulls[i] === 1) continue;
        const x = c.data[i] as number;
        expect(x).toBeGreaterThanOrEqual(r!.min);
        expect(x).toBeLessThanOrEqual(r!.max);
        checked++;
      }
      // The shared range may be loose for earlier versions, but never takes in rolled-back rows.
      expect(r!.max).toBeLessThan(2000000000);
      for (const ci of [0, 1]) {
        const bb = blockBounds(b.columns[ci]!, b.length);
        expect(bb, `block bounds of column ${ci}`).not.toBeNull();
        const want = expectedBlocks(b, ci, b.length);
        expect([...bb!.min]).toEqual(want.min);
        expect([...bb!.max]).toEqual(want.max);
      }
    }
    expect(checked).toBeGreaterThan(1000);
    // Block bounds asked of an earlier version after a later one (the shared cache) are still its own.
    const first = held[1]!;
    const again = blockBounds(first.columns[1]!, first.length)!;
    expect([...again.max]).toEqual(expectedBlocks(first, 1, first.length).max);
  });
});
