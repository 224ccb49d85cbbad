import type { Dataset } from './data.js';

/** Engines the runner knows; 'floor' is the hand-written JS lower bound over the typed arrays. */
export const ALL_ENGINES = ['quire', 'duckdb', 'sqlite', 'pglite', 'alasql', 'floor'] as const;
export type EngineName = (typeof ALL_ENGINES)[number];
export type SqlEngineName = Exclude<EngineName, 'floor'>;

export interface CaseParams {
  /** Row count of t, so cases can scale (e.g. OFFSET rows/2 stays inside the table). */
  rows: number;
}

/**
 * How results are checked across engines:
 *  - 'ordered':   every row, in order (the query has a total ORDER BY)
 *  - 'unordered': every row, as a multiset (GROUP BY without ORDER BY, or ties)
 *  - 'count':     row count only (which rows come back is not defined, e.g. LIMIT without ORDER BY)
 */
export type CheckMode = 'ordered' | 'unordered' | 'count';

export interface BenchCase {
  /** Unique, used by --case (substring match) and as the key in results.json. */
  name: string;
  /** One line: what this case stresses. */
  description: string;
  /** The SQL every engine runs unless `dialect` overrides it for that engine. */
  sql(p: CaseParams): string;
  /** Per-engine rewrites for dialect gaps; say why in `notes`, since each one is a fairness caveat. */
  dialect?: Partial<Record<SqlEngineName, (p: CaseParams) => string>>;
  notes?: string;
  /**
   * Per engine, SQL run once after the case's runs (untimed) to undo a session setting the case made, so
   * it does not carry into the cases after it in the same child.
   */
  after?: Partial<Record<SqlEngineName, string>>;
  check: CheckMode;
  /**
   * Hand-written JS over the typed arrays: the speed a specialised program could reach, with no SQL
   * machinery at all. Must return rows in canonical form (see canonical.ts) so it is checked like an engine.
   */
  floor?(d: Dataset, p: CaseParams): unknown[][];
}

/** What every engine adapter provides. Queries must return fully materialised JS rows: that is part of the cost. */
export interface EngineAdapter {
  readonly name: SqlEngineName;
  /** Version string for results.json. */
  readonly version: string;
  load(d: Dataset): Promise<void>;
  /** Runs sql, returns its rows as arrays. Canonicalisation happens outside the timed region. */
  query(sql: string): Promise<unknown[][]> | unknown[][];
  /** Map one raw result (as returned by query) to canonical values; default is canonicalValue per cell. */
  canonicalize?(rows: unknown[][]): unknown[][];
  close(): Promise<void> | void;
}

/** Parent -> child messages. */
export type ToChild =
  | { type: 'init'; engine: EngineName; dataDir: string; params: CaseParams }
  | { type: 'case'; name: string; runs: number; budgetMs: number }
  | { type: 'exit' };

/** Child -> parent messages. */
export type FromChild =
  | { type: 'loaded'; version: string; loadMs: number; rssAfterLoadMB: number }
  | { type: 'load-error'; error: string }
  | { type: 'run-start'; name: string; run: number }
  | {
      type: 'case-done';
      name: string;
      timingsMs: number[];
      warmupMs: number;
      /** Timed runs skipped because the per-case budget ran out. */
      skippedRuns: number;
      rowCount: number;
      /** Canonical rows (capped to keep IPC small), for the cross-engine check. */
      rows: unknown[][];
      truncated: boolean;
      sql: string;
    }
  | { type: 'case-error'; name: string; error: string; sql: string }
  | { type: 'bye'; peakRssMB: number };
