/**
 * Hash aggregation. The input already holds every value the aggregation needs (a projection below
 * computes group keys into columns [0, keyCount), aggregate arguments, FILTER conditions and ORDER BY
 * keys into further columns), so this operator only groups and accumulates.
 *
 * Rows are mapped to dense group ids per batch, then each aggregate consumes the whole batch in one
 * vectorized update(gids, …) call. Aggregates with DISTINCT or an ORDER BY inside the call cannot be fed
 * incrementally: their (filtered) input rows are buffered and, at the end, sorted by group and ORDER BY
 * keys, deduplicated, and fed in that order.
 *
 * Output: key columns then one column per aggregate, groups in first-seen order, BATCH_SIZE per batch.
 * Without GROUP BY there is exactly one output row, even for empty input; with GROUP BY, empty input
 * gives no rows.
 */
import { hashKey } from '../../common/compare.js';
import { storageKind, T, type DataType, type Field, type Schema, type Value } from '../../common/types.js';
import { anchorShape } from '../../common/shape-anchor.js';
import {
  BATCH_SIZE,
  ColumnBuilder,
  getValue,
  type ChunkedColumn,
  makeColumn,
  pickColumns,
  sliceBatch,
  takeColumn,
  scaledNumbers,
  type Batch,
  type Column,
} from '../../common/column.js';
import { yieldEvery, yieldIfDue, type ExecContext } from '../../execution/context.js';
import { concatBatchesAsync } from '../../execution/concat-batches-async.js';
import { columnBytes, HASH_ENTRY_BYTES, queryMemory } from '../../execution/memory-pool.js';
import type { GroupedAccumulator, InlineStep, ResolvedAggregate } from '../../functions/aggregate/aggregate-function.js';
import { inlineAggregateLoop, talliesRows, type InlineAggregateLoop } from '../inline-aggregate-loop.js';
import { GrowthReserve, withGrowthReserve } from '../../functions/aggregate/growth-reserve.js';
import { KeyTable } from '../key-table.js';
import { GroupValueSet } from '../group-value-set.js';
import type { DictCodes, TextDictionary } from '../../common/text-dictionary.js';
import { PhysicalOperator, type ExplainInputs, type ExplainNode } from '../operator.js';
import { Filter, type SelectedBatch } from './filter.js';
import { Project } from './project.js';
import { compileComparator, type SortKey } from '../sort-key.js';
import { sortRunAsync } from './sort.js';
import { packedMap } from '../../common/packed-map.js';

export interface AggOrderKey {
  /** Input column holding the sort key. */
  col: number;
  desc: boolean;
  nullsFirst: boolean;
  type: DataType;
}

export interface HashAggSpec {
  impl: ResolvedAggregate;
  /** Input columns holding the (already coerced) arguments; empty for count(*). */
  argCols: number[];
  /** Input bool column of FILTER (WHERE …): only rows where it is true are aggregated. */
  filterCol: number | null;
  distinct: boolean;
  /** ORDER BY inside the call, e.g. string_agg(x, ',' ORDER BY y). */
  orderBy: AggOrderKey[];
}

export interface HashAggregateConfig {
  /** Input columns [0, keyCount) are the group keys. */
  keyCount: number;
  keyTypes: DataType[];
  aggs: HashAggSpec[];
}

// ---------------------------------------------------------------------------------------------------
// Group id assignment

export interface Grouper {
  /** Number of groups so far. */
  readonly count: number;
  /**
   * Group id of each of the first n rows (with `sel`: of rows sel[0..n), gids[k] for row sel[k]); the
   * returned array is reused by the next call.
   */
  assign(batch: Batch, n: number, sel?: Uint32Array | null): Int32Array;
  /** Key columns of groups [0, count), in group id order, read in output-batch slices. */
  keyColumns(): ChunkedColumn[];
  /**
   * Group id of each of the first n rows, or -1 where the key has no group yet; creates no group (a
   * hybrid aggregate whose table is full routes those rows to disk). The returned array is reused.
   */
  find(batch: Batch, n: number): Int32Array;
  /**
   * For a one-key grouper: the batch's keys as int32 values and the table mapping each key to its group
   * id + 1 (0: no group yet), and the key's NULL flags with the NULL group's id, when such a table
   * exists. Valid until the next assign(), which may replace the table.
   */
  lookupTable?(batch: Batch): KeyLookup | null;
}

export interface KeyLookup {
  keys: Int32Array;
  table: Int32Array;
  nulls: Uint8Array | null;
  /** The NULL group's id, -1 while there is none. */
  nullGroup: number;
  /**
   * The table is read at key + 1, and its entry 0 is the NULL group's id + 1: keys are dictionary
   * codes, -1 on every NULL row (DictCodes), so a row's group is one lookup with no test of its NULL
   * flag (a branch the processor mispredicts at each NULL key, about a nanosecond a row).
   */
  nullSlot: boolean;
}

const EMPTY_TABLE = new Int32Array(0);

/** Reusable scratch array of at least n entries. */
function scratch(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  return a.length >= n ? a : new Int32Array(Math.max(n, BATCH_SIZE));
}

/** No GROUP BY: everything is group 0, which exists even before the first row. */
class SingleGroup implements Grouper {
  readonly count = 1;
  private zeros = new Int32Array(0);
  assign(_batch: Batch, n: number): Int32Array {
    this.zeros = scratch(this.zeros, n);
    return this.zeros;
  }
  keyColumns(): ChunkedColumn[] {
    return [];
  }
  find(batch: Batch, n: number): Int32Array {
    return this.assign(batch, n);
  }
}

/**
 * Map key of a non-null value under PostgreSQL equality. Types stored as numbers use the number itself:
 * Map's SameValueZero already equates NaN with NaN and -0 with 0, as PostgreSQL's float equality does,
 * and int8 beyond ±2^53 arrives as a bigint, which Map also compares by value (and which can never equal
 * a number key, since the representation never uses bigint in the safe range).
 */
function mapKey(v: Value, t: DataType, numeric: boolean): unknown {
  if (numeric) return typeof v === 'boolean' ? (v ? 1 : 0) : v;
  return hashKey(v, t);
}

