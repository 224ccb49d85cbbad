/**
 * Row-reference store of the per-partition Top-N (topn-ranking.ts) for row_number with a small k over
 * plain numeric order keys: each partition owns k consecutive entries of one flat Float64Array — the
 * row's order keys (negated for DESC, so every key orders ascending) and a reference to the input row —
 * kept sorted, so the k-th entry is the boundary. Nothing of a row is copied when it enters: the input
 * batches that hold kept rows are retained, and only the survivors are gathered at the end.
 *
 * Why: with ~100,000 partitions, copying every entering row into a columnar slot store touches a dozen
 * arrays at random positions per row; here the boundary test and the insertion read and write one
 * partition block (for k = 1 a single cache line).
 *
 * Memory stays O(k × partitions): once the retained batches hold several times more rows than are kept
 * (and at least a million), or the memory limit is reached, the kept rows are gathered into one batch
 * and the references rewritten (compact). References grow in
 * arrival order and gathering keeps that order, so "earlier arrival wins a tie" survives compaction.
 *
 * NULL and NaN keys are outside this model (their order is not the numbers'): prepare() refuses a batch
 * holding one and the operator hands the rows kept so far to the general store.
 */
import { concatBatches, deadColumn, emptyBatch, makeColumn, takeBatch, type Batch, type Column } from '../../common/column.js';
import { storageKind, T, type DataType, type Value } from '../../common/types.js';
import type { TextDictionary } from '../../common/text-dictionary.js';
import { keyCategory, type SortKey } from '../sort-key.js';
import { anchorShape } from '../../common/shape-anchor.js';

/**
 * Retained input rows allowed per kept row before compaction, and a floor below which only memory
 * pressure compacts (the operator compacts before giving up): batches of a stored table cost nothing to
 * retain, and gathering them again would.
 */
const RETAIN_FACTOR = 8;
const RETAIN_FLOOR = 1 << 20;
/** Largest k handled: insertion into a sorted block of k entries stays cheaper than a heap. */
export const REFS_MAX_K = 16;
const REFS_MAX_KEYS = 4;

/** The kept rows in arrival order, and where each entry (partition-block order) landed among them. */
export interface GatheredRows {
  readonly rows: Batch;
  /** Row of `rows` of each entry, entries enumerated partition by partition, best first. */
  readonly at: Uint32Array;
  /** Entries of partition g are at[starts[g] .. starts[g + 1]). */
  readonly starts: Int32Array;
  /** Partition of each row of `rows`. */
  readonly part: Int32Array;
}

export class RowRefTopK {
  /** Numbers per entry: the order keys, then the row reference. */
  private readonly w: number;
  private readonly nk: number;
  private readonly signs: Float64Array;
  /** groups × k × w numbers; an entry never filled has NaN keys, so a partition's k-th key is NaN until it is full. */
  private ent = new Float64Array(0);
  private cnt = new Uint8Array(0);
  /**
   * Per partition, the leading key of its k-th entry (NaN until it is full): a dense copy, so the rows
   * rejected outright (most of them, once partitions fill) read 8 bytes per partition, not its block.
   */
  private bnd = new Float64Array(0);
  groups = 0;
  /** Partitions holding at least one entry. */
  partitions = 0;
  /** Live entries. */
  kept = 0;
  peakKept = 0;
  /** Per input row of the current batch: its sign-adjusted keys, row-major. */
  private xs = new Float64Array(0);
  /**
   * What offer1 / offerN report besides their result: entries added, partitions filled for the first
   * time. A typed array rather than fields of this object keeps the loops' optimized code free of this
   * class's shape.
   */
  private readonly tally = new Int32Array(2);
  private batches: Batch[] = [];
  private bases: number[] = [];
  private nextBase = 0;
  retainedRows = 0;
  /** The latest batch retained, as retained (for the caller's row-size estimate). */
  lastRetained: Batch | null = null;
  peakRetainedRows = 0;
  compactions = 0;

  constructor(
    readonly k: number,
    readonly keys: readonly SortKey[],
    private readonly types: readonly DataType[],
    /** Columns left out of the retained rows (see TopNRankingSpec.unusedCols); gather() gives their partition ids instead. */
    private readonly unused: readonly number[] = [],
  ) {
    this.nk = keys.length;
    this.w = this.nk + 1;
    this.signs = Float64Array.from(keys, (key) => (key.desc ? -1 : 1));
  }

