/**
 * TopNRanking: per-partition Top-N (derive-topn-from-window). For every partition of the partition key
 * columns, keeps the rows whose row_number / rank / dense_rank over the order keys would be <= k, and
 * emits them either in input order or, when every key is a column, sorted by (partition keys, order keys)
 * with ties in input order (sortedOutput: the Window above then sorts nothing); either way the Window
 * numbers ties exactly as it would over the full input.
 *
 * Hashed variant: any input order. Each row's partition is mapped to a dense id — under the row-reference
 * store a small non-negative int key is its own index (topn-ranking-value-index.ts), else a direct-address table
 * for small non-negative integers, dictionary codes or a typed string hash for text, a Map for other
 * single keys, flat tables of id pairs for several key columns — then compared against that partition's
 * boundary (topn-ranking-store.ts). Memory is O(k × partitions).
 *
 * Not strict (quire.derive_topn = auto): after `probeRows` input rows, a cost guard (topn-ranking-cost.ts)
 * estimates how many rows the whole input keeps; only when that comes close to the input size (k ×
 * partitions near the row count: nothing to prune) does the operator stop pruning, emit what it holds and
 * pass the rest of the input through (sort-and-filter). Rows it dropped before that point are beaten by
 * k kept rows of their partition, so the ranking filter above (which stays in this mode) gives the same
 * answer; the cost of giving up is bounded by the probe. Strict mode never passes extra rows.
 *
 * EXPLAIN ANALYZE reports partitions, peak kept rows and bytes (the memory bound), whether pruning was
 * abandoned, and the decision with its estimate.
 */
import { hashKey } from '../../common/compare.js';
import { storageKind, T, type DataType, type Value } from '../../common/types.js';
import { BATCH_SIZE, sliceBatch, takeBatch, type Batch, type Column } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, HASH_ENTRY_BYTES, queryMemory } from '../../execution/memory-pool.js';
import { intRange } from '../../execution/column-stats.js';
import type { DictCodes, TextDictionary } from '../../common/text-dictionary.js';
import { anchorShape } from '../../common/shape-anchor.js';
import type { RankingKind } from '../../logical/plan.js';
import { PhysicalOperator, type ExplainInputs, type ExplainNode } from '../operator.js';
import { pgSortKeys, pgSortKeyText } from '../explain-pg-expr.js';
import { compileComparator, describeKeys, type Comparator, type KeyView, type SortKey } from '../sort-key.js';
import { RankingHeaps } from './topn-ranking-store.js';
import { estimateTopNRanking } from './topn-ranking-cost.js';
import { StringIds, stringHash } from './topn-ranking-string-ids.js';
import { orderPartitions, partitionOrder } from './topn-ranking-partition-order.js';
import { RowRefTopK } from './topn-ranking-refs.js';
import { PartitionIndex } from './topn-ranking-value-index.js';
import { ExternalSort } from './external-sort.js';
import { Replay } from './replay.js';

export interface TopNRankingSpec {
  /** Input columns holding the partition keys. */
  readonly partitionCols: readonly number[];
  readonly orderKeys: readonly SortKey[];
  readonly kind: RankingKind;
  readonly k: number;
  readonly strict: boolean;
  /** EXPLAIN names of partition / order keys (helper columns have no useful names). */
  readonly names?: { partition: string[]; order: string[] };
  /**
   * Emit rows sorted by (partition keys ASC NULLS LAST, order keys), ties in arrival order, and declare
   * it: a Window above then needs no sort of its own. The planner asks for it when every key is a plain
   * column, so the order survives the projection above.
   */
  readonly sortedOutput?: boolean;
  /**
   * Columns the operator need not keep in its rows: helper partition-key columns that the projection
   * above drops, read only to find each row's partition. Their values in the output are unspecified.
   */
  readonly unusedCols?: readonly number[];
  /**
   * Groups of positions in partitionCols that stand for one partition expression split into its parts
   * (injective-text-key.ts): a NULL in any part of a group is that expression's one NULL key.
   */
  readonly together?: readonly (readonly number[])[];
}

/** The memory reservation is renewed once kept rows and partitions grew by this many, or after RESERVE_EVERY_BATCHES batches. */
const RESERVE_STEP_ROWS = 1024;
const RESERVE_EVERY_BATCHES = 64;

/**
 * The row-reference store hands over to the copying store when, after this many rows, partitions hold
 * REFS_FEW_PARTITIONS rows or more on average.
 */
const REFS_SETTLE_ROWS = 4096;
const REFS_FEW_PARTITIONS = 3;

/** Default rows seen before a non-strict operator may decide that pruning does not pay. */
export const PROBE_ROWS = 65_536;

/**
 * Cells of a PairIds grid (4 bytes each) before it hashes instead: a grid's memory grows with the
 * product of the two sides' ids, the hash table's (24 bytes a pair) with the pairs actually seen.
 */
const GRID_MAX_CELLS = 1 << 20;

/** Entries a PartitionIds direct table starts with (4 KiB). */
const DIRECT_INITIAL = 1024;

/**
 * Dense ids of pairs of dense ids. While both sides have few ids, a grid addressed by (a, b) — one
 * load per row, no hashing or probing: two small key columns (a group and a bucket) are the common case.
 * Past GRID_MAX_CELLS the grid's pairs move into open addressing over flat Int32Arrays (no per-key
 * objects or strings), kept at most half full.
 */
export class PairIds {
  /** Grid mode: cell (a << gridShift) | b holds the pair's id, -1 when not seen; null once hashing. */
  private grid: Int32Array | null = new Int32Array(0);
  private gridShift = 0;
  private gridRows = 0;
  private keys = new Int32Array(0);
  private vals = new Int32Array(0);
  private mask = 0;
  count = 0;

  constructor(
    /** Cells the grid may have before the pairs are hashed instead (tests pass a small one). */
    private readonly gridMaxCells: number = GRID_MAX_CELLS,
  ) {}

  /** Ids of the pairs (a[i], b[i]) for i < n, into out (which may be a). */
  assign(a: Int32Array, b: Int32Array, n: number, out: Int32Array): void {
    for (let i = 0; i < n; i++) {
      const x = a[i]!;
      const y = b[i]!;
      const grid = this.grid;
      if (grid !== null && x < this.gridRows && y < 1 << this.gridShift) {
        const cell = (x << this.gridShift) | y;
        const v = grid[cell]!;
        if (v >= 0) {
          out[i] = v;
          continue;
        }
      }
      out[i] = this.id(x, y);
    }
  }

  id(a: number, b: number): number {
    if (this.grid !== null) {
      if (a >= this.gridRows || b >= 1 << this.gridShift) this.regrid(a, b);
      const grid = this.grid;
      if (grid !== null) {
        const cell = (a << this.gridShift) | b;
        let v = grid[cell]!;
        if (v < 0) grid[cell] = v = this.count++;
        return v;
      }
    }
    return this.hashId(a, b);
  }

