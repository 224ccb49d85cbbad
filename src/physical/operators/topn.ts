/**
 * TopN: ORDER BY … LIMIT k OFFSET m [WITH TIES] without sorting the whole input.
 *
 * Only K = offset + limit rows can reach the output (plus, WITH TIES, the rows equal to the K-th), so we
 * keep at most that many and compare every incoming row against the current boundary (the worst kept row)
 * before copying anything: once the boundary has settled almost every row costs one comparison.
 *
 * Two strategies:
 *  - heap: a bounded max-heap of K rows stored columnar in fixed-capacity arrays. Best for small K.
 *  - select: buffer surviving rows; when the buffer reaches ~2K rows, introselect the K-th row, keep the
 *    K best (in arrival order) and make the K-th the new boundary. Every compaction discards at least
 *    half the buffer, so the total work is O(n) with O(K) memory, with no heap sifting — this is what makes
 *    LIMIT 10 OFFSET 500000 cost one pass plus linear selection. At the end we select the offset boundary
 *    too and sort only rows [offset, K).
 *
 * Both are deterministic: equal keys are ordered by arrival (a row arriving later never displaces an equal one).
 */
import { QuireError } from '../../common/errors.js';
import { Numeric } from '../../common/numeric.js';
import { storageKind, T, type DataType, type Value } from '../../common/types.js';
import {
  allocData,
  BATCH_SIZE,
  ColumnBuilder,
  concatBatches,
  deadColumn,
  makeColumn,
  scaledNumbers,
  takeBatch,
  type Batch,
  type Column,
  type ColumnData,
} from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { BLOCK_SHIFT, blockBounds } from '../../execution/column-stats.js';
import { batchBytes, queryMemory, type MemoryReservation } from '../../execution/memory-pool.js';
import { anchorShape } from '../../common/shape-anchor.js';
import type { TextDictionary } from '../../common/text-dictionary.js';
import { PhysicalOperator, type ExplainInputs, type ExplainNode } from '../operator.js';
import { pgSortKeys } from '../explain-pg-expr.js';
import {
  compileComparator,
  describeKeys,
  highFlag,
  keyCategory,
  type Comparator,
  type KeyView,
  type RowCompare,
  type SortKey,
} from '../sort-key.js';
import { ExternalSort } from './external-sort.js';
import { Filter } from './filter.js';
import { Replay } from './replay.js';
import { identity } from './sort.js';

export type TopNStrategy = 'heap' | 'select';

/** Above this many kept rows the heap's O(log K) sifting and random access lose to buffered selection. */
export const HEAP_MAX_ROWS = 1024;

export class TopN extends PhysicalOperator {
  readonly name = 'TopN';
  readonly strategy: TopNStrategy;
  private readonly cmp: Comparator;