  /** Whether the plan's ranking can use this store (the data may still refuse, see prepare). */
  static eligible(kind: string, k: number, keys: readonly SortKey[]): boolean {
    if (kind !== 'row_number' || k < 1 || k > REFS_MAX_K || keys.length === 0 || keys.length > REFS_MAX_KEYS) return false;
    return keys.every((key) => {
      const c = keyCategory(key.type);
      return (c === 'num' || c === 'float') && key.type.name !== 'bool';
    });
  }

  /** Bytes of the entry table (EXPLAIN ANALYZE / reservation); retained rows are counted by the caller. */
  get tableBytes(): number {
    return this.ent.byteLength + this.cnt.byteLength + this.bnd.byteLength + this.xs.byteLength;
  }

  ensureGroups(n: number): void {
    if (n <= this.groups) return;
    const per = this.k * this.w;
    if (n * per > this.ent.length) {
      let len = Math.max(256, this.cnt.length);
      while (len < n) len *= 2;
      const ne = new Float64Array(len * per);
      ne.set(this.ent);
      ne.fill(NaN, this.ent.length);
      this.ent = ne;
      const nc = new Uint8Array(len);
      nc.set(this.cnt);
      this.cnt = nc;
      const nb = new Float64Array(len);
      nb.set(this.bnd);
      nb.fill(NaN, this.bnd.length);
      this.bnd = nb;
    }
    this.groups = n;
  }

  /**
   * Loads the batch's order keys as sign-adjusted numbers; false (nothing loaded) when a key is NULL or
   * NaN, or not stored as plain numbers (an int8 column holding bigints).
   */
  prepare(b: Batch): boolean {
    const n = b.length;
    const nk = this.nk;
    if (this.xs.length < n * nk) this.xs = new Float64Array(n * nk);
    return loadOrderKeys(b, this.keys, this.signs, this.xs, 0);
  }

  /** Offers every row of the prepared batch b, whose rows have partition ids gids. */
  consume(b: Batch, gids: Int32Array): void {
    const n = b.length;
    const base = this.nextBase;
    const before = this.kept;
    const tally = this.tally;
    const changed =
      this.nk === 1
        ? offer1(n, gids, this.xs, this.ent, this.cnt, this.bnd, this.k, base, tally)
        : offerN(n, gids, this.xs, this.ent, this.cnt, this.bnd, this.k, this.nk, base, tally);
    this.kept += tally[0]!;
    this.partitions += tally[1]!;
    if (this.kept > this.peakKept) this.peakKept = this.kept;
    if (changed === 0 && this.kept === before) return;
    // Helper columns no one reads (computed partition keys): retaining their fresh strings would keep
    // the whole input's worth of them alive until the next compaction.
    const unused = this.unused;
    const kept = unused.length === 0 ? b : { columns: b.columns.map((c, j) => (unused.includes(j) ? deadColumn(c.type) : c)), length: n };
    this.lastRetained = kept;
    this.batches.push(kept);
    this.bases.push(base);
    this.nextBase = base + n;
    this.retainedRows += n;
    if (this.retainedRows > this.peakRetainedRows) this.peakRetainedRows = this.retainedRows;
    if (this.retainedRows > Math.max(RETAIN_FACTOR * this.kept, RETAIN_FLOOR)) this.compact();
  }

  /** Gathers the kept rows into one batch and points the entries at it (see the file comment). */
  compact(): void {
    const g = this.gather();
    const ent = this.ent;
    const w = this.w;
    const k = this.k;
    const nk = this.nk;
    let e = 0;
    for (let p = 0; p < this.groups; p++) {
      const c = this.cnt[p]!;
      for (let j = 0; j < c; j++) ent[(p * k + j) * w + nk] = g.at[e++]!;
    }
    this.batches = [g.rows];
    this.bases = [0];
    this.nextBase = g.rows.length;
    this.retainedRows = g.rows.length;
    this.compactions++;
  }

  /**
   * The retained input batches in arrival order (after a compaction, the gathered one first): every kept
   * row is in one of them, and every other row they hold was beaten by k rows of its partition.
   */
  retainedBatches(): readonly Batch[] {
    return this.batches;
  }

