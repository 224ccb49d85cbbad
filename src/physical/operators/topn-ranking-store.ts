/**
 * State shared by the per-partition Top-N operators (topn-ranking.ts, topn-ranking-streaming.ts).
 *
 * Memory is O(k × partitions): kept rows live in one growable columnar store (typed arrays where the
 * column type allows) whose slots are recycled through a free list, and each partition owns a region of a
 * flat Int32Array holding its candidate slots. No per-partition objects, so a million partitions cost
 * a few typed-array entries each, not a million heaps.
 *
 * Only the order-key columns are copied when a row is added (compaction compares them); the other
 * columns are copied per batch, in one monomorphic loop per column, for the rows still kept when the
 * batch is done — most added rows are evicted again within the same batch while the boundaries settle.
 *
 * Per partition we keep candidates and a boundary (the worst row that is certainly kept). A new row that
 * is worse than the boundary is rejected with one comparison — once the boundaries settle that is what
 * almost every row costs. Candidates accumulate until the region is full (about 2k), then the region is
 * compacted: sorted by (order keys, arrival), cut at the ranking cutoff, and the new boundary taken. Every
 * compaction at least halves the region, so a row is sorted O(1) times on average. row_number with
 * k <= 16 over a plain numeric key skips all that: candidates stay sorted and cut at k on every add (as a
 * hand-written loop would), so the boundary is exact from the k-th row on. Cutoffs:
 *  - row_number: the first k rows (ties: earlier arrival wins, as with the stable sort below a Window);
 *  - rank: every row whose rank (1 + rows strictly before its peer group) is <= k — peers at the cutoff stay;
 *  - dense_rank: every row among the first k distinct key values.
 */