  /** Grows the grid to hold (a, b), or, past the cell limit, moves its pairs to the hash table. */
  private regrid(a: number, b: number): void {
    const old = this.grid!;
    const oldShift = this.gridShift;
    const oldRows = this.gridRows;
    let shift = oldShift;
    while (b >= 1 << shift) shift++;
    let rows = Math.max(oldRows, 16);
    while (a >= rows) rows *= 2;
    if (rows * 2 ** shift > this.gridMaxCells) {
      this.grid = null;
      this.initHash(this.count);
      for (let x = 0; x < oldRows; x++) {
        for (let y = 0; y < 1 << oldShift; y++) {
          const v = old[(x << oldShift) | y]!;
          if (v >= 0) this.put(x, y, v);
        }
      }
      return;
    }
    const grid = new Int32Array(rows << shift).fill(-1);
    for (let x = 0; x < oldRows; x++) {
      for (let y = 0; y < 1 << oldShift; y++) grid[(x << shift) | y] = old[(x << oldShift) | y]!;
    }
    this.grid = grid;
    this.gridShift = shift;
    this.gridRows = rows;
  }

  private initHash(pairs: number): void {
    let size = 1024;
    while (size < pairs * 2 + 2) size *= 2;
    this.keys = new Int32Array(2 * size);
    this.vals = new Int32Array(size).fill(-1);
    this.mask = size - 1;
  }

  private static slot(a: number, b: number, mask: number): number {
    const h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> 0;
    return (h ^ (h >>> 15)) & mask;
  }

  private hashId(a: number, b: number): number {
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let h = PairIds.slot(a, b, mask);
    for (;;) {
      const v = vals[h]!;
      if (v < 0) break;
      if (keys[2 * h] === a && keys[2 * h + 1] === b) return v;
      h = (h + 1) & mask;
    }
    const g = this.count++;
    keys[2 * h] = a;
    keys[2 * h + 1] = b;
    vals[h] = g;
    if (this.count * 2 > mask) this.growHash();
    return g;
  }

  /** Inserts a pair known to be absent with its id. */
  private put(a: number, b: number, v: number): void {
    const mask = this.mask;
    let h = PairIds.slot(a, b, mask);
    while (this.vals[h]! >= 0) h = (h + 1) & mask;
    this.keys[2 * h] = a;
    this.keys[2 * h + 1] = b;
    this.vals[h] = v;
  }

  private growHash(): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    this.initHash(oldVals.length);
    for (let h = 0; h < oldVals.length; h++) {
      const v = oldVals[h]!;
      if (v >= 0) this.put(oldKeys[2 * h]!, oldKeys[2 * h + 1]!, v);
    }
  }

  /** Bytes held (EXPLAIN ANALYZE / memory reservation). */
  get bytes(): number {
    return (this.grid?.byteLength ?? 0) + this.keys.byteLength + this.vals.byteLength;
  }

  /** Whether the pairs are still in the grid (tests). */
  get gridded(): boolean {
    return this.grid !== null;
  }
}

/**
 * Maps the partition keys of each row to a dense partition id. Several key columns: each column gets its
 * own dense ids (as a single key would), and the ids are combined pairwise in flat hash tables, so no
 * composite key is built per row.
 */
export class PartitionIds {
  /**
   * Starts at DIRECT_INITIAL entries: growing it is a branch that a query takes at its start, before the
   * function has type feedback, so optimized callers that inline intId would be thrown away the next
   * time a query grows the table there; small keys (a group number) then never grow it at all.
   */
  private direct = new Int32Array(DIRECT_INITIAL).fill(-1);
  private map = new Map<Value, number>();
  /** text / varchar keys (see topn-ranking-string-ids.ts). */
  private readonly strings: StringIds;
  /** Per dictionary of a coded text key: each code's id + 1 (0 = not seen yet). */
  private readonly codeIds = new Map<TextDictionary, Int32Array>();
  private nullId = -1;
  count = 0;
  private ids = new Int32Array(BATCH_SIZE);
  private readonly parts: PartitionIds[] = [];
  private readonly pairs: PairIds[] = [];

  constructor(
    private readonly cols: readonly number[],
    private readonly types: readonly DataType[],
    /** Hash of text keys; tests pass a weak one to force collisions. */
    hash: (s: string) => number = stringHash,
    /** See TopNRankingSpec.together. */
    private readonly together: readonly (readonly number[])[] = [],
  ) {
    this.strings = new StringIds(hash);
    if (cols.length > 1) {
      for (let j = 0; j < cols.length; j++) this.parts.push(new PartitionIds([cols[j]!], [types[j]!], hash));
      for (let j = 1; j < cols.length; j++) this.pairs.push(new PairIds());
    }
  }

  /** Bytes of the id tables beyond the per-partition entry the caller counts (multi-column keys). */
  get extraBytes(): number {
    let n = 0;
    for (const p of this.pairs) n += p.bytes;
    for (const p of this.parts) n += p.extraBytes;
    for (const a of this.codeIds.values()) n += a.byteLength;
    if (this.strings.size > 0) n += this.strings.bytes;
    return n;
  }

  private id(key: Value): number {
    let g = this.map.get(key);
    if (g === undefined) {
      g = this.count++;
      this.map.set(key, g);
    }
    return g;
  }

  private textId(s: string): number {
    const next = this.count;
    const g = this.strings.idOf(s, next);
    if (g === next) this.count++;
    return g;
  }

  assign(b: Batch): Int32Array {
    const n = b.length;
    if (this.ids.length < n) this.ids = new Int32Array(n);
    const ids = this.ids;
    const cols = this.cols;
    if (cols.length === 0) {
      if (this.count === 0) this.count = 1;
      ids.fill(0, 0, n);
      return ids;
    }
    if (cols.length === 1) {
      const c = b.columns[cols[0]!]!;
      const d = c.data;
      const nulls = c.nulls;
      if (d instanceof Int32Array) {
        this.assignInt(d, nulls, n, ids);
        return ids;
      }
      if (d instanceof Float64Array || d instanceof Uint8Array) {
        // Map keys compare with SameValueZero: NaN equals NaN and -0 equals 0, as in GROUP BY.
        for (let i = 0; i < n; i++) {
          if (nulls !== null && nulls[i] === 1) ids[i] = this.nullGroup();
          else ids[i] = this.id(d[i]!);
        }
        return ids;
      }
      const t = this.types[0]!;
      if (t.name === 'text' || t.name === 'varchar') {
        // Text is its own key (bpchar is not: trailing blanks): equal strings are equal keys.
        const sd = d as string[];
        if (c.dict != null && c.dict.codes.length >= n) {
          this.assignCodes(c.dict, sd, n, ids);
          return ids;
        }
        for (let i = 0; i < n; i++) {
          if (nulls !== null && nulls[i] === 1) ids[i] = this.nullGroup();
          else ids[i] = this.textId(sd[i]!);
        }
        return ids;
      }
      for (let i = 0; i < n; i++) {
        if (nulls !== null && nulls[i] === 1) ids[i] = this.nullGroup();
        else ids[i] = this.id(hashKey(d[i] as Value, t) as Value);
      }
      return ids;
    }
    const partIds = this.parts.map((p) => p.assign(b));
    for (const group of this.together) this.collapseNulls(b, group, partIds);
    ids.set(partIds[0]!.subarray(0, n));
    for (let j = 1; j < this.parts.length; j++) {
      this.pairs[j - 1]!.assign(ids, partIds[j]!, n, ids);
    }
    this.count = this.pairs[this.pairs.length - 1]!.count;
    return ids;
  }

