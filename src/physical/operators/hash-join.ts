/**
 * HashJoin: builds a hash table on the right child's key columns, probes it with the left child's rows.
 *
 * Types inner, left, right, full, semi, anti. NULL keys never match (a row with a NULL in any key column
 * is not inserted and never looked up; outer joins still emit it unmatched). An optional residual predicate
 * over the combined row (left columns then right columns) decides, together with key equality, whether a
 * pair matches — for outer joins that is the ON condition, so a failed residual makes the row unmatched
 * rather than filtering it out. Output: left columns then right columns; semi/anti: left columns only.
 *
 * Build side: the right input concatenated into one batch; rows with equal keys form a chain
 * (groupHead[g] -> next[row] -> … in build order). A single numeric key uses an open-addressing table on
 * Float64Array/Int32Array, so the probe loop allocates nothing per row; several keys go through a typed
 * table of key words (key-table.ts); any other key through a Map on a canonical key (distinct.ts rowKeys).
 */
import type { DataType, Schema, Value } from '../../common/types.js';
import {
  allocData,
  BATCH_SIZE,
  deadColumn,
  makeColumn,
  pickColumns,
  sliceBatch,
  takeBatch,
  takeColumn,
  type Batch,
  type Column,
} from '../../common/column.js';
import { concatBatchesAsync } from '../../execution/concat-batches-async.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, queryMemory, type MemoryReservation } from '../../execution/memory-pool.js';
import type { CompiledPredicate } from '../compiled.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { Filter, type SelectedBatch } from './filter.js';
import { KeyTable, sameKeyEncoding } from '../key-table.js';
import { ShardedKeyMap, type ShardKey } from '../key-shards.js';
import { keyCategory } from '../sort-key.js';
import { rowKeys, type RowKey } from './distinct.js';
import type { DictCodes, TextDictionary } from '../../common/text-dictionary.js';

export type JoinType = 'inner' | 'left' | 'right' | 'full' | 'semi' | 'anti';

export function joinSchema(type: JoinType, left: Schema, right: Schema): Schema {
  return type === 'semi' || type === 'anti' ? left : [...left, ...right];
}

/** An all-NULL column (outer-join padding). */
export function nullColumn(t: DataType, n: number): Column {
  return makeColumn(t, allocData(t, n), new Uint8Array(n).fill(1));
}

/**
 * Collects candidate (left row, right row) pairs, evaluates the residual predicate on them a batch at a
 * time, records which rows matched, and produces the join's output batches. Shared by HashJoin and
 * NestedLoopJoin: they differ only in how they find candidate pairs.
 */
export class PairCollector {
  private lsel = new Uint32Array(BATCH_SIZE);
  private rsel = new Uint32Array(BATCH_SIZE);
  n = 0;
  /** Per row of the current probe batch: 1 once it matched. */
  leftMatched: Uint8Array = new Uint8Array(0);
  /** Per build row: 1 once it matched (right/full joins). */
  readonly rightMatched: Uint8Array;
  private probe: Batch | null = null;
  private readonly emitPairs: boolean;

  constructor(
    readonly type: JoinType,
    readonly leftTypes: readonly DataType[],
    readonly rightTypes: readonly DataType[],
    readonly build: Batch,
    readonly residual: CompiledPredicate | null,
    readonly ctx: ExecContext,
    /**
     * Columns of the combined row (left then right) to materialize: those read downstream or by the
     * residual. The others become zero-cost placeholders (see deadColumn). null = all.
     */
    readonly need: readonly boolean[] | null = null,
  ) {
    this.rightMatched = new Uint8Array(type === 'right' || type === 'full' ? build.length : 0);
    this.emitPairs = type === 'inner' || type === 'left' || type === 'right' || type === 'full';
  }

  get full(): boolean {
    return this.n === BATCH_SIZE;
  }

  /** Probe row i of fill() is batch row rowMap[i] (the probe side's selection), or row i when null. */
  private rowMap: Uint32Array | null = null;

  startProbe(b: Batch, rowMap: Uint32Array | null = null): void {
    this.probe = b;
    this.rowMap = rowMap;
    // One reused flag array (cleared per probe batch) instead of a fresh allocation per batch.
    if (this.leftMatched.length < b.length) this.leftMatched = new Uint8Array(Math.max(b.length, BATCH_SIZE));
    else this.leftMatched.fill(0, 0, b.length);
    this.n = 0;
    this.pi = 0;
    this.pr = -2;
  }

  /** Resume point of fill(): probe row, and build row within its chain (-2 = chain not started). */
  private pi = 0;
  private pr = -2;