/** One GROUP BY key: Map from raw key to group id; NULLs form one group of their own. */
class SingleKeyGrouper implements Grouper {
  count = 0;
  private readonly map = new Map<unknown, number>();
  private nullGid = -1;
  private gids = new Int32Array(0);
  private readonly builder: ColumnBuilder;
  private readonly numeric: boolean;
  /**
   * Per text dictionary: at code + 1 each code's group id + 1 (0 = not looked up yet); at 0 the NULL
   * group's id + 1 (see KeyLookup.nullSlot).
   */
  private readonly codeGroups = new Map<TextDictionary, Int32Array>();

  constructor(private readonly type: DataType) {
    this.builder = new ColumnBuilder(type);
    this.numeric = storageKind(type) !== 'obj';
  }

  assign(batch: Batch, n: number, sel: Uint32Array | null = null): Int32Array {
    if (sel !== null) return this.assign(gatherKeys(batch, sel, n), n);
    const gids = (this.gids = scratch(this.gids, n));
    const c = batch.columns[0]!;
    // Before `data`, which a column held as codes only would build its strings for.
    if (c.dict != null && c.dict.codes.length >= n) {
      this.assignCodes(c, c.dict, n, gids);
      return gids;
    }
    const d = c.data;
    const nulls = c.nulls;
    const map = this.map;
    if (!Array.isArray(d)) {
      // Typed storage: the raw array element is the key, no boxing.
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k] === 1) {
          gids[k] = this.nullGroup(c, k);
          continue;
        }
        const key = d[k]!;
        let g = map.get(key);
        if (g === undefined) {
          g = this.count++;
          map.set(key, g);
          this.builder.pushFrom(c, k);
        }
        gids[k] = g;
      }
    } else {
      const t = this.type;
      const numeric = this.numeric;
      for (let k = 0; k < n; k++) {
        const v = nulls !== null && nulls[k] === 1 ? null : (d[k] ?? null);
        if (v === null) {
          gids[k] = this.nullGroup(c, k);
          continue;
        }
        const key = mapKey(v, t, numeric);
        let g = map.get(key);
        if (g === undefined) {
          g = this.count++;
          map.set(key, g);
          this.builder.push(v);
        }
        gids[k] = g;
      }
    }
    return gids;
  }

  /**
   * Text with dictionary codes: each code's group is found through the Map once and then read from an
   * array indexed by the code, so a row costs no string hashing. Codes never change meaning (a
   * dictionary only grows), so the array stays valid across batches sharing the dictionary.
   */
  private assignCodes(c: Column, dc: DictCodes, n: number, gids: Int32Array): void {
    let ids = this.codeGroups.get(dc.dictionary);
    if (ids === undefined || ids.length <= dc.dictionary.size) {
      const grown = new Int32Array(Math.max(dc.dictionary.size + 1, 16));
      if (ids !== undefined) grown.set(ids);
      grown[0] = this.nullGid + 1;
      ids = grown;
      this.codeGroups.set(dc.dictionary, ids);
    }
    const codes = dc.codes;
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const code = codes[k]!;
      if (code < 0 || (nulls !== null && nulls[k] === 1)) {
        gids[k] = this.nullGroup(c, k);
        continue;
      }
      const g = ids[code + 1]! - 1;
      if (g >= 0) {
        gids[k] = g;
        continue;
      }
      // The row's string is the code's entry (the dictionary's own object).
      const ng = this.lookup(dc.dictionary.values[code]!);
      ids[code + 1] = ng + 1;
      gids[k] = ng;
    }
  }

  lookupTable(batch: Batch): KeyLookup | null {
    const c = batch.columns[0]!;
    if (c.dict == null || c.dict.codes.length < batch.length) return null;
    return { keys: c.dict.codes, table: this.codeGroups.get(c.dict.dictionary) ?? EMPTY_TABLE, nulls: c.nulls, nullGroup: this.nullGid, nullSlot: true };
  }

  /** Group of a non-NULL value, created when new. */
  private lookup(v: Value): number {
    const key = mapKey(v, this.type, this.numeric);
    let g = this.map.get(key);
    if (g === undefined) {
      g = this.count++;
      this.map.set(key, g);
      this.builder.push(v);
    }
    return g;
  }

  find(batch: Batch, n: number): Int32Array {
    const gids = (this.gids = scratch(this.gids, n));
    const c = batch.columns[0]!;
    const d = c.data;
    const nulls = c.nulls;
    const typed = !Array.isArray(d);
    for (let k = 0; k < n; k++) {
      const v = nulls !== null && nulls[k] === 1 ? null : (d[k] ?? null);
      if (v === null) {
        gids[k] = this.nullGid;
        continue;
      }
      gids[k] = this.map.get(typed ? v : mapKey(v, this.type, this.numeric)) ?? -1;
    }
    return gids;
  }

  private nullGroup(c: Column, k: number): number {
    if (this.nullGid < 0) {
      this.nullGid = this.count++;
      this.builder.pushFrom(c, k);
      for (const ids of this.codeGroups.values()) ids[0] = this.nullGid + 1;
    }
    return this.nullGid;
  }

  keyColumns(): ChunkedColumn[] {
    return [this.builder.finishChunked()];
  }
}

/**
 * Injective string encoding of one key part, so that composite keys compare equal exactly when every
 * part is equal under PostgreSQL equality. Strings are length-prefixed so no separator can be forged.
 */
function encodePart(v: Value, t: DataType, numeric: boolean): string {
  if (v === null) return '\u0001';
  const k = mapKey(v, t, numeric);
  switch (typeof k) {
    case 'number':
      // String(-0) is "0" and String(NaN) is "NaN": the same identifications Map makes.
      return 'n' + String(k);
    case 'bigint':
      return 'b' + String(k);
    case 'boolean':
      return k ? 'T' : 'F';
    case 'string':
      return 's' + k.length + ':' + k;
    default:
      return 'o' + String(k);
  }
}

/**
 * Several GROUP BY keys: a typed table of key words (key-table.ts), whose entry ids are the group ids.
 * A text key costs one dictionary lookup per row; the tuple is then hashed and compared as 32-bit words.
 */
class MultiKeyGrouper implements Grouper {
  count = 0;
  private readonly table: KeyTable;
  private fresh = new Uint32Array(0);
  private readonly builders: ColumnBuilder[];