  /**
   * The kept rows of the partitions in `order`, each partition's entries best first, read straight from
   * the retained batches in one pass per column: no arrival-order copy to gather again. Null (nothing
   * done) when a column is stored differently in two retained batches. When partitions are indexed by
   * the value of int column `keyCol` (PartitionIndex), that column is written from `order` itself.
   */
  gatherInOrder(order: Int32Array, keyCol = -1): Batch | null {
    const total = this.kept;
    if (this.batches.length === 0 || total === 0) return null;
    const refs = new Float64Array(total);
    const keys = keyCol >= 0 ? new Int32Array(total) : null;
    let m = 0;
    for (let s = 0; s < order.length; s += KERNEL_SLICE) m = refsInOrder(order, s, Math.min(order.length, s + KERNEL_SLICE), this.ent, this.cnt, this.k, this.w, this.nk, refs, keys, m);
    return gatherRefs(this.batches, this.bases, refs.subarray(0, m), this.types, keyCol, keys);
  }

  /** The kept rows (see GatheredRows). */
  gather(): GatheredRows {
    const groups = this.groups;
    const total = this.kept;
    if (total === 0) return { rows: emptyBatch(this.types), at: new Uint32Array(0), starts: new Int32Array(groups + 1), part: new Int32Array(0) };
    const starts = new Int32Array(groups + 1);
    const refs = new Float64Array(total);
    const ent = this.ent;
    const w = this.w;
    const k = this.k;
    const nk = this.nk;
    let e = 0;
    for (let p = 0; p < groups; p++) {
      starts[p] = e;
      const c = this.cnt[p]!;
      for (let j = 0; j < c; j++) refs[e++] = ent[(p * k + j) * w + nk]!;
    }
    starts[groups] = e;
    const perm = sortByRef(refs);
    const at = new Uint32Array(total);
    const parts: Batch[] = [];
    const sel = new Uint32Array(total);
    let bi = 0;
    let m = 0;
    const batches = this.batches;
    const bases = this.bases;
    for (let i = 0; i < total; i++) {
      const e2 = perm[i]!;
      const ref = refs[e2]!;
      if (bi + 1 < batches.length && bases[bi + 1]! <= ref) {
        if (m > 0) parts.push(takeBatch(batches[bi]!, sel, m));
        m = 0;
        do bi++;
        while (bi + 1 < batches.length && bases[bi + 1]! <= ref);
      }
      sel[m++] = ref - bases[bi]!;
      at[e2] = i;
    }
    if (m > 0) parts.push(takeBatch(batches[bi]!, sel, m));
    const rows = parts.length === 1 ? parts[0]! : concatBatches(this.types, parts);
    const part = new Int32Array(total);
    for (let p = 0; p < groups; p++) for (let e2 = starts[p]!; e2 < starts[p + 1]!; e2++) part[at[e2]!] = p;
    return { rows, at, starts, part };
  }

  /**
   * The partitions holding entries, ascending: when partitions are indexed by the key's own value
   * (see PartitionIndex in topn-ranking-value-index.ts), their key order, read without sorting.
   */
  nonEmpty(): Int32Array {
    const out = new Int32Array(this.partitions);
    let w = 0;
    for (let g = 0; g < this.groups; g += KERNEL_SLICE) w = nonZero(this.cnt, g, Math.min(this.groups, g + KERNEL_SLICE), out, w);
    return out;
  }

  /**
   * Renumbers the partitions: entry block g moves to to(g), called for the non-empty partitions in
   * ascending order and giving distinct ids below `count`. The tables are rebuilt at the new size, so
   * a sparse numbering (key values) gives back its memory.
   */
  renumber(to: (g: number) => number, count: number): void {
    const per = this.k * this.w;
    const oldEnt = this.ent;
    const oldCnt = this.cnt;
    const oldBnd = this.bnd;
    const oldGroups = this.groups;
    this.ent = new Float64Array(0);
    this.cnt = new Uint8Array(0);
    this.bnd = new Float64Array(0);
    this.groups = 0;
    this.ensureGroups(Math.max(count, 1));
    for (let g = 0; g < oldGroups; g++) {
      const c = oldCnt[g]!;
      if (c === 0) continue;
      const h = to(g);
      this.ent.set(oldEnt.subarray(g * per, (g + 1) * per), h * per);
      this.cnt[h] = c;
      this.bnd[h] = oldBnd[g]!;
    }
    this.groups = count;
  }

  /** Entries of partition g. */
  count(g: number): number {
    return this.cnt[g]!;
  }