  /**
   * Adds the pairs of probe rows [0, m) with their chains (heads[i] -> next[r] -> …) until the buffer is
   * full; true once every row is done. A plain synchronous loop: inside the async generator it would run
   * several times slower.
   */
  fill(heads: Int32Array, next: Int32Array, m: number): boolean {
    const lsel = this.lsel;
    const rsel = this.rsel;
    const map = this.rowMap;
    let n = this.n;
    let i = this.pi;
    let r = this.pr;
    for (;;) {
      if (r === -2) {
        if (i >= m) break;
        r = heads[i]!;
      }
      while (r !== -1) {
        if (n === BATCH_SIZE) {
          this.n = n;
          this.pi = i;
          this.pr = r;
          return false;
        }
        lsel[n] = map === null ? i : map[i]!;
        rsel[n] = r;
        n++;
        r = next[r]!;
      }
      i++;
      r = -2;
    }
    this.n = n;
    this.pi = i;
    this.pr = -2;
    return true;
  }

  /**
   * fill() for a build side whose keys are unique (every chain is one row): a compaction of the matched
   * probe rows, written unconditionally and advanced only on a match so it does not branch per row.
   */
  fillUnique(heads: Int32Array, m: number): boolean {
    const lsel = this.lsel;
    const rsel = this.rsel;
    const map = this.rowMap;
    let n = this.n;
    let i = this.pi;
    // Each pass may match every row it reads, so it reads no more rows than the buffer has room for.
    while (i < m && n < BATCH_SIZE) {
      const end = Math.min(m, i + (BATCH_SIZE - n));
      if (map === null) {
        for (; i < end; i++) {
          const r = heads[i]!;
          lsel[n] = i;
          rsel[n] = r;
          n += ~r >>> 31;
        }
      } else {
        for (; i < end; i++) {
          const r = heads[i]!;
          lsel[n] = map[i]!;
          rsel[n] = r;
          n += ~r >>> 31;
        }
      }
    }
    this.n = n;
    this.pi = i;
    return i >= m;
  }

  add(l: number, r: number): void {
    this.lsel[this.n] = l;
    this.rsel[this.n] = r;
    this.n++;
  }

  /** Evaluates the pending pairs; returns the output rows among them (null when nothing to emit). */
  flush(): Batch | null {
    const n = this.n;
    if (n === 0) return null;
    this.n = 0;
    const lsel = this.lsel;
    const rsel = this.rsel;
    const trackRight = this.rightMatched.length > 0;
    if (this.residual === null) {
      for (let k = 0; k < n; k++) this.leftMatched[lsel[k]!] = 1;
      if (trackRight) for (let k = 0; k < n; k++) this.rightMatched[rsel[k]!] = 1;
      if (!this.emitPairs) return null;
      return this.combine(n);
    }
    if (!this.emitPairs) {
      // semi/anti: the residual still sees the combined row; only the left flags matter.
      const { sel, n: m } = this.residual(this.combine(n), this.ctx);
      for (let k = 0; k < m; k++) this.leftMatched[lsel[sel[k]!]!] = 1;
      return null;
    }
    const combined = this.combine(n);
    const { sel, n: m } = this.residual(combined, this.ctx);
    for (let k = 0; k < m; k++) {
      const p = sel[k]!;
      this.leftMatched[lsel[p]!] = 1;
      if (trackRight) this.rightMatched[rsel[p]!] = 1;
    }
    if (m === 0) return null;
    return m === n ? combined : takeBatch(combined, sel, m);
  }

  private combine(n: number): Batch {
    const need = this.need;
    const l = takeBatch(this.probe!, this.lsel, n, need);
    const cols = l.columns.slice();
    const nl = cols.length;
    const bc = this.build.columns;
    for (let j = 0; j < bc.length; j++) {
      const c = bc[j]!;
      cols.push(need !== null && need[nl + j] === false ? deadColumn(c.type) : takeColumn(c, this.rsel, n));
    }
    return { columns: cols, length: n };
  }

  /** Padding for the missing side of an outer-join row: NULLs, or a placeholder when nobody reads it. */
  private pad(t: DataType, at: number, n: number): Column {
    return this.need !== null && this.need[at] === false ? deadColumn(t) : nullColumn(t, n);
  }

  /** After the probe batch's pairs are flushed: left-only output (unmatched rows for left/full/anti, matched for semi). */
  finishProbe(): Batch | null {
    const b = this.probe!;
    const t = this.type;
    if (t === 'inner' || t === 'right') return null;
    const want = t === 'semi' ? 1 : 0;
    const m = b.length;
    const sel = new Uint32Array(m);
    let w = 0;
    for (let i = 0; i < m; i++) if (this.leftMatched[i] === want) sel[w++] = i;
    if (w === 0) return null;
    const left = w === m ? b : takeBatch(b, sel, w, this.need);
    if (t === 'semi' || t === 'anti') return left;
    const cols = left.columns.slice();
    const nl = this.leftTypes.length;
    this.rightTypes.forEach((rt, j) => cols.push(this.pad(rt, nl + j, w)));
    return { columns: cols, length: w };
  }

