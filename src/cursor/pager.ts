/**
 * Keyset pagination over any single SELECT: `first(sql, {fetchSize})` returns a page and a cursor,
 * `next(cursor)` the following page. Nothing is kept on the server between pages: the signed cursor
 * carries the SQL, its parameters, the statement time, the last row's sort key and the rows still
 * allowed by the query's own LIMIT, and each page re-plans the query as
 *
 *     base → SeekFilter(key after cursor key) → TopN(keys, fetch_size + 1)
 *
 * so a page costs one scan plus a heap of fetch_size + 1 rows wherever it is in the result (no
 * OFFSET heap that grows with depth). One extra row is fetched: a cursor is issued only when that
 * row exists, so the last page has no cursor and no page is ever empty unless the result is.
 *
 * Consistency is "live": rows inserted or deleted between pages appear or vanish according to
 * their key, and rows whose key did not change are sent exactly once. Statement-time functions
 * (now(), current_date) keep page 1's time on every page. What must not change is the definition of
 * what is read: each cursor carries digests of the tables and views the query reads
 * (relation-versions.ts) and is stale when one was redefined or dropped.
 *
 * Every cursor of one query also carries the paging session's id and lifetime; close() records the
 * id (revocations.ts) and every cursor of that session is refused from then on.
 *
 * The query's own LIMIT / OFFSET arguments (constants, expressions, parameters, uncorrelated
 * subqueries) are evaluated once, on page 1, and their values travel in the cursor, so every page
 * pages over the same limit (see shape.ts for where the limit is applied).
 *
 * Fallback: a query whose order cannot be extended to a total one by keys (FETCH ... WITH TIES)
 * pages by OFFSET with `mode: 'offset'` and a `warning` on every page (deep pages then cost more);
 * with `fallback: 'error'` it is refused (PaginationUnsupported) instead. Volatile functions are
 * always refused.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { T, type DataType, type Value } from '../common/types.js';
import { deriveContext, type ExecContext } from '../execution/context.js';
import type { Expr } from '../logical/expr.js';
import type { LogicalPlan } from '../logical/plan.js';
import type { PhysicalOperator } from '../physical/operator.js';
import { nodeBody, nodeTag } from '../sql/ast.js';
import { QueryBinder } from '../sql/bind/query.js';
import { parseStatements, type ParsedStatement } from '../sql/parse.js';
import type { EvalContext } from '../functions/eval-context.js';
import type { Catalog } from '../storage/catalog.js';
import { randomFillSync } from 'node:crypto';
import { CursorCodec } from './cursor-codec.js';
import { MemoryRevocations, type CursorRevocations } from './revocations.js';
import { changedRelation, relationVersions, type RelationVersions } from './relation-versions.js';
import { PagingError } from './errors.js';
import { fingerprint } from './fingerprint.js';
import { compareTuples, seekPredicate, toSortKeys } from './keyset.js';
import { SeekFilter } from './seek-filter.js';
import { analyzeShape, limitedBase, type PagingShape } from './shape.js';
import { positionedSource, rowDigest, type PositionedScan } from './positioned-scan.js';
import { evalLimitArgument } from '../physical/operators/runtime-limit.js';
import { TopN } from '../physical/operators/topn.js';
import { PhysicalPlanner } from '../physical/planner.js';
import { decodeValue, encodeValue, type Encoded } from './value-codec.js';

export const DEFAULT_MAX_FETCH_SIZE = 10_000;
export const DEFAULT_TTL_MS = 60 * 60 * 1000;
export const MAX_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * What the pager needs of a database: its catalog, its session's statement time, and the steps of the
 * statement pipeline it re-runs on every page (the library's Database is one).
 */
export interface PagerHost {
  readonly catalog: Catalog;
  readonly timezone: string;
  readonly session: { evalContext(statementTime: number): EvalContext };
  startStatement(): void;
  /** Resolves the files a statement reads (globs, grants) before it is bound. */
  prepareFiles(stmt: Node): Promise<void>;
  optimizeTraced(plan: LogicalPlan): { plan: LogicalPlan };
  execContext(paramTypes: readonly DataType[], params: readonly unknown[], analyze: boolean): ExecContext;
  physical(plan: LogicalPlan, ctx: ExecContext): Promise<PhysicalOperator>;
  collect(op: PhysicalOperator, ctx: ExecContext): Promise<Value[][]>;
}

