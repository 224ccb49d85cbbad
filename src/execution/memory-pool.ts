/**
 * Memory accounting for blocking operators (sort, aggregate, window partitions, join build sides).
 *
 * A MemoryPool has a byte limit; operators hold MemoryReservations and ask to grow them before they
 * buffer more data. The pool is greedy (first come, first served, as DataFusion's GreedyMemoryPool):
 * a reservation that cannot grow is the signal for a spilling operator to write what it holds to temp
 * files and start again from an empty reservation; an operator that cannot spill raises 53200.
 *
 * Sizes are estimates of what the buffered batches keep alive (typed arrays exactly, strings and other
 * boxed values by length plus a fixed overhead), not measurements of the V8 heap: the limit is a budget
 * the engine keeps below the heap limit so that large inputs end in a spill, not in a V8 heap crash.
 *
 * Settings (SET, `Database.create({ settings })`, `quire --set`): `memory_limit` ('256MB'; '0', '-1' or
 * 'unlimited' = no limit; default: half the V8 heap limit), `temp_directory` (default: the OS temp
 * directory), `max_temp_directory_size` (default unlimited), `quire.spill_compression` ('on'/'off').
 * One pool per statement: it is created from the settings the first time an operator of the statement
 * asks for memory (keyed by the statement's EvalContext, which every derived ExecContext shares).
 */