import { storageKind, T, type DataType, type Value } from '../../common/types.js';
import { anchorShape } from '../../common/shape-anchor.js';
import { allocData, makeColumn, type Batch, type Column, type ColumnData } from '../../common/column.js';
import { packedMap } from '../../common/packed-map.js';
import type { RankingKind } from '../../logical/plan.js';
import { compileComparator, highFlag, keyCategory, type Comparator, type KeyView, type RowCompare, type SortKey } from '../sort-key.js';

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
  /**
   * Numeric leading order key: its value per slot, negated for DESC so it orders ascending; NaN for a NULL,
   * NaN or bigint key, which only the comparator orders correctly. With more key columns it only decides
   * rows whose leading keys differ. Lets compaction and the boundary check
   * compare plain numbers instead of calling the comparator generated for this query, whose fresh code
   * would make every query re-warm (and deoptimize) the per-row paths.
   */
  numKey: Float64Array | null;
  /** numKey is the whole order key (one key column), not just its leading column. */
  readonly numKeyOnly: boolean;
  private readonly numCol: number;
  private readonly numSign: number;
  /** Changes whenever arrays are replaced, so cached comparators / views can be rebuilt. */
  version = 0;
  view: KeyView;
  /** Order-key columns, copied at once; the others are deferred (see flush). */
  private readonly isKey: boolean[];
  /** Columns copied at add time (the order keys), and whether any of them is text (high flags). */
  private readonly keyCols: Int32Array;
  private readonly anyHigh: boolean;
  /** Columns stored as JS arrays at construction: released slots drop their references. */
  private readonly objectCols: Int32Array;
  private readonly deferred: number[];
  private pendingBatch: Batch | null = null;
  private pendingSlot = new Int32Array(256);
  private pendingRow = new Int32Array(256);
  private pendingSeq = new Float64Array(256);
  private pendingCount = 0;

  constructor(
    readonly types: readonly DataType[],
    readonly keys: readonly SortKey[],
    cap = 1024,
    /** Columns no one reads from the kept rows (they are left unset): see TopNRankingSpec.unusedCols. */
    unused: readonly number[] = [],
  ) {
    this.cap = cap;
    this.data = types.map((t) => allocData(t, cap));
    this.nulls = types.map(() => new Uint8Array(cap));
    this.high = keys.map((k) => (keyCategory(k.type) === 'text' ? new Uint8Array(cap) : null));
    this.seq = new Float64Array(cap);
    this.view = this.makeView();
    const k0 = keys[0];
    this.numKey = k0 !== undefined && (keyCategory(k0.type) === 'num' || keyCategory(k0.type) === 'float') ? new Float64Array(cap) : null;
    this.numKeyOnly = keys.length === 1;
    this.numCol = k0?.col ?? -1;
    this.numSign = k0?.desc === true ? -1 : 1;
    this.isKey = types.map((_, c) => keys.some((k) => k.col === c));
    this.deferred = [];
    for (let c = 0; c < types.length; c++) if (!this.isKey[c] && !unused.includes(c)) this.deferred.push(c);
    this.keyCols = Int32Array.from(types.map((_, c) => c).filter((c) => this.isKey[c]));
    this.anyHigh = this.high.some((h) => h !== null);
    this.objectCols = Int32Array.from(types.map((_, c) => c).filter((c) => Array.isArray(this.data[c])));
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
    if (this.numKey !== null) {
      const nk = new Float64Array(cap);
      nk.set(this.numKey);
      this.numKey = nk;
    }
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
    // A pending deferred copy into this slot is stale from now on (see flush).
    this.seq[slot] = -1;
    // Object columns: drop the reference so evicted strings can be collected. (A typed column that later
    // switched to exact bigints keeps its references until the slot is reused: they are numbers.)
    const oc = this.objectCols;
    for (let j = 0; j < oc.length; j++) {
      const d = this.data[oc[j]!]!;
      if (Array.isArray(d)) d[slot] = null;
    }
  }

  reset(): void {
    this.used = 0;
    this.freeCount = 0;
    this.live = 0;
    this.pendingCount = 0;
    this.pendingBatch = null;
  }

  copyIn(slot: number, b: Batch, row: number, seq: number): void {
    const cols = b.columns;
    const kc = this.keyCols;
    for (let j = 0; j < kc.length; j++) {
      const c = kc[j]!;
      this.copyCell(c, slot, cols[c]!, row);
    }
    const nk = this.numKey;
    if (nk !== null) {
      const c = cols[this.numCol]!;
      const v = c.nulls !== null && c.nulls[row] === 1 ? NaN : c.data[row];
      nk[slot] = typeof v === 'number' ? v * this.numSign : NaN;
    }
    if (this.deferred.length > 0) {
      if (b !== this.pendingBatch) {
        this.flush();
        this.pendingBatch = b;
      }
      let p = this.pendingCount;
      if (p === this.pendingSlot.length) {
        const ns = new Int32Array(2 * p);
        ns.set(this.pendingSlot);
        this.pendingSlot = ns;
        const nr = new Int32Array(2 * p);
        nr.set(this.pendingRow);
        this.pendingRow = nr;
        const nq = new Float64Array(2 * p);
        nq.set(this.pendingSeq);
        this.pendingSeq = nq;
      }
      this.pendingSlot[p] = slot;
      this.pendingRow[p] = row;
      this.pendingSeq[p] = seq;
      this.pendingCount = p + 1;
    }
    if (this.anyHigh) {
      for (let k = 0; k < this.keys.length; k++) {
        const h = this.high[k];
        if (h === null) continue;
        const c = cols[this.keys[k]!.col]!;
        h[slot] = c.nulls !== null && c.nulls[row] === 1 ? 0 : highFlag(c.data[row] as string);
      }
    }
    this.seq[slot] = seq;
  }

  /** One key cell; a method shared by all stores, not a closure per store, so its optimized code is reused. */
  private copyCell(c: number, slot: number, col: Column, row: number): void {
    const isNull = col.nulls !== null && col.nulls[row] === 1;
    this.nulls[c]![slot] = isNull ? 1 : 0;
    if (isNull) return;
    const src = col.data;
    let d = this.data[c]!;
    if (src instanceof Float64Array && d instanceof Float64Array) d[slot] = src[row]!;
    else if (src instanceof Int32Array && d instanceof Int32Array) d[slot] = src[row]!;
    else if (src instanceof Uint8Array && d instanceof Uint8Array) d[slot] = src[row]!;
    else {
      const v = (src as Value[])[row]!;
      if (typeof v === 'bigint' && !Array.isArray(d)) {
        // int8 beyond 2^53: this column switches to exact values, as columns do.
        d = Array.from(d as Float64Array) as Value[];
        this.data[c] = d;
        this.view = this.makeView();
        this.version++;
      }
      (d as Value[])[slot] = v;
    }
  }

  /**
   * Copies the deferred columns of the pending batch's rows that still own their slot (a slot released
   * or reused since has another seq). Later entries for a slot overwrite earlier ones, as arrival did.
   */
  flush(): void {
    const n = this.pendingCount;
    const b = this.pendingBatch;
    if (n === 0 || b === null) return;
    const slots = this.pendingSlot;
    const rows = this.pendingRow;
    const pseq = this.pendingSeq;
    const seq = this.seq;
    for (const c of this.deferred) {
      const col = b.columns[c]!;
      const src = col.data;
      const dst = this.data[c]!;
      const nulls = this.nulls[c]!;
      const srcNulls = col.nulls;
      if (srcNulls === null) {
        for (let j = 0; j < n; j++) if (seq[slots[j]!] === pseq[j]) nulls[slots[j]!] = 0;
      } else {
        for (let j = 0; j < n; j++) if (seq[slots[j]!] === pseq[j]) nulls[slots[j]!] = srcNulls[rows[j]!]!;
      }
      if (src instanceof Float64Array && dst instanceof Float64Array) copyF64(src, dst, slots, rows, pseq, seq, n);
      else if (src instanceof Int32Array && dst instanceof Int32Array) copyI32(src, dst, slots, rows, pseq, seq, n);
      else if (src instanceof Uint8Array && dst instanceof Uint8Array) copyU8(src, dst, slots, rows, pseq, seq, n);
      else {
        let d = dst;
        for (let j = 0; j < n; j++) {
          const slot = slots[j]!;
          if (seq[slot] !== pseq[j]) continue;
          const r = rows[j]!;
          if (srcNulls !== null && srcNulls[r] === 1) continue;
          const v = (src as Value[])[r]!;
          if (typeof v === 'bigint' && !Array.isArray(d)) {
            // int8 beyond 2^53: this column switches to exact values, as columns do.
            d = Array.from(d as Float64Array) as Value[];
            this.data[c] = d;
          }
          (d as Value[])[slot] = v;
        }
      }
    }
    this.pendingCount = 0;
    this.pendingBatch = null;
  }

  /**
   * Bytes held by the store's arrays (it never shrinks, so this is also the peak): typed storage exactly,
   * object columns at one 8-byte reference per slot (the values themselves are shared with the input).
   */
  retainedBytes(): number {
    let n = this.seq.byteLength + (this.numKey?.byteLength ?? 0) + this.pendingSlot.byteLength * 2 + this.pendingSeq.byteLength;
    for (const d of this.data) n += Array.isArray(d) ? 8 * this.cap : d.byteLength;
    for (const u of this.nulls) n += u.byteLength;
    for (const h of this.high) n += h?.byteLength ?? 0;
    return n;
  }

  /** The store as a batch (slots as rows), for gathering output rows with takeBatch. */
  asBatch(): Batch {
    this.flush();
    return { columns: packedMap(this.types, (t, c) => makeColumn(t, this.data[c]!, this.nulls[c]!)), length: this.used };
  }
}

