/**
 * State shared by the per-partition Top-N operators (topn-ranking.ts, topn-ranking-streaming.ts).
 *
 * Memory is O(k × partitions): kept rows live in one growable columnar store (typed arrays where the
 * column type allows) whose slots are recycled through a free list, and each partition owns a region of a
 * flat Int32Array holding its candidate slots. No per-partition objects, so a million partitions cost
 * a few typed-array entries each, not a million heaps.
 *
 * Per partition we keep candidates and a boundary (the worst row that is certainly kept). A new row that
 * is worse than the boundary is rejected with one comparison — once the boundaries settle that is what
 * almost every row costs. Candidates accumulate until the region is full (about 2k), then the region is
 * compacted: sorted by (order keys, arrival), cut at the ranking cutoff, and the new boundary taken. Every
 * compaction at least halves the region, so a row is sorted O(1) times on average. Cutoffs:
 *  - row_number: the first k rows (ties: earlier arrival wins, as with the stable sort below a Window);
 *  - rank: every row whose rank (1 + rows strictly before its peer group) is <= k — peers at the cutoff stay;
 *  - dense_rank: every row among the first k distinct key values.
 */
import { storageKind, type DataType, type Value } from '../../common/types.js';
import { allocData, makeColumn, type Batch, type Column, type ColumnData } from '../../execution/column.js';
import type { RankingKind } from '../../logical/plan.js';
import { highFlag, keyCategory, type Comparator, type KeyView, type RowCompare, type SortKey } from '../sort-key.js';

/** Growable columnar rows addressed by slot, with slot reuse. */
export class SlotStore {
  data: ColumnData[];
  nulls: Uint8Array[];
  /** Text order keys: the comparator's high-unit flag per slot (see sort-key.ts). */
  high: (Uint8Array | null)[];
  /** Arrival number of the row in each slot: the tie-breaker that keeps results deterministic. */
  seq: Float64Array;
  cap: number;
  private used = 0;
  private free: Int32Array = new Int32Array(64);
  private freeCount = 0;
  live = 0;
  peakLive = 0;
  /** Changes whenever arrays are replaced, so cached comparators / views can be rebuilt. */
  version = 0;
  view: KeyView;

  constructor(
    readonly types: readonly DataType[],
    readonly keys: readonly SortKey[],
    cap = 1024,
  ) {
    this.cap = cap;
    this.data = types.map((t) => allocData(t, cap));
    this.nulls = types.map(() => new Uint8Array(cap));
    this.high = keys.map((k) => (keyCategory(k.type) === 'text' ? new Uint8Array(cap) : null));
    this.seq = new Float64Array(cap);
    this.view = this.makeView();
    this.copiers = types.map((_, c) => this.copierFor(c));
  }

  private makeView(): KeyView {
    return { data: this.keys.map((k) => this.data[k.col]!), nulls: this.keys.map((k) => this.nulls[k.col]!), high: this.high };
  }

  private grow(): void {
    const cap = this.cap * 2;
    this.data = this.data.map((d) => {
      if (Array.isArray(d)) return d;
      const nd = new (d.constructor as new (n: number) => Uint8Array | Int32Array | Float64Array)(cap);
      nd.set(d as never);
      return nd;
    });
    this.nulls = this.nulls.map((n) => {
      const nn = new Uint8Array(cap);
      nn.set(n);
      return nn;
    });
    this.high = this.high.map((h) => {
      if (h === null) return null;
      const nh = new Uint8Array(cap);
      nh.set(h);
      return nh;
    });
    const ns = new Float64Array(cap);
    ns.set(this.seq);
    this.seq = ns;
    this.cap = cap;
    this.view = this.makeView();
    this.version++;
  }

  alloc(): number {
    this.live++;
    if (this.live > this.peakLive) this.peakLive = this.live;
    if (this.freeCount > 0) return this.free[--this.freeCount]!;
    if (this.used === this.cap) this.grow();
    return this.used++;
  }

  release(slot: number): void {
    this.live--;
    if (this.freeCount === this.free.length) {
      const nf = new Int32Array(this.free.length * 2);
      nf.set(this.free);
      this.free = nf;
    }
    this.free[this.freeCount++] = slot;
    // Object columns: drop the reference so evicted strings can be collected.
    for (const d of this.data) if (Array.isArray(d)) d[slot] = null;
  }

  reset(): void {
    this.used = 0;
    this.freeCount = 0;
    this.live = 0;
  }

  copyIn(slot: number, b: Batch, row: number, seq: number): void {
    const cols = b.columns;
    const copy = this.copiers;
    for (let c = 0; c < cols.length; c++) copy[c]!(slot, cols[c]!, row);
    for (let k = 0; k < this.keys.length; k++) {
      const h = this.high[k];
      if (h === null) continue;
      const c = cols[this.keys[k]!.col]!;
      h[slot] = c.nulls !== null && c.nulls[row] === 1 ? 0 : highFlag(c.data[row] as string);
    }
    this.seq[slot] = seq;
  }

  /**
   * One copy function per column, specialised by storage class: a shared loop over Float64Array /
   * Int32Array / plain-array columns makes every element access megamorphic, which measured ~10x slower.
   */
  private readonly copiers: ((slot: number, col: Column, row: number) => void)[];

