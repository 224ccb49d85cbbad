/**
 * The entries of a secondary index over one batch list: the row numbers (positions in the list) of the
 * rows it holds, sorted by the key columns in the order ORDER BY would sort them, and the key columns
 * themselves, copied into one batch, for the binary searches that find a range.
 *
 * Entries are built lazily, the first time a scan reads through the index over a given batch list, and
 * cached for that list. A table's batch list is immutable (every write publishes a new one), so entries
 * built for a list are exact for every statement, cursor or transaction whose snapshot is that list, and
 * a write never has to touch an index: the next scan of the new list builds its own. A one-row write
 * thus costs nothing here and the next indexed read pays one sort; between writes every read reuses it.
 */
import { compareValues } from '../common/compare.js';
import { concatBatches, emptyBatch, getValue, type Batch } from '../common/column.js';
import type { DataType, Schema, Value } from '../common/types.js';
import type { ExecContext } from '../execution/context.js';
import type { IndexDefinition } from '../logical/index-definition.js';
import { compileSimplePredicate } from './compile-expr.js';
import { compileComparator, type SortKey } from './sort-key.js';

export interface IndexEntries {
  /** Row numbers of the rows the index holds (a partial index: those its predicate accepts), in index order. */
  readonly rows: Uint32Array;
  /** The key columns of every row of the list, row number = position in the list. */
  readonly keys: Batch;
  /** First row number of each batch of the list. */
  readonly starts: Int32Array;
}

const built = new WeakMap<readonly Batch[], Map<IndexDefinition, IndexEntries>>();

export function indexEntries(def: IndexDefinition, schema: Schema, batches: readonly Batch[], ctx: ExecContext): IndexEntries {
  let perList = built.get(batches);
  const known = perList?.get(def);
  if (known !== undefined) return known;
  const cols = def.columns.map((c) => c.col);
  const types = cols.map((c) => schema[c]!.type);
  const starts = new Int32Array(batches.length);
  let n = 0;
  for (let i = 0; i < batches.length; i++) {
    starts[i] = n;
    n += batches[i]!.length;
  }
  const keys = batches.length === 0 ? emptyBatch(types) : concatBatches(types, batches.map((b) => ({ columns: cols.map((c) => b.columns[c]!), length: b.length })));
  let rows: Uint32Array;
  if (def.predicate === null) {
    rows = new Uint32Array(n);
    for (let i = 0; i < n; i++) rows[i] = i;
  } else {
    const keep = compileSimplePredicate(def.predicate);
    const picked: number[] = [];
    for (let i = 0; i < batches.length; i++) {
      const { sel, n: m } = keep(batches[i]!, ctx);
      const base = starts[i]!;
      for (let k = 0; k < m; k++) picked.push(base + sel[k]!);
    }
    rows = Uint32Array.from(picked);
  }
  const sortKeys: SortKey[] = def.columns.map((c, j) => ({ col: j, type: types[j]!, desc: c.desc, nullsFirst: c.nullsFirst }));
  const cmp = compileComparator(sortKeys);
  rows = cmp.sort(rows, cmp.view(keys));
  const entries: IndexEntries = { rows, keys, starts };
  if (perList === undefined) {
    perList = new Map();
    built.set(batches, perList);
  }
  perList.set(def, entries);
  return entries;
}

/** A key prefix to search for: per leading key column a value, or NULL (`IS NULL`, or the edge of the non-NULL entries). */
export interface KeyPrefix {
  readonly values: readonly Value[];
}

/** Row `r`'s key against `prefix` over the prefix's columns, in index order (DESC and NULLS FIRST/LAST applied). */
function compareRow(e: IndexEntries, def: IndexDefinition, types: readonly DataType[], r: number, prefix: KeyPrefix): number {
  const vs = prefix.values;
  for (let j = 0; j < vs.length; j++) {
    const c = e.keys.columns[j]!;
    const v = vs[j]!;
    const rowNull = c.nulls !== null && c.nulls[r] === 1;
    const k = def.columns[j]!;
    let d: number;
    if (rowNull || v === null) {
      if (rowNull && v === null) continue;
      // NULLs sit at the start of the index order (NULLS FIRST) or at its end.
      const nullSide = k.nullsFirst ? -1 : 1;
      d = rowNull ? nullSide : -nullSide;
    } else {
      d = compareValues(getValue(c, r), v, types[j]!);
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
export function searchEntries(e: IndexEntries, def: IndexDefinition, types: readonly DataType[], prefix: KeyPrefix, after: boolean): number {
  let lo = 0;
  let hi = e.rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const d = compareRow(e, def, types, e.rows[mid]!, prefix);
    if (d < 0 || (after && d === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