  constructor(types: readonly DataType[]) {
    this.table = new KeyTable(types);
    this.builders = types.map((t) => new ColumnBuilder(t));
  }

  assign(batch: Batch, n: number, sel: Uint32Array | null = null): Int32Array {
    if (sel !== null) return this.assign(gatherKeys(batch, sel, n), n);
    if (this.fresh.length < n) this.fresh = new Uint32Array(Math.max(n, BATCH_SIZE));
    const cols = batch.columns;
    const gids = this.table.insert(cols, n, this.fresh);
    const w = this.table.freshCount;
    const fresh = this.fresh;
    const bs = this.builders;
    for (let i = 0; i < bs.length; i++) {
      const b = bs[i]!;
      const c = cols[i]!;
      for (let j = 0; j < w; j++) b.pushFrom(c, fresh[j]!);
    }
    this.count = this.table.size;
    return gids;
  }

  find(batch: Batch, n: number): Int32Array {
    return this.table.find(batch.columns, n);
  }

  keyColumns(): ChunkedColumn[] {
    return this.builders.map((b) => b.finishChunked());
  }
}

/** Keys in [0, DIRECT_MAX) of an int2/int4 key index a table directly (4 bytes per possible key). */
const DIRECT_MAX = 1 << 20;

/**
 * One int2/int4 GROUP BY key: non-negative keys below DIRECT_MAX map to their group through a flat
 * Int32Array indexed by the key (grown on demand), which is several times faster than a Map lookup;
 * other keys go through a Map, NULL is a group of its own. Group ids stay in first-seen order.
 */
class IntKeyGrouper implements Grouper {
  count = 0;
  /** key -> group id + 1 (0 = no group yet). */
  private direct = new Int32Array(1024);
  private readonly map = new Map<number, number>();
  private nullGid = -1;
  private gids = new Int32Array(0);
  private readonly builder: ColumnBuilder;

  constructor(type: DataType) {
    this.builder = new ColumnBuilder(type);
  }

  assign(batch: Batch, n: number, sel: Uint32Array | null = null): Int32Array {
    const gids = (this.gids = scratch(this.gids, n));
    const c = batch.columns[0]!;
    const d = c.data as Int32Array;
    const nulls = c.nulls;
    let direct = this.direct;
    for (let k = 0; k < n; k++) {
      const i = sel === null ? k : sel[k]!;
      if (nulls !== null && nulls[i] === 1) {
        if (this.nullGid < 0) {
          this.nullGid = this.count++;
          this.builder.push(null);
        }
        gids[k] = this.nullGid;
        continue;
      }
      const key = d[i]!;
      if (key >= 0 && key < DIRECT_MAX) {
        if (key >= direct.length) direct = this.growDirect(key);
        const g = direct[key]!;
        if (g !== 0) {
          gids[k] = g - 1;
          continue;
        }
        const h = this.count++;
        this.builder.push(key);
        direct[key] = h + 1;
        gids[k] = h;
        continue;
      }
      let g = this.map.get(key);
      if (g === undefined) {
        g = this.count++;
        this.map.set(key, g);
        this.builder.push(key);
      }
      gids[k] = g;
    }
    return gids;
  }

  find(batch: Batch, n: number): Int32Array {
    const gids = (this.gids = scratch(this.gids, n));
    const c = batch.columns[0]!;
    const d = c.data as Int32Array;
    const nulls = c.nulls;
    const direct = this.direct;
    for (let k = 0; k < n; k++) {
      if (nulls !== null && nulls[k] === 1) {
        gids[k] = this.nullGid;
        continue;
      }
      const key = d[k]!;
      if (key >= 0 && key < DIRECT_MAX) gids[k] = key < direct.length ? direct[key]! - 1 : -1;
      else gids[k] = this.map.get(key) ?? -1;
    }
    return gids;
  }

  lookupTable(batch: Batch): KeyLookup | null {
    const c = batch.columns[0]!;
    if (!(c.data instanceof Int32Array)) return null;
    return { keys: c.data, table: this.direct, nulls: c.nulls, nullGroup: this.nullGid, nullSlot: false };
  }

  private growDirect(key: number): Int32Array<ArrayBuffer> {
    let cap = this.direct.length;
    while (cap <= key) cap *= 2;
    const nd = new Int32Array(Math.min(cap, DIRECT_MAX));
    nd.set(this.direct);
    this.direct = nd;
    return nd;
  }

  keyColumns(): ChunkedColumn[] {
    return [this.builder.finishChunked()];
  }
}

export function makeGrouper(keyTypes: readonly DataType[]): Grouper {
  if (keyTypes.length === 0) return new SingleGroup();
  if (keyTypes.length === 1 && storageKind(keyTypes[0]!) === 'i32') return new IntKeyGrouper(keyTypes[0]!);
  if (keyTypes.length === 1) return new SingleKeyGrouper(keyTypes[0]!);
  return new MultiKeyGrouper(keyTypes);
}

/** The rows sel[0..n) of a batch's key columns, copied. */
function gatherKeys(batch: Batch, sel: Uint32Array, n: number): Batch {
  return { columns: packedMap(batch.columns, (c) => takeColumn(c, sel, n)), length: n };
}