  /** The partition indexes among ids[0..n) holding no entry, into out; returns how many. */
  unfilled(ids: Int32Array, n: number, out: Int32Array): number {
    return emptyOf(this.cnt, ids, n, out);
  }
}

/**
 * Rows refs[j] (numbered from 0 across `batches`, batch i starting at bases[i]) as output rows j, one
 * pass per column; null when a column is stored differently in two batches. The rows are read in
 * reference order, batch by batch, and scattered to their output positions: the reads then move forward
 * through each source column (the output is the small side, and stays in cache), where reading in
 * output order would jump across every retained batch for each row. Column keyCol, when >= 0, is
 * `keys` (the caller knows its values).
 */
function gatherRefs(batches: readonly Batch[], bases: readonly number[], refs: Float64Array, types: readonly DataType[], keyCol: number, keys: Int32Array | null): Batch | null {
  const m = refs.length;
  const to = sortByRef(refs);
  const row = new Uint32Array(m);
  // Output rows to[seg[i] .. seg[i + 1]) come from batch i.
  const seg = new Int32Array(batches.length + 1);
  const starts = Float64Array.from(bases);
  let bi = 0;
  for (let s = 0; s < m; s += KERNEL_SLICE) bi = segmentRefs(refs, to, s, Math.min(m, s + KERNEL_SLICE), starts, batches.length, seg, row, bi);
  while (bi < batches.length) seg[++bi] = m;
  const columns: Column[] = [];
  for (let ci = 0; ci < types.length; ci++) {
    if (ci === keyCol && keys !== null) {
      columns.push(makeColumn(types[ci]!, keys, null, null));
      continue;
    }
    const c = gatherColumn(batches, ci, types[ci]!, seg, row, to, m);
    if (c === null) return null;
    columns.push(c);
  }
  return { columns, length: m };
}

/**
 * Column ci of the gathered rows: row row[j] of batch i (seg[i] <= j < seg[i + 1]) goes to output row
 * to[j]. Null when the batches store the column differently (some as a placeholder, or in another
 * storage class).
 */
function gatherColumn(batches: readonly Batch[], ci: number, t: DataType, seg: Int32Array, row: Uint32Array, to: Uint32Array, n: number): Column | null {
  const cols = batches.map((b) => b.columns[ci]!);
  const dead = cols.map((c, x) => c.data.length < batches[x]!.length);
  if (dead.every((d) => d)) return deadColumn(t);
  if (dead.some((d) => d)) return null;
  const kind = storageKind(t);
  let data: Float64Array | Int32Array | Uint8Array | Value[];
  if (kind === 'f64') {
    if (!cols.every((c) => c.data instanceof Float64Array)) return null;
    data = pickF64(cols.map((c) => c.data as Float64Array), seg, row, to, new Float64Array(n));
  } else if (kind === 'i32') {
    if (!cols.every((c) => c.data instanceof Int32Array)) return null;
    data = pickI32(cols.map((c) => c.data as Int32Array), seg, row, to, new Int32Array(n));
  } else if (kind === 'u8') {
    if (!cols.every((c) => c.data instanceof Uint8Array)) return null;
    data = pickU8(cols.map((c) => c.data as Uint8Array), seg, row, to, new Uint8Array(n));
  } else {
    if (!cols.every((c) => Array.isArray(c.data))) return null;
    data = pickObj(cols.map((c) => c.data as Value[]), seg, row, to, new Array<Value>(n));
  }
  let nulls: Uint8Array | null = null;
  if (cols.some((c) => c.nulls !== null)) {
    const o = pickNulls(cols.map((c) => c.nulls), seg, row, to, new Uint8Array(n));
    if (hasOne(o, n)) nulls = o;
  }
  // Codes survive when every batch has them in one dictionary.
  let dictionary: TextDictionary | null = null;
  for (const c of cols) {
    const dc = c.dict;
    if (dc == null || (dictionary !== null && dc.dictionary !== dictionary)) {
      dictionary = null;
      break;
    }
    dictionary = dc.dictionary;
  }
  const dict = dictionary === null ? null : { codes: pickI32(cols.map((c) => c.dict!.codes), seg, row, to, new Int32Array(n)), dictionary };
  return makeColumn(t, data, nulls, dict);
}