  /** Rows with a NULL in any part of `group` get every part's NULL id: one key, as their expression's NULL. */
  private collapseNulls(b: Batch, group: readonly number[], partIds: Int32Array[]): void {
    const n = b.length;
    for (const j of group) {
      const nulls = b.columns[this.cols[j]!]!.nulls;
      if (nulls === null) continue;
      for (let i = 0; i < n; i++) {
        if (nulls[i] !== 1) continue;
        for (const m of group) partIds[m]![i] = this.parts[m]!.nullGroup();
      }
    }
  }

  nullGroup(): number {
    if (this.nullId < 0) this.nullId = this.count++;
    return this.nullId;
  }

  /**
   * Direct-address table of a single int2/int4 key: entry v is the id of key v, or -1 (not seen yet, or
   * outside the table: ask intId). Read-only for callers; replaced when it grows.
   */
  get directTable(): Int32Array {
    return this.direct;
  }

  /**
   * Partition ids in key order (ASC NULLS LAST) when every key so far is a single int key in the direct
   * table, read off the table without sorting; null otherwise.
   */
  directOrder(): Int32Array | null {
    if (this.cols.length !== 1 || this.map.size > 0 || this.strings.size > 0 || this.codeIds.size > 0) return null;
    const out = new Int32Array(this.count);
    const dir = this.direct;
    let w = 0;
    for (let v = 0; v < dir.length; v++) {
      const g = dir[v]!;
      if (g >= 0) out[w++] = g;
    }
    if (this.nullId >= 0) out[w++] = this.nullId;
    return w === this.count ? out : null;
  }

  /**
   * Partition ids in key order (ASC NULLS LAST) when the key is a single text column whose every
   * partition came with codes of one dictionary, read off the dictionary's rank; null otherwise, or when
   * ranking the dictionary would cost much more than sorting the partitions.
   */
  codeOrder(): Int32Array | null {
    if (this.cols.length !== 1 || this.map.size > 0 || this.codeIds.size !== 1) return null;
    const [dictionary, known] = [...this.codeIds][0]!;
    const size = dictionary.size;
    if (!dictionary.ranked && size > 4 * this.count) return null;
    const rank = dictionary.rank();
    const byRank = new Int32Array(size).fill(-1);
    for (let code = 0; code < size && code < known.length; code++) if (known[code]! > 0) byRank[rank[code]!] = code;
    const out = new Int32Array(this.count);
    let w = 0;
    for (let r = 0; r < size; r++) {
      const code = byRank[r]!;
      if (code >= 0) out[w++] = known[code]! - 1;
    }
    if (this.nullId >= 0) out[w++] = this.nullId;
    // A partition first seen in a batch without codes has no code here: the caller sorts instead.
    return w === this.count ? out : null;
  }

  /** Id of the single int2/int4 key value v (not NULL), creating it if new. */
  intId(v: number): number {
    if (v >= 0 && v < 1 << 20) {
      let dir = this.direct;
      if (v >= dir.length) {
        const nd = new Int32Array(Math.min(1 << 20, Math.max(v + 1, dir.length * 2, 1024))).fill(-1);
        nd.set(dir);
        this.direct = dir = nd;
      }
      let g = dir[v]!;
      if (g < 0) {
        g = this.count++;
        dir[v] = g;
      }
      return g;
    }
    return this.id(v);
  }

  /**
   * A text key with dictionary codes: each code's id is found through the string table once and then
   * read from a per-dictionary array, so rows of coded and plain batches still share ids.
   */
  private assignCodes(dc: DictCodes, sd: string[], n: number, ids: Int32Array): void {
    let known = this.codeIds.get(dc.dictionary);
    if (known === undefined || known.length < dc.dictionary.size) {
      const grown = new Int32Array(Math.max(16, dc.dictionary.size));
      if (known !== undefined) grown.set(known);
      known = grown;
      this.codeIds.set(dc.dictionary, known);
    }
    const codes = dc.codes;
    for (let i = 0; i < n; i++) {
      const code = codes[i]!;
      if (code < 0) {
        ids[i] = this.nullGroup();
        continue;
      }
      let g = known[code]! - 1;
      if (g < 0) {
        g = this.textId(sd[i]!);
        known[code] = g + 1;
      }
      ids[i] = g;
    }
  }

  private assignInt(d: Int32Array, nulls: Uint8Array | null, n: number, ids: Int32Array): void {
    for (let i = 0; i < n; i++) {
      if (nulls !== null && nulls[i] === 1) {
        ids[i] = this.nullGroup();
        continue;
      }
      const v = d[i]!;
      const dir = this.direct;
      const g = v >= 0 && v < dir.length ? dir[v]! : -1;
      ids[i] = g >= 0 ? g : this.intId(v);
    }
  }
}

/**
 * The fused hot loop for a single int2/int4 partition key and a single numeric order key: rejection of
 * a row against its partition's boundary number, looked up by the key value itself (no partition id in
 * between), without writing anything for rejected rows. Survivors go to outRow. `bounds[v]` is the
 * boundary number of key value v, NaN while that partition has none (or is not known yet, or v is
 * outside the table); nullBound is the NULL partition's (a tenth of the rows of a computed key can be
 * NULL: they must not all take the exact check). A NaN or NULL order key never rejects.
 */
function candidatesIntF64(
  n: number,
  pd: Int32Array,
  pn: Uint8Array | null,
  bounds: Float64Array,
  nullBound: number,
  kd: Float64Array,
  kn: Uint8Array | null,
  sign: number,
  rejectTies: boolean,
  outRow: Int32Array,
): number {
  const bl = bounds.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (kn === null || kn[i] === 0) {
      let t = NaN;
      if (pn !== null && pn[i] === 1) t = nullBound;
      else {
        const p = pd[i]!;
        if (p >= 0 && p < bl) t = bounds[p]!;
      }
      const x = kd[i]! * sign;
      if (x > t || (x === t && rejectTies)) continue;
    }
    outRow[m++] = i;
  }
  return m;
}

function candidatesIntI32(
  n: number,
  pd: Int32Array,
  pn: Uint8Array | null,
  bounds: Float64Array,
  nullBound: number,
  kd: Int32Array,
  kn: Uint8Array | null,
  sign: number,
  rejectTies: boolean,
  outRow: Int32Array,
): number {
  const bl = bounds.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (kn === null || kn[i] === 0) {
      let t = NaN;
      if (pn !== null && pn[i] === 1) t = nullBound;
      else {
        const p = pd[i]!;
        if (p >= 0 && p < bl) t = bounds[p]!;
      }
      const x = kd[i]! * sign;
      if (x > t || (x === t && rejectTies)) continue;
    }
    outRow[m++] = i;
  }
  return m;
}

/**
 * candidatesInt* for batches without NULLs in either key (the usual case): the same test without the two
 * null-map loads per row, which cost about a third of the loop.
 */
function candidatesPlainF64(n: number, pd: Int32Array, bounds: Float64Array, kd: Float64Array, sign: number, rejectTies: boolean, outRow: Int32Array): number {
  const bl = bounds.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const p = pd[i]!;
    if (p >= 0 && p < bl) {
      const x = kd[i]! * sign;
      const t = bounds[p]!;
      if (x > t || (x === t && rejectTies)) continue;
    }
    outRow[m++] = i;
  }
  return m;
}

