/**
 * Plans of SELECTs that read files, kept per session by statement text.
 *
 * A query over a file is often asked again unchanged (a dashboard refreshing, a user re-running a
 * cell). Binding and optimizing it again costs about a third of a short query's time once the process
 * is warm (a pruned Parquet aggregate: 0.5 of 1.5 ms), and more in a fresh process, whose binder and
 * optimizer code is still cold. The optimized logical plan is what is kept; physical planning and
 * execution run each time, so per-run state (memory pool, cancel, statement_timeout, the clock of
 * execution-time functions) is always the run's own.
 *
 * Only plans that cannot go stale by anything but what is checked on each use are kept:
 * - the statement names no relation (no table, view, CTE or cursor: no RangeVar), and every read_*
 *   call's path is a plain string without glob characters naming a regular file, whose identity
 *   (device, inode, size, modification and change times) is checked on each use;
 * - binding read neither the statement's clock nor the session's random state or sequences (now(),
 *   'now'::timestamp, random(), nextval(…) make it uncacheable);
 * - no setting was changed since (any SET, RESET or set_config), and the catalog's tables, views,
 *   functions, aggregates, types, sequences and attachments are as they were (a count of changes);
 * - no parameters, no transaction block, an unrestricted session (a file gate resolves paths itself).
 */
import { statSync } from 'node:fs';
import type { SelectStmt } from '@pgsql/types';
import type { EvalContext } from '../functions/eval-context.js';
import { CountedMap, type Catalog } from '../storage/catalog.js';
import { FILE_FUNCTIONS, GLOB_MAGIC } from '../storage/glob-walk.js';

/** Statements kept per session: a working set of repeated queries, not a history. */
const ENTRIES = 32;

interface FileStamp {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/** Set when the plan's binding context is read for the clock or random state after it was kept. */
export interface PlanMark {
  touched: boolean;
}

interface Entry<P> {
  readonly prepared: P;
  readonly mark: PlanMark;
  readonly settings: number;
  readonly catalog: number;
  readonly files: readonly FileStamp[];
}

/** What a cached plan depends on besides its files, read when it is stored and when it is used. */
export interface PlanState {
  /** Session.changes: every SET / RESET / set_config counts. */
  readonly settings: number;
  /** catalogChanges(). */
  readonly catalog: number;
}

export class FilePlanCache<P> {
  private readonly entries = new Map<string, Entry<P>>();

  /** The plan kept for `key`, or null when there is none or it may be stale (then it is dropped). */
  get(key: string, state: PlanState): P | null {
    const e = this.entries.get(key);
    if (e === undefined) return null;
    if (e.mark.touched || e.settings !== state.settings || e.catalog !== state.catalog || !filesUnchanged(e.files)) {
      this.entries.delete(key);
      return null;
    }
    // Most recently used last: the first entry is the one to evict.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.prepared;
  }

  set(key: string, prepared: P, mark: PlanMark, state: PlanState, files: readonly FileStamp[]): void {
    this.entries.delete(key);
    if (this.entries.size >= ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { prepared, mark, settings: state.settings, catalog: state.catalog, files });
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * The sum of the catalog maps' change counts: each only grows, so an equal sum means no map changed.
 * NaN (never equal) when a map does not count its changes.
 */
export function catalogChanges(c: Catalog): number {
  let n = 0;
  for (const m of [c.tables, c.views, c.functions, c.aggregates, c.types, c.sequences, c.attached]) {
    n += m instanceof CountedMap ? m.changes : NaN;
  }
  return n;
}

/**
 * The files a SELECT reads through read_* calls, when its plan may be kept (see the file comment):
 * null when it names a relation, when a read_* call's path is not a plain string or is a glob, or
 * when it reads no file at all.
 */
export function cacheableFiles(stmt: SelectStmt): string[] | null {
  const files: string[] = [];
  let ok = true;
  const visit = (x: unknown): void => {
    if (!ok || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      for (const y of x) visit(y);
      return;
    }
    const o = x as Record<string, unknown>;
    if (o.RangeVar !== undefined) {
      ok = false;
      return;
    }
    const fc = o.FuncCall as { funcname?: { String?: { sval?: string } }[]; args?: unknown[] } | undefined;
    if (fc !== undefined) {
      const name = fc.funcname?.[fc.funcname.length - 1]?.String?.sval?.toLowerCase();
      if (name !== undefined && FILE_FUNCTIONS.has(name)) {
        const first = fc.args?.[0] as { A_Const?: { sval?: { sval?: string } } } | undefined;
        const p = first?.A_Const?.sval?.sval;
        if (p === undefined || GLOB_MAGIC.test(p)) {
          ok = false;
          return;
        }
        files.push(p);
      }
    }
    for (const v of Object.values(o)) visit(v);
  };
  visit(stmt);
  return ok && files.length > 0 ? files : null;
}

/** Each path's identity now, or null when one is not a regular file (or cannot be read). */
export function stampFiles(paths: readonly string[]): FileStamp[] | null {
  const out: FileStamp[] = [];
  for (const path of paths) {
    const s = stamp(path);
    if (s === null) return null;
    out.push(s);
  }
  return out;
}

function stamp(path: string): FileStamp | null {
  try {
    const s = statSync(path);
    if (!s.isFile()) return null;
    return { path, dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
  } catch {
    return null;
  }
}

function filesUnchanged(files: readonly FileStamp[]): boolean {
  for (const f of files) {
    const s = stamp(f.path);
    if (s === null || s.dev !== f.dev || s.ino !== f.ino || s.size !== f.size || s.mtimeMs !== f.mtimeMs || s.ctimeMs !== f.ctimeMs) return false;
  }
  return true;
}

/**
 * `base` for a binder whose plan may be kept: reading the clock, the random state or the sequences
 * calls `touched` (the plan would carry this statement's value of them). A plan node that kept the
 * context and reads it later, while running, marks its plan too, so it is not used again.
 */
export function watchedEvalContext(base: EvalContext, touched: () => void): EvalContext {
  const ctx: EvalContext = {
    timezone: base.timezone,
    get statementTime() {
      touched();
      return base.statementTime;
    },
    get transactionTime() {
      touched();
      return base.transactionTime;
    },
    random: () => {
      touched();
      return base.random();
    },
    setSeed: (seed: number) => {
      touched();
      base.setSeed(seed);
    },
    setting: (name: string) => base.setting(name),
    ...(base.files !== undefined ? { files: base.files } : {}),
  };
  const sequences = base.sequences;
  if (sequences !== undefined) {
    // A getter, not a value: spreading one into the literal above would read it.
    Object.defineProperty(ctx, 'sequences', {
      enumerable: true,
      get: () => {
        touched();
        return sequences;
      },
    });
  }
  return ctx;
}