// One loop per storage class keeps the element loads monomorphic. The caller allocates the output, and
// the typed copies make each retained batch one call of a loop kernel (see sortByRef).
function pickF64(src: Float64Array[], seg: Int32Array, row: Uint32Array, to: Uint32Array, o: Float64Array): Float64Array {
  for (let b = 0; b < src.length; b++) takeF64(src[b]!, row, to, o, seg[b]!, seg[b + 1]!);
  return o;
}

function takeF64(s: Float64Array, row: Uint32Array, to: Uint32Array, o: Float64Array, from: number, end: number): void {
  for (let j = from; j < end; j++) o[to[j]!] = s[row[j]!]!;
}

function pickI32(src: Int32Array[], seg: Int32Array, row: Uint32Array, to: Uint32Array, o: Int32Array): Int32Array {
  for (let b = 0; b < src.length; b++) takeI32(src[b]!, row, to, o, seg[b]!, seg[b + 1]!);
  return o;
}

function takeI32(s: Int32Array, row: Uint32Array, to: Uint32Array, o: Int32Array, from: number, end: number): void {
  for (let j = from; j < end; j++) o[to[j]!] = s[row[j]!]!;
}

function pickU8(src: Uint8Array[], seg: Int32Array, row: Uint32Array, to: Uint32Array, o: Uint8Array): Uint8Array {
  for (let b = 0; b < src.length; b++) takeU8(src[b]!, row, to, o, seg[b]!, seg[b + 1]!);
  return o;
}

function takeU8(s: Uint8Array, row: Uint32Array, to: Uint32Array, o: Uint8Array, from: number, end: number): void {
  for (let j = from; j < end; j++) o[to[j]!] = s[row[j]!]!;
}

/** Null maps; a batch without one has none of these rows NULL. */
function pickNulls(src: (Uint8Array | null)[], seg: Int32Array, row: Uint32Array, to: Uint32Array, o: Uint8Array): Uint8Array {
  for (let b = 0; b < src.length; b++) {
    const s = src[b];
    if (s === null || s === undefined) continue;
    for (let j = seg[b]!; j < seg[b + 1]!; j++) o[to[j]!] = s[row[j]!] === 1 ? 1 : 0;
  }
  return o;
}

function pickObj(src: Value[][], seg: Int32Array, row: Uint32Array, to: Uint32Array, o: Value[]): Value[] {
  for (let b = 0; b < src.length; b++) {
    const s = src[b]!;
    for (let j = seg[b]!; j < seg[b + 1]!; j++) o[to[j]!] = s[row[j]!]!;
  }
  return o;
}

/**
 * The references of the entries of the partitions in order[from..to), each partition's best first, into
 * refs from position m on (and each entry's partition into keys, when given); returns the next position.
 * A kernel for the reason sortByRef's loops are.
 */
function refsInOrder(order: Int32Array, from: number, to: number, ent: Float64Array, cnt: Uint8Array, k: number, w: number, nk: number, refs: Float64Array, keys: Int32Array | null, m: number): number {
  for (let j = from; j < to; j++) {
    const g = order[j]!;
    const c = cnt[g]!;
    for (let e = 0; e < c; e++) {
      if (keys !== null) keys[m] = g;
      refs[m++] = ent[(g * k + e) * w + nk]!;
    }
  }
  return m;
}

/** The ids[i] (i < n) with cnt[ids[i]] = 0, into out; returns how many. */
function emptyOf(cnt: Uint8Array, ids: Int32Array, n: number, out: Int32Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) if (cnt[ids[i]!] === 0) out[m++] = ids[i]!;
  return m;
}

/** Indexes from <= g < to with cnt[g] > 0, ascending, into out from position w on; returns the next position. */
function nonZero(cnt: Uint8Array, from: number, to: number, out: Int32Array, w: number): number {
  for (let g = from; g < to; g++) if (cnt[g]! > 0) out[w++] = g;
  return w;
}

/**
 * For references visited in order to[from..end) (ascending), the row within its batch (row) and where
 * each of the nb batches starts among them (seg; see gatherRefs). bi is the batch of the previous
 * reference; returns the batch of the last one.
 */
function segmentRefs(refs: Float64Array, to: Uint32Array, from: number, end: number, bases: Float64Array, nb: number, seg: Int32Array, row: Uint32Array, bi: number): number {
  for (let j = from; j < end; j++) {
    const ref = refs[to[j]!]!;
    while (bi + 1 < nb && bases[bi + 1]! <= ref) seg[++bi] = j;
    row[j] = ref - bases[bi]!;
  }
  return bi;
}

