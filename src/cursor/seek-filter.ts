/**
 * The seek step of a page as a physical operator: keeps rows that sort after (or, inclusive, at or
 * after) the cursor's key tuple. It is the same predicate as keyset.ts's seekPredicate, but decided
 * by the sort comparator itself (compileComparator, as the Top-N above it uses), for two reasons:
 * the predicate and the order cannot disagree on any value (NaN, -0, NULL placement, collation),
 * and one generated comparison per row is several times cheaper than evaluating the expanded OR
 * expression, which is what keeps a deep page as cheap as page 1 (which has no seek at all).
 *
 * With `limit` (the Top-N's k above it) it also drops rows that cannot reach the Top-N, before
 * copying them: once k forwarded rows have a first key at or before T, a row whose first key sorts
 * strictly after T cannot be among the first k. T is kept with a bounded max-heap of first-key
 * values. Page 1 needs no copy (the Top-N reads the scan's batches as they are), but a seek keeps
 * only part of each batch, and copying ~90% of every batch of a deep-ish page cost more than the
 * whole page-1 Top-N; with the bound only about k·ln(n/k) rows are ever copied. Only numeric first
 * keys stored in typed arrays take part (as in TopN's own boundary prefilter); others forward all rows.
 */
import type { Value } from '../common/types.js';
import { ColumnBuilder, takeBatch, type Batch } from '../common/column.js';
import { yieldIfDue, type ExecContext } from '../execution/context.js';
import { PhysicalOperator } from '../physical/operator.js';
import { compileComparator, describeKeys, type Comparator, type KeyView, type SortKey } from '../physical/sort-key.js';

export class SeekFilter extends PhysicalOperator {
  readonly name = 'SeekFilter';
  private readonly cmp: Comparator;
  private readonly keyView: KeyView;

  constructor(
    readonly input: PhysicalOperator,
    readonly keys: readonly SortKey[],
    readonly after: readonly Value[],
    readonly inclusive: boolean,
    /** k of the Top-N this feeds, or 0 for no bound. */
    readonly limit = 0,
  ) {
    super(input.schema);
    this.cmp = compileComparator(keys);
    // A one-row batch as wide as the input, holding the key values at the key columns.
    const columns = input.schema.map((f, c) => {
      const b = new ColumnBuilder(f.type, 1);
      const k = keys.findIndex((x) => x.col === c);
      b.push(k >= 0 ? after[k]! : null);
      return b.finish();
    });
    this.keyView = this.cmp.view({ columns, length: 1 });
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    return `${describeKeys(this.keys, this.schema.map((f) => f.name))} ${this.inclusive ? '>=' : '>'} cursor key`;
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const min = this.inclusive ? 0 : 1;
    const first = this.keys[0]!;
    const bound = this.limit > 0 ? new FirstKeyBound(this.limit, first.desc, first.nullsFirst) : null;
    let sel = new Uint32Array(0);
    for await (const b of this.input.execute(ctx)) {
      await yieldIfDue(ctx);
      const n = b.length;
      if (n === 0) continue;
      const rc = this.cmp.cross(this.cmp.view(b), this.keyView);
      if (sel.length < n) sel = new Uint32Array(n);
      let k = 0;
      const col = b.columns[first.col]!;
      const data = col.data;
      if (bound !== null && (data instanceof Float64Array || data instanceof Int32Array)) {
        const nulls = col.nulls;
        // The first key decides most rows without the full comparator: strictly before or after
        // the cursor's first value, when both are ordinary finite numbers.
        const kv = this.after[0];
        const fast = typeof kv === 'number' && Number.isFinite(kv);
        const desc = first.desc;
        for (let i = 0; i < n; i++) {
          const isNull = nulls !== null && nulls[i] === 1;
          const v = isNull ? null : data[i]!;
          if (!bound.could(v)) continue;
          if (fast && v !== null && Number.isFinite(v)) {
            const d = desc ? (kv as number) - v : v - (kv as number);
            if (d < 0 || (d === 0 && rc(i, 0) < min)) continue;
          } else if (rc(i, 0) < min) continue;
          bound.add(v);
          sel[k++] = i;
        }
      } else {
        for (let i = 0; i < n; i++) if (rc(i, 0) >= min) sel[k++] = i;
      }
      if (k === n) yield b;
      else if (k > 0) yield takeBatch(b, sel, k);
    }
  }
}

/**
 * The k-th best first-key value forwarded so far, as a max-heap of "sort positions" (the value,
 * negated for DESC; NULL and NaN mapped to ±Infinity by where they sort). Ties with the bound are
 * always admitted, so mapping NaN and +Infinity (or NULL) to the same position only admits more.
 */
class FirstKeyBound {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(
    private readonly k: number,
    private readonly desc: boolean,
    private readonly nullsFirst: boolean,
  ) {
    this.heap = new Float64Array(k);
  }

  private position(v: number | null): number {
    if (v === null) return this.nullsFirst ? -Infinity : Infinity;
    if (v !== v) return this.desc ? -Infinity : Infinity; // NaN sorts above every number
    return this.desc ? -v : v;
  }

  /** False when a row with first key v cannot be among the first k. */
  could(v: number | null): boolean {
    return this.size < this.k || this.position(v) <= this.heap[0]!;
  }

  /** Records a forwarded row's first key. */
  add(v: number | null): void {
    this.admit(this.position(v));
  }

  private admit(p: number): boolean {
    const h = this.heap;
    if (this.size < this.k) {
      let i = this.size++;
      h[i] = p;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (h[up]! >= h[i]!) break;
        const t = h[up]!;
        h[up] = h[i]!;
        h[i] = t;
        i = up;
      }
      return true;
    }
    const top = h[0]!;
    if (p > top) return false;
    if (p < top) {
      // Replace the maximum and sift down.
      h[0] = p;
      let i = 0;
      const n = this.size;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && h[r]! > h[l]! ? r : l;
        if (h[c]! <= h[i]!) break;
        const t = h[c]!;
        h[c] = h[i]!;
        h[i] = t;
        i = c;
      }
    }
    return true;
  }
}