import { tmpdir } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { QuireError } from '../common/errors.js';
import { anchorShape } from '../common/shape-anchor.js';
import type { Value } from '../common/types.js';
import { numericsPending, scaledNumbers, type Batch, type Column } from '../common/column.js';
import type { ExecContext } from './context.js';

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * Parses a size setting: '256MB', '1.5GB', '512kB', '1024' (a bare number is kilobytes, as in
 * PostgreSQL's memory settings). Returns Infinity for no limit ('0', '-1', 'unlimited', 'none', ''),
 * null when the text is not a size.
 */
export function parseByteSize(text: string): number | null {
  const s = text.trim().toLowerCase().replace(/^'|'$/g, '');
  if (s === '' || s === 'unlimited' || s === 'none' || s === '-1' || s === '0') return Infinity;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(s);
  if (m === null) return null;
  const unit = m[2] === '' ? 1024 : UNITS[m[2]!];
  if (unit === undefined) return null;
  const n = Math.floor(Number(m[1]) * unit);
  return n <= 0 ? Infinity : n;
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return 'unlimited';
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3}GB`;
  if (n >= 1024 ** 2) return `${Math.round((n / 1024 ** 2) * 10) / 10}MB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10}kB`;
  return `${n}B`;
}

/** Default memory_limit: half the V8 heap limit, so an estimate that is off by 2x still fits the heap. */
export function defaultMemoryLimit(): string {
  const heap = getHeapStatistics().heap_size_limit;
  return `${Math.max(64, Math.floor(heap / 2 / 1024 ** 2))}MB`;
}

/** `quire serve`'s default memory_limit: a quarter of the V8 heap limit, between 64MB and 1GB. */
export function serverMemoryLimit(): string {
  const heap = getHeapStatistics().heap_size_limit;
  return `${Math.min(1024, Math.max(64, Math.floor(heap / 4 / 1024 ** 2)))}MB`;
}

export class MemoryPool {
  /** The bytes reserved, in a cell of its own so a finalizer can read it after the pool is gone. */
  readonly ledger = { used: 0 };
  private peakUsed = 0;
  /** Which budget refused the last tryGrow: this pool's, or its parent's (the process budget). */
  refusedBy: 'statement' | 'process' = 'statement';

  /**
   * `parent`: a budget every reservation also draws from (the process budget), so that statements
   * that each stay under their own limit cannot together outgrow the heap.
   */
  constructor(
    readonly limit: number,
    readonly parent: MemoryPool | null = null,
  ) {}

  get reserved(): number {
    return this.ledger.used;
  }

  /** Highest total reservation so far (EXPLAIN ANALYZE, tests). */
  get peak(): number {
    return this.peakUsed;
  }

  get available(): number {
    return Math.max(0, this.limit - this.ledger.used);
  }

  register(consumer: string, canSpill: boolean): MemoryReservation {
    return new MemoryReservation(this, consumer, canSpill);
  }

  /** @internal used by reservations */
  tryGrow(bytes: number): boolean {
    if (this.ledger.used + bytes > this.limit) {
      this.refusedBy = 'statement';
      return false;
    }
    if (this.parent !== null && !this.parent.tryGrow(bytes)) {
      this.refusedBy = 'process';
      return false;
    }
    this.ledger.used += bytes;
    if (this.ledger.used > this.peakUsed) this.peakUsed = this.ledger.used;
    return true;
  }

  /** @internal used by reservations; growth past the limit for memory that is already allocated. */
  forceGrow(bytes: number): void {
    this.parent?.forceGrow(bytes);
    this.ledger.used += bytes;
    if (this.ledger.used > this.peakUsed) this.peakUsed = this.ledger.used;
  }

  /** @internal */
  shrink(bytes: number): void {
    const b = Math.min(bytes, this.ledger.used);
    this.parent?.shrink(b);
    this.ledger.used -= b;
  }
}

/**
 * The process budget: what all running statements together may reserve. Half the V8 heap limit by
 * default (QUIRE_PROCESS_MEMORY_LIMIT, e.g. '2GB', sets it), which is also the default memory_limit
 * of one library statement; a server's statements default to a quarter each, so two large ones fit
 * and a third spills or fails with 53200 instead of taking the process down.
 */
const processPool = new MemoryPool(
  (process.env.QUIRE_PROCESS_MEMORY_LIMIT ? parseByteSize(process.env.QUIRE_PROCESS_MEMORY_LIMIT) : null) ?? parseByteSize(defaultMemoryLimit()) ?? Infinity,
);

/**
 * Memory kept across statements (caches), drawn from the process budget like a statement's: what it
 * holds leaves that much less for running statements, and it is refused when they hold the rest.
 */
const keptPool = new MemoryPool(Infinity, processPool);

/** What running statements reserve from the process budget right now (tests, diagnostics): caches aside. */
export function processMemoryReserved(): number {
  return processPool.reserved - keptPool.reserved;
}

/** What caches keep in the process budget right now (see processReservation). */
export function processMemoryKept(): number {
  return keptPool.reserved;
}

/** A reservation for memory kept across statements (a cache) in the process budget. */
export function processReservation(consumer: string): MemoryReservation {
  return keptPool.register(consumer, false);
}

/**
 * A statement whose pool is dropped while it still holds reservations (a reservation some path
 * failed to free) gives them back to the process budget when the pool is collected, so a leak in
 * one statement cannot starve every later one.
 */
const releaseOnCollect = new FinalizationRegistry<{ used: number }>((ledger) => processPool.shrink(ledger.used));

/** One operator's share of the pool. Free it in `finally`: nothing frees it on garbage collection. */
export class MemoryReservation {
  private bytes = 0;

  constructor(
    readonly pool: MemoryPool,
    readonly consumer: string,
    readonly canSpill: boolean,
  ) {}

  get size(): number {
    return this.bytes;
  }

  tryGrow(bytes: number): boolean {
    if (bytes <= 0) return true;
    if (!this.pool.tryGrow(bytes)) return false;
    this.bytes += bytes;
    return true;
  }

  /** Grows or raises 53200 with the numbers a user needs to pick a new memory_limit. */
  grow(bytes: number, what = 'buffer'): void {
    if (!this.tryGrow(bytes)) throw this.outOfMemory(bytes, what);
  }

  /**
   * Accounts for memory that exists already and cannot be given back (one batch larger than the whole
   * limit): the pool goes over its limit until this reservation shrinks, so the others spill sooner.
   */
  forceGrow(bytes: number): void {
    if (bytes <= 0) return;
    this.pool.forceGrow(bytes);
    this.bytes += bytes;
  }

  shrink(bytes: number): void {
    const b = Math.min(bytes, this.bytes);
    this.pool.shrink(b);
    this.bytes -= b;
  }

  /** Sets the reservation to exactly `bytes`; false (unchanged) if growing is refused. */
  tryResize(bytes: number): boolean {
    if (bytes > this.bytes) return this.tryGrow(bytes - this.bytes);
    this.shrink(this.bytes - bytes);
    return true;
  }

  free(): number {
    const b = this.bytes;
    this.shrink(b);
    return b;
  }

  outOfMemory(bytes: number, what: string): QuireError {
    const parent = this.pool.parent;
    if (this.pool.refusedBy === 'process' && parent !== null) {
      return new QuireError('53200', 'out of memory', {
        detail:
          `Failed on request of size ${bytes} bytes (${what}) in ${this.consumer}: the statements running in this process ` +
          `hold ${formatBytes(parent.reserved)} of its ${formatBytes(parent.limit)} budget (this statement ${formatBytes(this.pool.reserved)}).`,
        hint: 'Retry when fewer large statements are running, or give the process more memory (QUIRE_PROCESS_MEMORY_LIMIT and node --max-old-space-size).',
      });
    }
    return new QuireError('53200', 'out of memory', {
      detail:
        `Failed on request of size ${bytes} bytes (${what}) in ${this.consumer}: memory_limit is ` +
        `${formatBytes(this.pool.limit)}, ${formatBytes(this.pool.reserved)} reserved, ${formatBytes(this.bytes)} by this operator.`,
      hint: 'Increase memory_limit (SET memory_limit = \'1GB\').',
    });
  }
}

// Reservations live for one statement; without a lasting instance their shape died at every full GC,
// and with it the optimized per-batch loops that grow one (see shape-anchor.ts).
anchorShape(new MemoryReservation(new MemoryPool(0), 'shape anchor', false));

/**
 * Rows handed to the caller (db.query's result, a cursor's rows) are the answer, not working state:
 * they count against the pool, so operators still running spill sooner, but they fail only past the
 * larger of memory_limit and the default limit (half the heap). A small memory_limit set to make
 * operators spill therefore does not cap results, and no result can outgrow the heap.
 */
export function reserveResult(res: MemoryReservation, bytes: number, what: string): void {
  const cap = Math.max(res.pool.limit, parseByteSize(defaultMemoryLimit()) ?? Infinity);
  if (res.size + bytes > cap) {
    throw new QuireError('53200', 'out of memory', {
      detail:
        `Failed on request of size ${bytes} bytes (${what}) in ${res.consumer}: results may hold up to ${formatBytes(cap)} ` +
        `(memory_limit is ${formatBytes(res.pool.limit)}, half the heap is ${defaultMemoryLimit()}), ${formatBytes(res.size)} held so far.`,
      hint: 'Read large results with stream() (a cursor or fetch_size on the servers), or select fewer rows or columns.',
    });
  }
  res.forceGrow(bytes);
}

/** Bytes on disk held by a statement's spill files, checked against max_temp_directory_size. */
export class TempSpace {
  private used = 0;
  private peakUsed = 0;

  constructor(readonly limit: number) {}

  get bytes(): number {
    return this.used;
  }
  get peak(): number {
    return this.peakUsed;
  }

  /** Raises 53100 (disk_full) when `bytes` more would exceed the limit. */
  add(bytes: number): void {
    if (this.used + bytes > this.limit) {
      throw new QuireError('53100', `could not write to temporary file: temporary files would exceed max_temp_directory_size`, {
        detail: `${formatBytes(this.used)} in use, ${formatBytes(bytes)} more requested, max_temp_directory_size is ${formatBytes(this.limit)}.`,
        hint: "Increase max_temp_directory_size (SET max_temp_directory_size = '10GB') or memory_limit.",
      });
    }
    this.used += bytes;
    if (this.used > this.peakUsed) this.peakUsed = this.used;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** What one statement's operators share: the pool, the temp space budget and where spill files go. */
export interface QueryMemory {
  readonly pool: MemoryPool;
  readonly temp: TempSpace;
  readonly tempDirectory: string;
  readonly compression: boolean;
}

const byStatement = new WeakMap<object, QueryMemory>();

function settingSize(ctx: ExecContext, name: string, fallback: string): number {
  const v = ctx.eval.setting(name) ?? fallback;
  return parseByteSize(v) ?? Infinity;
}

/** The statement's memory context, created from its settings on first use. */
export function queryMemory(ctx: ExecContext): QueryMemory {
  let m = byStatement.get(ctx.eval);
  if (m === undefined) {
    const dir = ctx.eval.setting('temp_directory');
    const comp = (ctx.eval.setting('quire.spill_compression') ?? 'off').toLowerCase();
    const pool = new MemoryPool(settingSize(ctx, 'memory_limit', defaultMemoryLimit()), processPool);
    releaseOnCollect.register(pool, pool.ledger);
    m = {
      pool,
      temp: new TempSpace(settingSize(ctx, 'max_temp_directory_size', 'unlimited')),
      tempDirectory: dir !== undefined && dir.trim() !== '' ? dir : systemTempDirectory(),
      compression: comp === 'on' || comp === 'true' || comp === '1' || comp === 'zlib',
    };
    byStatement.set(ctx.eval, m);
  }
  return m;
}

/** True when the session set memory_limit to something other than its default (planner choice). */
export function memoryLimitExplicit(ctx: ExecContext): boolean {
  const v = ctx.eval.setting('memory_limit');
  return v !== undefined && v !== defaultMemoryLimit() && Number.isFinite(parseByteSize(v) ?? Infinity);
}

// ---------------------------------------------------------------------------------------------------
// Size estimates

/** V8 keeps a pointer per array slot plus the boxed value; strings are one byte per char (Latin-1) or two. */
const SLOT = 8;
const STRING_HEADER = 24;
const BOXED = 40;

/** One Set/Map entry besides its key: V8's ordered hash tables keep key, value, chain link and a bucket. */
export const HASH_ENTRY_BYTES = 32;

/** One buffered row held as a JavaScript array (db.query results): the array object and its slots. */
export const ROW_ARRAY_BYTES = 32;

export function valueBytes(v: Value): number {
  if (v === null || typeof v === 'boolean') return 0;
  if (typeof v === 'string') return STRING_HEADER + v.length * 2;
  if (typeof v === 'number') return 16;
  if (typeof v === 'bigint') return 32;
  return BOXED + 48;
}

export function columnBytes(c: Column, n: number): number {
  let s = c.nulls === null ? 0 : c.nulls.byteLength;
  // Numerics not built yet take no memory: counting them would build them.
  if (numericsPending(c)) return s + scaledNumbers(c)!.unscaled.byteLength;
  const d = c.data;
  if (!Array.isArray(d)) return s + d.byteLength;
  s += d.length * SLOT;
  for (let i = 0; i < n; i++) {
    const v = d[i];
    if (v === null || v === undefined) continue;
    s += typeof v === 'string' ? STRING_HEADER + v.length * 2 : valueBytes(v);
  }
  return s;
}

/** Estimated bytes a batch keeps alive. */
export function batchBytes(b: Batch): number {
  let s = 64;
  for (const c of b.columns) s += columnBytes(c, b.length);
  return s;
}

let systemTemp: string | null = null;
/** os.tmpdir() reads the environment on every call, which every statement would pay for; read once. */
function systemTempDirectory(): string {
  return (systemTemp ??= tmpdir());
}