  constructor(
    readonly input: PhysicalOperator,
    readonly keys: readonly SortKey[],
    readonly limit: number,
    readonly offset: number = 0,
    readonly withTies: boolean = false,
    strategy?: TopNStrategy,
  ) {
    super(input.schema);
    if (!Number.isInteger(limit) || limit < 0) throw new QuireError('2201W', 'LIMIT must not be negative');
    if (!Number.isInteger(offset) || offset < 0) throw new QuireError('2201X', 'OFFSET must not be negative');
    this.cmp = compileComparator(keys);
    this.strategy = strategy ?? (offset + limit <= HEAP_MAX_ROWS ? 'heap' : 'select');
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  /** Kept rows leave in key order on every path (heap, selection, spilled sort). */
  override outputOrdering(): readonly SortKey[] {
    return this.keys;
  }

  describe(): string {
    const names = this.schema.map((f) => f.name);
    return (
      `keys: ${describeKeys(this.keys, names)}, limit: ${this.limit}, offset: ${this.offset}` +
      `${this.withTies ? ', with ties' : ''}, strategy: ${this.strategy}`
    );
  }
  /** PostgreSQL's words for a Top-N: a Limit over a Sort that keeps only the rows the limit needs. */
  override explainNode(inputs: ExplainInputs): ExplainNode {
    return { label: 'Limit', details: [], childWrappers: [{ label: 'Sort', details: [`Sort Key: ${pgSortKeys(this.keys, inputs[0] ?? [])}`], rowsOf: 'self' }] };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    // LIMIT 0 returns nothing, WITH TIES included (there is no K-th row to tie with).
    if (this.limit === 0) return;
    const types = this.schema.map((f) => f.type);
    const K = this.offset + this.limit;
    // The select strategy buffers up to about 2K rows (K = offset + limit, large for deep OFFSETs)
    // under a reservation; when it cannot grow, the rows go through an ExternalSort instead (which
    // spills). The heap keeps at most HEAP_MAX_ROWS rows.
    const res = this.strategy === 'heap' ? null : queryMemory(ctx).pool.register('TopN', true);
    let kept: Kept | Spilled | null;
    try {
      kept = res === null ? await this.runHeap(ctx, types, K) : await this.runSelect(ctx, types, K, res);
    } finally {
      res?.free();
    }
    if (kept === null) return;
    if ('rest' in kept) {
      yield* this.runSorted(ctx, kept);
      return;
    }
    const { batch, order, end } = kept;
    for (let s = kept.start ?? this.offset; s < end; s += BATCH_SIZE) {
      const e = Math.min(end, s + BATCH_SIZE);
      yield takeBatch(batch, order.subarray(s, e), e - s);
    }
  }

  // ---------------------------------------------------------------------------------------------------
  // heap strategy

  private async runHeap(ctx: ExecContext, types: readonly DataType[], K: number): Promise<Kept | null> {
    // The per-row work lives in a synchronous class: V8 optimizes a plain method called once per batch far
    // better than a loop inside an async function that suspends at every batch.
    const heap = new BoundedHeap(this.cmp, this.keys, types, K, this.withTies);
    const input = this.input;
    if (input instanceof Filter) {
      // A filter's rows are offered where they lie (see consumeSelected): WHERE id > $last ORDER BY id
      // LIMIT n, a cursor's next page, passes most of the table through its filter.
      for await (const s of input.selections(ctx)) {
        await yieldIfDue(ctx);
        if (s.sel === null) heap.consume(s.batch);
        else if (!heap.consumeSelected(s.batch, s.sel, s.n)) heap.consume(takeBatch(s.batch, s.sel, s.n));
      }
      return heap.finish(this.offset);
    }
    for await (const b of input.execute(ctx)) {
      await yieldIfDue(ctx);
      if (b.length > 0) heap.consume(b);
    }
    return heap.finish(this.offset);
  }

  // ---------------------------------------------------------------------------------------------------
  // select strategy

  /**
   * Memory ran out: everything buffered so far (in arrival order) and the rest of the input are sorted
   * by an ExternalSort, which is stable, so ties keep arrival order as in memory; the OFFSET is skipped
   * and LIMIT rows (and WITH TIES their peers) are taken from the sorted stream.
   */
  private async *runSorted(ctx: ExecContext, spilled: Spilled): AsyncGenerator<Batch> {
    this.metrics.extra['strategy'] = 'sort (spilled)';
    const sorted = new ExternalSort(new Replay([...this.input.schema], spilled.buffer, spilled.rest), this.keys);
    const cmp = this.cmp;
    let skip = this.offset;
    let left = this.limit;
    let last: KeyView | null = null;
    for await (const b of sorted.execute(ctx)) {
      let start = 0;
      if (skip > 0) {
        start = Math.min(skip, b.length);
        skip -= start;
        if (start === b.length) continue;
      }
      let end = start;
      if (left > 0) {
        end = Math.min(b.length, start + left);
        left -= end - start;
        if (left === 0) last = cmp.view(takeBatch(b, [end - 1], 1));
      }
      if (left === 0 && this.withTies && last !== null) {
        const bc = cmp.cross(cmp.view(b), last);
        while (end < b.length && bc(end, 0) === 0) end++;
      }
      if (end > start) yield start === 0 && end === b.length ? b : takeBatch(b, identity(end).subarray(start), end - start);
      if (left === 0 && (!this.withTies || end < b.length)) break;
    }
    for (const [k, v] of Object.entries(sorted.metrics.extra)) if (k !== 'sort method') this.metrics.extra[k] = v;
  }

  private async runSelect(ctx: ExecContext, types: readonly DataType[], K: number, res: MemoryReservation): Promise<Kept | Spilled | null> {
    const cmp = this.cmp;
    const withTies = this.withTies;
    // Buffered batches are held by reference; selection works on their key columns alone (concatenated
    // with placeholders for the rest), and only the surviving rows (compaction) or the output rows (end)
    // are gathered with every column. Copying whole wide rows just to discard most of them was the
    // dominant cost of deep OFFSETs.
    const isKey = types.map((_, c) => this.keys.some((k) => k.col === c));
    const keysOnly = (b: Batch): Batch => ({ columns: b.columns.map((c, i) => (isKey[i] ? c : deadColumn(c.type))), length: b.length });
    let buffer: Batch[] = [];
    let buffered = 0;
    let boundary: KeyView | null = null;
    // The boundary's first key when it is text usable by the prefilter (see BoundedHeap.rootText).
    let boundaryText: string | null = null;
    const key0 = this.keys[0]!;
    const textLed = keyCategory(key0.type) === 'text';
    let threshold = Math.max(2 * K, K + BATCH_SIZE);

    const compact = (): void => {
      const all = concatBatches(types, buffer.map(keysOnly));
      const n = all.length;
      const rc = cmp.rows(cmp.view(all));
      const total: RowCompare = (a, b) => rc(a, b) || a - b;
      const perm = identity(n);
      introselect(perm, 0, n, K - 1, total);
      const keep = new Uint8Array(n);
      for (let k = 0; k < K; k++) keep[perm[k]!] = 1;
      const edge = perm[K - 1]!;
      if (withTies) for (let k = K; k < n; k++) if (rc(perm[k]!, edge) === 0) keep[perm[k]!] = 1;
      // Survivors stay in arrival order, so row index remains the arrival tie-breaker.
      const sel = new Uint32Array(n);
      let w = 0;
      for (let r = 0; r < n; r++) if (keep[r] === 1) sel[w++] = r;
      const survivors = gatherRows(types, buffer, sel, w);
      boundary = cmp.view(takeBatch(all, [edge], 1));
      if (textLed) {
        const c = all.columns[key0.col]!;
        const v = c.nulls !== null && c.nulls[edge] === 1 ? null : (c.data as Value[])[edge];
        boundaryText = typeof v === 'string' && highFlag(v) === 0 ? v : null;
      }
      buffer = [survivors];
      buffered = w;
      // Only the survivors stay: the reservation shrinks to them (it was checked on the way up).
      res.tryResize(batchBytes(survivors));
      // Ties can keep the buffer from shrinking; grow the threshold so each compaction halves it.
      threshold = Math.max(threshold, 2 * w);
    };

    const input = this.input.execute(ctx);
    let handedOff = false;
    try {
      for (;;) {
        const r = await input.next();
        if (r.done) break;
        const b = r.value;
        await yieldIfDue(ctx);
        const m = b.length;
        if (m === 0) continue;
        let kept = b;
        if (boundary !== null) {
          const sel = new Uint32Array(m);
          let w = 0;
          const kc = b.columns[key0.col]!;
          if (boundaryText !== null && Array.isArray(kc.data)) {
            // Rows whose first key is strictly worse than the boundary's cannot survive: only the others
            // are compared in full (and the batch's key view is built only if there are any).
            const cand = textCandidates(kc.data, m, kc.nulls, boundaryText, key0.desc, sel);
            if (cand > 0) {
              const bc = cmp.cross(cmp.view(b), boundary!);
              for (let k = 0; k < cand; k++) {
                const i = sel[k]!;
                const c = bc(i, 0);
                if (c < 0 || (withTies && c === 0)) sel[w++] = i;
              }
            }
          } else {
            const bc = cmp.cross(cmp.view(b), boundary);
            if (withTies) {
              for (let i = 0; i < m; i++) if (bc(i, 0) <= 0) sel[w++] = i;
            } else {
              for (let i = 0; i < m; i++) if (bc(i, 0) < 0) sel[w++] = i;
            }
          }
          if (w === 0) continue;
          if (w < m) kept = takeBatch(b, sel, w);
        }
        buffer.push(kept);
        buffered += kept.length;
        if (!res.tryGrow(batchBytes(kept))) {
          handedOff = true;
          return { buffer, rest: input };
        }
        if (buffered >= threshold) compact();
      }
    } finally {
      if (!handedOff) await input.return(undefined);
    }
    if (buffered <= this.offset) return null;
    const all = concatBatches(types, buffer.map(keysOnly));
    const n = all.length;
    const rc = cmp.rows(cmp.view(all));
    const total: RowCompare = (a, b) => rc(a, b) || a - b;
    let perm = identity(n);
    let end = Math.min(K, n);
    const vals = withTies ? null : numericKeys(this.keys, all);
    if (K < n && vals !== null) {
      introselectNum(perm, 0, n, K - 1, vals);
    } else if (K < n) {
      introselect(perm, 0, n, K - 1, total);
      if (withTies) {
        // Rows past K that equal the K-th row, in arrival order (= their (key, index) order).
        const edge = perm[K - 1]!;
        const extra: number[] = [];
        for (let k = K; k < n; k++) if (rc(perm[k]!, edge) === 0) extra.push(perm[k]!);
        extra.sort((a, b) => a - b);
        for (let k = 0; k < extra.length; k++) perm[K + k] = extra[k]!;
        end = K + extra.length;
      }
    }
    if (this.offset > 0 && this.offset < Math.min(K, n)) {
      if (vals !== null) introselectNum(perm, 0, Math.min(K, n), this.offset, vals);
      else introselect(perm, 0, Math.min(K, n), this.offset, total);
    }
    cmp.sort(perm.subarray(this.offset, Math.min(K, n)), cmp.view(all), true);
    if (end < perm.length) perm = perm.subarray(0, end);
    // Gather just the emitted rows [offset, end), in arrival order, and express the output order over them.
    const out = perm.subarray(this.offset, end);
    const m = out.length;
    const asc = Uint32Array.from(out).sort();
    const batch = gatherRows(types, buffer, asc, m);
    const order = new Uint32Array(m);
    for (let j = 0; j < m; j++) order[j] = lowerBound(asc, out[j]!);
    return { batch, order, end: m, start: 0 };
  }
}

/**
 * Bounded max-heap of the K best rows, stored columnar in a RowStore; ordered by (key, arrival), a total
 * order, so the result does not depend on sift details.
 */
class BoundedHeap {
  private readonly store: RowStore;
  private readonly heap: Int32Array; // heap position -> store slot; slots fill 0..count-1
  private readonly seq: Float64Array; // arrival number of the row in each slot (tie-breaker)
  private count = 0;
  private arrival = 0;
  private storeVersion = -1;
  private sc: RowCompare = () => 0; // store slot vs store slot, keys only
  private readonly ties: TieList | null;
  /** Storage of the first key when it allows the boundary prefilter (see consume), else null. */
  private readonly pre: 'f64' | 'i32' | 'text' | 'numeric' | null;
  private readonly desc: boolean;
  /**
   * Dictionary-coded text keys: the dictionary's text-order ranks and the boundary's rank, so the
   * prefilter compares two integers a row instead of two strings (see codeBoundary).
   */
  private codeDict: TextDictionary | null = null;
  private codeRanks: Int32Array | null = null;
  private codeRoot: string | null = null;
  private codeRootRank = -1;