  /** Right/full joins, after the whole probe side: build rows that never matched, left columns NULL. */
  *unmatchedRight(): Generator<Batch> {
    if (this.type !== 'right' && this.type !== 'full') return;
    const nb = this.build.length;
    let sel = new Uint32Array(BATCH_SIZE);
    let w = 0;
    const out = (): Batch => {
      const cols: Column[] = this.leftTypes.map((t, j) => this.pad(t, j, w));
      const nl = this.leftTypes.length;
      this.build.columns.forEach((c, j) => cols.push(this.need !== null && this.need[nl + j] === false ? deadColumn(c.type) : takeColumn(c, sel, w)));
      return { columns: cols, length: w };
    };
    for (let r = 0; r < nb; r++) {
      if (this.rightMatched[r] === 1) continue;
      sel[w++] = r;
      if (w === BATCH_SIZE) {
        yield out();
        sel = new Uint32Array(BATCH_SIZE);
        w = 0;
      }
    }
    if (w > 0) yield out();
  }
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function hashNumber(v: number): number {
  // Integers (the common key) hash without touching the float bits; -0 | 0 is 0, so -0 and 0 collide as they must.
  if ((v | 0) === v) return Math.imul(v | 0, 0x9e3779b1) ^ (v >>> 16);
  if (v !== v) return 0x7ff80000;
  f64[0] = v;
  const h = Math.imul(u32[0]! ^ Math.imul(u32[1]!, 0x85ebca6b), 0x9e3779b1);
  return h ^ (h >>> 15);
}

/** Key -> group id for one numeric key column: open addressing, linear probing. */
class NumberTable {
  private readonly mask: number;
  private readonly keys: Float64Array;
  private readonly groups: Int32Array;
  size = 0;

  constructor(expected: number) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.mask = cap - 1;
    this.keys = new Float64Array(cap);
    this.groups = new Int32Array(cap).fill(-1);
  }

  /** Group of v, creating it (id = current size) when new. */
  insert(v: number): number {
    const keys = this.keys;
    const groups = this.groups;
    let at = hashNumber(v) & this.mask;
    for (;;) {
      const g = groups[at]!;
      if (g === -1) {
        keys[at] = v;
        groups[at] = this.size;
        return this.size++;
      }
      const k = keys[at]!;
      if (k === v || (k !== k && v !== v)) return g;
      at = (at + 1) & this.mask;
    }
  }

  find(v: number): number {
    const keys = this.keys;
    const groups = this.groups;
    let at = hashNumber(v) & this.mask;
    for (;;) {
      const g = groups[at]!;
      if (g === -1) return -1;
      const k = keys[at]!;
      if (k === v || (k !== k && v !== v)) return g;
      at = (at + 1) & this.mask;
    }
  }
}

/** The build side: rows, their chains, and a lookup from probe rows to the head of a chain. */
export interface BuildTable {
  readonly head: Int32Array; // group -> first build row
  readonly next: Int32Array; // build row -> next row with the same key, -1 at the end
  /**
   * Chain head (first build row), -1 for no match, of probe rows sel[0..m) of `b` (rows 0..m-1 when
   * sel is null), written to out[0..m).
   */
  probe(b: Batch, out: Int32Array, sel: Uint32Array | null, m: number): void;
  /**
   * The batch rows among sel[0..m) (rows 0..m-1 when sel is null) that have a chain, in order, written
   * to rows[0..): probe() and the compaction in one pass, where the table has such a loop (a text key
   * whose probe column carries dictionary codes); null when this batch takes probe().
   */
  matchedRows?(b: Batch, sel: Uint32Array | null, m: number, rows: Uint32Array): number | null;
  /**
   * Set when `head` is indexed by the key value itself (directTable): keys 0..max, probed through the
   * probe side's column `probeCol`. Lets a consumer map a key straight to what it keeps per build row,
   * without writing chain heads first.
   */
  readonly direct?: { readonly max: number; readonly probeCol: number };
}

/**
 * Per slot of a direct table (key value 0..max): `perRow` of the slot's first build row, or `missing`
 * when no build row has that key.
 */
export function directSlots(heads: Int32Array, perRow: Int32Array, missing: number): Int32Array {
  const out = new Int32Array(heads.length);
  for (let v = 0; v < heads.length; v++) {
    const h = heads[v]!;
    out[v] = h === -1 ? missing : perRow[h]!;
  }
  return out;
}

/**
 * Probe rows of a direct table turned into (batch row, slot value) pairs, keeping the rows whose slot
 * is not -1 (a build-side group id, say), compacted branch-free: one pass instead of writing chain heads
 * and mapping them afterwards. `(v >>> 0) <= max` is the range check 0 <= v <= max in one comparison.
 */
export function directPairs(pd: Int32Array, sel: Uint32Array | null, m: number, slot: Int32Array, max: number, rows: Uint32Array, vals: Int32Array): number {
  let n = 0;
  if (sel === null) {
    for (let i = 0; i < m; i++) {
      const v = pd[i]!;
      const g = v >>> 0 <= max ? slot[v]! : -1;
      rows[n] = i;
      vals[n] = g;
      n += ~g >>> 31;
    }
  } else {
    for (let j = 0; j < m; j++) {
      const i = sel[j]!;
      const v = pd[i]!;
      const g = v >>> 0 <= max ? slot[v]! : -1;
      rows[n] = i;
      vals[n] = g;
      n += ~g >>> 31;
    }
  }
  return n;
}

