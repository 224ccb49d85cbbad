/**
 * The OpenSearch-SQL-compatible REST endpoint (fastify):
 *
 *   POST /_plugins/_sql[?format=jdbc|json|csv|raw]   {query, fetch_size?, parameters?, keep_alive?} | {cursor, fetch_size?}
 *   POST /_plugins/_sql/close                        {cursor}   → {"succeeded": true}
 *   POST /_plugins/_sql/_explain                     {query, fetch_size?, parameters?}
 *   (the same under /_opendistro/_sql for older clients)
 *
 *   GET  /                                           cluster info (name, cluster_name, cluster_uuid, version, tagline)
 *   ?pretty on any of them indents the JSON response.
 *
 * OpenSearch's catalog statements (SHOW TABLES LIKE, DESCRIBE TABLES LIKE … COLUMNS LIKE) are
 * answered here (opensearch-dialect.ts); result columns are named as OpenSearch names them
 * (column-names.ts). One statement per request.
 *
 * Paging is the stateless keyset Pager (src/cursor): the server keeps nothing between pages, so
 * any number of clients can hold cursors and a restart with the same --secret keeps them valid;
 * the one thing remembered is which paging sessions were closed (src/cursor/revocations.ts).
 * Limits: body size (bodyLimit), per-query time (queryTimeoutMs, the query is cancelled), whole
 * request time (requestTimeoutMs), fetch_size ≤ maxFetchSize (larger is an error, never a silent cap),
 * unpaged results ≤ maxResultBytes (larger is a 400 telling the client to page) and cut at sizeLimit
 * rows (OpenSearch's plugins.query.size_limit; the response then carries a warning).
 * Only reading statements run unless allowWrites is set, because the endpoint may be reachable by
 * more clients than the process owner intends.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { RangeVar, SelectStmt } from '@pgsql/types';
import type { Database } from '../../api/database.js';
import { modifyingCtes } from '../../api/modifying-ctes.js';
import { QuireError } from '../../common/errors.js';
import { isTimeoutError, runWithLimits } from '../../index.js';
import type { Value } from '../../common/types.js';
import { CursorCodec, type CursorKey } from '../../cursor/cursor-codec.js';
import type { CursorRevocations } from '../../cursor/revocations.js';
import { batchRows } from '../../common/column.js';
import { batchBytes, formatBytes, ROW_ARRAY_BYTES } from '../../execution/memory-pool.js';
import { Pager, type Page } from '../../cursor/pager.js';
import type { PhysicalOperator } from '../../physical/operator.js';
import { explainPlan } from '../../physical/explain.js';
import { nodeBody, nodeTag } from '../../sql/ast.js';
import { parseStatements, type ParsedStatement } from '../../sql/parse.js';
import { errorBody, HttpError, toErrorBody } from './errors.js';
import { selectItemNames } from './column-names.js';
import { parseDialectStatement, runDialectStatement } from './opensearch-dialect.js';
import { limitConnections } from './connection-limit.js';
import { silentLogger, sqlForLog, type ServerLogger } from '../logger.js';
import { serverAccess } from '../access.js';
import { REST_FORMATS, csvText, jdbcText, jsonText, rawText, type RestFormat, type ResultSet } from './formats.js';

export interface RestServerOptions {
  db: Database;
  /** Cursor signing keys (first signs); default: one random key, so cursors end with the process. */
  cursorKeys?: readonly CursorKey[];
  /** When set, requests must send `Authorization: ApiKey <key>` (or Bearer, or an x-api-key header). */
  apiKey?: string;
  /** Largest fetch_size; default 10,000. */
  maxFetchSize?: number;
  /** Request body limit in bytes; default 1 MiB. */
  bodyLimit?: number;
  /** Time one query may run before it is cancelled (408); default 30 s. */
  queryTimeoutMs?: number;
  /** Time to receive a whole request; default 60 s. */
  requestTimeoutMs?: number;
  /** Run non-reading statements (DDL/DML, COPY FROM, COPY TO a file) too; default false. */
  allowWrites?: boolean;
  /** Directories SQL may open files in (read_*, COPY file); default none (src/server/access.ts). */
  allowFiles?: readonly string[];
  /**
   * Origins (scheme://host[:port]) whose browser requests are answered, with CORS headers; a request
   * carrying any other Origin is refused with 403. Default: none (browsers' cross-origin requests refused).
   */
  corsOrigins?: readonly string[];
  /**
   * Host header names accepted besides loopback names, IP addresses and the bound host; others get
   * 403, which defeats DNS rebinding (a hostile name resolving to this server).
   */
  allowedHosts?: readonly string[];
  /** The address the server is bound to (startRestServer sets it); accepted as a Host name. */
  boundHost?: string;
  /** Default cursor lifetime; default 1 hour. */
  cursorTtlMs?: number;
  /** Where closed cursors are remembered; default: in this process. Replicas share a DirectoryRevocations. */
  revocations?: CursorRevocations;
  /** Structured log (pino or compatible): one line per 5xx with its stack, per slow query, per refused connection. Default: none. */
  logger?: ServerLogger;
  /** Queries (and cursor pages) running at least this long are logged (warn); 0 = none. Default 0. */
  logSlowMs?: number;
  /** Open connections (sockets) served at once; beyond it 503. Default 100. */
  maxConnections?: number;
  /**
   * Largest unpaged result (no fetch_size), in estimated bytes of the rows held to build the response;
   * beyond it the request fails with 400 and the rows are dropped. Default 64 MiB.
   */
  maxResultBytes?: number;
  /**
   * Rows an unpaged query (no fetch_size) returns at most, as OpenSearch's plugins.query.size_limit:
   * the rest are cut and the response carries a warning. 0 = no limit. Default 200.
   */
  sizeLimit?: number;
  /** The cluster name GET / reports and SHOW TABLES puts in TABLE_CAT. Default "quire". */
  clusterName?: string;
}