  constructor(
    private readonly cmp: Comparator,
    readonly keys: readonly SortKey[],
    private readonly types: readonly DataType[],
    private readonly K: number,
    private readonly withTies: boolean,
  ) {
    this.store = new RowStore(types, K, keys);
    this.heap = new Int32Array(K);
    this.seq = new Float64Array(K);
    this.ties = withTies ? new TieList(types) : null;
    const cat = keyCategory(keys[0]!.type);
    const kind = storageKind(keys[0]!.type);
    this.pre =
      (cat === 'num' || cat === 'float') && (kind === 'f64' || kind === 'i32') ? kind : cat === 'text' ? 'text' : keys[0]!.type.name === 'numeric' ? 'numeric' : null;
    this.desc = keys[0]!.desc;
  }

  private refresh(): void {
    if (this.storeVersion !== this.store.version) {
      this.storeVersion = this.store.version;
      this.sc = this.cmp.rows(this.store.view);
    }
  }

  private greater(a: number, b: number): boolean {
    const c = this.sc(a, b);
    return c > 0 || (c === 0 && this.seq[a]! > this.seq[b]!);
  }

  private siftUp(pos: number): void {
    const heap = this.heap;
    const s = heap[pos]!;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      const p = heap[parent]!;
      if (!this.greater(s, p)) break;
      heap[pos] = p;
      pos = parent;
    }
    heap[pos] = s;
  }

  private siftDown(pos: number): void {
    const heap = this.heap;
    const count = this.count;
    const s = heap[pos]!;
    for (;;) {
      let child = 2 * pos + 1;
      if (child >= count) break;
      if (child + 1 < count && this.greater(heap[child + 1]!, heap[child]!)) child++;
      const c = heap[child]!;
      if (!this.greater(c, s)) break;
      heap[pos] = c;
      pos = child;
    }
    heap[pos] = s;
  }

  /**
   * First key of the boundary (root) row as a number usable for the prefilter, or null when the prefilter
   * cannot be used (no typed first key, or the root's first key is NULL or NaN).
   */
  private rootKey(): number | null {
    if (this.pre === null || this.pre === 'text' || this.pre === 'numeric') return null;
    const slot = this.heap[0]!;
    const col = this.keys[0]!.col;
    if (this.store.nulls[col]![slot] === 1) return null;
    const d = this.store.data[col]!;
    if (Array.isArray(d)) return null;
    const v = d[slot]!;
    return v === v ? v : null;
  }