/** gids with -1 wherever the FILTER column is not true (false or NULL). */
function applyFilter(gids: Int32Array, n: number, filter: Column, out: Int32Array): Int32Array {
  const d = filter.data as Uint8Array;
  const nulls = filter.nulls;
  for (let k = 0; k < n; k++) out[k] = d[k] === 1 && (nulls === null || nulls[k] === 0) ? gids[k]! : -1;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// DISTINCT / ORDER BY aggregates

/**
 * Buffers the rows of one DISTINCT/ORDER BY aggregate. PostgreSQL sorts such inputs by the ORDER BY
 * keys and then (for DISTINCT) by every argument ascending, and drops adjacent duplicates; we sort the
 * same way (stable, so ties keep input order) and deduplicate with per-group hash sets.
 */
export class OrderedInput {
  /** Group of each buffered row, [0, rows): typed, so a million rows are one object the collector skips. */
  private gids = new Int32Array(1024);
  private rows = 0;
  /** Argument columns first, then ORDER BY columns. */
  private builders: ColumnBuilder[] | null = null;
  private readonly cols: number[];
  /** ORDER BY keys, then (for DISTINCT) every argument, over the buffered columns. */
  private readonly sortKeys: SortKey[];
  private readonly nargs: number;
  /** Estimated bytes buffered since the operator last took them (it reserves them from memory_limit). */
  pendingBytes = 0;
  /**
   * One-argument DISTINCT without ORDER BY: rows are dropped as they arrive when their value already
   * occurred in their group, so only distinct values are buffered (null: deduplicated at the flush).
   */
  private readonly seen: GroupValueSet | null;
  private keptGids = new Int32Array(0);
  /** With `seen`: whether the aggregate's result depends on the order values reach it (float sums, lists). */
  private readonly orderMatters: boolean;

  constructor(private readonly spec: HashAggSpec) {
    this.nargs = spec.argCols.length;
    this.seen = spec.distinct && spec.orderBy.length === 0 && this.nargs === 1 ? new GroupValueSet(spec.impl.argTypes[0]!) : null;
    this.orderMatters = !orderInsensitive(spec.impl);
    this.cols = [...spec.argCols, ...spec.orderBy.map((o) => o.col)];
    this.sortKeys = spec.orderBy.map((o, i) => ({ col: this.nargs + i, desc: o.desc, nullsFirst: o.nullsFirst, type: o.type }));
    if (spec.distinct) {
      spec.argCols.forEach((_, i) => {
        this.sortKeys.push({ col: i, desc: false, nullsFirst: false, type: spec.impl.argTypes[i]! });
      });
    }
  }

  /**
   * Whether rows go straight to the accumulator (keep) instead of being buffered: one-argument DISTINCT
   * without ORDER BY whose aggregate gives the same answer in any order (count, exact sums, min, max).
   * Buffering a million distinct values only to feed them unchanged at the end was most of the time of
   * a count(DISTINCT) over a mostly distinct column.
   */
  get direct(): boolean {
    return this.seen !== null && !this.orderMatters;
  }

  /**
   * With `seen`: the group of each row whose value is new to its group, -1 for the others; null when
   * none is. A `direct` aggregate is fed these rows; otherwise add() buffers them.
   */
  keep(batch: Batch, gids: Int32Array, n: number): Int32Array | null {
    const kept = (this.keptGids = scratch(this.keptGids, n));
    const before = this.seen!.bytes;
    if (this.seen!.filter(batch.columns[this.spec.argCols[0]!]!, gids, n, kept) === 0) return null;
    this.pendingBytes += this.seen!.bytes - before;
    return kept;
  }

  add(batch: Batch, gids: Int32Array, n: number): void {
    if (this.seen !== null) {
      const kept = this.keep(batch, gids, n);
      if (kept === null) return;
      gids = kept;
    }
    const bs = (this.builders ??= this.cols.map((c) => new ColumnBuilder(batch.columns[c]!.type)));
    const cols = this.cols.map((c) => batch.columns[c]!);
    if (this.rows + n > this.gids.length) {
      const grown = new Int32Array(Math.max(this.rows + n, this.gids.length * 2));
      grown.set(this.gids.subarray(0, this.rows));
      this.gids = grown;
    }
    const own = this.gids;
    const at = this.rows;
    let added = 0;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0) continue;
      own[at + added] = g;
      for (let i = 0; i < cols.length; i++) bs[i]!.pushFrom(cols[i]!, k);
      added++;
    }
    this.rows = at + added;
    if (added === 0) return;
    let bytes = 0;
    for (const c of cols) bytes += columnBytes(c, n);
    // The flush sorts and deduplicates with per-row arrays and a hash set: about as much again.
    this.pendingBytes += 2 * ((bytes * added) / n + 16 * added);
  }

  /** Sorts, deduplicates and feeds everything to `acc`. */
  async flush(acc: GroupedAccumulator, ctx: ExecContext): Promise<void> {
    const n = this.rows;
    if (n === 0 || this.builders === null) return;
    const columns: Column[] = [];
    // Concatenated with yields: a million buffered values are tens of milliseconds of copying into
    // fresh memory.
    for (const b of this.builders) columns.push((await concatBatchesAsync([b.type], b.finishChunks(), ctx)).columns[0]!);
    const gids = this.gids.subarray(0, n);
    let sel: ArrayLike<number>;
    if (this.seen !== null && !this.orderMatters) {
      // Already distinct, and the aggregate gives the same answer in any order: fed as buffered.
      const all = new Uint32Array(n);
      for (let i = 0; i < n; i++) all[i] = i;
      sel = all;
    } else {
      // Sorted as ORDER BY sorts (group first), so typed and text keys take the radix paths in slices.
      const gidCol = columns.length;
      const batch: Batch = { columns: [...columns, makeColumn(T.int4, gids, null)], length: n };
      const keys: SortKey[] = [{ col: gidCol, type: T.int4, desc: false, nullsFirst: false }, ...this.sortKeys];
      sel = (await sortRunAsync(batch, keys, compileComparator(keys), ctx, false)).order;
    }
    if (this.spec.distinct && this.seen === null) {
      const order = sel;
      const argTypes = this.spec.impl.argTypes;
      const argCols = columns.slice(0, this.nargs);
      const numeric = argTypes.map((t) => storageKind(t) !== 'obj');
      const kept: number[] = [];
      sel = kept;
      let seen = new Set<string>();
      let cur = -1;
      for (let j = 0; j < order.length; j++) {
        const i = order[j]!;
        await yieldEvery(ctx, 4096);
        if (gids[i] !== cur) {
          cur = gids[i]!;
          seen = new Set();
        }
        let key = '';
        for (let a = 0; a < argCols.length; a++) key += encodePart(getValue(argCols[a]!, i), argTypes[a]!, numeric[a]!) + '\u0000';
        if (seen.has(key)) continue;
        seen.add(key);
        kept.push(i);
      }
    }

    const argCols = columns.slice(0, this.nargs);
    for (let start = 0; start < sel.length; start += BATCH_SIZE) {
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
      const m = Math.min(BATCH_SIZE, sel.length - start);
      const idx = new Uint32Array(m);
      const g = new Int32Array(m);
      for (let k = 0; k < m; k++) {
        const i = sel[start + k]!;
        idx[k] = i;
        g[k] = gids[i]!;
      }
      acc.update(
        g,
        m,
        argCols.map((c) => takeColumn(c, idx, m)),
      );
    }
  }
}

