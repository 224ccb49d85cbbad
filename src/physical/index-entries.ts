/**
 * The entries of a secondary index over one batch list: the row numbers (positions in the list) of the
 * rows it holds, sorted by the key columns in the order ORDER BY would sort them, and the key columns
 * themselves, copied into one batch, for the binary searches that find a range.
 *
 * Entries are built lazily, the first time a scan reads through the index over a given batch list, and
 * cached for that list. A table's batch list is immutable (every write publishes a new one), so entries
 * built for a list are exact for every statement, cursor or transaction whose snapshot is that list, and
 * a write never has to touch an index: the next scan of the new list gets its own. When the new list
 * only appends rows to the one the index was last built for (INSERT, COPY), those entries are extended:
 * the new rows are sorted and merged in, a copy rather than a sort of the table. Other rewrites
 * UPDATE and DELETE keep the table's other batches, rebuild those that lost rows (without them, in
 * order) and append the new row versions: the entries are then renumbered through that, and the new
 * versions merged in as appended rows are. Any other rewrite builds the entries again, once, on the
 * next indexed read.
 */
import { compareValues } from '../common/compare.js';
import { rowsLeftOut } from '../common/rebuilt-batch.js';
import { ColumnBuilder, concatBatches, emptyBatch, getValue, sliceBatch, type Batch } from '../common/column.js';
import type { DataType, Schema, Value } from '../common/types.js';
import type { ExecContext } from '../execution/context.js';
import type { IndexDefinition } from '../logical/index-definition.js';
import { compileSimplePredicate } from './compile-expr.js';
import { compileComparator, type SortKey } from './sort-key.js';

export interface IndexEntries {
  /** Row numbers of the rows the index holds (a partial index: those its predicate accepts), in index order. */
  readonly rows: Uint32Array;
  /** The batch list the row numbers count through (keys are read from it: the index keeps no copy). */
  readonly batches: readonly Batch[];
  /** First row number of each batch of the list. */
  readonly starts: Int32Array;
}

/** The batch of row number `r`. */
export function batchOf(e: IndexEntries, r: number): number {
  const starts = e.starts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= r) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Rows `sel[0..n)` (row numbers) of the list, columns `cols` of the table. */
export function gatherRows(e: IndexEntries, cols: readonly number[], types: readonly DataType[], sel: Uint32Array, n: number): Batch {
  const at = new Int32Array(n);
  for (let i = 0; i < n; i++) at[i] = batchOf(e, sel[i]!);
  const columns = cols.map((c, ci) => {
    const b = new ColumnBuilder(types[ci]!, n);
    for (let i = 0; i < n; i++) {
      const bi = at[i]!;
      b.pushFrom(e.batches[bi]!.columns[c]!, sel[i]! - e.starts[bi]!);
    }
    return b.finish();
  });
  return { columns, length: n };
}

const built = new WeakMap<readonly Batch[], Map<IndexDefinition, IndexEntries>>();
/** Per index, the list it was last built for: a list that only grew from it (appends) extends those entries. */
const latest = new WeakMap<IndexDefinition, { batches: readonly Batch[]; entries: IndexEntries }>();

/** Whether `b` holds `a`'s rows first (the same batch, or the table's open batch extended by later commits). */
export type ExtendsBatch = (later: Batch, earlier: Batch) => boolean;

export function indexEntries(def: IndexDefinition, schema: Schema, batches: readonly Batch[], ctx: ExecContext, extendsBatch?: ExtendsBatch): IndexEntries {
  let perList = built.get(batches);
  const known = perList?.get(def);
  if (known !== undefined) return known;
  const prior = latest.get(def);
  const entries =
    (prior !== undefined && extendsBatch !== undefined ? appended(def, schema, prior.batches, prior.entries, batches, ctx, extendsBatch) : null) ??
    (prior !== undefined ? rewritten(def, schema, prior.batches, prior.entries, batches, ctx, extendsBatch) : null) ??
    build(def, schema, batches, ctx);
  if (perList === undefined) {
    perList = new Map();
    built.set(batches, perList);
  }
  perList.set(def, entries);
  latest.set(def, { batches, entries });
  return entries;
}

function keyColumns(def: IndexDefinition, batches: readonly Batch[]): Batch[] {
  return batches.map((b) => ({ columns: def.columns.map((c) => b.columns[c.col]!), length: b.length }));
}