  /**
   * For a numeric first key: the bound past which a row's approximate value (numericApprox) is surely
   * worse than the boundary's, or null (NULL or NaN boundary, or no such bound).
   */
  private rootNumeric(): number | null {
    const slot = this.heap[0]!;
    const col = this.keys[0]!.col;
    if (this.store.nulls[col]![slot] === 1) return null;
    const v = (this.store.data[col] as Value[])[slot];
    if (!(v instanceof Numeric)) return null;
    const r = numericApprox(v);
    const bound = this.desc ? r - Math.abs(r) * APPROX_MARGIN : r + Math.abs(r) * APPROX_MARGIN;
    return bound === bound ? bound : null;
  }

  /**
   * The boundary row's first key for the text prefilter, or null (NULL, or a string holding a code unit
   * >= 0xD800). Without such units in the boundary, UTF-16 unit order (JavaScript's `<`) agrees with
   * code-point order on every comparison against it: at the first differing unit the boundary's unit is
   * below the surrogates, and any unit >= 0xD800 encodes a larger code point.
   */
  private rootText(): string | null {
    const slot = this.heap[0]!;
    const col = this.keys[0]!.col;
    if (this.store.nulls[col]![slot] === 1) return null;
    const v = (this.store.data[col] as Value[])[slot];
    return typeof v === 'string' && highFlag(v) === 0 ? v : null;
  }

  /**
   * The boundary's rank among `dict`'s entries, or -1 when ranks do not apply: the boundary string is
   * not an entry, or the dictionary is large and not ranked yet (ranking sorts it, which a Top-N over
   * a million distinct strings should not pay for). Ranks order entries as compareStrings does, which
   * agrees with the string prefilter's `<` against a boundary without surrogates (rootText).
   */
  private codeBoundary(dict: TextDictionary, rt: string): number {
    if (dict !== this.codeDict || this.codeRanks === null || this.codeRanks.length !== dict.size) {
      this.codeDict = dict;
      this.codeRanks = dict.size <= RANKED_DICTIONARY_MAX || dict.ranked ? dict.rank() : null;
      this.codeRoot = null;
    }
    if (this.codeRanks === null) return -1;
    if (rt !== this.codeRoot) {
      this.codeRoot = rt;
      const code = dict.codeOf(rt);
      this.codeRootRank = code < 0 ? -1 : this.codeRanks[code]!;
    }
    return this.codeRootRank;
  }

  /** Adds row i of b (key view bv), arriving as number `arrival`, while the heap holds fewer than K rows. */
  private push(b: Batch, bv: KeyView, i: number, arrival: number): void {
    const slot = this.count;
    this.store.copyIn(slot, b, bv, i);
    this.seq[slot] = arrival;
    this.heap[slot] = slot;
    this.count++;
    this.refresh();
    this.siftUp(slot);
  }

  /**
   * Row i of b (key view bv), arriving as number `arrival` and ordering strictly before the root, takes
   * the root's place: the admission step that consume and consumeSelected share. True when the store's
   * arrays were replaced, so a comparator built over them must be built again.
   */
  private replaceRoot(b: Batch, bv: KeyView, i: number, arrival: number): boolean {
    const heap = this.heap;
    const store = this.store;
    const root = heap[0]!;
    if (this.ties !== null) {
      // The new root will be the larger child (the incoming row is strictly smaller than the old root):
      // if that child ties with the old root, the boundary value is unchanged and the old root becomes
      // a tie; otherwise the boundary moved down and every tie of the old boundary is out.
      let keepTies = false;
      const count = this.count;
      if (count >= 2) {
        let child = heap[1]!;
        if (count >= 3 && this.greater(heap[2]!, child)) child = heap[2]!;
        keepTies = this.sc(child, root) === 0;
      }
      if (keepTies) this.ties.addColumns(store.columns(), root, this.seq[root]!);
      else this.ties.clear();
    }
    store.copyIn(root, b, bv, i);
    this.seq[root] = arrival;
    const moved = this.storeVersion !== store.version;
    if (moved) this.refresh();
    this.siftDown(0);
    return moved;
  }

