/**
 * Reads a stored table's rows through a secondary index: the entries whose keys fall in the range the
 * scan's conditions give (equal values on leading key columns, then bounds on the next one), in index
 * order, forwards or backwards. The entries hold row numbers only, and rows are gathered from the
 * table's in-memory batches; an index-only scan (every output column a key column, PostgreSQL's
 * Index Only Scan) gathers only key columns.
 *
 * Bounds are evaluated when the scan starts (parameters, outer rows of a correlated subquery); a NULL
 * bound matches nothing, as the comparison it stands for is never true. Rows come out in growing
 * batches, so a Limit above that needs a few rows stops the scan after gathering a few.
 */
import { BATCH_SIZE, makeColumn, type Batch } from '../../common/column.js';
import { compareValues } from '../../common/compare.js';
import { T, type DataType, type Schema, type Value } from '../../common/types.js';
import { checkCancel, yieldIfDue, type ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import type { IndexAccess, IndexBound } from '../../logical/index-definition.js';
import { evalConstant } from '../compile-expr.js';
import { explainExpr } from '../explain-expr.js';
import { gatherRows, indexEntries, searchEntries, type IndexEntries } from '../index-entries.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { pgColumnName, pgExpr } from '../explain-pg-expr.js';
import type { SortKey } from '../sort-key.js';

/** A stored table as the scan reads it. */
export interface IndexedSource {
  readonly name: string;
  readonly schema: Schema;
  snapshot?(): readonly Batch[];
  /**
   * The stored rows an index reads, when the source's own rows carry more columns (FOR UPDATE's row
   * targets); else snapshot() is.
   */
  indexedRows?(): readonly Batch[];
  /** Whether `later` holds `earlier`'s rows first: lets an index built for an older list be extended. */
  batchExtends?(later: Batch, earlier: Batch): boolean;
  /** A column past the stored ones that holds each row's position in the list (FOR UPDATE's row targets). */
  readonly rowIdColumn?: number;
  readonly explainName?: string;
}

/** Rows in the first batch: enough for a point lookup or a small LIMIT, without gathering 4,096 rows. */
const FIRST_BATCH = 64;

export class IndexScan extends PhysicalOperator {
  readonly name = 'IndexScan';
  /** The table's rows as of planning, as TableScan pins them (a cursor must not see later rows). */
  private readonly pinned: readonly Batch[];
  private readonly keyTypes: readonly DataType[];
  constructor(
    schema: Schema,
    readonly source: IndexedSource,
    readonly access: IndexAccess,
    /** Source column indexes to output, null = all. */
    readonly projection: number[] | null,
    /** Every output column is a key column: rows are taken from the index alone. */
    readonly indexOnly: boolean,
    /** Stop after this many rows (a LIMIT above); null = all. */
    readonly fetch: number | null = null,
    /** The name the query gave the table (FROM t AS u), for EXPLAIN. */
    readonly alias: string | null = null,
  ) {
    super(schema);
    this.pinned = source.indexedRows?.() ?? source.snapshot!();
    this.keyTypes = access.index.columns.map((c) => source.schema[c.col]!.type);
  }

  children(): readonly PhysicalOperator[] {
    return [];
  }

  private condText(): string | null {
    const c = this.access.cond;
    if (c.length === 0) return null;
    const e: Expr = c.length === 1 ? c[0]! : { kind: 'and', args: [...c], type: c[0]!.type };
    const text = explainExpr(e, this.source.schema);
    return text.startsWith('(') ? text : `(${text})`;
  }

  describe(): string {
    const cond = this.condText();
    return `index: ${this.access.index.name}${cond !== null ? `, cond: ${cond}` : ''}${this.access.backward ? ', backward' : ''}${this.indexOnly ? ', index only' : ''}`;
  }

  override explainNode(_inputs: ExplainInputs, how: ExplainHow): ExplainNode {
    const kind = this.indexOnly ? 'Index Only Scan' : 'Index Scan';
    const name = this.source.explainName ?? this.source.name;
    const table = this.alias ?? name;
    const cols = this.source.schema.map((f) => (how.qualify ? `${table}.${f.name}` : f.name));
    const c = this.access.cond;
    const cond = c.length === 0 ? null : c.length === 1 ? pgExpr(c[0]!, cols) : `(${c.map((e) => pgExpr(e, cols)).join(' AND ')})`;
    return {
      label: `${kind}${this.access.backward ? ' Backward' : ''} using ${this.access.index.name} on ${how.verbose ? `public.${name}` : name}${table !== name ? ` ${table}` : ''}`,
      details: cond !== null ? [`Index Cond: ${cond.startsWith('(') ? cond : `(${cond})`}`] : [],
      outputs: this.schema.map((f) => (how.qualify ? `${table}.${pgColumnName(f.name)}` : pgColumnName(f.name))),
      projects: true,
    };
  }

  override outputOrdering(): readonly SortKey[] {
    const out: SortKey[] = [];
    const back = this.access.backward;
    for (let j = 0; j < this.access.index.columns.length; j++) {
      const k = this.access.index.columns[j]!;
      const col = this.projection === null ? k.col : this.projection.indexOf(k.col);
      if (col < 0) break;
      out.push({ col, type: this.keyTypes[j]!, desc: k.desc !== back, nullsFirst: k.nullsFirst !== back });
    }
    return out;
  }

  /** The entries' range [from, to) the conditions select, or null when a bound is NULL (no row matches). */
  private range(e: IndexEntries, ctx: ExecContext): [number, number] | null {
    const a = this.access;
    const prefix: Value[] = [];
    for (const x of a.eq) {
      if (x === null) {
        prefix.push(null);
        continue;
      }
      const v = evalConstant(x, ctx);
      if (v === null) return null;
      prefix.push(v);
    }
    const k = a.eq.length;
    if (a.lower.length === 0 && a.upper.length === 0) {
      return [searchEntries(e, a.index, this.keyTypes, { values: prefix }, false), searchEntries(e, a.index, this.keyTypes, { values: prefix }, true)];
    }
    const t = this.keyTypes[k]!;
    const lower = tightest(a.lower, t, ctx, 1);
    const upper = tightest(a.upper, t, ctx, -1);
    if (lower === null || upper === null) return null;
    const col = a.index.columns[k]!;
    // In index order a DESC column's upper value bound comes first.
    let first = col.desc ? upper : lower;
    let last = col.desc ? lower : upper;
    // An open side of the range must still stop before the column's NULLs, which `col < x` never matches.
    if (first === undefined && col.nullsFirst) first = { value: null, inclusive: false };
    if (last === undefined && !col.nullsFirst) last = { value: null, inclusive: false };
    const from = first === undefined ? searchEntries(e, a.index, this.keyTypes, { values: prefix }, false) : searchEntries(e, a.index, this.keyTypes, { values: [...prefix, first.value] }, !first.inclusive);
    const to = last === undefined ? searchEntries(e, a.index, this.keyTypes, { values: prefix }, true) : searchEntries(e, a.index, this.keyTypes, { values: [...prefix, last.value] }, last.inclusive);
    return [from, Math.max(from, to)];
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    if (this.fetch === 0) return;
    const e = indexEntries(this.access.index, this.source.schema, this.pinned, ctx, this.source.batchExtends?.bind(this.source));
    const r = this.range(e, ctx);
    if (r === null) return;
    let [from, to] = r;
    if (this.fetch !== null && to - from > this.fetch) {
      if (this.access.backward) from = to - this.fetch;
      else to = from + this.fetch;
    }
    const cols = this.projection ?? this.source.schema.map((_, i) => i);
    const types = cols.map((c) => this.source.schema[c]!.type);
    const back = this.access.backward;
    // Row positions are the entries' row numbers: the one column not read from the batches.
    const rowId = this.source.rowIdColumn === undefined ? -1 : cols.indexOf(this.source.rowIdColumn);
    const stored = rowId < 0 ? cols : cols.filter((_, i) => i !== rowId);
    const storedTypes = rowId < 0 ? types : types.filter((_, i) => i !== rowId);
    let size = FIRST_BATCH;
    const sel = new Uint32Array(BATCH_SIZE);
    for (let done = 0; done < to - from; ) {
      checkCancel(ctx);
      await yieldIfDue(ctx);
      const n = Math.min(size, to - from - done);
      for (let i = 0; i < n; i++) sel[i] = e.rows[back ? to - 1 - done - i : from + done + i]!;
      yield rowId < 0 ? gatherRows(e, cols, types, sel, n) : withRowIds(gatherRows(e, stored, storedTypes, sel, n), rowId, sel, n);
      done += n;
      size = Math.min(BATCH_SIZE, size * 4);
    }
  }
}

/** The tightest of several bounds on one side (`dir` 1: the largest lower bound, -1: the smallest upper); null when one is NULL. */
function tightest(bounds: readonly IndexBound[], t: DataType, ctx: ExecContext, dir: 1 | -1): { value: Value; inclusive: boolean } | undefined | null {
  let best: { value: Value; inclusive: boolean } | undefined;
  for (const b of bounds) {
    const v = evalConstant(b.expr, ctx);
    if (v === null) return null;
    if (best === undefined) {
      best = { value: v, inclusive: b.inclusive };
      continue;
    }
    const d = compareValues(v, best.value, t) * dir;
    if (d > 0 || (d === 0 && !b.inclusive)) best = { value: v, inclusive: b.inclusive };
  }
  return best;
}

/** `b` with the row numbers `sel[0..n)` inserted as column `at`. */
function withRowIds(b: Batch, at: number, sel: Uint32Array, n: number): Batch {
  const ids = new Int32Array(n);
  for (let i = 0; i < n; i++) ids[i] = sel[i]!;
  const columns = [...b.columns];
  columns.splice(at, 0, makeColumn(T.int4, ids, null));
  return { columns, length: n };
}