function candidatesPlainI32(n: number, pd: Int32Array, bounds: Float64Array, kd: Int32Array, sign: number, rejectTies: boolean, outRow: Int32Array): number {
  const bl = bounds.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const p = pd[i]!;
    if (p >= 0 && p < bl) {
      const x = kd[i]! * sign;
      const t = bounds[p]!;
      if (x > t || (x === t && rejectTies)) continue;
    }
    outRow[m++] = i;
  }
  return m;
}

/**
 * Rows of a batch not rejected by their partition's boundary number (see RankingHeaps.boundValue), into
 * `out`; returns how many. A NaN boundary or key (NULL, NaN, bigint) never rejects: the caller decides.
 * One copy per storage type keeps the element loads monomorphic.
 */
function survivorsF64(
  n: number,
  gids: Int32Array,
  bounds: Int32Array,
  vals: Float64Array,
  kd: Float64Array,
  kn: Uint8Array | null,
  sign: number,
  rejectTies: boolean,
  out: Int32Array,
): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    const g = gids[i]!;
    if (bounds[g]! >= 0 && (kn === null || kn[i] !== 1)) {
      const v = kd[i]! * sign;
      const t = vals[g]!;
      if (v > t || (v === t && rejectTies)) continue;
    }
    out[m++] = i;
  }
  return m;
}

function survivorsI32(
  n: number,
  gids: Int32Array,
  bounds: Int32Array,
  vals: Float64Array,
  kd: Int32Array,
  kn: Uint8Array | null,
  sign: number,
  rejectTies: boolean,
  out: Int32Array,
): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    const g = gids[i]!;
    if (bounds[g]! >= 0 && (kn === null || kn[i] !== 1)) {
      const v = kd[i]! * sign;
      const t = vals[g]!;
      if (v > t || (v === t && rejectTies)) continue;
    }
    out[m++] = i;
  }
  return m;
}

/**
 * Rows of a batch whose order key is not worse than a limit (a number at least as bad as every boundary
 * of the partitions the batch can hold), into `out`. They read the order key alone: the partition key is
 * not needed to reject a row that is worse than every boundary. The sign and the tie rule are folded into
 * the threshold (see keyThreshold), so each loop is one comparison; NaN keys never reject.
 */
function notAboveF64(n: number, kd: Float64Array, t: number, out: Int32Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (kd[i]! > t) continue;
    out[m++] = i;
  }
  return m;
}

function notBelowF64(n: number, kd: Float64Array, t: number, out: Int32Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (kd[i]! < t) continue;
    out[m++] = i;
  }
  return m;
}

function notAboveI32(n: number, kd: Int32Array, t: number, out: Int32Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (kd[i]! > t) continue;
    out[m++] = i;
  }
  return m;
}

function notBelowI32(n: number, kd: Int32Array, t: number, out: Int32Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (kd[i]! < t) continue;
    out[m++] = i;
  }
  return m;
}

const bits = new Float64Array(1);
const bitsInt = new BigInt64Array(bits.buffer);

/** The next double towards -Infinity (x itself for NaN and -Infinity). */
function nextDown(x: number): number {
  if (x !== x || x === -Infinity) return x;
  if (x === 0) return -Number.MIN_VALUE;
  bits[0] = x;
  bitsInt[0] += x > 0 ? -1n : 1n;
  return bits[0]!;
}

/**
 * The limit (in ascending sign-adjusted terms: reject x * sign > limit, and x * sign === limit when ties
 * are rejected) as a threshold on the raw key: ascending keys are rejected above it, descending keys
 * below it. "Equal is rejected" becomes a strict comparison against the adjacent value: the adjacent
 * double, or the adjacent integer for int keys. -0 and 0 are one value here as in the comparison.
 */
function keyThreshold(limit: number, sign: number, rejectTies: boolean, intKey: boolean): number {
  if (sign > 0) return rejectTies ? (intKey ? limit - 1 : nextDown(limit)) : limit;
  const u = -limit;
  return rejectTies ? (intKey ? u + 1 : -nextDown(limit)) : u;
}

/** Largest boundary number of key values lo..hi, NaN when any of them has none. */
function maxBoundOver(bounds: Float64Array, lo: number, hi: number): number {
  let max = -Infinity;
  for (let v = lo; v <= hi; v++) {
    const t = bounds[v]!;
    if (t !== t) return NaN;
    if (t > max) max = t;
  }
  return max;
}

/** consumeFused's state for one operator run: survivor buffer and boundary numbers by key value. */
export class FusedCandidates {
  /**
   * Survivors of the current batch. Sized for a whole batch here, once per run, not in consumeFused: a
   * construct that only the first batch of a query reaches has no type feedback when consumeFused is
   * optimized (feedback starts after a function's first calls), and the next query's first batch would
   * throw its optimized code away.
   */
  rows = new Int32Array(BATCH_SIZE);
  /**
   * Boundary number (RankingHeaps.boundValue) of the partition of each direct-table key value, NaN when
   * it has none; as long as PartitionIds' direct table, and refreshed after every add.
   */
  bounds = new Float64Array(0);
  /**
   * The largest of bounds[limitLo..limitHi] when it was taken, NaN when one of them was NaN. A partition's
   * boundary only moves to better rows, so a row worse than an old boundary is still worse than one that
   * is certainly kept: an old limit stays safe to reject by, and is retaken only to tighten it, at most
   * once per as many input rows as the range is wide.
   */
  /** Boundary number of the NULL partition (NaN while it has none); refreshed after its adds. */
  nullBound = NaN;
  limit = NaN;
  limitLo = 0;
  limitHi = -1;
  rowsSinceLimit = 0;
  /** Batches whose rows were screened by the limit alone (EXPLAIN ANALYZE: key-range batches). */
  rangeBatches = 0;
}

/**
 * Rows of a stored batch that may enter the Top-N, found without reading its partition-key column: when
 * the column's recorded range lo..hi (column-stats.ts) lies in the direct table and every key value in
 * it has a boundary, a row worse than the largest of those boundaries is rejected by its order key
 * alone. Returns the number of rows written to cands.rows, or -1 when the batch does not qualify.
 */
function candidatesByRange(
  n: number,
  pc: Column,
  kd: Float64Array | Int32Array,
  sign: number,
  rejectTies: boolean,
  cands: FusedCandidates,
): number {
  const range = intRange(pc);
  if (range === undefined) return -1;
  const lo = range.min;
  const hi = range.max;
  const bounds = cands.bounds;
  if (lo < 0 || hi >= bounds.length || lo > hi) return -1;
  cands.rowsSinceLimit += n;
  const width = hi - lo + 1;
  const inside = lo >= cands.limitLo && hi <= cands.limitHi;
  if ((!inside || cands.limit !== cands.limit) && cands.rowsSinceLimit >= width) {
    cands.limit = maxBoundOver(bounds, lo, hi);
    cands.limitLo = lo;
    cands.limitHi = hi;
    cands.rowsSinceLimit = 0;
  } else if (inside && cands.rowsSinceLimit >= 4 * width) {
    // Tighten: the boundaries have moved since the limit was taken.
    cands.limit = maxBoundOver(bounds, cands.limitLo, cands.limitHi);
    cands.rowsSinceLimit = 0;
  }
  const limit = cands.limit;
  if (limit !== limit || !(lo >= cands.limitLo && hi <= cands.limitHi)) return -1;
  cands.rangeBatches++;
  const out = cands.rows;
  if (kd instanceof Float64Array) {
    const t = keyThreshold(limit, sign, rejectTies, false);
    return sign > 0 ? notAboveF64(n, kd, t, out) : notBelowF64(n, kd, t, out);
  }
  const t = keyThreshold(limit, sign, rejectTies, true);
  return sign > 0 ? notAboveI32(n, kd, t, out) : notBelowI32(n, kd, t, out);
}