  consume(b: Batch): void {
    const m = b.length;
    const cmp = this.cmp;
    const store = this.store;
    const heap = this.heap;
    const K = this.K;
    // The batch's key view is built only when a row gets past the prefilter (text views scan every value).
    let bvOrNull: KeyView | null = null;
    const view = (): KeyView => (bvOrNull ??= cmp.view(b));
    let i = 0;
    while (this.count < K && i < m) this.push(b, view(), i++, this.arrival++);
    if (i === m) return;
    this.refresh();
    let xc: RowCompare | null = null;
    // Prefilter: a row whose first key is strictly worse than the boundary's first key can never enter, and
    // once the heap has settled that is almost every row. Testing it with negated comparisons keeps NaN and
    // NULL rows as candidates, which the full comparator then decides.
    const kc = b.columns[this.keys[0]!.col]!;
    // A scaled numeric key is tested on its doubles: its Numerics are built only if a row gets past the test.
    const sn = this.pre === 'numeric' ? scaledNumbers(kc) : null;
    const kd = sn !== null ? sn.unscaled : kc.data;
    const typed = this.pre !== null && this.pre !== 'numeric' && !Array.isArray(kd) && (this.pre === 'f64' ? kd instanceof Float64Array : kd instanceof Int32Array);
    const text = this.pre === 'text' && Array.isArray(kd);
    const knulls = kc.nulls;
    let r = typed ? this.rootKey() : null;
    let rt = text ? this.rootText() : null;
    const numeric = this.pre === 'numeric' && (sn !== null || Array.isArray(kd));
    let rn = numeric ? this.rootNumeric() : null;
    // A stored key column's block bounds let the prefilter pass over whole blocks of worse rows.
    const blocks = typed ? blockBounds(kc, m) : null;
    // Row i of this batch arrives as number base + i.
    const base = this.arrival - i;
    for (; i < m; i++) {
      if (r !== null) {
        if (blocks !== null) {
          i = this.desc
            ? skipBlocksBelow(kd as Float64Array | Int32Array, knulls, r, i, m, blocks.max, this.pre === 'f64')
            : skipBlocksAbove(kd as Float64Array | Int32Array, knulls, r, i, m, blocks.min, this.pre === 'f64');
        } else {
          i = this.desc
            ? this.pre === 'f64'
              ? skipBelow64(kd as Float64Array, knulls, r, i, m)
              : skipBelow32(kd as Int32Array, knulls, r, i, m)
            : this.pre === 'f64'
              ? skipAbove64(kd as Float64Array, knulls, r, i, m)
              : skipAbove32(kd as Int32Array, knulls, r, i, m);
        }
        if (i === m) break;
      } else if (rn !== null) {
        if (sn !== null) i = sn.scale < POW10.length ? skipScaled(sn.unscaled, POW10[sn.scale]!, knulls, rn, this.desc, i, m) : i;
        else i = this.desc ? skipBelowNumeric(kd as Value[], knulls, rn, i, m) : skipAboveNumeric(kd as Value[], knulls, rn, i, m);
        if (i === m) break;
      } else if (rt !== null) {
        const dc = kc.dict;
        const rr = dc != null && dc.codes.length >= m ? this.codeBoundary(dc.dictionary, rt) : -1;
        if (rr >= 0) {
          i = this.desc ? skipBelowRank(dc!.codes, this.codeRanks!, knulls, rr, i, m) : skipAboveRank(dc!.codes, this.codeRanks!, knulls, rr, i, m);
        } else {
          i = this.desc ? skipBelowText(kd as Value[], knulls, rt, i, m) : skipAboveText(kd as Value[], knulls, rt, i, m);
        }
        if (i === m) break;
      }
      if (sn !== null && rn !== null && sn.scale < POW10.length && bvOrNull === null) {
        // A scaled key past the test: its row alone is compared (one Numeric built), not the batch's
        // view, which would build a Numeric for every row of every batch a candidate comes from.
        const one = takeBatch(b, [i], 1);
        const ov = cmp.view(one);
        const c = cmp.cross(ov, store.view)(0, heap[0]!);
        if (c > 0) continue;
        if (c === 0) {
          if (this.ties !== null) this.ties.add(b, i, base + i);
          continue;
        }
        this.replaceRoot(one, ov, 0, base + i);
        rn = this.rootNumeric();
        continue;
      }
      xc ??= cmp.cross(view(), store.view);
      const c = xc(i, heap[0]!);
      if (c > 0) continue;
      if (c === 0) {
        // An equal row arriving later never displaces a kept one; WITH TIES keeps it beside the boundary.
        if (this.ties !== null) this.ties.add(b, i, base + i);
        continue;
      }
      if (this.replaceRoot(b, view(), i, base + i)) xc = cmp.cross(view(), store.view);
      if (typed) r = this.rootKey();
      if (text) rt = this.rootText();
      if (numeric) rn = this.rootNumeric();
    }
    this.arrival = base + m;
  }

  /**
   * consume() for the rows sel[0..n) of b, a Filter's selection over its unchanged input batch: rows are
   * read where they are and only those entering the heap are copied, so the rows the filter passes are
   * never gathered into batches of their own. The boundary prefilter runs over the selected rows. Only
   * for a typed first key; false (nothing done) otherwise.
   */
  consumeSelected(b: Batch, sel: Uint32Array, n: number): boolean {
    const kc = b.columns[this.keys[0]!.col]!;
    const kd = kc.data;
    const f64 = this.pre === 'f64';
    if (f64 ? !(kd instanceof Float64Array) : this.pre !== 'i32' || !(kd instanceof Int32Array)) return false;
    const cmp = this.cmp;
    const store = this.store;
    const heap = this.heap;
    let bvOrNull: KeyView | null = null;
    const view = (): KeyView => (bvOrNull ??= cmp.view(b));
    // Row i of this batch arrives as number base + i (the rows the filter dropped leave gaps).
    const base = this.arrival;
    this.arrival = base + b.length;
    let j = 0;
    while (this.count < this.K && j < n) {
      const i = sel[j++]!;
      this.push(b, view(), i, base + i);
    }
    if (j === n) return true;
    this.refresh();
    const knulls = kc.nulls;
    let xc: RowCompare | null = null;
    let r = this.rootKey();
    for (; j < n; j++) {
      if (r !== null) {
        j = this.desc
          ? f64
            ? selBelow64(kd as Float64Array, knulls, r, sel, j, n)
            : selBelow32(kd as Int32Array, knulls, r, sel, j, n)
          : f64
            ? selAbove64(kd as Float64Array, knulls, r, sel, j, n)
            : selAbove32(kd as Int32Array, knulls, r, sel, j, n);
        if (j === n) break;
      }
      const i = sel[j]!;
      xc ??= cmp.cross(view(), store.view);
      const c = xc(i, heap[0]!);
      if (c > 0) continue;
      if (c === 0) {
        if (this.ties !== null) this.ties.add(b, i, base + i);
        continue;
      }
      if (this.replaceRoot(b, view(), i, base + i)) xc = cmp.cross(view(), store.view);
      r = this.rootKey();
    }
    return true;
  }

  finish(offset: number): Kept | null {
    const count = this.count;
    if (count <= offset) return null;
    const cmp = this.cmp;
    let batch = this.store.toBatch(count);
    let seqAll: Float64Array = this.seq.subarray(0, count);
    if (this.ties !== null && this.ties.length > 0) {
      const tb = this.ties.finish();
      batch = concatBatches(this.types, [batch, tb.batch]);
      const s2 = new Float64Array(count + tb.seq.length);
      s2.set(seqAll);
      s2.set(tb.seq, count);
      seqAll = s2;
    }
    const order = identity(batch.length);
    const rc = cmp.rows(cmp.view(batch));
    order.sort((a, b) => rc(a, b) || seqAll[a]! - seqAll[b]!);
    return { batch, order, end: this.withTies ? batch.length : Math.min(this.K, batch.length) };
  }
}

