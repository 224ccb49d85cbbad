/**
 * Blocked segment tree over a partition for aggregates without an inverse (min/max, string_agg, float
 * sums): frames whose start moves are answered in O(B + log n) merges instead of re-aggregating the frame.
 *
 * Leaves are blocks of B rows (so a partition of n rows holds about 2n/B accumulator objects, not one
 * per row); a query adds the rows of the partial blocks at both ends one by one and merges the covering
 * tree nodes in between, always in row order, so order-sensitive states (string_agg) stay correct.
 * Based on the idea in Leis et al., "Efficient Processing of Window Functions in Analytical SQL Queries"
 * (VLDB 2015), which DuckDB also uses.
 */
import type { SlidingAccumulator } from '../aggregate/aggregate-function.js';

export const BLOCK = 16;

export class SegmentTree {
  private readonly size: number;
  private readonly nodes: (SlidingAccumulator | null)[];
  private readonly rightStack: SlidingAccumulator[] = [];

  /**
   * Rows [ps, pe) of the partition; addRow(acc, i) feeds row i into acc (and applies FILTER/NULL rules).
   */
  constructor(
    private readonly make: () => SlidingAccumulator,
    private readonly addRow: (acc: SlidingAccumulator, i: number) => void,
    private readonly ps: number,
    private readonly pe: number,
  ) {
    const nb = Math.ceil((pe - ps) / BLOCK);
    let size = 1;
    while (size < nb) size *= 2;
    this.size = size;
    this.nodes = new Array<SlidingAccumulator | null>(2 * size).fill(null);
    for (let k = 0; k < nb; k++) {
      const acc = make();
      const s = ps + k * BLOCK;
      const e = Math.min(pe, s + BLOCK);
      for (let i = s; i < e; i++) addRow(acc, i);
      this.nodes[size + k] = acc;
    }
    for (let k = size - 1; k >= 1; k--) {
      const l = this.nodes[2 * k];
      const r = this.nodes[2 * k + 1];
      if (l === null || l === undefined) continue;
      const acc = make();
      acc.merge(l);
      if (r !== null && r !== undefined) acc.merge(r);
      this.nodes[k] = acc;
    }
  }

  /** Adds rows [s, e) (ps <= s <= e <= pe) to `acc`, in row order. */
  query(acc: SlidingAccumulator, s: number, e: number): void {
    if (s >= e) return;
    const ps = this.ps;
    let b0 = Math.ceil((s - ps) / BLOCK);
    let b1 = Math.floor((e - ps) / BLOCK);
    if (b0 >= b1) {
      for (let i = s; i < e; i++) this.addRow(acc, i);
      return;
    }
    const firstFull = ps + b0 * BLOCK;
    for (let i = s; i < firstFull; i++) this.addRow(acc, i);
    // Standard bottom-up query over blocks [b0, b1): left nodes in order, right nodes collected then reversed.
    const right = this.rightStack;
    right.length = 0;
    let l = b0 + this.size;
    let r = b1 + this.size;
    while (l < r) {
      if (l & 1) acc.merge(this.nodes[l++]!);
      if (r & 1) right.push(this.nodes[--r]!);
      l >>= 1;
      r >>= 1;
    }
    for (let k = right.length - 1; k >= 0; k--) acc.merge(right[k]!);
    const lastFull = ps + b1 * BLOCK;
    for (let i = lastFull; i < e; i++) this.addRow(acc, i);
    void this.pe;
  }
}