function sortKeys(def: IndexDefinition, schema: Schema): SortKey[] {
  return def.columns.map((c, j) => ({ col: j, type: schema[c.col]!.type, desc: c.desc, nullsFirst: c.nullsFirst }));
}

function startsOf(batches: readonly Batch[]): { starts: Int32Array; n: number } {
  const starts = new Int32Array(batches.length);
  let n = 0;
  for (let i = 0; i < batches.length; i++) {
    starts[i] = n;
    n += batches[i]!.length;
  }
  return { starts, n };
}

/** Row numbers (from `base`) of the rows of `batches` a partial index holds; all of them for a full index. */
function heldRows(def: IndexDefinition, batches: readonly Batch[], base: number, ctx: ExecContext): Uint32Array {
  if (def.predicate === null) {
    const total = batches.reduce((m, b) => m + b.length, 0);
    const rows = new Uint32Array(total);
    for (let i = 0; i < total; i++) rows[i] = base + i;
    return rows;
  }
  const keep = compileSimplePredicate(def.predicate);
  const picked: number[] = [];
  let at = base;
  for (const b of batches) {
    const { sel, n: m } = keep(b, ctx);
    for (let k = 0; k < m; k++) picked.push(at + sel[k]!);
    at += b.length;
  }
  return Uint32Array.from(picked);
}

function build(def: IndexDefinition, schema: Schema, batches: readonly Batch[], ctx: ExecContext): IndexEntries {
  const types = def.columns.map((c) => schema[c.col]!.type);
  const { starts } = startsOf(batches);
  // The key columns in one batch only while sorting: searches read the table's own batches.
  const keys = batches.length === 0 ? emptyBatch(types) : concatBatches(types, keyColumns(def, batches));
  const cmp = compileComparator(sortKeys(def, schema));
  const rows = cmp.sort(heldRows(def, batches, 0, ctx), cmp.view(keys));
  return { rows, batches, starts };
}

/**
 * The entries of `batches` from those of `old`, when `batches` is `old` with rows appended (new batches,
 * or the last one extended by small commits): only the new rows are sorted, then merged in, so a write
 * followed by an indexed read costs a copy of the entries, not a sort of the table. Null otherwise.
 */
function appended(def: IndexDefinition, schema: Schema, old: readonly Batch[], e: IndexEntries, batches: readonly Batch[], ctx: ExecContext, extendsBatch: ExtendsBatch): IndexEntries | null {
  if (old.length === 0 || batches.length < old.length) return null;
  const last = old.length - 1;
  for (let i = 0; i < last; i++) if (batches[i] !== old[i]) return null;
  if (batches[last] !== old[last] && !extendsBatch(batches[last]!, old[last]!)) return null;
  const oldRows = e.starts.length === 0 ? 0 : e.starts[e.starts.length - 1]! + old[last]!.length;
  const tail = batches[last]!.length > old[last]!.length ? [sliceBatch(batches[last]!, old[last]!.length, batches[last]!.length)] : [];
  const added = [...tail, ...batches.slice(old.length)];
  const types = def.columns.map((c) => schema[c.col]!.type);
  // Only the new rows are sorted (their keys copied into one batch for it), by row number from oldRows.
  const keys = concatBatches(types, keyColumns(def, added));
  const cmp = compileComparator(sortKeys(def, schema));
  const fresh = cmp.sort(heldRows(def, added, 0, ctx), cmp.view(keys));
  const { starts } = startsOf(batches);
  const next: IndexEntries = { rows: e.rows, batches, starts };
  if (fresh.length === 0) return next;
  // Each new row goes after the old entries equal to it (ties stay in row order, as a full build leaves them).
  const rows = new Uint32Array(e.rows.length + fresh.length);
  let from = 0;
  let out = 0;
  for (let j = 0; j < fresh.length; j++) {
    const local = fresh[j]!;
    const values = keys.columns.map((c) => getValue(c, local));
    const to = searchEntries(e, def, types, { values }, true, from);
    rows.set(e.rows.subarray(from, to), out);
    out += to - from;
    from = to;
    rows[out++] = oldRows + local;
  }
  rows.set(e.rows.subarray(from), out);
  return { rows, batches, starts };
}