/**
 * Aggregates whose result over a set of values does not depend on the order the values arrive in:
 * counting, and exact sums (integer, numeric, interval, money). Float sums round differently in another
 * order, and PostgreSQL feeds DISTINCT inputs sorted; collecting aggregates keep the order.
 */
function orderInsensitive(impl: ResolvedAggregate): boolean {
  const t = impl.argTypes[0]?.name;
  switch (impl.name) {
    case 'count':
      return true;
    case 'min':
    case 'max':
      return (t !== undefined && EXACT_SUM_TYPES.has(t)) || t === 'date' || t === 'text' || t === 'timestamp' || t === 'timestamptz';
    case 'sum':
    case 'avg':
      return t !== undefined && EXACT_SUM_TYPES.has(t);
    default:
      return false;
  }
}

const EXACT_SUM_TYPES = new Set(['int2', 'int4', 'int8', 'numeric', 'interval', 'money']);

// ---------------------------------------------------------------------------------------------------

export interface ConsumeState {
  /** Rows per group of the current batch, for aggregates that only count rows (countsRowsOnly). */
  perGroup: Float64Array<ArrayBuffer>;
  readonly grouper: Grouper;
  readonly accs: GroupedAccumulator[];
  readonly ordered: (OrderedInput | null)[];
  readonly aggs: readonly HashAggSpec[];
  readonly keyCount: number;
  filtered: Int32Array<ArrayBuffer>;
  /** Groups every accumulator has room for. */
  grown: number;
  /** Serves the accumulators' large doublings from arrays prepared between batches. */
  readonly reserve: GrowthReserve;
  /**
   * The one-pass loop over these aggregates (undefined: not looked at yet; null: they cannot use it).
   * Present from the start, so the state keeps one shape while the loops that read it run.
   */
  inline: InlinePlan | null | undefined;
}

interface InlinePlan {
  /** Each aggregate's step code, as the loop was generated for. */
  codes: InlineStep['code'][];
  loop: InlineAggregateLoop | null;
  /** Input columns the loop reads arguments from, and each aggregate's index among them (-1: none). */
  argCols: number[];
  argOf: number[];
  /**
   * For each argument, the first argument with the same data (sum(v) and avg(v) read one column), as
   * the loop was generated for: such arguments share one load per row.
   */
  same: number[];
  rows: Uint32Array<ArrayBuffer>;
  /** The loop counts rows per group in `tally` (inline-aggregate-loop.ts), as it was generated for. */
  tallied: boolean;
  /** Whether the loop reads the key's NULL flags, and which steps skip NULL arguments, as generated for. */
  keyNulls: boolean;
  /** Whether the loop reads the table at key + 1 (KeyLookup.nullSlot), as generated for. */
  nullSlot: boolean;
  skips: boolean[];
  /** Zeros between loop runs, one per group at least. */
  tally: Int32Array<ArrayBuffer>;
}

/** Groups up to which the one-pass loop counts rows in a tally (see inline-aggregate-loop.ts). */
const TALLY_GROUPS = 256;

/** Rows the general path takes after the loop stopped at a row without a group, before the loop resumes. */
const INLINE_RESUME = 256;

/** The plan for these aggregates, or null when some aggregate or the grouper has no inline form. */
function inlinePlan(st: ConsumeState): InlinePlan | null {
  const { grouper, accs, aggs } = st;
  if (st.keyCount !== 1 || grouper.lookupTable === undefined) return null;
  const argCols: number[] = [];
  const argOf: number[] = [];
  for (let i = 0; i < aggs.length; i++) {
    const a = aggs[i]!;
    if (a.filterCol !== null || a.distinct || a.orderBy.length > 0 || a.argCols.length > 1 || accs[i]!.inlineStep === undefined) return null;
    const c = a.argCols[0];
    if (c === undefined) argOf.push(-1);
    else {
      let k = argCols.indexOf(c);
      if (k < 0) k = argCols.push(c) - 1;
      argOf.push(k);
    }
  }
  return { codes: [], loop: null, argCols, argOf, same: [], rows: new Uint32Array(INLINE_RESUME), tallied: false, tally: new Int32Array(64), keyNulls: false, nullSlot: false, skips: [] };
}

/** Every aggregate's step for this batch's arguments, or null when one has none (e.g. a column with NULLs). */
function inlineSteps(st: ConsumeState, batch: Batch): InlineStep[] | null {
  const steps: InlineStep[] = [];
  const { accs, aggs } = st;
  for (let i = 0; i < accs.length; i++) {
    const ac = aggs[i]!.argCols;
    const args: Column[] = ac.length === 0 ? [] : [batch.columns[ac[0]!]!];
    const s = accs[i]!.inlineStep!(args);
    if (s === null) return null;
    steps.push(s);
  }
  return steps;
}

function flatRefs(steps: readonly InlineStep[]): unknown[] {
  const refs: unknown[] = [];
  for (const s of steps) for (const r of s.refs) refs.push(r);
  return refs;
}

/** Stands for the data of an argument no step reads the values of. */
const UNREAD = new Float64Array(0);

/** Whether some step reads the values of argument k. */
function valuesRead(plan: InlinePlan, steps: readonly InlineStep[], k: number): boolean {
  for (let i = 0; i < steps.length; i++) if (plan.argOf[i] === k && steps[i]!.argUnused !== true) return true;
  return false;
}

/** For each argument, the first with the same data and NULL flags (see InlinePlan.same). */
function sameArgs(args: readonly ArrayLike<number>[], nulls: readonly (Uint8Array | null)[]): number[] {
  return packedMap(args, (a, i) => {
    for (let k = 0; k < i; k++) if (args[k] === a && nulls[k] === nulls[i]) return k;
    return i;
  });
}

/** Whether the arguments that share data and NULL flags are those `same` says. */
function sameAsBefore(args: readonly ArrayLike<number>[], nulls: readonly (Uint8Array | null)[], same: readonly number[]): boolean {
  if (same.length !== args.length) return false;
  const now = sameArgs(args, nulls);
  for (let k = 0; k < now.length; k++) if (now[k] !== same[k]) return false;
  return true;
}

