/**
 * Hand-written per-partition top-k for the floor engine (see types.ts): one pass over dense partition ids,
 * a flat Int32Array of k row indexes per partition kept sorted by insertion (k is small), and each full
 * partition's k-th row as the reject test. Order: key ascending (or descending), then id ascending.
 */
export function topKPerPartition(part: Int32Array, partitions: number, key: Float64Array, desc: boolean, id: Int32Array, k: number): { best: Int32Array; count: Int32Array } {
  const best = new Int32Array(partitions * k);
  const count = new Int32Array(partitions);
  const sign = desc ? -1 : 1;
  // worst[p]: sign-adjusted key of partition p's k-th row, +Infinity until it has k rows
  const worst = new Float64Array(partitions).fill(Infinity);
  const n = part.length;
  for (let i = 0; i < n; i++) {
    const p = part[i]!;
    const x = key[i]! * sign;
    const w = worst[p]!;
    if (x > w) continue;
    const base = p * k;
    const c = count[p]!;
    if (x === w && id[i]! > id[best[base + k - 1]!]!) continue;
    let at = c < k ? c : k - 1;
    if (c < k) count[p] = c + 1;
    while (at > 0) {
      const o = best[base + at - 1]!;
      const ox = key[o]! * sign;
      if (ox < x || (ox === x && id[o]! < id[i]!)) break;
      best[base + at] = o;
      at--;
    }
    best[base + at] = i;
    if (count[p] === k) worst[p] = key[best[base + k - 1]!]! * sign;
  }
  return { best, count };
}

/** Calls row(i) for every kept row index, partition by partition. */
export function keptRows(r: { best: Int32Array; count: Int32Array }, k: number, row: (i: number) => unknown[]): unknown[][] {
  const out: unknown[][] = [];
  for (let p = 0; p < r.count.length; p++) for (let j = 0; j < r.count[p]!; j++) out.push(row(r.best[p * k + j]!));
  return out;
}
