/**
 * Loser tree (tournament tree) over k sources: the winner is the source whose current row comes first;
 * after the winner advances, replay() re-runs only the matches on its leaf-to-root path, log2(k)
 * comparisons per row instead of the k - 1 of a linear scan for the minimum.
 *
 * Layout: leaves are the implicit nodes k..2k-1 (source s is node k + s), internal node i (1..k-1) keeps
 * the loser of the match between its children 2i and 2i+1, and tree[0] keeps the overall winner. Works
 * for any k >= 1, not only powers of two.
 *
 * `beats(a, b)` must be a strict total order on sources (break key ties by source index for a stable
 * merge) and must rank exhausted sources last.
 */
export class LoserTree {
  private readonly tree: Int32Array;

  constructor(
    readonly k: number,
    private readonly beats: (a: number, b: number) => boolean,
  ) {
    this.tree = new Int32Array(Math.max(1, k));
    if (k > 1) this.tree[0] = this.build(1);
  }

  private build(node: number): number {
    if (node >= this.k) return node - this.k;
    const l = this.build(2 * node);
    const r = this.build(2 * node + 1);
    if (this.beats(l, r)) {
      this.tree[node] = r;
      return l;
    }
    this.tree[node] = l;
    return r;
  }

  get winner(): number {
    return this.tree[0]!;
  }

  /** Call after the winner's current row changed (advanced, refilled or exhausted). */
  replay(): void {
    const t = this.tree;
    let w = t[0]!;
    for (let node = (w + this.k) >> 1; node >= 1; node >>= 1) {
      const other = t[node]!;
      if (this.beats(other, w)) {
        t[node] = w;
        w = other;
      }
    }
    t[0] = w;
  }
}