function inlineArg(c: Column): ArrayLike<number> {
  return scaledNumbers(c)?.unscaled ?? (c.data as ArrayLike<number>);
}

/**
 * consume() / consumeSel() through one generated loop (inline-aggregate-loop.ts): a one-key grouper with
 * a lookup table and aggregates that all have an inline step for this batch. Rows whose key has no group
 * yet go through the general path, a few hundred at a time, in order. False: nothing was done.
 */
function consumeInline(st: ConsumeState, batch: Batch, sel: Uint32Array | null, n: number): boolean {
  if (st.inline === undefined) st.inline = inlinePlan(st);
  const plan = st.inline;
  if (plan === null) return false;
  const grouper = st.grouper;
  let lk = grouper.lookupTable!(batch);
  if (lk === null) return false;
  let steps = inlineSteps(st, batch);
  if (steps === null) return false;
  // A column only counted (count(x)) is not asked for its data, which a text column held as codes
  // would build its strings for; a scaled numeric column is read as its doubles, its data would build
  // a Numeric per row.
  const args = packedMap(plan.argCols, (c, k) => (valuesRead(plan, steps!, k) ? inlineArg(batch.columns[c]!) : UNREAD));
  const argNulls = packedMap(plan.argCols, (c) => batch.columns[c]!.nulls);
  // A tally is added up over every group each time the loop stops: few groups only. Not decided by
  // the batch's rows, so a row group's short last batch does not switch loops back and forth.
  const tallied = grouper.count <= TALLY_GROUPS && steps.some(talliesRows);
  const nullSlot = lk.nullSlot;
  const keyNulls = lk.nulls !== null && !nullSlot;
  let loop = plan.loop;
  if (
    loop === null ||
    tallied !== plan.tallied ||
    keyNulls !== plan.keyNulls ||
    nullSlot !== plan.nullSlot ||
    steps.some((s, i) => s.code !== plan.codes[i] || (s.skipsNulls === true) !== plan.skips[i]) ||
    !sameAsBefore(args, argNulls, plan.same)
  ) {
    const fresh = steps;
    const same = sameArgs(args, argNulls);
    // A step that skips NULLs reads its argument's flags even when it does not read its values.
    const argOf = packedMap(plan.argOf, (k, i) => (k < 0 || (fresh[i]!.argUnused === true && fresh[i]!.skipsNulls !== true) ? -1 : same[k]!));
    loop = plan.loop = inlineAggregateLoop(fresh, argOf, tallied, keyNulls, nullSlot);
    plan.codes = packedMap(fresh, (s) => s.code);
    plan.skips = packedMap(fresh, (s) => s.skipsNulls === true);
    plan.same = same;
    plan.tallied = tallied;
    plan.keyNulls = keyNulls;
    plan.nullSlot = nullSlot;
  }
  let refs = flatRefs(steps);
  let j = 0;
  for (;;) {
    const groups = grouper.count;
    if (plan.tally.length < groups) plan.tally = new Int32Array(Math.max(groups, 2 * plan.tally.length));
    j = loop(lk.keys, lk.table, sel, j, n, args, refs, plan.tally.subarray(0, groups), lk.nulls, lk.nullGroup, argNulls);
    if (j >= n) return true;
    const m = Math.min(n, j + INLINE_RESUME);
    let rows: Uint32Array;
    if (sel !== null) rows = sel.subarray(j, m);
    else {
      rows = plan.rows;
      for (let k = j; k < m; k++) rows[k - j] = k;
    }
    consumeSelGeneral(st, batch, rows, m - j);
    j = m;
    if (j >= n) return true;
    // The general path may have grown the table and the accumulators' arrays.
    lk = grouper.lookupTable!(batch)!;
    steps = inlineSteps(st, batch)!;
    refs = flatRefs(steps);
  }
}

/**
 * Rows per group of gids[0..n) into st.perGroup (all ids non-negative), when counting per group costs
 * less than a pass over the rows per counting aggregate: few groups next to the batch's rows.
 */
function rowsPerGroup(st: ConsumeState, gids: Int32Array, n: number, groups: number): Float64Array | null {
  if (groups * 4 > n) return null;
  if (st.perGroup.length < groups) st.perGroup = new Float64Array(Math.max(groups, 64));
  const per = st.perGroup;
  per.fill(0, 0, groups);
  for (let k = 0; k < n; k++) per[gids[k]!]++;
  return per;
}

/**
 * One input batch: group ids, then every aggregate. A plain function called per batch, not a loop in the
 * async generator, so V8 optimizes it (and the accumulator calls it makes) like ordinary code.
 */
export function consume(st: ConsumeState, batch: Batch): void {
  const n = batch.length;
  if (st.inline !== null && consumeInline(st, batch, null, n)) return;
  const { grouper, accs, ordered, aggs, keyCount } = st;
  const gids = grouper.assign(keyCount === 0 ? batch : { columns: batch.columns.slice(0, keyCount), length: n }, n);
  const groups = grouper.count;
  const cols = batch.columns;
  // Computed for the first aggregate that only counts rows, then shared; null: not worth it.
  let per: Float64Array | null | undefined;
  for (let i = 0; i < aggs.length; i++) {
    const a = aggs[i]!;
    let g = gids;
    if (a.filterCol !== null) {
      st.filtered = scratch(st.filtered, n);
      g = applyFilter(gids, n, cols[a.filterCol]!, st.filtered);
    }
    const o = ordered[i];
    if (o !== null && o !== undefined && !o.direct) {
      o.add(batch, g, n);
      continue;
    }
    // Grown before a DISTINCT's check: a batch that keeps none of its rows must not leave the
    // accumulator behind the groups st.grown counts.
    if (groups > st.grown) accs[i]!.grow(groups);
    const distinctRows = o !== null && o !== undefined;
    if (distinctRows) {
      const kept = o.keep(batch, g, n);
      if (kept === null) continue;
      g = kept;
    }
    const ac = a.argCols;
    const args: Column[] = new Array(ac.length);
    for (let j = 0; j < ac.length; j++) args[j] = cols[ac[j]!]!;
    const acc = accs[i]!;
    // The rows of a DISTINCT are those `g` keeps: not every row, nor every row's group.
    if (distinctRows) acc.update(g, n, args);
    else if (keyCount === 0 && a.filterCol === null && acc.updateGroup !== undefined) acc.updateGroup(0, n, args);
    else if (keyCount > 0 && a.filterCol === null && acc.countsRowsOnly?.(args) === true && (per ??= rowsPerGroup(st, gids, n, groups)) !== null) acc.addRowCounts!(per, groups);
    else acc.update(g, n, args);
  }
  st.grown = groups;
}