/** A result column as a page names it. */
export interface PageColumn {
  name: string;
  type: DataType;
}

export interface PagerOptions {
  /** Signs and verifies cursors; default: a random key for this process. */
  codec?: CursorCodec;
  /** Largest fetch_size accepted; larger ones are an error, never silently capped. Default 10,000. */
  maxFetchSize?: number;
  /** Cursor lifetime when the request does not give one. Default 1 hour. */
  defaultTtlMs?: number;
  /** What to do with a query keyset paging cannot order totally. Default 'offset'. */
  fallback?: 'offset' | 'error';
  /** Where closed cursors are remembered; default: in this process (revocations.ts). */
  revocations?: CursorRevocations;
}

export interface PageRequest {
  /** Rows per page, 1..maxFetchSize. */
  fetchSize: number;
  params?: readonly unknown[];
  /** Cursor lifetime for this page's cursor (ms). */
  ttlMs?: number;
  /** Aborts the page's execution (the REST server's time limit). */
  signal?: AbortSignal;
}

export interface Page {
  /** The paged query's text (a cursor page's too), for naming its columns as written. */
  sql: string;
  columns: PageColumn[];
  rows: Value[][];
  /** Present when more rows follow; absent on the last page. */
  cursor: string | null;
  /** 'keyset': seek by sort key (flat cost); 'offset': the documented fallback (see `warning`). */
  mode: 'keyset' | 'offset';
  warning?: string;
}

/** What a cursor's payload holds (short keys keep tokens small). */
interface Payload {
  /** SQL text. */
  s: string;
  /** Parameters (value-codec). */
  p: Encoded[];
  /** Fingerprint (fingerprint.ts). */
  fp: string;
  /** Statement time of page 1, µs (now() is the same on every page). */
  ts: number;
  /** Page size. */
  f: number;
  /** 'k' keyset, 'o' offset. */
  m: 'k' | 'o';
  /** keyset: last row's key tuple. */
  k?: Encoded[];
  /** keyset without a unique key: rows equal to k already sent. */
  d?: number;
  /** Scan-order paging: digest of the table row at position k (positioned-scan.ts). */
  h?: string;
  /** Rows the query's own LIMIT still allows; null = no limit. */
  r: number | null;
  /** Paging session id: the same on every page's cursor, the key closing revokes. */
  n: string;
  /** Session lifetime (ms): each page's cursor lives this long unless a page asks for less. */
  t: number;
  /** Definitions of the tables and views the query reads (relation-versions.ts). */
  rv: RelationVersions;
  /** The query's own [LIMIT, OFFSET] as evaluated on page 1, when the limit stays inside the paged rows. */
  q?: [number | null, number];
  /** offset mode: rows already sent. */
  o?: number;
  /** Expiry, ms since epoch. */
  exp: number;
}

interface Prepared {
  shape: PagingShape;
  bound: LogicalPlan;
  columns: PageColumn[];
  paramTypes: DataType[];
  ctx: ExecContext;
  fp: string;
  encodedParams: Encoded[];
  mode: 'keyset' | 'offset';
  rv: RelationVersions;
}

/** What every cursor of one paging session shares. */
interface Session {
  n: string;
  t: number;
}

/** The query's own LIMIT / OFFSET values and whether the pager applies them ('strip') or keeps them inside ('held'). */
type LimitAt = { placement: 'strip' | 'held'; count: number | null; offset: number } | null;

const OFFSET_WARNING = 'This query cannot be ordered totally by keys, so it is paged by OFFSET: deep pages cost more, and rows may shift between pages if the data changes.';

export class Pager {
  readonly codec: CursorCodec;
  readonly maxFetchSize: number;
  private readonly defaultTtlMs: number;
  private readonly fallback: 'offset' | 'error';
  readonly revocations: CursorRevocations;

  constructor(
    readonly db: PagerHost,
    opts: PagerOptions = {},
  ) {
    this.codec = opts.codec ?? new CursorCodec();
    this.maxFetchSize = opts.maxFetchSize ?? DEFAULT_MAX_FETCH_SIZE;
    this.defaultTtlMs = opts.defaultTtlMs ?? DEFAULT_TTL_MS;
    this.fallback = opts.fallback ?? 'offset';
    this.revocations = opts.revocations ?? new MemoryRevocations();
  }