// Prefilter scans for BoundedHeap.consume: the next row at or after `i` whose first key is not strictly
// worse than the boundary r (or is NULL). One monomorphic loop per storage and direction.
function skipAbove64(d: Float64Array, nulls: Uint8Array | null, r: number, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && d[i]! > r) i++;
  } else {
    while (i < m && d[i]! > r && nulls[i] === 0) i++;
  }
  return i;
}
function skipBelow64(d: Float64Array, nulls: Uint8Array | null, r: number, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && d[i]! < r) i++;
  } else {
    while (i < m && d[i]! < r && nulls[i] === 0) i++;
  }
  return i;
}
/** Powers of ten that are exact doubles. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * A numeric as a double within a relative 2^-52 of its value (two roundings: the coefficient, then the
 * division by an exact power of ten), keeping its sign exactly; ±Infinity as themselves; NaN (which
 * sorts above everything, and which no prefilter test passes) for NaN and for scales beyond 22.
 */
function numericApprox(v: Numeric): number {
  if (v.special !== 0) return v.special === 2 ? Infinity : v.special === 3 ? -Infinity : NaN;
  return v.scale < POW10.length ? Number(v.coef) / POW10[v.scale]! : NaN;
}

/**
 * Relative distance kept from the boundary's approximation: two approximations that far apart order
 * their numerics the same way, whatever their errors (each below 2^-52).
 */
const APPROX_MARGIN = 2 ** -48;

/** Rows whose numeric first key is surely below the bound (never NULL or NaN rows). */
function skipBelowNumeric(d: Value[], nulls: Uint8Array | null, bound: number, i: number, m: number): number {
  while (i < m && (nulls === null || nulls[i] === 0)) {
    const v = d[i];
    if (!(v instanceof Numeric) || !(numericApprox(v) < bound)) break;
    i++;
  }
  return i;
}
function skipAboveNumeric(d: Value[], nulls: Uint8Array | null, bound: number, i: number, m: number): number {
  while (i < m && (nulls === null || nulls[i] === 0)) {
    const v = d[i];
    if (!(v instanceof Numeric) || !(numericApprox(v) > bound)) break;
    i++;
  }
  return i;
}
/**
 * skipBelowNumeric (desc) or skipAboveNumeric over a scaled column's coefficients: u / p is the very
 * double numericApprox gives for the row's Numeric (the coefficient is exact, p = 10^scale).
 */
function skipScaled(u: Float64Array, p: number, nulls: Uint8Array | null, bound: number, desc: boolean, i: number, m: number): number {
  if (desc) while (i < m && (nulls === null || nulls[i] === 0) && u[i]! / p < bound) i++;
  else while (i < m && (nulls === null || nulls[i] === 0) && u[i]! / p > bound) i++;
  return i;
}
function skipAbove32(d: Int32Array, nulls: Uint8Array | null, r: number, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && d[i]! > r) i++;
  } else {
    while (i < m && d[i]! > r && nulls[i] === 0) i++;
  }
  return i;
}
function skipBelow32(d: Int32Array, nulls: Uint8Array | null, r: number, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && d[i]! < r) i++;
  } else {
    while (i < m && d[i]! < r && nulls[i] === 0) i++;
  }
  return i;
}

// The prefilter scans over a selection: the next position j at or after `j` whose row sel[j] is not
// strictly worse than r (or is NULL).
function selAbove64(d: Float64Array, nulls: Uint8Array | null, r: number, sel: Uint32Array, j: number, n: number): number {
  if (nulls === null) {
    while (j < n && d[sel[j]!]! > r) j++;
  } else {
    while (j < n && d[sel[j]!]! > r && nulls[sel[j]!] === 0) j++;
  }
  return j;
}
function selBelow64(d: Float64Array, nulls: Uint8Array | null, r: number, sel: Uint32Array, j: number, n: number): number {
  if (nulls === null) {
    while (j < n && d[sel[j]!]! < r) j++;
  } else {
    while (j < n && d[sel[j]!]! < r && nulls[sel[j]!] === 0) j++;
  }
  return j;
}
function selAbove32(d: Int32Array, nulls: Uint8Array | null, r: number, sel: Uint32Array, j: number, n: number): number {
  if (nulls === null) {
    while (j < n && d[sel[j]!]! > r) j++;
  } else {
    while (j < n && d[sel[j]!]! > r && nulls[sel[j]!] === 0) j++;
  }
  return j;
}
function selBelow32(d: Int32Array, nulls: Uint8Array | null, r: number, sel: Uint32Array, j: number, n: number): number {
  if (nulls === null) {
    while (j < n && d[sel[j]!]! < r) j++;
  } else {
    while (j < n && d[sel[j]!]! < r && nulls[sel[j]!] === 0) j++;
  }
  return j;
}

// The same scans over a stored column with block bounds (column-stats.ts): a block whose greatest
// (least) value is strictly worse than r is passed over whole; a block holding NULL or NaN has NaN
// bounds, which no test passes, so its rows are scanned.
function skipBlocksBelow(d: Float64Array | Int32Array, nulls: Uint8Array | null, r: number, i: number, m: number, max: Float64Array, f64: boolean): number {
  while (i < m) {
    const k = i >> BLOCK_SHIFT;
    if (max[k]! < r) {
      i = (k + 1) << BLOCK_SHIFT;
      continue;
    }
    const end = Math.min(m, (k + 1) << BLOCK_SHIFT);
    i = f64 ? skipBelow64(d as Float64Array, nulls, r, i, end) : skipBelow32(d as Int32Array, nulls, r, i, end);
    if (i < end) return i;
  }
  return m;
}
function skipBlocksAbove(d: Float64Array | Int32Array, nulls: Uint8Array | null, r: number, i: number, m: number, min: Float64Array, f64: boolean): number {
  while (i < m) {
    const k = i >> BLOCK_SHIFT;
    if (min[k]! > r) {
      i = (k + 1) << BLOCK_SHIFT;
      continue;
    }
    const end = Math.min(m, (k + 1) << BLOCK_SHIFT);
    i = f64 ? skipAbove64(d as Float64Array, nulls, r, i, end) : skipAbove32(d as Int32Array, nulls, r, i, end);
    if (i < end) return i;
  }
  return m;
}