/** Sum over probe rows of a direct table of `slot[key]` (the number of build rows with the key), 0 out of range. */
export function directSum(pd: Int32Array, sel: Uint32Array | null, m: number, slot: Int32Array, max: number): number {
  let total = 0;
  if (sel === null) {
    for (let i = 0; i < m; i++) {
      const v = pd[i]!;
      if (v >>> 0 <= max) total += slot[v]!;
    }
  } else {
    for (let j = 0; j < m; j++) {
      const v = pd[sel[j]!]!;
      if (v >>> 0 <= max) total += slot[v]!;
    }
  }
  return total;
}

/** Largest key a direct-address build table indexes (4 bytes per possible key value). */
const DIRECT_KEY_MAX = 1 << 22;

/**
 * Build table for a single integer key whose values are non-negative and not much larger than the row
 * count (ids, small codes: the common star-join dimension): chain heads are stored at index = key, so a
 * probe is one bounds check and one array read instead of hashing and probing. null when the keys do not
 * qualify (negative, fractional, too sparse).
 */
async function directTable(col: Column, n: number, next: Int32Array, lk: number, ctx: ExecContext): Promise<BuildTable | null> {
  const d = col.data as Float64Array | Int32Array | Uint8Array;
  const nulls = col.nulls;
  let max = -1;
  for (let s = 0; s < n; s += BUILD_CHUNK) {
    const e = Math.min(n, s + BUILD_CHUNK);
    for (let r = s; r < e; r++) {
      if (nulls !== null && nulls[r] === 1) continue;
      const v = d[r]!;
      // Rejects NaN, fractions and negatives; -0 is fine (it indexes slot 0, and -0 = 0 in SQL).
      if (!(v >= 0 && v <= DIRECT_KEY_MAX && Math.floor(v) === v)) return null;
      if (v > max) max = v;
    }
    const due = yieldIfDue(ctx);
    if (due !== undefined) await due;
  }
  if (max > 4 * n + 1024) return null;
  const heads = new Int32Array(max + 1).fill(-1);
  const tails = new Int32Array(max + 1);
  for (let s = 0; s < n; s += BUILD_CHUNK) {
    const e = Math.min(n, s + BUILD_CHUNK);
    for (let r = s; r < e; r++) {
      if (nulls !== null && nulls[r] === 1) continue;
      const v = d[r]!;
      const h = heads[v]!;
      if (h === -1) heads[v] = r;
      else next[tails[v]!] = r;
      tails[v] = r;
    }
    const due = yieldIfDue(ctx);
    if (due !== undefined) await due;
  }
  return {
    head: heads,
    next,
    direct: { max, probeCol: lk },
    probe(b: Batch, out: Int32Array, sel: Uint32Array | null, m: number): void {
      const c = b.columns[lk]!;
      const pd = c.data;
      const pn = c.nulls;
      if (pd instanceof Int32Array && pn === null) {
        directProbe(pd, sel, m, heads, max, out);
        return;
      }
      for (let j = 0; j < m; j++) {
        const i = sel === null ? j : sel[j]!;
        if (pn !== null && pn[i] === 1) {
          out[j] = -1;
          continue;
        }
        const v = pd[i];
        // Only an integral number in range can match; a fractional probe value (float = int join) reads
        // no slot, and a bigint (int8 outside the safe range) matches nothing here.
        out[j] = typeof v === 'number' && v >= 0 && v <= max && Math.floor(v) === v ? heads[v]! : -1;
      }
    },
  };
}

/**
 * Chain heads of int4 probe keys (no NULLs) in a direct table: a plain function over locals, so the loop
 * reads `heads` and `max` from registers rather than from the closure's context on every row.
 */
function directProbe(pd: Int32Array, sel: Uint32Array | null, m: number, heads: Int32Array, max: number, out: Int32Array): void {
  if (sel === null) {
    for (let i = 0; i < m; i++) {
      const v = pd[i]!;
      out[i] = v >= 0 && v <= max ? heads[v]! : -1;
    }
  } else {
    for (let j = 0; j < m; j++) {
      const v = pd[sel[j]!]!;
      out[j] = v >= 0 && v <= max ? heads[v]! : -1;
    }
  }
}

/**
 * Rows hashed between two yield points while a build table is made: a large build side would
 * otherwise hold the event loop (and ignore cancel) for the whole build.
 */
const BUILD_CHUNK = 1 << 15;
/**
 * The same for builds that hash a key per row (text, several columns): a row costs a Map or dictionary
 * lookup and often the first hashing of its string, about a microsecond, so fewer rows per step.
 */
const KEYED_BUILD_CHUNK = 1 << 12;
/** Rows inserted into the key map between yield checks. */
const KEYED_INSERT_SLICE = 256;

/**
 * Build table for several key columns: a typed table of key words (key-table.ts) instead of a composite
 * string per row. Rows with a NULL key still get an entry (its words carry the NULL mask) but join no
 * chain, so a probe row with a NULL key finds a chain head of -1.
 */