function growRows(cands: FusedCandidates, n: number): void {
  cands.rows = new Int32Array(n);
}

/**
 * Extends cands.bounds to the length of the direct table, which grew since the last batch (or before the
 * first): key values new to it may already have boundaries. Called by the run between batches, not by
 * consumeFused (see FusedCandidates.rows).
 */
function syncBounds(cands: FusedCandidates, ids: PartitionIds, heaps: RankingHeaps): void {
  const dir = ids.directTable;
  const old = cands.bounds.length;
  if (old >= dir.length) return;
  const nb = new Float64Array(dir.length);
  nb.set(cands.bounds);
  const bv = heaps.boundValue;
  for (let v = old; v < nb.length; v++) {
    const g = dir[v]!;
    nb[v] = g >= 0 ? bv[g]! : NaN;
  }
  cands.bounds = nb;
}

/**
 * Consumes batch b through candidatesInt* when its partition key is a single int2/int4 column and the
 * order key a single typed numeric column; false (nothing done) otherwise. A plain function over
 * long-lived shapes (see SHAPE_ANCHORS), not a method of the operator: V8 optimizes it far better than
 * the same loop inside the async generator, and its optimized code does not depend on the shape of a
 * per-query object, so it survives from one query to the next.
 */
function consumeFused(
  b: Batch,
  partitionCols: readonly number[],
  ids: PartitionIds,
  heaps: RankingHeaps,
  cmp: Comparator,
  cands: FusedCandidates,
  seen: number,
): boolean {
  const num = heaps.numeric;
  if (num === null || partitionCols.length !== 1) return false;
  const pc = b.columns[partitionCols[0]!]!;
  const pd = pc.data;
  const kc = b.columns[num.col]!;
  const kd = kc.data;
  if (!(pd instanceof Int32Array) || !(kd instanceof Float64Array || kd instanceof Int32Array)) return false;
  const n = b.length;
  if (cands.rows.length < n) growRows(cands, n);
  const rows = cands.rows;
  // The run syncs bounds before each batch: shorter than the direct table only once the table grew
  // during this batch, and key values past its end are then checked exactly, never rejected.
  const bounds = cands.bounds;
  // Plain numbers decide ties only when they are the whole key; else an equal leading key needs the comparator.
  const rejectTies = heaps.rejectValueTies;
  const single = heaps.singleKey;
  const plain = pc.nulls === null && kc.nulls === null;
  let m = plain ? candidatesByRange(n, pc, kd, num.sign, rejectTies, cands) : -1;
  if (m < 0) {
    m =
      kd instanceof Float64Array
        ? plain
          ? candidatesPlainF64(n, pd, bounds, kd, num.sign, rejectTies, rows)
          : candidatesIntF64(n, pd, pc.nulls, bounds, cands.nullBound, kd, kc.nulls, num.sign, rejectTies, rows)
        : plain
          ? candidatesPlainI32(n, pd, bounds, kd, num.sign, rejectTies, rows)
          : candidatesIntI32(n, pd, pc.nulls, bounds, cands.nullBound, kd, kc.nulls, num.sign, rejectTies, rows);
  }
  if (m === 0) return true;
  const store = heaps.store;
  // The comparator (code generated for this query) is only needed for NULL / NaN / bigint keys.
  let x: ((a: number, b: number) => number) | null = null;
  let version = store.version;
  const pn = pc.nulls;
  const kn = kc.nulls;
  const sign = num.sign;
  for (let j = 0; j < m; j++) {
    const i = rows[j]!;
    const p = pd[i]!;
    const isNullKey = pn !== null && pn[i] === 1;
    const dir = ids.directTable;
    let g = !isNullKey && p >= 0 && p < dir.length ? dir[p]! : -1;
    if (g < 0) {
      g = isNullKey ? ids.nullGroup() : ids.intId(p);
      heaps.ensureGroups(ids.count);
    }
    const bound = heaps.bound[g]!;
    if (bound >= 0) {
      const t = heaps.boundValue[g]!;
      const v = kn !== null && kn[i] === 1 ? NaN : kd[i]! * sign;
      if (t === t && v === v && (v !== t || single)) {
        if (v > t || (v === t && rejectTies)) continue;
      } else {
        if (x === null || store.version !== version) {
          version = store.version;
          x = cmp.cross(cmp.view(b), store.view);
        }
        const c = x(i, bound);
        if (c > 0 || (c === 0 && heaps.rejectTies)) continue;
      }
    }
    heaps.add(g, b, i, seen + i);
    // The boundary may have moved (a compaction): later rows of this and the next batches see it.
    if (isNullKey) cands.nullBound = heaps.boundValue[g]!;
    else if (p >= 0 && p < bounds.length) bounds[p] = heaps.boundValue[g]!;
  }
  return true;
}

/**
 * Consumes batch b, whose rows already have partition ids (gids), when the leading order key is a typed
 * numeric column; false (nothing done) otherwise. Two steps: a tight, monomorphic loop drops every row
 * worse than its partition's boundary number as of the batch start (boundaries only move towards better
 * rows, so this never drops a row that should be kept); the survivors are checked against the current
 * boundary as plain numbers, with the comparator only for NULL / NaN / bigint keys and ties on a leading
 * key, and added. A plain function for the reason consumeFused is one.
 */
function consumeNumeric(b: Batch, gids: Int32Array, heaps: RankingHeaps, cmp: Comparator, cands: FusedCandidates, seen: number): boolean {
  const num = heaps.numeric;
  if (num === null) return false;
  const kc = b.columns[num.col]!;
  const kd = kc.data;
  if (!(kd instanceof Float64Array || kd instanceof Int32Array)) return false;
  const n = b.length;
  if (cands.rows.length < n) growRows(cands, n);
  const cand = cands.rows;
  const kn = kc.nulls;
  const sign = num.sign;
  const rejectValueTies = heaps.rejectValueTies;
  const m =
    kd instanceof Float64Array
      ? survivorsF64(n, gids, heaps.bound, heaps.boundValue, kd, kn, sign, rejectValueTies, cand)
      : survivorsI32(n, gids, heaps.bound, heaps.boundValue, kd, kn, sign, rejectValueTies, cand);
  const store = heaps.store;
  const single = heaps.singleKey;
  const rejectTies = heaps.rejectTies;
  let x: ((a: number, b: number) => number) | null = null;
  let bv: KeyView | null = null;
  let version = store.version;
  for (let j = 0; j < m; j++) {
    const i = cand[j]!;
    const g = gids[i]!;
    const bound = heaps.bound[g]!;
    if (bound >= 0) {
      const t = heaps.boundValue[g]!;
      const v = kn !== null && kn[i] === 1 ? NaN : kd[i]! * sign;
      if (t === t && v === v && (v !== t || single)) {
        if (v > t || (v === t && rejectValueTies)) continue;
      } else {
        if (x === null || store.version !== version) {
          version = store.version;
          bv ??= cmp.view(b);
          x = cmp.cross(bv, store.view);
        }
        const c = x(i, bound);
        if (c > 0 || (c === 0 && rejectTies)) continue;
      }
    }
    heaps.add(g, b, i, seen + i);
  }
  return true;
}