export const DEFAULT_REST_MAX_CONNECTIONS = 100;
export const DEFAULT_SIZE_LIMIT = 200;
/** The OpenSearch version GET / reports: one the OpenSearch JDBC and ODBC drivers accept. */
export const OPENSEARCH_VERSION = '2.11.0';

const SQL_PATHS = ['/_plugins/_sql', '/_opendistro/_sql'] as const;
export const DEFAULT_MAX_RESULT_BYTES = 64 * 1024 ** 2;
const QUERY_KEYS = new Set(['query', 'fetch_size', 'parameters', 'keep_alive', 'cursor']);

export function buildRestApp(opts: RestServerOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    requestTimeout: opts.requestTimeoutMs ?? 60_000,
    connectionTimeout: opts.requestTimeoutMs ?? 60_000,
    return503OnClosing: true,
  });
  const codec = new CursorCodec(opts.cursorKeys ? { keys: opts.cursorKeys } : {});
  const queryTimeout = opts.queryTimeoutMs ?? 30_000;
  const maxResultBytes = opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const sizeLimit = opts.sizeLimit ?? DEFAULT_SIZE_LIMIT;
  const clusterName = opts.clusterName ?? 'quire';
  const clusterUuid = randomBytes(16).toString('base64url');
  // REST requests share one session, with the listener's privileges (src/server/access.ts) and the
  // settings the database had when the server started.
  const baseSettings = Object.fromEntries(opts.db.session.all());
  const db = opts.db.connect({ settings: baseSettings, access: serverAccess(opts) });
  // Statements other than a SELECT run on a session of their own: SET, BEGIN or PREPARE in one
  // request must not change what the next client's requests see.
  const requestSession = (): Database => db.connect({ settings: baseSettings });
  const pager = new Pager(db, {
    codec,
    ...(opts.maxFetchSize ? { maxFetchSize: opts.maxFetchSize } : {}),
    ...(opts.cursorTtlMs ? { defaultTtlMs: opts.cursorTtlMs } : {}),
    ...(opts.revocations ? { revocations: opts.revocations } : {}),
  });
  const logger = opts.logger ?? silentLogger;
  const logSlowMs = opts.logSlowMs ?? 0;
  limitConnections(app, opts.maxConnections ?? DEFAULT_REST_MAX_CONNECTIONS, logger);

  // Only JSON bodies: a browser sends text/plain or form bodies cross-origin without a CORS
  // preflight, so accepting them would let any web page run queries here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json'], { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new HttpError(400, 'JsonParseException', 'request body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('*', (req, _payload, done) => {
    done(new HttpError(415, 'UnsupportedMediaTypeException', `request body must be application/json, not ${JSON.stringify(req.headers['content-type'] ?? '')}`, "Send \"Content-Type: application/json\" (curl -H 'Content-Type: application/json')."), undefined);
  });

  app.addHook('onRequest', async (req, reply) => {
    const host = req.headers.host;
    if (host !== undefined && !hostAllowed(host, opts)) {
      throw new HttpError(403, 'SecurityException', `host ${JSON.stringify(host)} is not served here`, 'Name the server by its address or a loopback name, or start it with --allowed-host NAME.');
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!(opts.corsOrigins ?? []).includes(origin)) {
        throw new HttpError(403, 'SecurityException', `origin ${JSON.stringify(origin)} is not allowed`, 'Start the server with --cors-origin ORIGIN to accept browser requests from it.');
      }
      void reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
      if (req.method === 'OPTIONS') {
        // CORS preflight: answered before authentication, which browsers never send with it.
        await reply
          .status(204)
          .header('access-control-allow-methods', 'POST')
          .header('access-control-allow-headers', 'authorization, content-type, x-api-key')
          .header('access-control-max-age', '600')
          .send();
        return reply;
      }
    }
    return undefined;
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const q = req.query as Record<string, unknown> | undefined;
    if (q === undefined || !('pretty' in q) || q.pretty === 'false' || typeof payload !== 'string') return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    try {
      return JSON.stringify(JSON.parse(payload), null, 2) + '\n';
    } catch {
      return payload;
    }
  });

  if (opts.apiKey !== undefined) {
    const want = createHash('sha256').update(opts.apiKey).digest();
    app.addHook('onRequest', async (req) => {
      const h = req.headers;
      const auth = typeof h.authorization === 'string' ? /^(?:ApiKey|Bearer)\s+(.+)$/i.exec(h.authorization)?.[1] : undefined;
      // Basic: any user name, the API key as password (curl -u user:KEY).
      const basic = typeof h.authorization === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(h.authorization)?.[1] : undefined;
      const basicKey = basic !== undefined ? /^[^:]*:(.*)$/s.exec(Buffer.from(basic, 'base64').toString('utf8'))?.[1] : undefined;
      const given = auth ?? basicKey ?? (typeof h['x-api-key'] === 'string' ? h['x-api-key'] : undefined);
      const ok = given !== undefined && timingSafeEqual(createHash('sha256').update(given).digest(), want);
      if (!ok) throw new HttpError(401, 'SecurityException', 'missing or wrong API key', 'Send "Authorization: ApiKey <key>" (or Basic auth with the key as password).');
    });
  }

  app.setErrorHandler((err, req, reply) => {
    const body = toErrorBody(err);
    if (body.status >= 500) {
      const sql = (req.body as { query?: unknown } | undefined)?.query;
      logger.error({ port: 'rest', err, method: req.method, url: req.url, status: body.status, ...(typeof sql === 'string' ? { sql: sqlForLog(sql) } : {}) }, 'request failed with a server error');
    }
    if (body.status === 401) void reply.header('www-authenticate', 'ApiKey');
    void reply.status(body.status).type('application/json; charset=utf-8').send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send(errorBody(404, 'NotFoundException', `no handler found for ${req.method} ${req.url.split('?')[0]}`));
  });

  /**
   * Runs `f` under the query time limit (a deadline its statements check; see execution/interrupt.ts)
   * and cancels it when the client hangs up, since nobody is left to read the answer; logs it when slow.
   */
  const timed = async <X>(req: FastifyRequest, what: { sql: string } | { cursor: true }, f: (signal: AbortSignal) => Promise<X>): Promise<X> => {
    const started = performance.now();
    const ac = new AbortController();
    const socket = req.raw.socket;
    const hangUp = (): void => ac.abort();
    socket.once('close', hangUp);
    try {
      return await runWithLimits({ signal: ac.signal, deadline: performance.now() + queryTimeout }, () => f(ac.signal));
    } catch (e) {
      if (isTimeoutError(e)) {
        throw new HttpError(408, 'QueryTimeoutException', `query exceeded the time limit of ${queryTimeout} ms and was cancelled`);
      }
      throw e;
    } finally {
      socket.off('close', hangUp);
      const ms = performance.now() - started;
      if (logSlowMs > 0 && ms >= logSlowMs) {
        logger.warn({ port: 'rest', durationMs: Math.round(ms), ...('sql' in what ? { sql: sqlForLog(what.sql) } : { cursorPage: true }) }, 'slow query');
      }
    }
  };

  const send = async (reply: FastifyReply, format: RestFormat, r: ResultSet, sanitize: boolean, info: { started: number; index: string | null }): Promise<FastifyReply> => {
    const tz = db.timezone;
    // Text formats have no field for it: a cut result says so in a Warning header (RFC 9111 style).
    if (r.warning !== undefined) void reply.header('warning', `299 quire "${r.warning.replace(/["\\]/g, '').replace(/[^\x20-\x7e]/g, '?')}"`);
    if (format === 'csv') return reply.type('text/plain; charset=utf-8').send(csvText(r, tz, sanitize));
    if (format === 'raw') return reply.type('text/plain; charset=utf-8').send(rawText(r, tz));
    // Values are already JSON-safe (formats.ts); large results are serialized in slices.
    const text = format === 'json' ? await jsonText(r, tz, { tookMs: performance.now() - info.started, index: info.index }) : await jdbcText(r, tz);
    return reply.type('application/json; charset=utf-8').send(text);
  };

  const sqlHandler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const started = performance.now();
    const q = req.query as Record<string, unknown>;
    const format = parseFormat(q.format);
    const sanitize = q.sanitize !== 'false';
    const body = objectBody(req.body);
    for (const k of Object.keys(body)) {
      if (!QUERY_KEYS.has(k)) throw new HttpError(400, 'IllegalArgumentException', `unsupported request field "${k}"`, `Supported: ${[...QUERY_KEYS].join(', ')}.`);
    }
    const fetchSize = parseFetchSize(body.fetch_size);
    const ttlMs = parseKeepAlive(body.keep_alive);
    if (body.cursor !== undefined) {
      if (body.query !== undefined) throw new HttpError(400, 'IllegalArgumentException', 'send either "query" or "cursor", not both');
      if (typeof body.cursor !== 'string') throw new HttpError(400, 'IllegalArgumentException', '"cursor" must be a string');
      if (format === 'csv' || format === 'raw') throw new HttpError(400, 'IllegalArgumentException', `cursors are returned only with format=jdbc or json, not ${format}`);
      const cursor = body.cursor;
      const page = await timed(req, { cursor: true }, (signal) => pager.next(cursor, { ...(fetchSize ? { fetchSize } : {}), ttlMs, signal }));
      const stmt = singleSelect(page.sql);
      return send(reply, format, named(page.sql, stmt, pageResult(page)), sanitize, { started, index: stmt && fromIndex(stmt) });
    }
    if (typeof body.query !== 'string' || body.query.trim() === '') throw new HttpError(400, 'IllegalArgumentException', '"query" must be a non-empty string');
    const dialect = parseDialectStatement(body.query);
    if (dialect !== null) return send(reply, format, runDialectStatement(db, dialect, clusterName), sanitize, { started, index: null });
    const params = parseParameters(body.parameters);
    const sql = params.length > 0 ? questionMarksToDollar(body.query) : body.query;
    // Privileges are the session's (db.access): every statement is checked where it is planned or run.
    // Parsed once for every use below: the grammar is a measurable share of a short request's CPU.
    const parsed = parseStatements(sql);
    const kind = statementKind(parsed);
    const stmt = kind === 'select' ? nodeBody<SelectStmt>(parsed[0]!.stmt) : null;
    const index = stmt && fromIndex(stmt);
    if (fetchSize && kind === 'select') {
      if (format === 'csv' || format === 'raw') {
        throw new HttpError(400, 'IllegalArgumentException', `fetch_size is supported only with format=jdbc or json, not ${format}`, 'Drop fetch_size to get the whole result as text.');
      }
      const page = await timed(req, { sql }, (signal) => pager.first(sql, { fetchSize, params, ttlMs, signal }));
      return send(reply, format, named(sql, stmt, pageResult(page)), sanitize, { started, index });
    }
    // Unpaged: the whole result (fetch_size absent or 0, as in OpenSearch; non-SELECT statements ignore it).
    const session = kind === 'select' ? db : requestSession();
    let r: ResultSet;
    try {
      r = await timed(req, { sql }, (signal) => runWhole(session, sql, stmt, params, signal, maxResultBytes, sizeLimit));
    } finally {
      // The request's own session ends with it: an unfinished transaction and TEMP tables go.
      if (session !== db) session.endSession();
    }
    return send(reply, format, named(sql, stmt, r), sanitize, { started, index });
  };

  const closeHandler = async (req: FastifyRequest): Promise<{ succeeded: true }> => {
    const body = objectBody(req.body);
    if (typeof body.cursor !== 'string') throw new HttpError(400, 'IllegalArgumentException', '"cursor" must be a string');
    await pager.close(body.cursor);
    return { succeeded: true };
  };

  const explainHandler = async (req: FastifyRequest): Promise<unknown> => {
    const body = objectBody(req.body);
    if (typeof body.query !== 'string' || body.query.trim() === '') throw new HttpError(400, 'IllegalArgumentException', '"query" must be a non-empty string');
    const fetchSize = parseFetchSize(body.fetch_size);
    const params = parseParameters(body.parameters);
    const sql = params.length > 0 ? questionMarksToDollar(body.query) : body.query;
    const op = await timed(req, { sql }, async (signal) => {
      if (fetchSize) return pager.explain(sql, { fetchSize, params, signal });
      const stmts = parseStatements(sql);
      if (stmts.length !== 1 || nodeTag(stmts[0]!.stmt) !== 'SelectStmt') throw new HttpError(400, 'IllegalArgumentException', 'only a single SELECT can be explained');
      const prep = db.prepareSelect(nodeBody<SelectStmt>(stmts[0]!.stmt), params);
      return db.physical(prep.plan, db.execContext(prep.paramTypes, params, false));
    });
    return { root: explainTree(op), plan: explainPlan(op, { analyze: false, format: 'quire' }) };
  };

  // The JDBC and ODBC drivers read the version and distribution on connect.
  app.get('/', async () => ({
    name: clusterName,
    cluster_name: clusterName,
    cluster_uuid: clusterUuid,
    version: {
      distribution: 'opensearch',
      number: OPENSEARCH_VERSION,
      build_type: 'tar',
      build_hash: 'unknown',
      build_date: 'unknown',
      build_snapshot: false,
      lucene_version: '9.7.0',
      minimum_wire_compatibility_version: '7.10.0',
      minimum_index_compatibility_version: '7.0.0',
    },
    tagline: 'The OpenSearch Project: https://opensearch.org/',
  }));

  for (const base of SQL_PATHS) {
    app.post(base, sqlHandler);
    app.post(`${base}/close`, closeHandler);
    app.post(`${base}/_explain`, explainHandler);
  }
  return app;
}

