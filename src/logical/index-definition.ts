/**
 * Secondary indexes as the planner sees them: an index's key columns and partial-index predicate
 * (CREATE INDEX), and the access path the optimizer picks for a scan (choose-index-scan). Storage
 * keeps the definitions; the physical IndexScan builds and reads the sorted entries.
 */
import type { Expr } from './expr.js';

/** One key column of an index, in the order the index keeps its entries. */
export interface IndexColumn {
  /** Column index in the table's schema. */
  readonly col: number;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

export interface IndexDefinition {
  readonly name: string;
  /** The CREATE INDEX statement as written: what a database directory keeps and re-runs on open. */
  readonly sql: string;
  readonly columns: readonly IndexColumn[];
  /** A partial index's WHERE, bound over the table's columns; null for a full index. */
  readonly predicate: Expr | null;
  /** The WHERE as PostgreSQL's EXPLAIN would print it, for catalogs and messages. */
  readonly predicateText: string | null;
}

/** One side of a range on an index column: `col > expr` (exclusive) or `col >= expr` (inclusive). */
export interface IndexBound {
  /** A constant, a parameter or an outer query's column: evaluated once per scan. */
  readonly expr: Expr;
  readonly inclusive: boolean;
}

/** How a scan reads its table through an index (set on a logical scan by choose-index-scan). */
export interface IndexAccess {
  readonly index: IndexDefinition;
  /** Values of the leading key columns, `col = value`; null stands for `col IS NULL`. */
  readonly eq: readonly (Expr | null)[];
  /** Lower and upper bounds (in value order) on key column `eq.length`; the tightest one applies. */
  readonly lower: readonly IndexBound[];
  readonly upper: readonly IndexBound[];
  /** The conjuncts the index enforces, over the table's columns (EXPLAIN's "Index Cond"). */
  readonly cond: readonly Expr[];
  /** Read the entries last to first (an ORDER BY that is the index order reversed). */
  readonly backward: boolean;
  /** A consumer relies on the index order (ORDER BY … LIMIT). */
  readonly ordered: boolean;
  /** enable_indexonlyscan is on: a scan whose columns are all key columns may skip the table's rows. */
  readonly allowIndexOnly: boolean;
  /** enable_indexscan is off: only an index-only scan may be used, else the scan reads the table. */
  readonly onlyIfIndexOnly: boolean;
}