export class TopNRanking extends PhysicalOperator {
  readonly name: string = 'TopNRanking';
  protected readonly cmp: Comparator;

  constructor(
    readonly input: PhysicalOperator,
    readonly spec: TopNRankingSpec,
    /** Rows to see before a non-strict operator may give up pruning. */
    readonly probeRows: number = PROBE_ROWS,
    /** Estimated input rows (0: unknown), for the cost guard (topn-ranking-cost.ts). */
    readonly expectedRows: number = 0,
  ) {
    super(input.schema);
    this.cmp = compileComparator(spec.orderKeys);
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    const s = this.spec;
    const names = this.schema.map((f) => f.name);
    const part = s.names?.partition ?? s.partitionCols.map((c) => names[c] ?? `#${c}`);
    let order: string;
    if (s.names !== undefined) {
      const n: string[] = [];
      s.orderKeys.forEach((k, i) => (n[k.col] = s.names!.order[i]!));
      order = describeKeys(s.orderKeys, n);
    } else order = describeKeys(s.orderKeys, names);
    return `partition: [${part.join(', ')}], order: ${order}, ${s.kind} <= ${s.k}${this.strategyText()}${s.strict ? '' : ', adaptive'}`;
  }

  /** Quire's node (PostgreSQL has none): the partition and order keys as Sort Key lines, the kept ranks, the strategy. */
  override explainNode(inputs: ExplainInputs): ExplainNode {
    const s = this.spec;
    const cols = inputs[0] ?? [];
    const details = [
      `Partition Key: ${s.partitionCols.map((c) => pgSortKeyText(cols[c] ?? `#${c}`)).join(', ')}`,
      `Sort Key: ${pgSortKeys(s.orderKeys, cols)}`,
      `Keep: ${s.kind}() <= ${s.k}`,
      `Strategy: ${this.strategyText().replace(/^, strategy: /, '')}${s.strict ? '' : ' (adaptive)'}`,
    ];
    if (s.partitionCols.length === 0) details.shift();
    return { label: 'TopNRanking', details };
  }

  protected strategyText(): string {
    return ', strategy: hash';
  }

  /** The sort keys of sortedOutput: partition keys as the Window sorts them, then the order keys. */
  protected sortKeys(): SortKey[] {
    const s = this.spec;
    return [...s.partitionCols.map((col) => ({ col, type: this.schema[col]!.type, desc: false, nullsFirst: false })), ...s.orderKeys];
  }

  override outputOrdering(): readonly SortKey[] {
    return this.spec.sortedOutput === true ? this.sortKeys() : [];
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const spec = this.spec;
    if (spec.k <= 0) return;
    const types = this.schema.map((f) => f.type);
    let it = this.input.execute(ctx);
    let ids: PartitionIds | null = null;
    // Rows handed over by the row-reference store, with their partition ids (their helper columns are gone).
    let seed: { b: Batch; gids: Int32Array } | null = null;
    if (RowRefTopK.eligible(spec.kind, spec.k, spec.orderKeys)) {
      const h = yield* this.runRefs(ctx, it, types);
      if (h === null) return;
      // The copying store takes over from the rows kept so far (in arrival order), then the refused batch.
      ids = h.ids;
      if (h.kept.length > 0) seed = { b: h.kept, gids: h.gids };
      if (h.refused !== null) it = new Replay(this.schema, [h.refused], it).execute(ctx);
    }
    const heaps = new RankingHeaps(spec.kind, spec.k, types, this.cmp, spec.unusedCols);
    ids ??= new PartitionIds(
      spec.partitionCols,
      spec.partitionCols.map((c) => types[c]!),
      stringHash,
      spec.together,
    );
    heaps.ensureGroups(ids.count);
    const rejectTies = heaps.rejectTies;
    const store = heaps.store;
    let seen = 0;
    const cands = new FusedCandidates();
    let decided = spec.strict;
    let passThrough = false;
    let why = '';
    // The cost guard, once, after the probe: compacting first makes the kept count the real top-k.
    const decide = (): void => {
      decided = true;
      const kept = heaps.compactAll();
      const e = estimateTopNRanking(spec.k, ids.count, seen, kept, this.expectedRows);
      const est = `~${Math.round(e.kept)} of ${e.rows} rows kept in ~${Number.isFinite(e.partitions) ? Math.round(e.partitions) : e.rows} partitions`;
      passThrough = e.sortAndFilter;
      why = passThrough ? `sort and filter (${est}: pruning saves too little)` : `hash top-k (${est})`;
    };
    let reservedLive = -1;
    let reservedCount = -1;
    let batchesSinceReserve = 0;
    const sortedOutput = spec.sortedOutput === true;
    // sortedOutput and pruning abandoned: the rows held so far, handed with the rest of the input to a sort.
    let handOver: Batch[] | null = null;
    // k rows per partition, and partitions grow with the data: the kept rows (at the latest batch's
    // average row size) and the partition table are reserved after each batch; past the limit the
    // operator passes rows through when a filter above cuts them anyway, else raises 53200.
    const res = queryMemory(ctx).pool.register('TopNRanking', false);
    try {
      for (;;) {
        let b: Batch;
        let seedGids: Int32Array | null = null;
        if (seed !== null) {
          b = seed.b;
          seedGids = seed.gids;
          seed = null;
        } else {
          const r = await it.next();
          if (r.done === true) break;
          b = r.value;
        }
        await yieldIfDue(ctx);
        const n = b.length;
        if (n === 0) continue;
        if (passThrough) {
          yield b;
          continue;
        }
        const reserve = (): void => {
          // Once the boundaries settle few rows are added: re-measuring (batchBytes reads every string)
          // and resizing after every batch would cost more than the rows it accounts for.
          const grown = store.live - reservedLive + (ids.count - reservedCount);
          if (reservedLive >= 0 && grown < RESERVE_STEP_ROWS && ++batchesSinceReserve < RESERVE_EVERY_BATCHES) return;
          batchesSinceReserve = 0;
          reservedLive = store.live;
          reservedCount = ids.count;
          const rowBytes = batchBytes(b) / n;
          const want = Math.ceil(store.live * rowBytes + ids.count * (HASH_ENTRY_BYTES + 16) + ids.extraBytes + heaps.retainedBytes());
          if (res.tryResize(want)) return;
          // Not strict: a filter above cuts anyway, so stop pruning and pass rows through.
          if (spec.strict) throw res.outOfMemory(want - res.size, `${store.live} kept rows in ${ids.count} partitions`);
          decided = true;
          passThrough = true;
          why = 'sort and filter (memory limit reached)';
        };
        // Per-query growth of the candidates' buffers happens here, outside the optimized per-batch code
        // (see FusedCandidates.rows).
        if (cands.rows.length < n) growRows(cands, n);
        if (seedGids === null && cands.bounds.length < ids.directTable.length) syncBounds(cands, ids, heaps);
        if (seedGids === null && consumeFused(b, spec.partitionCols, ids, heaps, this.cmp, cands, seen)) {
          seen += n;
          reserve();
          if (!decided && seen >= this.probeRows) decide();
          if (passThrough) {
            if (sortedOutput) {
              handOver = [...this.emit(heaps, heaps.allSlots())];
              break;
            }
            yield* this.emit(heaps, heaps.allSlots());
          }
          continue;
        }
        const gids = seedGids ?? ids.assign(b);
        heaps.ensureGroups(ids.count);
        if (!consumeNumeric(b, gids, heaps, this.cmp, cands, seen)) {
          const bv = this.cmp.view(b);
          let version = store.version;
          let x = this.cmp.cross(bv, store.view);
          const bounds = heaps.bound;
          for (let i = 0; i < n; i++) {
            const g = gids[i]!;
            const bound = bounds[g]!;
            if (bound >= 0) {
              const c = x(i, bound);
              if (c > 0 || (c === 0 && rejectTies)) continue;
            }
            heaps.add(g, b, i, seen + i);
            if (store.version !== version) {
              version = store.version;
              x = this.cmp.cross(bv, store.view);
            }
          }
        }
        seen += n;
        reserve();
        if (!decided && seen >= this.probeRows) decide();
        if (passThrough) {
          // Pruning does not pay: emit every candidate kept so far (no cutoff needed: the filter above cuts).
          if (sortedOutput) {
            handOver = [...this.emit(heaps, heaps.allSlots())];
            break;
          }
          yield* this.emit(heaps, heaps.allSlots());
        }
      }
    } finally {
      res.free();
      // Stopped early or failed: close the input (once handed over, the sort owns it).
      if (handOver === null) await it.return(undefined);
    }
    this.metrics.extra['partitions'] = ids.count;
    this.metrics.extra['peak kept rows'] = store.peakLive;
    this.metrics.extra['peak kept bytes'] = heaps.retainedBytes();
    if (cands.rangeBatches > 0) this.metrics.extra['key-range batches'] = cands.rangeBatches;
    if (!spec.strict) {
      this.metrics.extra['pruning'] = passThrough ? 'abandoned' : 'kept';
      this.metrics.extra['decision'] = why === '' ? 'hash top-k (input ended before the probe)' : why;
    }
    if (handOver !== null) {
      // The promised order still holds: the held rows (in arrival order) and the rest of the input go
      // through a sort, which is stable, so ties stay in arrival order as they would below a Window.
      yield* new ExternalSort(new Replay(this.schema, handOver, it), this.sortKeys()).execute(ctx);
      return;
    }
    if (passThrough) return;
    if (sortedOutput) {
      heaps.compactAll();
      const types = this.schema.map((f) => f.type);
      yield* this.emit(heaps, heaps.slotsByPartition(partitionOrder(heaps, spec.partitionCols, types)));
      return;
    }
    yield* this.emit(heaps, heaps.finish());
  }