// Deferred column copies (SlotStore.flush), one per storage type so element accesses stay monomorphic.
function copyF64(src: Float64Array, dst: Float64Array, slots: Int32Array, rows: Int32Array, pseq: Float64Array, seq: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    const slot = slots[j]!;
    if (seq[slot] === pseq[j]) dst[slot] = src[rows[j]!]!;
  }
}
function copyI32(src: Int32Array, dst: Int32Array, slots: Int32Array, rows: Int32Array, pseq: Float64Array, seq: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    const slot = slots[j]!;
    if (seq[slot] === pseq[j]) dst[slot] = src[rows[j]!]!;
  }
}
function copyU8(src: Uint8Array, dst: Uint8Array, slots: Int32Array, rows: Int32Array, pseq: Float64Array, seq: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    const slot = slots[j]!;
    if (seq[slot] === pseq[j]) dst[slot] = src[rows[j]!]!;
  }
}

/** True when no candidate of the region has a NULL / NaN / bigint key (numKey NaN). */
function numericRegion(seg: Int32Array, nk: Float64Array): boolean {
  for (let i = 0; i < seg.length; i++) {
    const v = nk[seg[i]!]!;
    if (v !== v) return false;
  }
  return true;
}

/**
 * RankingHeaps.compact for plain numeric keys: sorts the region by (key, arrival) and returns the
 * cutoff as applyCutoff's keepCode.
 */