// Text prefilter scans: `r` holds no code unit >= 0xD800, so JavaScript's string order is exact against it.
function skipAboveText(d: Value[], nulls: Uint8Array | null, r: string, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && (d[i] as string) > r) i++;
  } else {
    while (i < m && nulls[i] === 0 && (d[i] as string) > r) i++;
  }
  return i;
}
function skipBelowText(d: Value[], nulls: Uint8Array | null, r: string, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && (d[i] as string) < r) i++;
  } else {
    while (i < m && nulls[i] === 0 && (d[i] as string) < r) i++;
  }
  return i;
}

/** Dictionaries up to this size are ranked for the text prefilter (sorting them costs a few milliseconds). */
const RANKED_DICTIONARY_MAX = 1 << 14;

/** skipBelowText over dictionary codes: rows whose entry ranks below the boundary's. */
function skipBelowRank(codes: Int32Array, ranks: Int32Array, nulls: Uint8Array | null, r: number, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && ranks[codes[i]!]! < r) i++;
  } else {
    while (i < m && nulls[i] === 0 && ranks[codes[i]!]! < r) i++;
  }
  return i;
}
function skipAboveRank(codes: Int32Array, ranks: Int32Array, nulls: Uint8Array | null, r: number, i: number, m: number): number {
  if (nulls === null) {
    while (i < m && ranks[codes[i]!]! > r) i++;
  } else {
    while (i < m && nulls[i] === 0 && ranks[codes[i]!]! > r) i++;
  }
  return i;
}

/**
 * Indexes (into `out`, in order) of the rows whose first key is not strictly worse than `r`: NULLs, and
 * strings not above `r` (ASC) / not below it (DESC). `r` holds no code unit >= 0xD800 (see rootText).
 */
function textCandidates(d: Value[], m: number, nulls: Uint8Array | null, r: string, desc: boolean, out: Uint32Array): number {
  let w = 0;
  for (let i = 0; i < m; i++) {
    if (nulls !== null && nulls[i] === 1) out[w++] = i;
    else if (desc ? !((d[i] as string) < r) : !((d[i] as string) > r)) out[w++] = i;
  }
  return w;
}

/** The select strategy ran out of memory: what it buffered, and the input to go on reading. */
interface Spilled {
  buffer: Batch[];
  rest: AsyncGenerator<Batch>;
}

interface Kept {
  batch: Batch;
  /** Rows in output order; positions [start, end) are emitted (start defaults to the OFFSET). */
  order: Uint32Array;
  end: number;
  start?: number;
}

/** Rows `rows[0..n)` (ascending indexes into the concatenation of `parts`) gathered into one batch. */
function gatherRows(types: readonly DataType[], parts: readonly Batch[], rows: Uint32Array, n: number): Batch {
  const out: Batch[] = [];
  let k = 0;
  let base = 0;
  for (const b of parts) {
    const end = base + b.length;
    let e = k;
    while (e < n && rows[e]! < end) e++;
    if (e > k) {
      const local = new Uint32Array(e - k);
      for (let j = k; j < e; j++) local[j - k] = rows[j]! - base;
      out.push(local.length === b.length ? b : takeBatch(b, local, local.length));
    }
    k = e;
    base = end;
    if (k === n) break;
  }
  if (out.length === 0) return { columns: types.map((t) => makeColumn(t, allocData(t, 0), null)), length: 0 };
  return concatBatches(types, out);
}