  /** Page 1 of `sql`. */
  async first(sql: string, req: PageRequest): Promise<Page> {
    const fetch = this.checkFetchSize(req.fetchSize);
    const params = req.params ?? [];
    const ts = Date.now() * 1000;
    await this.prewalk(sql);
    const t = this.ttl(req.ttlMs);
    const session: Session = { n: randomNonce(), t };
    const prep = this.prepare(sql, params, ts, req.signal);
    const lim = await this.limitValues(prep);
    const held = lim?.placement === 'held' ? ([lim.count, lim.offset] as [number | null, number]) : null;
    if (prep.mode === 'offset') return this.offsetPage(sql, prep, ts, fetch, 0, held, session, t);
    const strip = lim?.placement === 'strip' ? lim : null;
    return this.keysetPage(sql, prep, ts, fetch, { key: null, dup: 0, remaining: strip?.count ?? null, skip: strip?.offset ?? 0, held }, session, t);
  }

  /** The page after `cursor`. `fetchSize` may change the page size from here on. */
  async next(cursor: string, req: Partial<PageRequest> = {}): Promise<Page> {
    const p = this.open(cursor);
    if (await this.revocations.isRevoked(p.n)) {
      throw new PagingError('CursorClosed', 'cursor was closed', { hint: 'Run the query again to get a new cursor.' });
    }
    const fetch = req.fetchSize === undefined ? p.f : this.checkFetchSize(req.fetchSize);
    // A page may shorten the session's lifetime, not lengthen it: a close is remembered for the
    // session's lifetime, which must cover every cursor the session was ever given.
    const ttl = req.ttlMs === undefined || req.ttlMs === null ? p.t : this.ttl(req.ttlMs);
    if (ttl > p.t) {
      throw new PagingError('InvalidArgument', `keep_alive of a cursor page cannot exceed the ${p.t} ms the query started with`, {
        hint: 'Give the longer keep_alive with the query itself.',
      });
    }
    const session: Session = { n: p.n, t: p.t };
    const params = p.p.map(decodeValue);
    // Before binding: a dropped relation makes a stale cursor, not "relation does not exist".
    const changed = changedRelation(p.rv, relationVersions(parseSelect(p.s).stmt, this.db.catalog));
    if (changed !== null) {
      throw new PagingError('CursorStale', `${changed.change === 'added' ? 'relation' : 'table or view'} "${changed.name}" was ${changed.change === 'added' ? 'created' : changed.change} since this cursor was issued`, {
        hint: 'Run the query again to get a new cursor.',
      });
    }
    await this.prewalk(p.s);
    const prep = this.prepare(p.s, params, p.ts, req.signal);
    if (prep.fp !== p.fp || (prep.mode === 'keyset') !== (p.m === 'k')) {
      throw new PagingError('CursorStale', 'the query behind this cursor changed since the cursor was issued (schema, parameters or engine version)', {
        hint: 'Run the query again to get a new cursor.',
      });
    }
    const held = p.q ?? null;
    if ((held !== null) !== (limitPlacement(prep) === 'held')) throw new PagingError('CursorInvalid', 'invalid cursor: limit does not match the query');
    if (p.m === 'o') return this.offsetPage(p.s, prep, p.ts, fetch, p.o ?? 0, held, session, ttl);
    const key = (p.k ?? []).map((v) => decodeValue(v) as Value);
    if (key.length !== prep.shape.keys.length) throw new PagingError('CursorInvalid', 'invalid cursor: key does not match the query');
    const position = prep.shape.position;
    if (position !== null) {
      const at = key[key.length - 1];
      if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || p.h === undefined) throw new PagingError('CursorInvalid', 'invalid cursor: key does not match the query');
      if (rowDigest(position.table.snapshot(), at) !== p.h) {
        throw new PagingError('CursorStale', `table "${position.table.name}" was updated or had rows deleted since this cursor was issued, so rows may have moved`, {
          detail: 'Rows of a table without a unique key are told apart by their position in the table.',
          hint: 'Run the query again to get a new cursor, or add an ORDER BY on a unique key to page through changing data.',
        });
      }
    }
    return this.keysetPage(p.s, prep, p.ts, fetch, { key, dup: p.d ?? 0, remaining: held === null ? p.r : null, skip: 0, held }, session, ttl);
  }

  /**
   * Ends a cursor's paging session: this cursor and every other one of the same query (earlier or
   * later pages) are refused from now on. Tampered tokens are still an error; closing an expired or
   * already-closed cursor succeeds.
   */
  async close(cursor: string): Promise<void> {
    const raw = this.codec.decode(cursor, { ignoreExpiry: true });
    // Cursors from before sessions existed carry no id; they are refused as stale anyway.
    if (typeof raw.n !== 'string' || typeof raw.t !== 'number') return;
    await this.revocations.revoke(raw.n, this.codec.currentTime() + raw.t);
  }

  /** The physical plan page 1 would run (for EXPLAIN). */
  async explain(sql: string, req: Omit<PageRequest, 'ttlMs'>): Promise<PhysicalOperator> {
    const fetch = this.checkFetchSize(req.fetchSize);
    await this.prewalk(sql);
    const prep = this.prepare(sql, req.params ?? [], Date.now() * 1000, req.signal);
    const lim = await this.limitValues(prep);
    const held = lim?.placement === 'held' ? ([lim.count, lim.offset] as [number | null, number]) : null;
    if (prep.mode === 'offset') return this.db.physical(this.db.optimizeTraced(offsetPlan(prep.bound, 0, fetch + 1, held)).plan, prep.ctx);
    if (held !== null) return this.pageOperator(heldShape(prep.shape, held), null, false, fetch + 1, prep.ctx);
    const take = lim?.count == null ? fetch : Math.min(fetch, lim.count);
    return this.pageOperator(prep.shape, null, false, (lim?.offset ?? 0) + take + 1, prep.ctx);
  }

  /**
   * The query's own LIMIT / OFFSET, evaluated once (page 1): constants, expressions, parameters and
   * uncorrelated subqueries alike, with PostgreSQL's rounding (the binder coerced them to bigint) and
   * errors (2201W / 2201X when negative; NULL is no limit).
   */
  private async limitValues(prep: Prepared): Promise<LimitAt> {
    const lim = prep.shape.limit;
    if (lim === null) return null;
    const planner = new PhysicalPlanner({ ctx: prep.ctx });
    const count = await evalLimitArgument(lim.count, prep.ctx, 'LIMIT', planner.slotPlan);
    const offset = (await evalLimitArgument(lim.offset, prep.ctx, 'OFFSET', planner.slotPlan)) ?? 0;
    return { placement: limitPlacement(prep) === 'held' ? 'held' : 'strip', count, offset };
  }

  checkFetchSize(n: unknown): number {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
      throw new PagingError('InvalidArgument', `fetch_size must be a positive integer, got ${JSON.stringify(n)}`);
    }
    if (n > this.maxFetchSize) {
      throw new PagingError('InvalidArgument', `fetch_size ${n} is larger than the maximum ${this.maxFetchSize}`, {
        hint: 'Use a smaller fetch_size and follow the cursor; results are never truncated silently.',
      });
    }
    return n;
  }

  ttl(ms: number | null | undefined): number {
    if (ms === null || ms === undefined) return this.defaultTtlMs;
    if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TTL_MS) throw new PagingError('InvalidArgument', `cursor lifetime must be between 1 ms and ${MAX_TTL_MS} ms`);
    return ms;
  }

  private open(cursor: string): Payload {
    const raw = this.codec.decode(cursor);
    const ok =
      typeof raw.s === 'string' &&
      Array.isArray(raw.p) &&
      typeof raw.fp === 'string' &&
      typeof raw.ts === 'number' &&
      Number.isInteger(raw.f) &&
      (raw.f as number) > 0 &&
      (raw.m === 'k' || raw.m === 'o') &&
      (raw.r === null || (Number.isInteger(raw.r) && (raw.r as number) >= 0)) &&
      (raw.k === undefined || Array.isArray(raw.k)) &&
      (raw.d === undefined || (Number.isInteger(raw.d) && (raw.d as number) >= 0)) &&
      (raw.h === undefined || typeof raw.h === 'string') &&
      (raw.o === undefined || (Number.isInteger(raw.o) && (raw.o as number) >= 0)) &&
      (raw.q === undefined || isLimitPair(raw.q));
    if (!ok) throw new PagingError('CursorInvalid', 'invalid cursor: payload does not describe a page');
    if (raw.n === undefined && raw.rv === undefined) {
      throw new PagingError('CursorStale', 'cursor was issued by an earlier version of this server', { hint: 'Run the query again to get a new cursor.' });
    }
    const sessionOk =
      typeof raw.n === 'string' &&
      Number.isInteger(raw.t) &&
      (raw.t as number) > 0 &&
      Array.isArray(raw.rv) &&
      (raw.rv as unknown[]).every((x) => Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && typeof x[1] === 'string');
    if (!sessionOk) throw new PagingError('CursorInvalid', 'invalid cursor: payload does not describe a page');
    return raw as unknown as Payload;
  }

  /** File globs are walked asynchronously before the (synchronous) binding in prepare(). */
  private async prewalk(sql: string): Promise<void> {
    this.db.startStatement();
    // Only read_* calls walk globs; most page requests skip the second parse.
    if (!/read_/i.test(sql)) return;
    const stmts = parseStatements(sql);
    if (stmts.length === 1) await this.db.prepareFiles(stmts[0]!.stmt);
  }

  private prepare(sql: string, params: readonly unknown[], ts: number, signal: AbortSignal | undefined): Prepared {
    const parsed = parseSelect(sql);
    const stmt = nodeBody<SelectStmt>(parsed.stmt);
    const types: DataType[] = params.map(() => T.unknown);
    const evalCtx = this.db.session.evalContext(ts);
    const binder = new QueryBinder(this.db.catalog, evalCtx, types);
    const bound = binder.bindQuery(stmt, null).plan;
    const shape = analyzeShape(bound);
    const mode = shape.fallbackReason === null ? 'keyset' : 'offset';
    if (mode === 'offset' && this.fallback === 'error') {
      throw new PagingError('PaginationUnsupported', `cannot page this query by key: ${shape.fallbackReason}`, {
        hint: 'Remove the construct, or run the query without fetch_size.',
      });
    }
    const columns = bound.schema.slice(0, shape.visible).map((f) => ({ name: f.name, type: f.type.name === 'unknown' ? T.text : f.type }));
    const base = this.db.execContext(binder.paramTypes, params, false);
    // A caller's signal may outlive many requests: listen on a per-request signal that follows it, so
    // the context's abort listener goes away with the request.
    const ctx: ExecContext = deriveContext(base, signal ? { eval: evalCtx, signal: AbortSignal.any([signal]) } : { eval: evalCtx });
    const encodedParams = params.map(encodeValue);
    const limitSpec = shape.limit === null ? '' : shape.limit.decided && mode === 'keyset' ? ':ls' : ':lh';
    const keySpec = (mode === 'keyset' ? `${shape.position !== null ? 'pos' : shape.unique ? 'u' : 'd'}:${shape.keys.map((k) => `${k.col}${k.desc ? 'd' : 'a'}${k.nullsFirst ? 'f' : 'l'}`).join(',')}` : 'offset') + limitSpec;
    const fp = fingerprint({ sql, params: encodedParams, columns, keySpec, timezone: this.db.timezone });
    const rv = relationVersions(parsed.stmt, this.db.catalog);
    return { shape, bound, columns, paramTypes: binder.paramTypes, ctx, fp, encodedParams, mode, rv };
  }

  private async run(plan: LogicalPlan, ctx: ExecContext): Promise<Value[][]> {
    const op = await this.db.physical(this.db.optimizeTraced(plan).plan, ctx);
    return this.db.collect(op, ctx);
  }

  /**
   * base → SeekFilter → TopN(k), built physically: the seek runs on the comparator (seek-filter.ts).
   * Without keys (at most one row) the logical page plan is used as is.
   */
  private async pageOperator(shape: PagingShape, key: readonly Value[] | null, inclusive: boolean, k: number, ctx: ExecContext, scanned?: { source: PositionedScan | null }): Promise<PhysicalOperator> {
    if (shape.keys.length === 0) return this.db.physical(this.db.optimizeTraced(pagePlan(shape, key, inclusive, k)).plan, ctx);
    if (shape.position?.scanOrder === true) {
      // Rows arrive in position order, so the page is the first k from the position after the key.
      const from = key === null ? 0 : (key[0] as number) + (inclusive ? 0 : 1);
      const input = shape.position.at(from);
      if (scanned) scanned.source = positionedSource(input);
      const plan: LogicalPlan = { op: 'limit', input, offset: null, count: { kind: 'const', value: k, type: T.int8 }, ties: null, schema: input.schema };
      return this.db.physical(this.db.optimizeTraced(plan).plan, ctx);
    }
    if (scanned && shape.position !== null) scanned.source = positionedSource(shape.base);
    let op = await this.db.physical(this.db.optimizeTraced(shape.base).plan, ctx);
    const keys = shape.keys.map((c) => ({ col: c.col, type: c.type, desc: c.desc, nullsFirst: c.nullsFirst }));
    if (key !== null) op = new SeekFilter(op, keys, key, inclusive, k);
    return new TopN(op, keys, k);
  }

  private async keysetPage(
    sql: string,
    prep: Prepared,
    ts: number,
    fetch: number,
    at: { key: Value[] | null; dup: number; remaining: number | null; skip: number; held: [number | null, number] | null },
    session: Session,
    ttlMs: number,
  ): Promise<Page> {
    const { ctx } = prep;
    const shape = at.held === null ? prep.shape : heldShape(prep.shape, at.held);
    const take = at.remaining === null ? fetch : Math.min(fetch, at.remaining);
    if (take === 0) return { sql, columns: prep.columns, rows: [], cursor: null, mode: 'keyset' };
    const dupMode = !shape.unique;
    // Rows equal to the key come first among "at or after" it; at most `dup` of them were sent.
    const k = at.skip + (at.key !== null && dupMode ? at.dup : 0) + take + 1;
    const scanned: { source: PositionedScan | null } = { source: null };
    const rows = await this.db.collect(await this.pageOperator(shape, at.key, dupMode, k, ctx, scanned), ctx);
    let i = Math.min(at.skip, rows.length);
    const keyOf = (r: readonly Value[]): Value[] => shape.keys.map((c) => r[c.col]!);
    if (at.key !== null && dupMode) {
      for (let skipped = 0; i < rows.length && skipped < at.dup && compareTuples(shape.keys, keyOf(rows[i]!), at.key) === 0; skipped++) i++;
    }
    const page = rows.slice(i, i + take);
    const more = rows.length > i + take;
    const remaining = at.remaining === null ? null : at.remaining - page.length;
    let cursor: string | null = null;
    if (more && page.length > 0 && (remaining === null || remaining > 0)) {
      const last = keyOf(page[page.length - 1]!);
      // Every row equal to the last one that this run passed counts: the ones sent on this page, the
      // ones sent before (skipped above) and the ones the query's own OFFSET consumed on page 1. The
      // rows run in key order from the cursor key, so they are the run of equal rows ending here.
      let dup = 0;
      if (dupMode) {
        const end = i + page.length;
        let j = end - 1;
        while (j >= 0 && compareTuples(shape.keys, keyOf(rows[j]!), last) === 0) j--;
        dup = end - 1 - j;
      }
      const digest = scanned.source !== null ? scanned.source.digestAt(last[last.length - 1] as number) : null;
      cursor = this.issue(sql, prep, ts, fetch, at.held, session, ttlMs, { m: 'k', k: last.map(encodeValue), ...(dupMode ? { d: dup } : {}), ...(digest !== null ? { h: digest } : {}), r: remaining });
    }
    const vis = shape.visible;
    return { sql, columns: prep.columns, rows: page.map((r) => (r.length === vis ? r : r.slice(0, vis))), cursor, mode: 'keyset' };
  }

  /** Signs the cursor for the next page: what every cursor carries plus the mode's own fields. */
  private issue(
    sql: string,
    prep: Prepared,
    ts: number,
    fetch: number,
    held: [number | null, number] | null,
    session: Session,
    ttlMs: number,
    mode: Pick<Payload, 'm' | 'r'> & Partial<Payload>,
  ): string {
    const payload: Payload = {
      s: sql,
      p: prep.encodedParams,
      fp: prep.fp,
      ts,
      f: fetch,
      ...mode,
      ...(held !== null ? { q: held } : {}),
      n: session.n,
      t: session.t,
      rv: prep.rv,
      exp: this.codec.currentTime() + ttlMs,
    };
    return this.codec.encode(payload as unknown as { exp: number } & Record<string, unknown>);
  }

  private async offsetPage(
    sql: string,
    prep: Prepared,
    ts: number,
    fetch: number,
    sent: number,
    held: [number | null, number] | null,
    session: Session,
    ttlMs: number,
  ): Promise<Page> {
    const rows = await this.run(offsetPlan(prep.bound, sent, fetch + 1, held), prep.ctx);
    const page = rows.slice(0, fetch);
    let cursor: string | null = null;
    if (rows.length > fetch) {
      cursor = this.issue(sql, prep, ts, fetch, held, session, ttlMs, { m: 'o', r: null, o: sent + page.length });
    }
    return { sql, columns: prep.columns, rows: page, cursor, mode: 'offset', warning: `${OFFSET_WARNING} (reason: ${prep.shape.fallbackReason})` };
  }
}