function numericCutoff(seg: Int32Array, nk: Float64Array, seq: Float64Array, k: number, kind: RankingKind): number {
  const n = seg.length;
  if (n <= 32) {
    for (let i = 1; i < n; i++) {
      const e = seg[i]!;
      const ev = nk[e]!;
      const es = seq[e]!;
      let j = i - 1;
      while (j >= 0) {
        const o = seg[j]!;
        const ov = nk[o]!;
        if (ov < ev || (ov === ev && seq[o]! < es)) break;
        seg[j + 1] = o;
        j--;
      }
      seg[j + 1] = e;
    }
  } else seg.sort((a, b) => nk[a]! - nk[b]! || seq[a]! - seq[b]!);
  if (kind === 'row_number') return n >= k ? k : -1 - n;
  if (kind === 'rank') {
    let groupStart = 0;
    for (let i = 1; i < n; i++) {
      if (nk[seg[i]!] !== nk[seg[i - 1]!]) groupStart = i;
      if (groupStart >= k) return i;
    }
    return n >= k ? n : -1 - n;
  }
  let distinct = 1;
  for (let i = 1; i < n; i++) {
    if (nk[seg[i]!] !== nk[seg[i - 1]!]) {
      distinct++;
      if (distinct > k) return i;
    }
  }
  return distinct >= k ? n : -1 - n;
}

/**
 * Slots in arrival order. Arrival numbers are distinct integers, so below 2^32 two 16-bit LSD radix passes
 * order them in linear time (a comparator sort of a few hundred thousand slots costs far more).
 */