  /**
   * The row-reference store (topn-ranking-refs.ts) for row_number with a small k over numeric keys.
   * Returns null when it produced the whole output, or, for the copying store to go on from when a NULL
   * or NaN order key turned up or the partitions are few: the partition ids, the rows kept so far
   * (arrival order) with their partition ids, and the batch refused.
   */
  private async *runRefs(
    ctx: ExecContext,
    it: AsyncGenerator<Batch>,
    types: readonly DataType[],
  ): AsyncGenerator<Batch, { ids: PartitionIds; kept: Batch; gids: Int32Array; refused: Batch | null } | null> {
    const spec = this.spec;
    const st = new RowRefTopK(spec.k, spec.orderKeys, types, spec.unusedCols);
    const ids = new PartitionIds(
      spec.partitionCols,
      spec.partitionCols.map((c) => types[c]!),
      stringHash,
      spec.together,
    );
    // A single int key indexes the partitions by its value while the values allow (see PartitionIndex).
    const pcol = spec.partitionCols.length === 1 && (spec.together ?? []).length === 0 ? spec.partitionCols[0]! : -1;
    const byValue =
      pcol >= 0 && storageKind(types[pcol]!) === 'i32' && types[pcol]!.name !== 'bool'
        ? new PartitionIndex(pcol, spec.k * (spec.orderKeys.length + 1) * 8 + 9, this.expectedRows)
        : null;
    // Leaves value indexing: the partitions seen so far get dense ids, in key order.
    const toDense = (): void => {
      if (byValue === null || !byValue.active) return;
      byValue.active = false;
      const order = st.nonEmpty();
      st.renumber((g) => ids.intId(g), order.length);
    };
    const partitionCount = (): number => (byValue !== null && byValue.active ? st.partitions : ids.count);
    const res = queryMemory(ctx).pool.register('TopNRanking', false);
    let seen = 0;
    let decided = spec.strict;
    let why = '';
    let abandon = false;
    let refused: Batch | null = null;
    let handOver = '';
    let rowBytes = -1;
    let batches = 0;
    // Before the full probe, the estimate is taken now and then: an input where nearly every row is kept
    // is given up on at once (every row probed then is work thrown away); pruning waits for the full probe.
    let earlyCheck = PROBE_ROWS;
    try {
      for (;;) {
        const r = await it.next();
        if (r.done === true) break;
        const b = r.value;
        await yieldIfDue(ctx);
        const n = b.length;
        if (n === 0) continue;
        if (pcol >= 0 && seen < REFS_SETTLE_ROWS && seen + n >= REFS_SETTLE_ROWS && surelyFewPartitions(b.columns[pcol]!, partitionCount(), seen + n)) {
          // The test below, settled by the key column's recorded range before the batch's order keys are
          // loaded or its partitions counted: a group number's 1,000 values in a 4,096-row batch.
          refused = b;
          handOver = 'row copies (few partitions)';
          break;
        }
        if (!st.prepare(b)) {
          refused = b;
          handOver = 'row copies (NULL or NaN order key)';
          break;
        }
        let gids: Int32Array;
        const direct = byValue !== null && byValue.active ? byValue.indexes(b) : null;
        if (direct !== null) {
          gids = direct.ids;
          st.ensureGroups(direct.max + 1);
        } else {
          toDense();
          gids = ids.assign(b);
        }
        if (seen < REFS_SETTLE_ROWS && seen + n >= REFS_SETTLE_ROWS && (partitionCount() + (direct === null ? 0 : newPartitions(st, gids, n))) * REFS_FEW_PARTITIONS <= seen + n) {
          // Few partitions: their boundaries are in cache and soon reject whole batches by key range
          // (consumeFused), which beats any per-row work here. Decided before this batch goes in: the
          // copying store takes it whole, and the row references (code a query runs for one batch, so
          // rarely optimized) see no rows at all when the first batch settles it.
          refused = b;
          handOver = 'row copies (few partitions)';
          break;
        }
        if (direct === null) st.ensureGroups(ids.count);
        st.consume(b, gids);
        seen += n;
        // Row size measured now and then: batchBytes reads every string.
        const rb = st.lastRetained;
        if (rb !== null && (rowBytes < 0 || (++batches & 63) === 0)) rowBytes = batchBytes(rb) / rb.length;
        let fits = res.tryResize(refsBytes(st, ids, rowBytes));
        if (!fits && byValue !== null && byValue.active) {
          // Short of memory: first give up the tables' empty entries of unused key values.
          toDense();
          fits = res.tryResize(refsBytes(st, ids, rowBytes));
        }
        if (!fits && st.retainedRows > st.kept) {
          // Then drop the retained rows no longer kept.
          st.compact();
          fits = res.tryResize(refsBytes(st, ids, rowBytes));
        }
        if (!fits) {
          if (spec.strict) throw res.outOfMemory(refsBytes(st, ids, rowBytes) - res.size, `${st.kept} kept rows in ${ids.count} partitions`);
          why = 'sort and filter (memory limit reached)';
          abandon = true;
          break;
        }
        if (!decided && (seen >= this.probeRows || seen >= earlyCheck)) {
          const e = estimateTopNRanking(spec.k, partitionCount(), seen, st.kept, this.expectedRows);
          const final = seen >= this.probeRows;
          if (final || e.clearlySortAndFilter) {
            decided = true;
            const est = `~${Math.round(e.kept)} of ${e.rows} rows kept in ~${Number.isFinite(e.partitions) ? Math.round(e.partitions) : e.rows} partitions`;
            abandon = e.sortAndFilter;
            why = abandon ? `sort and filter (${est}: pruning saves too little${final ? '' : `, after ${seen} rows`})` : `hash top-k (${est})`;
            if (abandon) break;
          } else earlyCheck = 2 * seen;
        }
      }
    } catch (err) {
      await it.return(undefined);
      throw err;
    } finally {
      res.free();
    }
    const m = this.metrics.extra;
    const indexedByValue = byValue !== null && byValue.active;
    m['partitions'] = partitionCount();
    m['peak kept rows'] = st.peakKept;
    m['peak kept bytes'] = Math.ceil(st.peakRetainedRows * Math.max(rowBytes, 0) + st.tableBytes);
    if (!spec.strict) {
      m['pruning'] = abandon ? 'abandoned' : 'kept';
      m['decision'] = why === '' ? 'hash top-k (input ended before the probe)' : why;
    }
    m['store'] = handOver === '' ? `row refs (${st.compactions} compactions${indexedByValue ? ', indexed by key value' : ''})` : handOver;
    if (abandon) {
      // The retained batches whole (they hold every candidate; their other rows are beaten by k rows of
      // their partition, so passing them changes nothing the filter above keeps), then the rest of the
      // input: no gathering of rows that a sort takes anyway.
      const held = [...st.retainedBatches()];
      if (spec.sortedOutput === true) {
        yield* new ExternalSort(new Replay(this.schema, held, it), this.sortKeys()).execute(ctx);
        return null;
      }
      try {
        for (const b of held) yield* sliced(b);
        for (;;) {
          const r = await it.next();
          if (r.done === true) break;
          yield r.value;
        }
      } finally {
        await it.return(undefined);
      }
      return null;
    }
    if (handOver === '' && spec.sortedOutput === true) {
      // Int keys and coded text keys: the partition order is read off the direct table or the dictionary's
      // rank, and the kept rows are gathered once, in that order, straight from the retained batches
      // (indexed by value, each partition index is its key: the key column is not read again).
      const direct = indexedByValue ? st.nonEmpty() : (ids.directOrder() ?? ids.codeOrder());
      const rows = direct === null ? null : st.gatherInOrder(direct, indexedByValue ? pcol : -1);
      if (rows !== null) {
        yield* sliced(rows);
        return null;
      }
    }
    // From here on partitions are known by dense ids (the copying store and orderPartitions need them).
    toDense();
    const kept = st.gather();
    if (handOver !== '') return { ids, kept: kept.rows, gids: kept.part, refused };
    if (spec.sortedOutput !== true) {
      yield* sliced(kept.rows);
      return null;
    }
    // Partitions by key, each partition's entries already best first: the Window above sorts nothing.
    const groups = st.groups;
    const parts = new Int32Array(groups);
    const reps = new Uint32Array(groups);
    let np = 0;
    for (let g = 0; g < groups; g++) {
      if (st.count(g) === 0) continue;
      parts[np] = g;
      reps[np++] = kept.at[kept.starts[g]!]!;
    }
    const order = ids.directOrder() ?? orderPartitions(kept.rows, reps.subarray(0, np), parts.subarray(0, np), groups, spec.partitionCols, types);
    const sel = new Uint32Array(kept.at.length);
    let w = 0;
    for (let j = 0; j < order.length; j++) {
      const g = order[j]!;
      for (let e = kept.starts[g]!; e < kept.starts[g + 1]!; e++) sel[w++] = kept.at[e]!;
    }
    for (let s = 0; s < w; s += BATCH_SIZE) {
      const e = Math.min(w, s + BATCH_SIZE);
      yield takeBatch(kept.rows, sel.subarray(s, e), e - s);
    }
    return null;
  }