function parseSelect(sql: string): ParsedStatement {
  const stmts = parseStatements(sql);
  if (stmts.length !== 1 || nodeTag(stmts[0]!.stmt) !== 'SelectStmt' || nodeBody<SelectStmt>(stmts[0]!.stmt).intoClause) {
    throw new PagingError('PaginationUnsupported', 'only a single SELECT statement can be paged', { hint: 'Send other statements without fetch_size.' });
  }
  return stmts[0]!;
}

/** base → [seek filter] → sort(keys) → limit(k): the optimizer turns sort + limit into a Top-N. */
export function pagePlan(shape: PagingShape, key: readonly Value[] | null, inclusive: boolean, k: number): LogicalPlan {
  let plan = shape.base;
  if (key !== null) plan = { op: 'filter', input: plan, predicate: seekPredicate(shape.keys, key, inclusive), schema: plan.schema };
  // No keys: the rows are unique by nothing, i.e. there is at most one (a global aggregate).
  if (shape.keys.length > 0) plan = { op: 'sort', input: plan, keys: toSortKeys(shape.keys), schema: plan.schema };
  return { op: 'limit', input: plan, offset: null, count: { kind: 'const', value: k, type: T.int8 }, ties: null, schema: plan.schema };
}

/** Where the query's own limit goes: applied by the pager in its key order, or kept inside the rows. */
function limitPlacement(prep: Prepared): 'none' | 'strip' | 'held' {
  const lim = prep.shape.limit;
  if (lim === null) return 'none';
  return lim.decided && prep.mode === 'keyset' ? 'strip' : 'held';
}