/**
 * The entries of `batches` from those of `old`, when `batches` is what UPDATE or DELETE leaves of
 * `old` (rebuilt-batch.ts): each batch of `old` kept as it is, rebuilt without some rows, or gone, in
 * order, then new batches (the new row versions). The kept rows keep their keys and their order, so
 * their entries stay in index order under the new row numbers (a pass over the entries instead of a
 * sort of the table: 392 ms for a one-row UPDATE of a million-row table before); the new batches are
 * merged in as appended rows. Null when `batches` is not such a list.
 */
function rewritten(def: IndexDefinition, schema: Schema, old: readonly Batch[], e: IndexEntries, batches: readonly Batch[], ctx: ExecContext, extendsBatch?: ExtendsBatch): IndexEntries | null {
  if (old.length === 0 || old === batches) return null;
  const inNew = new Set(batches);
  let oldRows = 0;
  for (const b of old) oldRows += b.length;
  // Per row of `old`, its row number in `batches` (-1: deleted or moved to a new version).
  const to = new Int32Array(oldRows);
  let j = 0;
  let at = 0;
  let from = 0;
  for (const b of old) {
    const next = j < batches.length ? batches[j]! : null;
    if (next === b) {
      for (let i = 0; i < b.length; i++) to[from + i] = at + i;
      at += b.length;
      j++;
    } else {
      const removed = next === null ? null : rowsLeftOut(next, b);
      if (removed !== null) {
        let r = 0;
        let k = 0;
        for (let i = 0; i < b.length; i++) {
          if (r < removed.length && removed[r] === i) {
            to[from + i] = -1;
            r++;
          } else to[from + i] = at + k++;
        }
        if (k !== next!.length) return null;
        at += k;
        j++;
      } else {
        // Gone whole, unless it is somewhere else in the list: then this is not a rewrite of `old`.
        if (inNew.has(b)) return null;
        to.fill(-1, from, from + b.length);
      }
    }
    from += b.length;
  }
  const kept = batches.slice(0, j);
  const oldSet = new Set(old);
  for (let k = j; k < batches.length; k++) if (oldSet.has(batches[k]!)) return null;
  const rows = new Uint32Array(e.rows.length);
  let n = 0;
  for (let k = 0; k < e.rows.length; k++) {
    const r = to[e.rows[k]!]!;
    if (r >= 0) rows[n++] = r;
  }
  const { starts } = startsOf(kept);
  const carried: IndexEntries = { rows: n === rows.length ? rows : rows.slice(0, n), batches: kept, starts };
  if (j === batches.length) return { ...carried, batches };
  return kept.length === 0 ? null : appended(def, schema, kept, carried, batches, ctx, extendsBatch ?? ((a, b) => a === b));
}

/** A key prefix to search for: per leading key column a value, or NULL (`IS NULL`, or the edge of the non-NULL entries). */
export interface KeyPrefix {
  readonly values: readonly Value[];
}

/** Row `r`'s key against `prefix` over the prefix's columns, in index order (DESC and NULLS FIRST/LAST applied). */
function compareRow(e: IndexEntries, def: IndexDefinition, types: readonly DataType[], r: number, prefix: KeyPrefix): number {
  const vs = prefix.values;
  const bi = batchOf(e, r);
  const batch = e.batches[bi]!;
  const i = r - e.starts[bi]!;
  for (let j = 0; j < vs.length; j++) {
    const k = def.columns[j]!;
    const c = batch.columns[k.col]!;
    const v = vs[j]!;
    const rowNull = c.nulls !== null && c.nulls[i] === 1;
    let d: number;
    if (rowNull || v === null) {
      if (rowNull && v === null) continue;
      // NULLs sit at the start of the index order (NULLS FIRST) or at its end.
      const nullSide = k.nullsFirst ? -1 : 1;
      d = rowNull ? nullSide : -nullSide;
    } else {
      d = compareValues(getValue(c, i), v, types[j]!);
      if (k.desc) d = -d;
    }
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The first entry not before `prefix` (`after`: the first entry after every entry equal to it), by
 * binary search over the entries in index order.
 */
export function searchEntries(e: IndexEntries, def: IndexDefinition, types: readonly DataType[], prefix: KeyPrefix, after: boolean, from = 0): number {
  let lo = from;
  let hi = e.rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const d = compareRow(e, def, types, e.rows[mid]!, prefix);
    if (d < 0 || (after && d === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