function hasOne(u: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (u[i] === 1) return true;
  return false;
}

/**
 * The batch's order keys as sign-adjusted numbers (signs[j] = -1 for DESC), row-major from row `at` of
 * xs; false when a key is NULL or NaN, or not stored as plain numbers (an int8 column holding bigints).
 */
function loadOrderKeys(b: Batch, keys: readonly SortKey[], signs: Float64Array, xs: Float64Array, at: number): boolean {
  const n = b.length;
  const nk = keys.length;
  for (let j = 0; j < nk; j++) {
    const c = b.columns[keys[j]!.col]!;
    if (c.nulls !== null && hasOne(c.nulls, n)) return false;
    const d = c.data;
    const s = signs[j]!;
    if (d instanceof Float64Array) {
      if (!loadF64(d, n, s, xs, at * nk + j, nk)) return false;
    } else if (d instanceof Int32Array) loadI32(d, n, s, xs, at * nk + j, nk);
    else return false;
  }
  return true;
}

function loadF64(d: Float64Array, n: number, s: number, xs: Float64Array, o: number, nk: number): boolean {
  let bad = false;
  for (let i = 0; i < n; i++) {
    const x = d[i]! * s;
    if (x !== x) bad = true;
    xs[o + i * nk] = x;
  }
  return !bad;
}

function loadI32(d: Int32Array, n: number, s: number, xs: Float64Array, o: number, nk: number): void {
  for (let i = 0; i < n; i++) xs[o + i * nk] = d[i]! * s;
}

/**
 * One order key (two numbers per entry). A row not better than its partition's k-th key is out (a tie
 * loses: it arrived later); a NaN k-th key (partition not full) lets every row in. Returns the rows that
 * entered; tally gets the entries added and the partitions that got their first.
 */
function offer1(
  n: number,
  gids: Int32Array,
  xs: Float64Array,
  ent: Float64Array,
  cnt: Uint8Array,
  bnd: Float64Array,
  k: number,
  base: number,
  tally: Int32Array,
): number {
  let replaced = 0;
  let added = 0;
  let fresh = 0;
  for (let i = 0; i < n; i++) {
    const g = gids[i]!;
    const x = xs[i]!;
    if (x >= bnd[g]!) continue;
    const o = g * k;
    const c = cnt[g]!;
    let p: number;
    if (c < k) {
      cnt[g] = c + 1;
      added++;
      if (c === 0) fresh++;
      p = c;
    } else {
      replaced++;
      p = k - 1;
    }
    while (p > 0) {
      const q = (o + p - 1) * 2;
      const y = ent[q]!;
      if (!(y > x)) break;
      ent[q + 2] = y;
      ent[q + 3] = ent[q + 1]!;
      p--;
    }
    ent[(o + p) * 2] = x;
    ent[(o + p) * 2 + 1] = base + i;
    if (c + 1 >= k) bnd[g] = ent[(o + k - 1) * 2]!;
  }
  tally[0] = added;
  tally[1] = fresh;
  return replaced + added;
}

/** offer1 for nk order keys compared in order (w = nk + 1 numbers per entry). */
function offerN(
  n: number,
  gids: Int32Array,
  xs: Float64Array,
  ent: Float64Array,
  cnt: Uint8Array,
  bnd: Float64Array,
  k: number,
  nk: number,
  base: number,
  tally: Int32Array,
): number {
  const w = nk + 1;
  let replaced = 0;
  let added = 0;
  let fresh = 0;
  for (let i = 0; i < n; i++) {
    const g = gids[i]!;
    const xb = i * nk;
    const x0 = xs[xb]!;
    const t0 = bnd[g]!;
    if (x0 > t0) continue;
    const o = g * k;
    const lb = (o + k - 1) * w;
    if (x0 === t0 && !rowBefore(xs, xb, ent, lb, nk)) continue;
    const c = cnt[g]!;
    let p: number;
    if (c < k) {
      cnt[g] = c + 1;
      added++;
      if (c === 0) fresh++;
      p = c;
    } else {
      replaced++;
      p = k - 1;
    }
    while (p > 0) {
      const q = (o + p - 1) * w;
      const y0 = ent[q]!;
      if (y0 < x0 || (y0 === x0 && !rowBefore(xs, xb, ent, q, nk))) break;
      for (let j = 0; j < w; j++) ent[q + w + j] = ent[q + j]!;
      p--;
    }
    const at = (o + p) * w;
    for (let j = 0; j < nk; j++) ent[at + j] = xs[xb + j]!;
    ent[at + nk] = base + i;
    if (c + 1 >= k) bnd[g] = ent[lb]!;
  }
  tally[0] = added;
  tally[1] = fresh;
  return replaced + added;
}