  protected *emit(heaps: RankingHeaps, slots: Uint32Array): Generator<Batch> {
    const all = heaps.store.asBatch();
    for (let s = 0; s < slots.length; s += BATCH_SIZE) {
      const e = Math.min(slots.length, s + BATCH_SIZE);
      yield takeBatch(all, slots.subarray(s, e), e - s);
    }
  }
}

/**
 * Whether partitions seen so far (`known`) plus every key value the int column's recorded range allows (and
 * a NULL partition) are few for `rows` rows, as the row-reference store's hand-over test counts them: an
 * upper bound of the count that test takes, so true only where it would decide the same.
 */
function surelyFewPartitions(c: Column, known: number, rows: number): boolean {
  const r = intRange(c);
  if (r === undefined) return false;
  const values = Math.max(0, r.max - r.min + 1) + (c.nulls !== null ? 1 : 0);
  return (known + values) * REFS_FEW_PARTITIONS <= rows;
}

/** Bytes the row-reference store holds: retained rows at the measured row size, partition ids, its tables. */
function refsBytes(st: RowRefTopK, ids: PartitionIds, rowBytes: number): number {
  return Math.ceil(st.retainedRows * Math.max(rowBytes, 0) + ids.count * (HASH_ENTRY_BYTES + 16) + ids.extraBytes + st.tableBytes);
}

/**
 * Distinct partition indexes among ids[0..n) that hold no entry yet (once per run: it sorts a copy). The
 * loops are kernels of their own (see sortByRef in topn-ranking-refs.ts).
 */
function newPartitions(st: RowRefTopK, ids: Int32Array, n: number): number {
  const fresh = new Int32Array(n);
  const m = st.unfilled(ids, n, fresh);
  return distinctSorted(fresh.subarray(0, m).sort(), m);
}

function distinctSorted(s: Int32Array, m: number): number {
  let d = 0;
  for (let i = 0; i < m; i++) if (i === 0 || s[i] !== s[i - 1]) d++;
  return d;
}

function* sliced(b: Batch): Generator<Batch> {
  for (let s = 0; s < b.length; s += BATCH_SIZE) yield sliceBatch(b, s, Math.min(b.length, s + BATCH_SIZE));
}

// Long-lived instances whose shapes consumeFused's optimized code depends on (see shape-anchor.ts).
anchorShape(new PartitionIds([0], [T.int4]));
anchorShape(new FusedCandidates());