/** The shape to page when the query's own limit stays inside the rows, fixed to page 1's values. */
function heldShape(shape: PagingShape, held: [number | null, number]): PagingShape {
  return { ...shape, base: limitedBase(shape, held[0], held[1]), limit: null, order: null };
}

function isLimitPair(q: unknown): boolean {
  const n = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;
  return Array.isArray(q) && q.length === 2 && (q[0] === null || n(q[0])) && n(q[1]);
}

/** The query's own top-level limit with its arguments replaced by page 1's values. */
function withLimitValues(bound: LogicalPlan, held: [number | null, number]): LogicalPlan {
  if (bound.op === 'project') return { ...bound, input: withLimitValues(bound.input, held) };
  if (bound.op !== 'limit') return bound;
  const n = (v: number): Expr => ({ kind: 'const', value: v, type: T.int8 });
  return { ...bound, count: held[0] === null ? null : n(held[0]), offset: held[1] > 0 ? n(held[1]) : null };
}

function offsetPlan(bound: LogicalPlan, offset: number, count: number, held: [number | null, number] | null): LogicalPlan {
  if (held !== null) bound = withLimitValues(bound, held);
  return {
    op: 'limit',
    input: bound,
    offset: offset > 0 ? { kind: 'const', value: offset, type: T.int8 } : null,
    count: { kind: 'const', value: count, type: T.int8 },
    ties: null,
    schema: bound.schema,
  };
}


/** Random bytes drawn 4 KiB at a time: one system call per 256 first pages rather than one each. */
const noncePool = Buffer.alloc(4096);
let nonceAt = noncePool.length;
function randomNonce(): string {
  if (nonceAt + 16 > noncePool.length) {
    randomFillSync(noncePool);
    nonceAt = 0;
  }
  const n = noncePool.toString('base64url', nonceAt, nonceAt + 16);
  nonceAt += 16;
  return n;
}