async function wordKeyTable(build: Batch, rightKeys: readonly number[], leftKeys: readonly number[], next: Int32Array, ctx: ExecContext): Promise<BuildTable> {
  const n = build.length;
  const table = new KeyTable(rightKeys.map((k) => build.columns[k]!.type));
  let head = new Int32Array(1024).fill(-1);
  let tail = new Int32Array(1024);
  const keyCols: Batch = { columns: pickColumns(build.columns, rightKeys), length: n };
  for (let s = 0; s < n; s += KEYED_BUILD_CHUNK) {
    const e = Math.min(n, s + KEYED_BUILD_CHUNK);
    const ids = table.insert(sliceBatch(keyCols, s, e).columns, e - s);
    if (table.size > head.length) {
      const cap = Math.max(table.size, head.length * 2);
      const h = new Int32Array(cap).fill(-1);
      h.set(head);
      head = h;
      const t = new Int32Array(cap);
      t.set(tail);
      tail = t;
    }
    for (let r = s; r < e; r++) {
      if (table.hasNull(r - s)) continue;
      const g = ids[r - s]!;
      if (head[g] === -1) head[g] = r;
      else next[tail[g]!] = r;
      tail[g] = r;
    }
    const due = yieldIfDue(ctx);
    if (due !== undefined) await due;
  }
  const heads = head;
  return {
    head: heads,
    next,
    probe(b: Batch, out: Int32Array, sel: Uint32Array | null, m: number): void {
      const ids = table.find(
        leftKeys.map((k) => (sel === null ? b.columns[k]! : takeColumn(b.columns[k]!, sel, m))),
        m,
      );
      for (let i = 0; i < m; i++) {
        const g = ids[i]!;
        out[i] = g < 0 ? -1 : heads[g]!;
      }
    },
  };
}

async function buildTable(
  build: Batch,
  rightKeys: readonly number[],
  leftKeys: readonly number[],
  leftTypes: readonly DataType[],
  ctx: ExecContext,
): Promise<BuildTable> {
  const n = build.length;
  const next = new Int32Array(n).fill(-1);
  const first = rightKeys.length === 1 ? build.columns[rightKeys[0]!]! : null;
  const numeric =
    first !== null &&
    !Array.isArray(first.data) &&
    (keyCategory(first.type) === 'num' || keyCategory(first.type) === 'float');
  if (numeric) {
    const direct = await directTable(first, n, next, leftKeys[0]!, ctx);
    if (direct !== null) return direct;
  }
  if (numeric) {
    const d = first.data as Float64Array | Int32Array | Uint8Array;
    const nulls = first.nulls;
    const table = new NumberTable(n);
    // At most one chain per build row: sized once, so no array regrows (and copies) while it fills.
    const heads = new Int32Array(n);
    const tail = new Int32Array(n);
    let chains = 0;
    for (let s = 0; s < n; s += BUILD_CHUNK) {
      const e = Math.min(n, s + BUILD_CHUNK);
      for (let r = s; r < e; r++) {
        if (nulls !== null && nulls[r] === 1) continue;
        const g = table.insert(d[r]!);
        if (g === chains) {
          heads[chains] = r;
          tail[chains++] = r;
        } else {
          next[tail[g]!] = r;
          tail[g] = r;
        }
      }
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
    }
    const head = heads.slice(0, chains);
    const lk = leftKeys[0]!;
    return {
      head,
      next,
      probe(b: Batch, out: Int32Array, sel: Uint32Array | null, m: number): void {
        const c = b.columns[lk]!;
        const pd = c.data;
        const pn = c.nulls;
        for (let j = 0; j < m; j++) {
          const i = sel === null ? j : sel[j]!;
          if (pn !== null && pn[i] === 1) {
            out[j] = -1;
            continue;
          }
          const v = pd[i];
          // A bigint probe value (int8 outside the safe range) cannot equal any build value here.
          const g = typeof v === 'number' ? table.find(v) : -1;
          out[j] = g === -1 ? -1 : head[g]!;
        }
      },
    };
  }
  if (rightKeys.length > 1 && rightKeys.every((k, i) => sameKeyEncoding(build.columns[k]!.type, leftTypes[i]!))) {
    return wordKeyTable(build, rightKeys, leftKeys, next, ctx);
  }
  const groups = new ShardedKeyMap<number>();
  const plainText = (t: DataType): boolean => t.name === 'text' || t.name === 'varchar';
  const textKey = rightKeys.length === 1 && plainText(build.columns[rightKeys[0]!]!.type) && plainText(leftTypes[0]!);
  const chains: Chains = { heads: new Int32Array(n), tail: new Int32Array(n), count: 0 };
  // Keys are made a chunk at a time, from the key columns alone (the others are not copied).
  const keyCols: Batch = { columns: pickColumns(build.columns, rightKeys), length: n };
  const keyIdx = rightKeys.map((_, i) => i);
  for (let s = 0; s < n; s += KEYED_BUILD_CHUNK) {
    const e = Math.min(n, s + KEYED_BUILD_CHUNK);
    const nullRows = new Uint8Array(e - s);
    const keys = rowKeys(sliceBatch(keyCols, s, e), keyIdx, nullRows);
    // Short slices with a yield check between them: a shard of the key map that outgrows its table
    // rehashes within one slice, and other sessions run before the next one does.
    for (let from = s; from < e; from += KEYED_INSERT_SLICE) {
      insertKeys(groups, keys, nullRows, s, from, Math.min(e, from + KEYED_INSERT_SLICE), chains, next);
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
    }
  }
  const head = chains.heads.slice(0, chains.count);
  const codeHeads = new Map<TextDictionary, Int32Array>();
  return {
    head,
    next,
    matchedRows(b: Batch, sel: Uint32Array | null, m: number, rows: Uint32Array): number | null {
      if (!textKey) return null;
      const c = b.columns[leftKeys[0]!]!;
      if (c.dict == null || c.dict.codes.length < (sel === null ? m : b.length)) return null;
      return matchedCodeRows(c.dict, c.nulls, sel, m, rows, codeHeads, groups, head);
    },
    probe(b: Batch, out: Int32Array, sel: Uint32Array | null, m: number): void {
      if (textKey) {
        // The string itself is the Map key: one lookup per probe row, no key array per batch.
        const c = b.columns[leftKeys[0]!]!;
        const pn = c.nulls;
        // Before `data`: a column held as codes only (codedTextColumn) then never builds its strings.
        if (c.dict != null && c.dict.codes.length >= (sel === null ? m : b.length)) {
          probeCodes(c.dict, pn, sel, m, out, codeHeads, groups, head);
          return;
        }
        const d = c.data as Value[];
        for (let j = 0; j < m; j++) {
          const i = sel === null ? j : sel[j]!;
          const v = d[i];
          const g = (pn !== null && pn[i] === 1) || v === null ? undefined : groups.get(v as string);
          out[j] = g === undefined ? -1 : head[g]!;
        }
        return;
      }
      const pnull = new Uint8Array(m);
      const pk = rowKeys(sel === null ? b : takeBatch(b, sel, m, b.columns.map((_, i) => leftKeys.includes(i))), leftKeys, pnull);
      for (let i = 0; i < m; i++) {
        if (pnull[i] === 1) {
          out[i] = -1;
          continue;
        }
        const g = groups.get(pk[i]!);
        out[i] = g === undefined ? -1 : head[g]!;
      }
    },
  };
}