/** Position of `v` in the ascending array `a` (which contains it). */
function lowerBound(a: Uint32Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Rearranges perm[lo, hi) so that perm[k] holds the element of rank k - lo, everything before it is
 * smaller and everything after it larger (`cmp` must be a total order: callers break ties by index).
 * Quickselect with median-of-three pivots; after too many unbalanced rounds it sorts the remaining
 * range instead, bounding the worst case at O(n log n).
 */
export function introselect(perm: Uint32Array, lo: number, hi: number, k: number, cmp: RowCompare): void {
  let budget = 2 * Math.ceil(Math.log2(hi - lo + 1)) + 4;
  while (hi - lo > 16) {
    if (budget-- === 0) {
      perm.subarray(lo, hi).sort(cmp);
      return;
    }
    const mid = (lo + hi - 1) >>> 1;
    // Median of three into perm[mid].
    let a = perm[lo]!;
    let b = perm[mid]!;
    let c = perm[hi - 1]!;
    if (cmp(b, a) < 0) [a, b] = [b, a];
    if (cmp(c, b) < 0) {
      [b, c] = [c, b];
      if (cmp(b, a) < 0) [a, b] = [b, a];
    }
    perm[lo] = a;
    perm[mid] = b;
    perm[hi - 1] = c;
    const pivot = b;
    // Hoare partition: afterwards [lo, j] <= pivot <= [j + 1, hi).
    let i = lo - 1;
    let j = hi;
    for (;;) {
      do i++;
      while (cmp(perm[i]!, pivot) < 0);
      do j--;
      while (cmp(perm[j]!, pivot) > 0);
      if (i >= j) break;
      const t = perm[i]!;
      perm[i] = perm[j]!;
      perm[j] = t;
    }
    if (k <= j) hi = j + 1;
    else lo = j + 1;
  }
  // Small range: insertion sort.
  for (let x = lo + 1; x < hi; x++) {
    const v = perm[x]!;
    let y = x - 1;
    while (y >= lo && cmp(perm[y]!, v) > 0) {
      perm[y + 1] = perm[y]!;
      y--;
    }
    perm[y + 1] = v;
  }
}

/**
 * A single ascending-or-descending numeric key without NULLs or NaNs as plain numbers (negated for DESC),
 * so selection can compare inline instead of through the generated comparator; null when not applicable.
 * Negation keeps (key, index) order exact: -0 and 0 are equal either way.
 */
function numericKeys(keys: readonly SortKey[], b: Batch): Float64Array | null {
  if (keys.length !== 1) return null;
  const k = keys[0]!;
  const cat = keyCategory(k.type);
  if (cat !== 'num' && cat !== 'float') return null;
  const c = b.columns[k.col]!;
  const d = c.data;
  if (c.nulls !== null || !(d instanceof Float64Array || d instanceof Int32Array)) return null;
  const n = b.length;
  const out = new Float64Array(n);
  if (k.desc) for (let i = 0; i < n; i++) out[i] = -d[i]!;
  else out.set(d.subarray(0, n));
  for (let i = 0; i < n; i++) if (out[i] !== out[i]) return null;
  return out;
}

/** introselect() for numeric keys (see numericKeys), ties broken by index: the same total order, inline. */
export function introselectNum(perm: Uint32Array, lo: number, hi: number, k: number, v: Float64Array): void {
  let budget = 2 * Math.ceil(Math.log2(hi - lo + 1)) + 4;
  while (hi - lo > 16) {
    if (budget-- === 0) {
      perm.subarray(lo, hi).sort((x, y) => v[x]! - v[y]! || x - y);
      return;
    }
    const mid = (lo + hi - 1) >>> 1;
    let a = perm[lo]!;
    let b = perm[mid]!;
    let c = perm[hi - 1]!;
    if (v[b]! < v[a]! || (v[b] === v[a] && b < a)) [a, b] = [b, a];
    if (v[c]! < v[b]! || (v[c] === v[b] && c < b)) {
      [b, c] = [c, b];
      if (v[b]! < v[a]! || (v[b] === v[a] && b < a)) [a, b] = [b, a];
    }
    perm[lo] = a;
    perm[mid] = b;
    perm[hi - 1] = c;
    const pv = v[b]!;
    const pi = b;
    let i = lo - 1;
    let j = hi;
    for (;;) {
      let x: number;
      do {
        i++;
        x = perm[i]!;
      } while (v[x]! < pv || (v[x] === pv && x < pi));
      do {
        j--;
        x = perm[j]!;
      } while (v[x]! > pv || (v[x] === pv && x > pi));
      if (i >= j) break;
      const t = perm[i]!;
      perm[i] = perm[j]!;
      perm[j] = t;
    }
    if (k <= j) hi = j + 1;
    else lo = j + 1;
  }
  for (let x = lo + 1; x < hi; x++) {
    const e = perm[x]!;
    const ev = v[e]!;
    let y = x - 1;
    while (y >= lo && (v[perm[y]!]! > ev || (v[perm[y]!] === ev && perm[y]! > e))) {
      perm[y + 1] = perm[y]!;
      y--;
    }
    perm[y + 1] = e;
  }
}

/**
 * Fixed-capacity mutable columnar rows (the heap's slots). Null maps always exist so the generated
 * comparator shape never changes; `version` changes when a column's storage is replaced (an int8 column
 * widening to bigint-capable storage), telling holders of comparators to rebuild them.
 */
class RowStore {
  readonly data: ColumnData[];
  readonly nulls: Uint8Array[];
  readonly high: (Uint8Array | null)[];
  view: KeyView;
  version = 0;

  constructor(
    readonly types: readonly DataType[],
    readonly cap: number,
    readonly keys: readonly SortKey[],
  ) {
    this.data = types.map((t) => allocData(t, cap));
    this.nulls = types.map(() => new Uint8Array(cap));
    this.high = keys.map((k) => (keyCategory(k.type) === 'text' ? new Uint8Array(cap) : null));
    this.view = this.makeView();
  }

  private makeView(): KeyView {
    return {
      data: this.keys.map((k) => this.data[k.col]!),
      nulls: this.keys.map((k) => this.nulls[k.col]!),
      high: this.high,
    };
  }

  copyIn(slot: number, b: Batch, bv: KeyView, row: number): void {
    const cols = b.columns;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c]!;
      const isNull = col.nulls !== null && col.nulls[row] === 1;
      this.nulls[c]![slot] = isNull ? 1 : 0;
      if (isNull) continue;
      const v = col.data[row]!;
      let d = this.data[c]!;
      if (typeof v === 'bigint' && !Array.isArray(d)) {
        d = Array.from(d as Float64Array) as Value[];
        this.data[c] = d;
        this.view = this.makeView();
        this.version++;
      }
      (d as Value[])[slot] = v as Value;
    }
    for (let k = 0; k < this.keys.length; k++) {
      const h = this.high[k];
      if (h !== null) h[slot] = bv.high[k]![row]!;
    }
  }

  columns(): Column[] {
    return this.types.map((t, c) => makeColumn(t, this.data[c]!, this.nulls[c]!));
  }

  toBatch(n: number): Batch {
    return {
      columns: this.types.map((t, c) => {
        const d = this.data[c]!;
        const nn = this.nulls[c]!;
        let any = false;
        for (let i = 0; i < n; i++) if (nn[i] === 1) any = true;
        return makeColumn(t, Array.isArray(d) ? d.slice(0, n) : d.slice(0, n), any ? nn.slice(0, n) : null);
      }),
      length: n,
    };
  }
}

/** Rows tied with the heap's boundary (WITH TIES), appended in arrival order. */
class TieList {
  private builders: ColumnBuilder[];
  private seqs: number[] = [];
  length = 0;

  constructor(private readonly types: readonly DataType[]) {
    this.builders = types.map((t) => new ColumnBuilder(t));
  }

  add(b: Batch, row: number, seq: number): void {
    this.addColumns(b.columns, row, seq);
  }

  addColumns(cols: readonly Column[], row: number, seq: number): void {
    for (let c = 0; c < cols.length; c++) this.builders[c]!.pushFrom(cols[c]!, row);
    this.seqs.push(seq);
    this.length++;
  }

  clear(): void {
    if (this.length === 0) return;
    this.builders = this.types.map((t) => new ColumnBuilder(t));
    this.seqs = [];
    this.length = 0;
  }

  finish(): { batch: Batch; seq: Float64Array } {
    return {
      batch: { columns: this.builders.map((b) => b.finish()), length: this.length },
      seq: Float64Array.from(this.seqs),
    };
  }
}

// Long-lived instances whose shapes BoundedHeap.consume's optimized code depends on (see shape-anchor.ts).
{
  const keys: SortKey[] = [{ col: 0, type: T.float8, desc: false, nullsFirst: false }];
  anchorShape(new BoundedHeap(compileComparator(keys), keys, [T.float8], 1, false));
}