/**
 * consume() for the rows sel[0..n) of a batch that was not copied (a Filter's selection under a Project
 * that only picks columns): keys and arguments are read through the selection. Only for plain
 * aggregates (no FILTER, DISTINCT or ORDER BY); arguments of an accumulator without updateSel are
 * gathered for it alone.
 */
export function consumeSel(st: ConsumeState, batch: Batch, sel: Uint32Array, n: number): void {
  if (st.inline === null || !consumeInline(st, batch, sel, n)) consumeSelGeneral(st, batch, sel, n);
}

function consumeSelGeneral(st: ConsumeState, batch: Batch, sel: Uint32Array, n: number): void {
  const { grouper, accs, aggs, keyCount } = st;
  const gids = grouper.assign(keyCount === 0 ? batch : { columns: batch.columns.slice(0, keyCount), length: batch.length }, n, sel);
  const groups = grouper.count;
  const cols = batch.columns;
  let per: Float64Array | null | undefined;
  for (let i = 0; i < aggs.length; i++) {
    const ac = aggs[i]!.argCols;
    const acc = accs[i]!;
    if (groups > st.grown) acc.grow(groups);
    if (keyCount === 0 && ac.length === 0 && acc.updateGroup !== undefined) {
      acc.updateGroup(0, n, []);
      continue;
    }
    const args: Column[] = new Array(ac.length);
    for (let j = 0; j < ac.length; j++) args[j] = cols[ac[j]!]!;
    // Without GROUP BY the selection folds into the one group; with it, a count of a column without
    // NULLs counts the selected rows per group, whatever the selection.
    if (keyCount === 0 && acc.updateGroupSel !== undefined) acc.updateGroupSel(0, sel, n, args);
    else if (keyCount > 0 && acc.countsRowsOnly?.(args) === true && (per ??= rowsPerGroup(st, gids, n, groups)) !== null) acc.addRowCounts!(per, groups);
    else if (acc.updateSel !== undefined) acc.updateSel(gids, sel, n, args);
    else {
      for (let j = 0; j < ac.length; j++) args[j] = takeColumn(args[j]!, sel, n);
      acc.update(gids, n, args);
    }
  }
  st.grown = groups;
}