// The loops below are plain functions rather than inline in the join's async generator, where V8
// optimizes them far less.

/** Chains rows from..to-1 (keys[r - base], NULL where nullRows says) into `groups`' chains. */
function insertKeys(
  groups: ShardedKeyMap<number>,
  keys: readonly ShardKey[],
  nullRows: Uint8Array,
  base: number,
  from: number,
  to: number,
  c: Chains,
  next: Int32Array,
): void {
  const { heads, tail } = c;
  let count = c.count;
  for (let r = from; r < to; r++) {
    if (nullRows[r - base] === 1) continue;
    const k = keys[r - base]!;
    const g = groups.get(k);
    if (g === undefined) {
      groups.set(k, count);
      heads[count] = r;
      tail[count++] = r;
    } else {
      next[tail[g]!] = r;
      tail[g] = r;
    }
  }
  c.count = count;
}

/** Build-side chains: first and last row of each key's chain, sized for one chain per build row. */
interface Chains {
  readonly heads: Int32Array;
  readonly tail: Int32Array;
  count: number;
}

/**
 * Chain heads of text probe rows that carry dictionary codes: the first row with a code looks its string
 * up in `groups`, every later one reads the answer from an array indexed by the code (chain head + 2;
 * 1 = no match, 0 = not looked up yet). Codes keep their meaning as the dictionary grows.
 */
function probeCodes(
  dc: DictCodes,
  pn: Uint8Array | null,
  sel: Uint32Array | null,
  m: number,
  out: Int32Array,
  cache: Map<TextDictionary, Int32Array>,
  groups: ShardedKeyMap<number>,
  head: Int32Array,
): void {
  const known = knownHeads(dc, cache);
  const codes = dc.codes;
  for (let j = 0; j < m; j++) {
    const i = sel === null ? j : sel[j]!;
    const code = codes[i]!;
    if (code < 0 || (pn !== null && pn[i] === 1)) {
      out[j] = -1;
      continue;
    }
    let h = known[code]!;
    if (h === 0) {
      const g = groups.get(dc.dictionary.values[code]!);
      h = known[code] = g === undefined ? 1 : head[g]! + 2;
    }
    out[j] = h - 2;
  }
}

/**
 * The code → chain head + 2 array of probeCodes for this dictionary, grown to its size (codes keep their
 * meaning as the dictionary grows, so known answers carry over).
 */
function knownHeads(dc: DictCodes, cache: Map<TextDictionary, Int32Array>): Int32Array {
  let known = cache.get(dc.dictionary);
  if (known === undefined || known.length < dc.dictionary.size) {
    const grown = new Int32Array(Math.max(dc.dictionary.size, 16));
    if (known !== undefined) grown.set(known);
    known = grown;
    cache.set(dc.dictionary, known);
  }
  return known;
}