  private copierFor(c: number): (slot: number, col: Column, row: number) => void {
    const nullsOf = (): Uint8Array => this.nulls[c]!;
    const setNull = (slot: number, col: Column, row: number): boolean => {
      const isNull = col.nulls !== null && col.nulls[row] === 1;
      nullsOf()[slot] = isNull ? 1 : 0;
      return isNull;
    };
    switch (storageKind(this.types[c]!)) {
      case 'f64':
        return (slot, col, row) => {
          if (setNull(slot, col, row)) return;
          const src = col.data;
          let d = this.data[c]!;
          if (src instanceof Float64Array && d instanceof Float64Array) {
            d[slot] = src[row]!;
            return;
          }
          const v = (src as Value[])[row]!;
          if (typeof v === 'bigint' && !Array.isArray(d)) {
            // int8 beyond 2^53: this column switches to exact values, as columns do.
            d = Array.from(d as Float64Array) as Value[];
            this.data[c] = d;
            this.view = this.makeView();
            this.version++;
          }
          (d as Value[])[slot] = v;
        };
      case 'i32':
        return (slot, col, row) => {
          if (setNull(slot, col, row)) return;
          (this.data[c] as Int32Array)[slot] = (col.data as Int32Array)[row]!;
        };
      case 'u8':
        return (slot, col, row) => {
          if (setNull(slot, col, row)) return;
          (this.data[c] as Uint8Array)[slot] = (col.data as Uint8Array)[row]!;
        };
      default:
        return (slot, col, row) => {
          if (setNull(slot, col, row)) return;
          (this.data[c] as Value[])[slot] = (col.data as Value[])[row]!;
        };
    }
  }

  /** The store as a batch (slots as rows), for gathering output rows with takeBatch. */
  asBatch(): Batch {
    return { columns: this.types.map((t, c) => makeColumn(t, this.data[c]!, this.nulls[c]!)), length: this.used };
  }
}

/**
 * Candidate regions and boundaries of many partitions over one SlotStore. `cmp` compares order keys;
 * it is compiled for the input batch layout, which the store shares.
 */
export class RankingHeaps {
  readonly store: SlotStore;
  private start: Int32Array<ArrayBuffer> = new Int32Array(256);
  private count: Int32Array<ArrayBuffer> = new Int32Array(256);
  private capOf: Int32Array<ArrayBuffer> = new Int32Array(256);
  /** Boundary slot per partition, -1 while the partition has fewer than k kept ranks. */
  bound: Int32Array<ArrayBuffer> = new Int32Array(256).fill(-1);
  /**
   * Single numeric order key: the boundary's key as a number that orders ascending (negated for DESC), or
   * NaN when the boundary key is NULL or NaN (callers then use the comparator). Lets the hot loop reject a
   * row with one float comparison and no call.
   */
  boundValue: Float64Array<ArrayBuffer> = new Float64Array(256);
  private readonly numericKey: { col: number; sign: number } | null;
  private members = new Int32Array(4096);
  private top = 0;
  groups = 0;
  private readonly initialCap: number;
  private storeRows: RowCompare;
  private storeVersion: number;

  constructor(
    readonly kind: RankingKind,
    readonly k: number,
    types: readonly DataType[],
    readonly cmp: Comparator,
  ) {
    this.store = new SlotStore(types, cmp.keys);
    const k0 = cmp.keys[0];
    this.numericKey = cmp.keys.length === 1 && k0 !== undefined && (keyCategory(k0.type) === 'num' || keyCategory(k0.type) === 'float') ? { col: k0.col, sign: k0.desc ? -1 : 1 } : null;
    this.initialCap = Math.max(4, Math.min(2 * k, 16));
    this.storeVersion = this.store.version;
    this.storeRows = cmp.rows(this.store.view);
  }

  private slotCompare(): RowCompare {
    if (this.storeVersion !== this.store.version) {
      this.storeVersion = this.store.version;
      this.storeRows = this.cmp.rows(this.store.view);
    }
    return this.storeRows;
  }

  /** Makes sure partition ids [0, n) exist. */
  ensureGroups(n: number): void {
    if (n <= this.groups) return;
    if (n > this.start.length) {
      let len = this.start.length;
      while (len < n) len *= 2;
      const g = (a: Int32Array<ArrayBuffer>, fill: number): Int32Array<ArrayBuffer> => {
        const na = new Int32Array(len);
        if (fill !== 0) na.fill(fill);
        na.set(a);
        return na;
      };
      this.start = g(this.start, 0);
      this.count = g(this.count, 0);
      this.capOf = g(this.capOf, 0);
      this.bound = g(this.bound, -1);
      const nv = new Float64Array(len);
      nv.set(this.boundValue);
      this.boundValue = nv;
    }
    for (let gId = this.groups; gId < n; gId++) {
      this.start[gId] = this.reserve(this.initialCap);
      this.capOf[gId] = this.initialCap;
      this.count[gId] = 0;
      this.bound[gId] = -1;
    }
    this.groups = n;
  }