/** An aggregate call as PostgreSQL deparses it, over the input columns' texts. */
export function pgAggText(a: HashAggSpec, inputs: readonly string[]): string {
  const col = (c: number): string => inputs[c] ?? `#${c}`;
  let s = a.argCols.length === 0 ? `${a.impl.name}(*)` : `${a.impl.name}(${a.distinct ? 'DISTINCT ' : ''}${a.argCols.map(col).join(', ')}`;
  if (a.argCols.length > 0) {
    if (a.orderBy.length > 0) s += ` ORDER BY ${a.orderBy.map((o) => `${col(o.col)}${o.desc ? ' DESC' : ''}${o.nullsFirst !== o.desc ? (o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ')}`;
    s += ')';
  }
  if (a.filterCol !== null) s += ` FILTER (WHERE ${col(a.filterCol)})`;
  return s;
}

/** EXPLAIN's node for a hash aggregation (also the hybrid one): Aggregate without group keys. */
export function hashAggregateNode(config: HashAggregateConfig, inputs: readonly string[]): ExplainNode {
  const keys = inputs.slice(0, config.keyCount);
  const outputs = [...keys, ...config.aggs.map((a) => pgAggText(a, inputs))];
  if (config.keyCount === 0) return { label: 'Aggregate', details: [], outputs, projects: true };
  return { label: 'HashAggregate', details: [`Group Key: ${[...new Set(keys)].join(', ')}`], outputs, projects: true };
}

function describeAgg(a: HashAggSpec): string {
  const name = a.impl.name;
  if (a.argCols.length === 0 && name === 'count') return a.filterCol === null ? 'count(*)' : `count(*) FILTER (#${a.filterCol})`;
  let s = name + '(' + (a.distinct ? 'DISTINCT ' : '') + a.argCols.map((c) => '#' + c).join(', ');
  if (a.orderBy.length > 0) {
    s += ' ORDER BY ' + a.orderBy.map((o) => `#${o.col}${o.desc ? ' DESC' : ''}${o.nullsFirst !== o.desc ? (o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ');
  }
  s += ')';
  if (a.filterCol !== null) s += ` FILTER (#${a.filterCol})`;
  return s;
}

function defaultSchema(input: PhysicalOperator, config: HashAggregateConfig): Schema {
  const fields: Field[] = [];
  for (let i = 0; i < config.keyCount; i++) {
    const f = input.schema[i];
    fields.push({ name: f?.name ?? `key${i}`, type: config.keyTypes[i]! });
  }
  for (const a of config.aggs) fields.push({ name: a.impl.name, type: a.impl.returnType });
  return fields;
}

/** Per group besides its key: the hash entry, the output row slot and a few bytes of state per aggregate. */
export const GROUP_BYTES = HASH_ENTRY_BYTES + 16;
export const STATE_BYTES = 16;

export class HashAggregate extends PhysicalOperator {
  readonly name = 'HashAggregate';
  /**
   * Whether this operator reserves its groups and buffered inputs from memory_limit; off when a
   * HybridHashAggregate above already reserved the input it replays.
   */
  reservesMemory = true;

  constructor(
    readonly input: PhysicalOperator,
    readonly config: HashAggregateConfig,
    /** Output schema (keys, then aggregates); derived from the input and the aggregates when omitted. */
    schema?: Schema,
  ) {
    super(schema ?? defaultSchema(input, config));
    if (config.keyTypes.length !== config.keyCount) throw new Error('HashAggregate: keyTypes.length !== keyCount');
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    const aggs = this.config.aggs.map(describeAgg).join(', ');
    return `keys: ${this.config.keyCount}` + (aggs.length > 0 ? `, aggs: ${aggs}` : '');
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    return hashAggregateNode(this.config, inputs[0] ?? []);
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const { keyCount, keyTypes, aggs } = this.config;
    const grouper = makeGrouper(keyTypes);
    const accs = packedMap(aggs, (a) => a.impl.grouped());
    const ordered = packedMap(aggs, (a) => (a.distinct || a.orderBy.length > 0 ? new OrderedInput(a) : null));
    const state: ConsumeState = {
      grouper,
      accs,
      ordered,
      aggs,
      keyCount,
      filtered: new Int32Array(0),
      perGroup: new Float64Array(0),
      grown: 0,
      reserve: new GrowthReserve(),
      inline: undefined,
    };
    // Groups, DISTINCT / ORDER BY inputs and states that keep every value (string_agg, array_agg, …)
    // grow with the data: reserved per batch, refused with 53200 (HybridHashAggregate is the spilling form).
    const res = this.reservesMemory ? queryMemory(ctx).pool.register('HashAggregate', false) : null;
    const retaining = packedMap(aggs, (a, i) => ordered[i] === null && a.impl.retainsInput === true);
    const perGroup = GROUP_BYTES + STATE_BYTES * aggs.length;
    try {
      for await (const { batch, sel, n } of aggregateInput(this.input, this.config, ctx)) {
        const due = yieldIfDue(ctx);
        if (due !== undefined) await due;
        if (n === 0) continue;
        const before = grouper.count;
        withGrowthReserve(state.reserve, () => (sel === null ? consume(state, batch) : consumeSel(state, batch, sel, n)));
        state.reserve.prepare(grouper.count, n);
        if (res === null) continue;
        let bytes = 0;
        const added = grouper.count - before;
        if (added > 0 && keyCount > 0) {
          let keyBytes = 0;
          for (let i = 0; i < keyCount; i++) keyBytes += columnBytes(batch.columns[i]!, n);
          bytes += added * perGroup + (keyBytes * added) / n;
        }
        for (let i = 0; i < aggs.length; i++) {
          const o = ordered[i];
          if (o !== null && o !== undefined) {
            bytes += o.pendingBytes;
            o.pendingBytes = 0;
          } else if (retaining[i]) {
            for (const c of aggs[i]!.argCols) bytes += columnBytes(batch.columns[c]!, n);
          }
        }
        res.grow(Math.ceil(bytes), 'hash aggregate groups and states');
      }
      yield* emitGroups(ctx, this.schema, this.config, grouper, accs, ordered);
    } finally {
      res?.free();
    }
  }
}

/**
 * The input as batches with the rows to aggregate. Over a Filter (under a Project that only picks
 * columns) the filter's selection is aggregated in place, when every aggregate is plain: the qualifying
 * rows of every column are never copied. Otherwise whole batches (sel null).
 */
export async function* aggregateInput(input: PhysicalOperator, config: HashAggregateConfig, ctx: ExecContext): AsyncGenerator<SelectedBatch> {
  const plain = config.aggs.every((a) => a.filterCol === null && !a.distinct && a.orderBy.length === 0);
  const picked = input instanceof Project ? input.pickedColumns() : null;
  const filter = picked !== null ? (input as Project).input : input;
  if (!plain || !(filter instanceof Filter) || (input !== filter && picked === null)) {
    for await (const b of input.execute(ctx)) yield { batch: b, sel: null, n: b.length };
    return;
  }
  // The Project is bypassed: its EXPLAIN ANALYZE figures are recorded here.
  const pm = input !== filter && ctx.analyze ? input.metrics : null;
  if (pm !== null) pm.loops++;
  for await (const s of filter.selections(ctx)) {
    const batch = picked === null ? s.batch : { columns: pickColumns(s.batch.columns, picked), length: s.batch.length };
    if (pm !== null) {
      pm.rows += s.n;
      pm.batches++;
    }
    if (s.sel === null) yield { batch, sel: null, n: batch.length };
    else yield { batch, sel: s.sel, n: s.n };
  }
}

export async function* emitGroups(
  ctx: ExecContext,
  schema: Schema,
  config: HashAggregateConfig,
  grouper: Grouper,
  accs: GroupedAccumulator[],
  ordered: readonly (OrderedInput | null)[],
): AsyncGenerator<Batch> {
  const { keyCount, aggs } = config;
  const groups = grouper.count;
  if (groups === 0) return;
  for (let i = 0; i < aggs.length; i++) {
    accs[i]!.grow(groups);
    await ordered[i]?.flush(accs[i]!, ctx);
  }

  const keyCols = grouper.keyColumns();
  const types = packedMap(schema, (f) => f.type);
  for (let start = 0; start < groups; start += BATCH_SIZE) {
    const due = yieldIfDue(ctx);
    if (due !== undefined) await due;
    const end = Math.min(groups, start + BATCH_SIZE);
    const columns: Column[] = [];
    for (let i = 0; i < keyCount; i++) {
      const kc = keyCols[i]!;
      const sliced = kc.slice(start, end);
      columns.push(makeColumn(types[i] ?? kc.type, sliced.data, sliced.nulls));
    }
    for (let i = 0; i < aggs.length; i++) {
      const acc = accs[i]!;
      const b = new ColumnBuilder(aggs[i]!.impl.returnType, end - start);
      // A result can cost as much as its group's input (string_agg joins it, array_agg copies it), so a
      // batch of large groups gets yield points of its own.
      for (let g = start; g < end; g++) {
        b.push(acc.result(g));
        const y = yieldEvery(ctx, 64);
        if (y !== undefined) await y;
      }
      columns.push(b.finish());
    }
    yield { columns, length: end - start };
  }
}

// Long-lived instances keep the shapes the optimized assign loops check, so code optimized by one query
// serves the next (see shape-anchor.ts).
anchorShape(new SingleGroup());
anchorShape(new SingleKeyGrouper(T.text));
anchorShape(new MultiKeyGrouper([T.int4, T.text]));
anchorShape(new IntKeyGrouper(T.int4));