/**
 * probeCodes compacted to the matched rows: the batch rows of sel[0..m) whose code has a chain, written
 * branch-free to rows. A code seen for the first time is looked up in `groups` (out of line).
 */
function matchedCodeRows(
  dc: DictCodes,
  pn: Uint8Array | null,
  sel: Uint32Array | null,
  m: number,
  rows: Uint32Array,
  cache: Map<TextDictionary, Int32Array>,
  groups: ShardedKeyMap<number>,
  head: Int32Array,
): number {
  const known = knownHeads(dc, cache);
  const codes = dc.codes;
  let n = 0;
  for (let j = 0; j < m; j++) {
    const i = sel === null ? j : sel[j]!;
    const code = codes[i]!;
    let h = 1;
    if (code >= 0 && (pn === null || pn[i] === 0)) {
      h = known[code]!;
      if (h === 0) h = lookUpCode(dc, code, known, groups, head);
    }
    rows[n] = i;
    // h is chain head + 2: 0 or more means a match
    n += ~(h - 2) >>> 31;
  }
  return n;
}

/** A code's chain head + 2 (1 = no match), looked up and remembered. */
function lookUpCode(dc: DictCodes, code: number, known: Int32Array, groups: ShardedKeyMap<number>, head: Int32Array): number {
  const g = groups.get(dc.dictionary.values[code]!);
  return (known[code] = g === undefined ? 1 : head[g]! + 2);
}

export function allChainsSingle(next: Int32Array): boolean {
  for (let r = 0; r < next.length; r++) if (next[r] !== -1) return false;
  return true;
}

/** Rows the probe rows with chain heads heads[0..m) join (chainLength null: every chain is one row). */
export function joinedRows(heads: Int32Array, m: number, chainLength: Int32Array | null): number {
  let rows = 0;
  if (chainLength === null) for (let i = 0; i < m; i++) rows += ~heads[i]! >>> 31;
  else
    for (let i = 0; i < m; i++) {
      const h = heads[i]!;
      if (h !== -1) rows += chainLength[h]!;
    }
  return rows;
}

/** Rows in the chain starting at each build row (chains run forward: next[r] > r). */
export function chainLengths(next: Int32Array): Int32Array {
  const len = new Int32Array(next.length);
  for (let r = next.length - 1; r >= 0; r--) len[r] = next[r] === -1 ? 1 : 1 + len[next[r]!]!;
  return len;
}

export class HashJoin extends PhysicalOperator {
  readonly name = 'HashJoin';

  constructor(
    readonly left: PhysicalOperator,
    readonly right: PhysicalOperator,
    readonly type: JoinType,
    readonly leftKeys: readonly number[],
    readonly rightKeys: readonly number[],
    readonly residual: CompiledPredicate | null = null,
    /** Combined-row columns to materialize (see PairCollector.need); null = all. */
    readonly need: readonly boolean[] | null = null,
  ) {
    super(joinSchema(type, left.schema, right.schema));
    if (leftKeys.length !== rightKeys.length || leftKeys.length === 0) {
      throw new Error('HashJoin needs the same non-zero number of left and right key columns');
    }
  }

  children(): readonly PhysicalOperator[] {
    return [this.left, this.right];
  }