export interface RunningRestServer {
  readonly app: FastifyInstance;
  /** e.g. http://127.0.0.1:9200 */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on host:port (default 127.0.0.1:9200: loopback unless asked otherwise; port 0 picks a free port). */
export async function startRestServer(opts: RestServerOptions & { host?: string; port?: number }): Promise<RunningRestServer> {
  const host = opts.host ?? '127.0.0.1';
  const app = buildRestApp({ boundHost: host, ...opts });
  await app.listen({ host, port: opts.port ?? 9200 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : (opts.port ?? 9200);
  const shown = host.includes(':') ? `[${host}]` : host;
  return { app, url: `http://${shown}:${port}`, port, close: () => app.close() };
}

// ---- request parsing ----

/**
 * DNS rebinding needs a name: an IP literal, a loopback name, the bound host or a configured name
 * cannot be an attacker's domain.
 */
function hostAllowed(header: string, opts: RestServerOptions): boolean {
  const m = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(header.trim());
  if (m === null) return false;
  const name = m[1]!.toLowerCase().replace(/\.$/, '');
  const bare = name.startsWith('[') ? name.slice(1, -1) : name;
  if (isIP(bare) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (opts.boundHost !== undefined && bare === opts.boundHost.toLowerCase()) return true;
  return (opts.allowedHosts ?? []).some((h) => h.toLowerCase() === bare);
}

function objectBody(b: unknown): Record<string, unknown> {
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new HttpError(400, 'IllegalArgumentException', 'request body must be a JSON object');
  return b as Record<string, unknown>;
}

function parseFormat(f: unknown): RestFormat {
  if (f === undefined || f === '') return 'jdbc';
  if (typeof f === 'string' && (REST_FORMATS as readonly string[]).includes(f.toLowerCase())) return f.toLowerCase() as RestFormat;
  throw new HttpError(400, 'IllegalArgumentException', `unknown format ${JSON.stringify(f)}`, `Supported: ${REST_FORMATS.join(', ')}.`);
}

/** undefined/0 = no paging (OpenSearch); otherwise validated by the Pager (positive integer ≤ max). */
function parseFetchSize(v: unknown): number | undefined {
  if (v === undefined || v === null || v === 0) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new HttpError(400, 'IllegalArgumentException', `fetch_size must be a non-negative integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** keep_alive: "90s", "10m", "2h", "1d", "500ms" or milliseconds as a number. */
function parseKeepAlive(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
  const m = typeof v === 'string' ? /^(\d+)(ms|s|m|h|d)$/.exec(v.trim()) : null;
  if (m === null) throw new HttpError(400, 'IllegalArgumentException', `keep_alive must look like "10m" or "30s", got ${JSON.stringify(v)}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** OpenSearch's parameter list: [{"type": "integer", "value": 1}, …]; bare values are accepted too. */
function parseParameters(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new HttpError(400, 'IllegalArgumentException', '"parameters" must be an array');
  return v.map((p, i) => {
    if (p !== null && typeof p === 'object' && !Array.isArray(p)) {
      if (!('value' in p)) throw new HttpError(400, 'IllegalArgumentException', `parameter ${i + 1} has no "value"`);
      const value = (p as { value: unknown }).value;
      if (value !== null && typeof value === 'object') throw new HttpError(400, 'IllegalArgumentException', `parameter ${i + 1} must be a scalar`);
      return value;
    }
    return p;
  });
}

/**
 * OpenSearch (JDBC) clients write parameters as \`?\`; PostgreSQL's grammar wants \`$n\`. Each \`?\`
 * outside string literals, quoted identifiers and comments becomes the next \`$n\`.
 */
export function questionMarksToDollar(sql: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; ) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < sql.length && sql[j] !== c) j++;
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const j = sql.indexOf('\n', i);
      const end = j < 0 ? sql.length : j;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const j = sql.indexOf('*/', i + 2);
      const end = j < 0 ? sql.length : j + 2;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '?') {
      out += `$${++n}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

type StatementKind = 'select' | 'read' | 'write';

function statementKind(stmts: readonly ParsedStatement[]): StatementKind {
  if (stmts.length > 1) {
    throw new QuireError('42601', `a request runs one statement, this one holds ${stmts.length}`, { hint: 'Send each statement in its own request.' });
  }
  if (stmts.length === 1) {
    const tag = nodeTag(stmts[0]!.stmt);
    // WITH x AS (INSERT/UPDATE/DELETE …) SELECT … writes: it runs as a statement.
    if (tag === 'SelectStmt' && !nodeBody<SelectStmt>(stmts[0]!.stmt).intoClause && modifyingCtes(nodeBody<SelectStmt>(stmts[0]!.stmt)) === null) return 'select';
    if (tag === 'VariableShowStmt') return 'read';
    if (tag === 'ExplainStmt') {
      // EXPLAIN ANALYZE runs its statement: only a SELECT counts as reading.
      const inner = nodeBody<{ query?: unknown }>(stmts[0]!.stmt).query;
      if (nodeTag(inner as never) === 'SelectStmt') return 'read';
    }
  }
  return 'write';
}

/**
 * An unpaged SELECT's rows, up to maxBytes (estimated as memory_limit estimates buffers): a response
 * is built whole, so without a cap one request could hold more than the heap. Past the cap the query
 * stops and the client is told to page (a 400, never a truncated 200).
 */
async function runWhole(db: Database, sql: string, stmt: SelectStmt | null, params: unknown[], signal: AbortSignal, maxBytes: number, sizeLimit: number): Promise<ResultSet> {
  // A plain SELECT (stmt) streams under the size caps; anything else runs as a statement.
  if (stmt !== null) {
    const prep = db.prepareSelect(stmt, params);
    const ctx = { ...db.execContext(prep.paramTypes, params, false), signal };
    const op = await db.physical(prep.plan, ctx);
    const rows: Value[][] = [];
    let bytes = 0;
    let cut = false;
    // Leaving the loop early returns the operator's iterator, which stops the query.
    for await (const b of op.execute(ctx)) {
      bytes += batchBytes(b) + b.length * (ROW_ARRAY_BYTES + 8 * b.columns.length);
      if (bytes > maxBytes) {
        throw new HttpError(
          400,
          'IllegalArgumentException',
          `result too large: more than ${formatBytes(maxBytes)} without paging (${rows.length + b.length} rows so far)`,
          'Send "fetch_size" to page through the result with a cursor, or select fewer rows or columns. The server\'s limit is --max-result-size.',
        );
      }
      const r = batchRows(b);
      for (let i = 0; i < r.length; i++) rows.push(r[i]!);
      if (sizeLimit > 0 && rows.length > sizeLimit) {
        rows.length = sizeLimit;
        cut = true;
        break;
      }
    }
    const warning = `the result was cut at the size limit of ${sizeLimit} rows; send fetch_size to page through all rows`;
    return { columns: prep.columns, rows, cursor: null, ...(cut ? { warning } : {}) };
  }
  const r = await db.query(sql, params);
  return { columns: r.columns, rows: r.rows as Value[][], cursor: null };
}

/** The statement when `sql` is one plain SELECT, else null. */
function singleSelect(sql: string): SelectStmt | null {
  const stmts = parseStatements(sql);
  if (stmts.length !== 1 || nodeTag(stmts[0]!.stmt) !== 'SelectStmt') return null;
  return nodeBody<SelectStmt>(stmts[0]!.stmt);
}

/** The table a SELECT reads when it reads exactly one by name (a json hit's _index). */
function fromIndex(stmt: SelectStmt): string | null {
  const from = stmt.fromClause ?? [];
  if (from.length !== 1 || nodeTag(from[0]!) !== 'RangeVar') return null;
  return nodeBody<RangeVar>(from[0]!).relname ?? null;
}

/** Columns renamed as OpenSearch names them: the select item's text, and the alias apart. */
function named(sql: string, stmt: SelectStmt | null, r: ResultSet): ResultSet {
  if (stmt === null) return r;
  const names = selectItemNames(sql, stmt, r.columns.length);
  return { ...r, columns: r.columns.map((c, i) => (names[i] ? { ...c, ...names[i] } : c)) };
}

function pageResult(p: Page): ResultSet {
  return { columns: p.columns, rows: p.rows, cursor: p.cursor, ...(p.warning !== undefined ? { warning: p.warning } : {}) };
}

interface ExplainNode {
  name: string;
  description: string;
  children: ExplainNode[];
}

function explainTree(op: PhysicalOperator): ExplainNode {
  return { name: op.name, description: op.describe(), children: op.children().map(explainTree) };
}