  private reserve(n: number): number {
    if (this.top + n > this.members.length) {
      let len = this.members.length * 2;
      while (len < this.top + n) len *= 2;
      const nm = new Int32Array(len);
      nm.set(this.members.subarray(0, this.top));
      this.members = nm;
    }
    const at = this.top;
    this.top += n;
    return at;
  }

  /** Boundary slot of partition g (-1: none yet): rows worse than it (or equal, for row_number) are out. */
  boundary(g: number): number {
    return this.bound[g]!;
  }

  /** Rejects: row_number drops rows equal to the boundary (earlier arrival wins); rank/dense_rank keep ties. */
  get rejectTies(): boolean {
    return this.kind === 'row_number';
  }

  /** Adds row `row` of `b` (already known to beat the boundary) to partition g. */
  add(g: number, b: Batch, row: number, seq: number): void {
    const slot = this.store.alloc();
    this.store.copyIn(slot, b, row, seq);
    let n = this.count[g]!;
    this.members[this.start[g]! + n] = slot;
    n++;
    this.count[g] = n;
    if (n === this.capOf[g]!) {
      if (n >= 2 * this.k) this.compact(g);
      // Still more than half full (ties, or fewer than 2k rows): move to a region twice as large.
      if (this.count[g]! * 2 > this.capOf[g]!) this.regrow(g);
    }
  }

  private regrow(g: number): void {
    const cap = this.capOf[g]! * 2;
    const from = this.start[g]!;
    const at = this.reserve(cap);
    this.members.copyWithin(at, from, from + this.count[g]!);
    this.start[g] = at;
    this.capOf[g] = cap;
  }

  /** Sorts partition g's candidates, applies the cutoff, sets the boundary. Returns kept slots in order. */
  compact(g: number): void {
    const n = this.count[g]!;
    if (n === 0) return;
    const s = this.start[g]!;
    const seg = this.members.subarray(s, s + n);
    const rc = this.slotCompare();
    const seq = this.store.seq;
    seg.sort((a, b) => rc(a, b) || seq[a]! - seq[b]!);
    const k = this.k;
    let keep = n;
    let bound = -1;
    if (this.kind === 'row_number') {
      if (n >= k) {
        keep = k;
        bound = seg[k - 1]!;
      }
    } else if (this.kind === 'rank') {
      // Rank of position i = 1 + start of its peer group. Keep while that is <= k.
      let groupStart = 0;
      keep = n;
      for (let i = 1; i < n; i++) {
        if (rc(seg[i]!, seg[i - 1]!) !== 0) groupStart = i;
        if (groupStart >= k) {
          keep = i;
          break;
        }
      }
      if (keep >= k) bound = seg[keep - 1]!;
    } else {
      let distinct = 1;
      keep = n;
      for (let i = 1; i < n; i++) {
        if (rc(seg[i]!, seg[i - 1]!) !== 0) {
          distinct++;
          if (distinct > k) {
            keep = i;
            break;
          }
        }
      }
      if (distinct >= k) bound = seg[keep - 1]!;
    }
    for (let i = keep; i < n; i++) this.store.release(seg[i]!);
    this.count[g] = keep;
    this.bound[g] = bound;
    if (this.numericKey !== null && bound >= 0) {
      const { col, sign } = this.numericKey;
      const d = this.store.data[col]!;
      const v = this.store.nulls[col]![bound] === 1 ? NaN : Number(d[bound] as number);
      // bigint keys (int8 past 2^53) also go through the comparator: Number() would round them.
      this.boundValue[g] = typeof d[bound] === 'bigint' ? NaN : v * sign;
    }
  }

  /** The order key column and sign when the fast numeric check applies (see boundValue). */
  get numeric(): { col: number; sign: number } | null {
    return this.numericKey;
  }

  /** Applies the final cutoff to every partition and returns all kept slots in arrival order. */
  finish(): Uint32Array {
    let total = 0;
    for (let g = 0; g < this.groups; g++) {
      this.compact(g);
      total += this.count[g]!;
    }
    const out = new Uint32Array(total);
    let w = 0;
    for (let g = 0; g < this.groups; g++) {
      const s = this.start[g]!;
      const n = this.count[g]!;
      for (let i = 0; i < n; i++) out[w++] = this.members[s + i]!;
    }
    const seq = this.store.seq;
    out.sort((a, b) => seq[a]! - seq[b]!);
    return out;
  }

  /** Every candidate slot (no cutoff), in arrival order: used when pruning is abandoned. */
  allSlots(): Uint32Array {
    let total = 0;
    for (let g = 0; g < this.groups; g++) total += this.count[g]!;
    const out = new Uint32Array(total);
    let w = 0;
    for (let g = 0; g < this.groups; g++) {
      const s = this.start[g]!;
      const n = this.count[g]!;
      for (let i = 0; i < n; i++) out[w++] = this.members[s + i]!;
    }
    const seq = this.store.seq;
    out.sort((a, b) => seq[a]! - seq[b]!);
    return out;
  }

  /** Forgets every partition (streaming operator: after each completed partition). */
  clear(): void {
    this.store.reset();
    this.top = 0;
    this.groups = 0;
  }
}