  describe(): string {
    const ln = this.left.schema;
    const rn = this.right.schema;
    const conds = this.leftKeys.map((l, i) => `${ln[l]?.name ?? `#${l}`} = ${rn[this.rightKeys[i]!]?.name ?? `#${this.rightKeys[i]}`}`);
    return `${this.type}, keys: [${conds.join(', ')}]${this.residual !== null ? ', residual filter' : ''}`;
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    const l = inputs[0] ?? [];
    const r = inputs[1] ?? [];
    const conds = this.leftKeys.map((k, i) => `(${l[k] ?? `#${k}`} = ${r[this.rightKeys[i]!] ?? `#${this.rightKeys[i]}`})`);
    const kind = { inner: '', cross: '', left: ' Left', right: ' Right', full: ' Full', semi: ' Semi', anti: ' Anti' }[this.type];
    const details = [`Hash Cond: ${conds.length === 1 ? conds[0]! : `(${conds.join(' AND ')})`}`];
    if (this.residual !== null) details.push('Join Filter: (residual condition)');
    return { label: `Hash${kind} Join`, details, outputs: [...l, ...(this.type === 'semi' || this.type === 'anti' ? [] : r)].slice(0, this.schema.length), projects: true, childWrappers: [null, { label: 'Hash', details: [], rowsOf: 'child' }] };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    // The build side is held in memory: it is accounted, so an oversized one fails with 53200
    // (naming the limit) instead of exhausting the V8 heap.
    const reservation = queryMemory(ctx).pool.register('HashJoin', false);
    try {
      yield* this.join(ctx, reservation);
    } finally {
      reservation.free();
    }
  }

  /**
   * Probe-side batches with the rows to probe. Below an inner or right join a Filter hands over its
   * selection instead of copying the qualifying rows: only their keys are read, and only matched rows are
   * gathered. (Left, full, semi and anti joins emit probe rows by position, so they take copied batches.)
   */
  async *probeSide(ctx: ExecContext): AsyncGenerator<SelectedBatch> {
    const left = this.left;
    if ((this.type === 'inner' || this.type === 'right') && left instanceof Filter) {
      yield* left.selections(ctx);
      return;
    }
    for await (const b of left.execute(ctx)) if (b.length > 0) yield { batch: b, sel: null, n: b.length };
  }

  /**
   * Reads the right input and builds its table; null when it is empty and the join type then outputs
   * nothing. Also used by HashJoinAggregate, which probes the same table without making pairs.
   */
  async buildSide(ctx: ExecContext, reservation: MemoryReservation, read: readonly boolean[] | null = this.rightRead()): Promise<{ build: Batch; table: BuildTable } | null> {
    const leftTypes = this.left.schema.map((f) => f.type);
    const rightTypes = this.right.schema.map((f) => f.type);
    const parts: Batch[] = [];
    // Columns nobody reads become placeholders before the concatenation, which then skips them.
    const dead = read === null || read.every((x) => x) ? null : rightTypes.map((t, j) => (read[j] === true ? null : deadColumn(t)));
    for await (const b0 of this.right.execute(ctx)) {
      if (b0.length === 0) continue;
      const b = dead === null ? b0 : { columns: b0.columns.map((c, j) => dead[j] ?? c), length: b0.length };
      // Twice the batch: the build keeps the batches and their concatenation while the table is built.
      reservation.grow(batchBytes(b) * 2, 'hash join build side');
      parts.push(b);
    }
    const due = yieldIfDue(ctx);
    if (due !== undefined) await due;
    const type = this.type;
    if (parts.length === 0 && (type === 'inner' || type === 'semi' || type === 'right')) return null;
    const build = parts.length === 0 ? { columns: rightTypes.map((t) => makeColumn(t, allocData(t, 0), null)), length: 0 } : await concatBatchesAsync(rightTypes, parts, ctx);
    parts.length = 0;
    const table = await buildTable(build, this.rightKeys, this.leftKeys, this.leftKeys.map((k) => leftTypes[k]!), ctx);
    return { build, table };
  }

  /**
   * Build-side columns the join reads: its keys and those of the combined row that `need` keeps (which
   * include what the residual reads); null = all.
   */
  rightRead(): boolean[] | null {
    const need = this.need;
    if (need === null) return null;
    const nl = this.left.schema.length;
    const read = this.right.schema.map((_, j) => need[nl + j] !== false);
    for (const k of this.rightKeys) read[k] = true;
    return read;
  }

  private async *join(ctx: ExecContext, reservation: MemoryReservation): AsyncGenerator<Batch> {
    const leftTypes = this.left.schema.map((f) => f.type);
    const rightTypes = this.right.schema.map((f) => f.type);
    const built = await this.buildSide(ctx, reservation);
    if (built === null) return;
    const { build, table } = built;
    const type = this.type;
    const next = table.next;
    const pairs = new PairCollector(type, leftTypes, rightTypes, build, this.residual, ctx, this.need);
    // Without a residual, semi/anti only need to know whether a chain exists.
    const existence = (type === 'semi' || type === 'anti') && this.residual === null;
    const unique = allChainsSingle(next);
    // An inner join none of whose output columns is read (count(*) over it) only has to say how many
    // rows it makes: no pairs are gathered, placeholders stand for the columns.
    const need = this.need;
    const countOnly = type === 'inner' && this.residual === null && need !== null && need.every((x) => !x);
    const chainLength = countOnly && !unique ? chainLengths(next) : null;
    const dead = countOnly ? this.schema.map((f) => deadColumn(f.type)) : [];
    let heads = new Int32Array(BATCH_SIZE);
    for await (const { batch: b, sel, n: m } of this.probeSide(ctx)) {
      if (heads.length < m) heads = new Int32Array(m);
      table.probe(b, heads, sel, m);
      if (countOnly) {
        for (let rows = joinedRows(heads, m, chainLength); rows > 0; rows -= BATCH_SIZE) yield { columns: dead.slice(), length: Math.min(rows, BATCH_SIZE) };
        const due = yieldIfDue(ctx);
        if (due !== undefined) await due;
        continue;
      }
      pairs.startProbe(b, sel);
      if (existence) {
        for (let i = 0; i < m; i++) if (heads[i] !== -1) pairs.leftMatched[i] = 1;
      } else {
        while (!(unique ? pairs.fillUnique(heads, m) : pairs.fill(heads, next, m))) {
          const out = pairs.flush();
          if (out !== null) yield out;
        }
        const out = pairs.flush();
        if (out !== null) yield out;
      }
      const rest = pairs.finishProbe();
      if (rest !== null) yield rest;
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
    }
    yield* pairs.unmatchedRight();
  }
}