/** Row xs[xb..] orders strictly before entry ent[eb..] (keys equal: it arrived later, so not before). */
function rowBefore(xs: Float64Array, xb: number, ent: Float64Array, eb: number, nk: number): boolean {
  for (let j = 0; j < nk; j++) {
    const a = xs[xb + j]!;
    const b = ent[eb + j]!;
    if (a !== b) return a < b;
  }
  return false;
}

/**
 * Entry indexes ordered by reference. References are distinct integers below 2^32 (they count input rows
 * since the last compaction), so two 16-bit LSD radix passes sort them in linear time.
 *
 * Runs once per query, so its loops are kernels of their own, called a slice of KERNEL_SLICE entries at a
 * time: a loop inside a function called once is optimized on the fly (on-stack replacement) while the
 * code around it has no type feedback yet, and the next query throws that code away or starts over in
 * the interpreter; a small kernel called many times is optimized whole during the first query, and that
 * code serves every later one.
 */
function sortByRef(refs: Float64Array): Uint32Array {
  const n = refs.length;
  const idx = new Uint32Array(n);
  const ka = new Uint32Array(n);
  let fits = true;
  // refKeys numbers idx first, so the comparison sort below starts from the identity either way.
  for (let s = 0; s < n; s += KERNEL_SLICE) fits = refKeys(refs, ka, idx, s, Math.min(n, s + KERNEL_SLICE)) && fits;
  if (!fits || n < 64) return idx.sort((a, b) => refs[a]! - refs[b]!);
  const kb = new Uint32Array(n);
  const vb = new Uint32Array(n);
  const counts = new Int32Array(65536);
  radixPass(ka, idx, kb, vb, counts, 0, n);
  counts.fill(0);
  radixPass(kb, vb, ka, idx, counts, 16, n);
  return idx;
}

/** Entries per call of the once-per-query kernels (see sortByRef). */
const KERNEL_SLICE = 4096;

/** idx[i] = i and ka[i] = refs[i] for from <= i < to; false when a reference does not fit 32 bits. */
function refKeys(refs: Float64Array, ka: Uint32Array, idx: Uint32Array, from: number, to: number): boolean {
  let fits = true;
  for (let i = from; i < to; i++) {
    const r = refs[i]!;
    idx[i] = i;
    if (r >= 4294967296) fits = false;
    else ka[i] = r;
  }
  return fits;
}

/** One stable counting pass on bits shift..shift+15 of the keys, from (ka, va) into (kb, vb); counts starts zeroed. */
function radixPass(ka: Uint32Array, va: Uint32Array, kb: Uint32Array, vb: Uint32Array, counts: Int32Array, shift: number, n: number): void {
  for (let s = 0; s < n; s += KERNEL_SLICE) countDigits(ka, counts, shift, s, Math.min(n, s + KERNEL_SLICE));
  digitStarts(counts);
  for (let s = 0; s < n; s += KERNEL_SLICE) scatterDigits(ka, va, kb, vb, counts, shift, s, Math.min(n, s + KERNEL_SLICE));
}

function countDigits(ka: Uint32Array, counts: Int32Array, shift: number, from: number, to: number): void {
  for (let i = from; i < to; i++) counts[(ka[i]! >>> shift) & 0xffff]!++;
}

/** Counts into starting positions (exclusive prefix sums). */
function digitStarts(counts: Int32Array): void {
  let sum = 0;
  for (let d = 0; d < counts.length; d++) {
    const c = counts[d]!;
    counts[d] = sum;
    sum += c;
  }
}

function scatterDigits(ka: Uint32Array, va: Uint32Array, kb: Uint32Array, vb: Uint32Array, counts: Int32Array, shift: number, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const at = counts[(ka[i]! >>> shift) & 0xffff]!++;
    kb[at] = ka[i]!;
    vb[at] = va[i]!;
  }
}
