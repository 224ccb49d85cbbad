/**
 * A table remembers the last lists of its batches that it made by appending (small commits into its
 * open batch, new batches), so the unique index and the log tell that the list only grew since they
 * last looked without comparing every batch. Whatever it remembers must agree with the comparison
 * itself, for the table and a transaction's copy of it, through commits, rewrites and rebases; and
 * after one-row commits the answer must come from what it remembers (the per-commit walk over every
 * batch is what it replaces).
 */
import { describe, expect, it } from 'vitest';
import { ColumnBuilder, type Batch } from '../../src/common/column.js';
import { T } from '../../src/common/types.js';
import { listGrewFrom, MemoryTable } from '../../src/storage/memory-table.js';

const SCHEMA = [
  { name: 'id', type: T.int4 },
  { name: 's', type: T.text },
];

let next = 0;
function batch(rows: number): Batch {
  const ids = new ColumnBuilder(T.int4, rows);
  const texts = new ColumnBuilder(T.text, rows);
  for (let i = 0; i < rows; i++) {
    ids.push(next);
    texts.push(next % 7 === 0 ? null : `r${next}`);
    next++;
  }
  return { columns: [ids.finish(), texts.finish()], length: rows };
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('append history of a table', () => {
  it('agrees with comparing the lists, for the table and its transaction copies', () => {
    const wrong: string[] = [];
    let remembered = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rnd = random(seed);
      const t = new MemoryTable('t', SCHEMA);
      let copy = t.cloneForTransaction();
      const lists: (readonly Batch[])[] = [t.snapshot()];
      for (let step = 0; step < 400; step++) {
        const r = rnd();
        if (r < 0.55) t.appendCommitted([batch(1 + Math.floor(rnd() * 3))]);
        else if (r < 0.62) t.appendCommitted([batch(600)]);
        else if (r < 0.7) t.appendBatch(batch(1 + Math.floor(rnd() * 5)));
        else if (r < 0.75) {
          // A rewrite (UPDATE, DELETE): some batches kept, others dropped.
          t.replaceAll(t.snapshot().filter(() => rnd() < 0.8) as Batch[]);
        } else if (r < 0.85) copy.appendBatch(batch(1 + Math.floor(rnd() * 2)));
        else if (r < 0.92) copy.rebase(t.snapshot());
        else copy = t.cloneForTransaction();
        lists.push(t.snapshot(), copy.snapshot());
        const recent = lists.slice(-24);
        for (let i = 0; i < recent.length; i++) {
          for (let j = 0; j < recent.length; j++) {
            const a = recent[i]!;
            const b = recent[j]!;
            const truth = listGrewFrom(a, b);
            const told = [t.grewFrom(a, b), copy.grewFrom(a, b), t.appendedSince(a, b) ? true : truth, copy.appendedSince(a, b) ? true : truth];
            if (told.some((x) => x !== truth)) wrong.push(`seed ${seed} step ${step} lists ${i},${j}: ${truth} but ${told.join(' ')}`);
            if (truth && a !== b && (t.appendedSince(a, b) || copy.appendedSince(a, b))) remembered++;
          }
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    // The history did answer, not only the comparison.
    expect(remembered).toBeGreaterThan(1000);
  });

  it('answers from its history after one-row commits, and not across a rewrite', () => {
    const t = new MemoryTable('t', SCHEMA);
    for (let i = 0; i < 20; i++) t.appendBatch(batch(4096));
    let before = t.snapshot();
    for (let i = 0; i < 3000; i++) {
      t.appendCommitted([batch(1)]);
      const now = t.snapshot();
      expect(t.appendedSince(now, before)).toBe(true);
      before = now;
    }
    // A few commits by others between two looks: still within what the table remembers.
    const older = t.snapshot();
    for (let i = 0; i < 5; i++) t.appendCommitted([batch(1)]);
    expect(t.appendedSince(t.snapshot(), older)).toBe(true);
    const copy = t.cloneForTransaction();
    copy.appendBatch(batch(2));
    expect(copy.appendedSince(copy.snapshot(), older)).toBe(true);
    // After a rewrite the history is gone (it held batches the table no longer holds).
    const rewritten = t.snapshot();
    t.replaceAll(rewritten.slice(1) as Batch[]);
    expect(t.appendedSince(t.snapshot(), rewritten)).toBe(false);
    expect(t.grewFrom(t.snapshot(), rewritten)).toBe(false);
    const afterRewrite = t.snapshot();
    t.appendCommitted([batch(1)]);
    expect(t.appendedSince(t.snapshot(), afterRewrite)).toBe(true);
    expect(t.appendedSince(t.snapshot(), older)).toBe(false);
  });
});