function bySeq(slots: Uint32Array<ArrayBuffer>, seq: Float64Array): Uint32Array<ArrayBuffer> {
  const n = slots.length;
  if (n < 64) return slots.sort((a, b) => seq[a]! - seq[b]!);
  const keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const q = seq[slots[i]!]!;
    if (q >= 4294967296) return slots.sort((a, b) => seq[a]! - seq[b]!);
    keys[i] = q;
  }
  const counts = new Int32Array(65536);
  let ka = keys;
  let va = slots;
  let kb = new Uint32Array(n);
  let vb = new Uint32Array(n);
  for (let shift = 0; shift < 32; shift += 16) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(ka[i]! >>> shift) & 0xffff]!++;
    let sum = 0;
    for (let b = 0; b < 65536; b++) {
      const c = counts[b]!;
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const at = counts[(ka[i]! >>> shift) & 0xffff]!++;
      kb[at] = ka[i]!;
      vb[at] = va[i]!;
    }
    [ka, kb] = [kb, ka];
    [va, vb] = [vb, va];
  }
  return va;
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
   * Numeric leading order key: the boundary's leading key as a number that orders ascending (negated for
   * DESC), or NaN when there is no boundary yet or its key is NULL, NaN or a bigint (callers then use the
   * comparator). Lets the hot loop reject a row with one float comparison, no call and no other load; with
   * more key columns, a row whose leading key equals the boundary's still needs the comparator.
   */
  boundValue: Float64Array<ArrayBuffer> = new Float64Array(256);
  private readonly numericKey: { col: number; sign: number } | null;
  /** The order key is one column (so equal boundValues are ties). */
  readonly singleKey: boolean;
  /**
   * row_number with a small k: a partition's candidates are kept sorted and cut at k on every add
   * (insertion into at most k entries; for k = 1 a plain replacement of the best row), so its boundary is
   * exact at once and no compaction sort runs. `sorted[g]` is 1 while partition g is sorted by plain
   * numbers (single numeric key, no NULL or NaN seen), 2 when it is sorted with the comparator.
   */
  private readonly exact: boolean;
  private readonly exactMode: number;
  private sorted: Uint8Array<ArrayBuffer> = new Uint8Array(256);
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
    unused: readonly number[] = [],
  ) {
    this.store = new SlotStore(types, cmp.keys, 1024, unused);
    const k0 = cmp.keys[0];
    this.numericKey = k0 !== undefined && (keyCategory(k0.type) === 'num' || keyCategory(k0.type) === 'float') ? { col: k0.col, sign: k0.desc ? -1 : 1 } : null;
    this.singleKey = cmp.keys.length === 1;
    // Room for k + 1 entries up to k = 16, which the sorted path needs (see exact).
    this.initialCap = Math.max(4, Math.min(2 * k, 32));
    this.exact = kind === 'row_number' && k <= 16;
    this.exactMode = this.store.numKey !== null && this.store.numKeyOnly ? 1 : 2;
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
      const ns = new Uint8Array(len);
      ns.set(this.sorted);
      this.sorted = ns;
    }
    for (let gId = this.groups; gId < n; gId++) {
      this.start[gId] = this.reserve(this.initialCap);
      this.capOf[gId] = this.initialCap;
      this.count[gId] = 0;
      this.bound[gId] = -1;
      this.boundValue[gId] = NaN;
      this.sorted[gId] = this.exact ? this.exactMode : 0;
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

  /** A row whose leading key equals boundValue is rejected without the comparator (a tie on the whole key). */
  get rejectValueTies(): boolean {
    return this.kind === 'row_number' && this.singleKey;
  }

  /** Adds row `row` of `b` (already known to beat the boundary) to partition g. */
  add(g: number, b: Batch, row: number, seq: number): void {
    const sorted = this.sorted[g]!;
    let slot: number;
    if (sorted !== 0 && this.count[g] === this.k) {
      // A full sorted partition: the new row beats the boundary (the k-th row), which drops out, so the
      // new row takes over its slot (no free-list round trip). Its stale deferred copy is skipped by seq.
      const n = this.k - 1;
      slot = this.members[this.start[g]! + n]!;
      this.count[g] = n;
    } else slot = this.store.alloc();
    this.store.copyIn(slot, b, row, seq);
    if (sorted === 1) {
      const x = this.store.numKey![slot]!;
      if (x === x) {
        this.insertSorted(g, slot, x);
        return;
      }
      // A NULL / NaN key: only the comparator orders it (the plain-number order so far agrees with it).
      this.sorted[g] = 2;
    }
    if (sorted !== 0) {
      this.insertCompared(g, slot);
      return;
    }
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

  /**
   * Sorted path of add (see exact): slot, with plain key x, goes after every candidate with a key <= x
   * (it arrived last, so it loses ties), and the (k+1)-th candidate, if any, is dropped.
   */
  private insertSorted(g: number, slot: number, x: number): void {
    const m = this.members;
    const nk = this.store.numKey!;
    const s = this.start[g]!;
    let n = this.count[g]!;
    let p = s + n;
    while (p > s && nk[m[p - 1]!]! > x) {
      m[p] = m[p - 1]!;
      p--;
    }
    m[p] = slot;
    n++;
    if (n > this.k) {
      n--;
      this.store.release(m[s + n]!);
    }
    this.count[g] = n;
    if (n === this.k) {
      const last = m[s + n - 1]!;
      this.bound[g] = last;
      this.boundValue[g] = nk[last]!;
    }
  }

  /** insertSorted with the comparator: any key types, NULLs, several key columns. */
  private insertCompared(g: number, slot: number): void {
    const m = this.members;
    const rc = this.slotCompare();
    const nk = this.store.numKey;
    // A numeric leading key decides unless it ties (or is NULL / NaN): the comparator only sees those.
    const x = nk === null ? NaN : nk[slot]!;
    const s = this.start[g]!;
    let n = this.count[g]!;
    let p = s + n;
    while (p > s) {
      const o = m[p - 1]!;
      const y = x === x ? nk![o]! : NaN;
      if (y === y && y !== x) {
        if (y < x) break;
      } else if (rc(o, slot) <= 0) break;
      m[p] = o;
      p--;
    }
    m[p] = slot;
    n++;
    if (n > this.k) {
      n--;
      this.store.release(m[s + n]!);
    }
    this.count[g] = n;
    if (n === this.k) {
      const last = m[s + n - 1]!;
      this.bound[g] = last;
      this.setBoundValue(g, last);
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
    const seq = this.store.seq;
    const nk = this.store.numKey;
    if (nk !== null && this.store.numKeyOnly && numericRegion(seg, nk)) {
      this.applyCutoff(g, seg, numericCutoff(seg, nk, seq, this.k, this.kind));
      return;
    }
    const rc = this.slotCompare();
    if (n <= 32) {
      // Regions are small (about 2k): insertion sort beats the set-up cost of a comparator sort.
      for (let i = 1; i < n; i++) {
        const e = seg[i]!;
        let j = i - 1;
        while (j >= 0) {
          const o = seg[j]!;
          const c = rc(o, e);
          if (c < 0 || (c === 0 && seq[o]! < seq[e]!)) break;
          seg[j + 1] = o;
          j--;
        }
        seg[j + 1] = e;
      }
    } else seg.sort((a, b) => rc(a, b) || seq[a]! - seq[b]!);
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
    this.applyCutoff(g, seg, bound >= 0 ? keep : -1 - keep);
  }

  /** keepCode: rows kept, with a boundary at the last of them; -1 - kept when there is no boundary yet. */
  private applyCutoff(g: number, seg: Int32Array, keepCode: number): void {
    const n = seg.length;
    const keep = keepCode >= 0 ? keepCode : -1 - keepCode;
    const bound = keepCode >= 0 ? seg[keep - 1]! : -1;
    for (let i = keep; i < n; i++) this.store.release(seg[i]!);
    this.count[g] = keep;
    this.bound[g] = bound;
    if (bound < 0) this.boundValue[g] = NaN;
    else this.setBoundValue(g, bound);
  }

  private setBoundValue(g: number, bound: number): void {
    const nk = this.store.numKey;
    if (nk !== null) this.boundValue[g] = nk[bound]!;
    else if (this.numericKey !== null) {
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
    this.compactAll();
    return this.allSlots();
  }

  /** Applies the cutoff to every partition not kept exact on the fly; returns the rows kept. */
  compactAll(): number {
    let total = 0;
    for (let g = 0; g < this.groups; g++) {
      if (this.sorted[g] === 0) this.compact(g);
      total += this.count[g]!;
    }
    return total;
  }

  /** A kept slot of partition g (it holds the partition's key values), -1 when g keeps no row. */
  firstSlot(g: number): number {
    return this.count[g]! > 0 ? this.members[this.start[g]!]! : -1;
  }

  /**
   * Kept slots partition by partition in `order`, each partition's in (order keys, arrival) order: its
   * region is sorted by the cutoff (compactAll) or kept sorted on every add.
   */
  slotsByPartition(order: Int32Array): Uint32Array {
    let total = 0;
    for (let j = 0; j < order.length; j++) total += this.count[order[j]!]!;
    const out = new Uint32Array(total);
    let w = 0;
    for (let j = 0; j < order.length; j++) {
      const g = order[j]!;
      const s = this.start[g]!;
      const n = this.count[g]!;
      for (let i = 0; i < n; i++) out[w++] = this.members[s + i]!;
    }
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
    return bySeq(out, this.store.seq);
  }

  /** Bytes of the store and of the per-partition arrays (see SlotStore.retainedBytes). */
  retainedBytes(): number {
    const perGroup = this.start.byteLength + this.count.byteLength + this.capOf.byteLength + this.bound.byteLength + this.boundValue.byteLength;
    return this.store.retainedBytes() + perGroup + this.members.byteLength;
  }

  /** Forgets every partition (streaming operator: after each completed partition). */
  clear(): void {
    this.store.reset();
    this.top = 0;
    this.groups = 0;
  }
}

// Long-lived instances whose shapes the optimized per-row paths depend on (see shape-anchor.ts).
anchorShape(new RankingHeaps('row_number', 1, [T.int4], compileComparator([{ col: 0, type: T.int4, desc: false, nullsFirst: false }])));
