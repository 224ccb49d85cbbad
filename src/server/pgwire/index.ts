/**
 * PostgreSQL wire-protocol listener (protocol 3.0) over one shared Database.
 *
 *   const server = await startPgServer(db, { port: 5433 });   // psql -h 127.0.0.1 -p 5433
 *   …
 *   await server.close();
 *
 * Authentication: SCRAM-SHA-256 when `password` is set (any user name unless `user` is set);
 * without a password, connections are trusted, and only accepted from loopback addresses.
 * Each connection gets `db.connect()`: shared tables and views, its own session.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { randomInt } from 'node:crypto';
import type { Database } from '../../api/database.js';
import { OidRegistry, registerCatalogFunctions } from './catalog.js';
import { Connection, isLoopback, type ConnectionHost } from './connection.js';
import { serverAccess } from '../access.js';
import { makeScramSecret, type ScramSecret } from './scram.js';
import { AuthThrottle, type AuthThrottleOptions } from './auth-throttle.js';
import { silentLogger, type ServerLogger } from '../logger.js';

export interface PgServerOptions {
  /** Interface to bind; default 127.0.0.1 (loopback). */
  host?: string;
  /** Port; default 5433. 0 picks a free port (see PgServer.port). */
  port?: number;
  /** Enables SCRAM-SHA-256 authentication with this password. */
  password?: string;
  /** When set, only this user name may connect. */
  user?: string;
  /** Run DDL/DML/COPY FROM/COPY TO a file; default false (read-only), as on the REST port. */
  allowWrites?: boolean;
  /** Directories SQL may open files in (read_*, COPY file); default none. */
  allowFiles?: readonly string[];
  /** Largest protocol message accepted, in bytes; default 64 MiB. */
  maxMessageBytes?: number;
  /** Client connections served at once (authenticating ones included); beyond it 53300. Default 100. */
  maxConnections?: number;
  /** Bytes a client may send before it is authenticated (startup, SSL negotiation, SASL); default 8 KiB. */
  maxPreAuthBytes?: number;
  /** Time a client has to complete startup and authentication; default 60 s (PostgreSQL's authentication_timeout). */
  authTimeoutMs?: number;
  /** Delays after failed passwords (auth-throttle.ts); defaults suit a server, tests shorten them. */
  authThrottle?: Partial<AuthThrottleOptions>;
  /** Statements running at least this long are logged (warn); 0 = none. Default 0. */
  logSlowMs?: number;
  /** Protocol tracing, for diagnostics and tests: every statement run or parsed, every Execute. */
  trace?: (event: PgTraceEvent) => void;
  /** Structured log (pino or compatible): internal errors with their stack, slow statements, refused connections. Default: none. */
  logger?: ServerLogger;
  /** Plain-text diagnostics, for callers without a structured logger; used when `logger` is absent. */
  log?: (message: string) => void;
}

export type PgTraceEvent =
  | { kind: 'statement'; pid: number; sql: string }
  /** A catalog query the engine cannot bind, answered with no rows (see connection.ts prepareStatement). */
  | { kind: 'fallback'; pid: number; sql: string; code: string; message: string }
  | { kind: 'execute'; pid: number; portal: string; maxRows: number; result: 'suspended' | 'complete'; binaryColumns: number };

export interface PgServer {
  readonly host: string;
  readonly port: number;
  /** Open client connections (sockets, including ones being refused). */
  readonly connections: number;
  /** Client addresses with recent failed passwords (auth-throttle.ts). */
  readonly throttledAddresses: number;
  /** Stops listening and closes every client connection. */
  close(): Promise<void>;
}

export const DEFAULT_PG_PORT = 5433;
export const DEFAULT_MAX_CONNECTIONS = 100;
export const DEFAULT_MAX_PRE_AUTH_BYTES = 8192;
export const DEFAULT_AUTH_TIMEOUT_MS = 60_000;
/** Longest time a refused (over the limit) client gets to send its startup packet and read the 53300. */
const REFUSAL_GRACE_MS = 5000;

/** Wraps a plain-text sink as a ServerLogger (message plus the event as JSON). */
function textLogger(log: (message: string) => void): ServerLogger {
  const line = (o: object, msg: string): void => log(`pgwire: ${msg}${Object.keys(o).length > 0 ? ` ${JSON.stringify(o, (_k, v: unknown) => (v instanceof Error ? (v.stack ?? v.message) : v))}` : ''}`);
  return { error: line, warn: line, info: line, debug: () => undefined };
}

export async function startPgServer(db: Database, opts: PgServerOptions = {}): Promise<PgServer> {
  registerCatalogFunctions();
  const host = opts.host ?? '127.0.0.1';
  const secret: ScramSecret | null = opts.password !== undefined && opts.password !== '' ? makeScramSecret(opts.password) : null;
  const conns = new Map<number, Connection>();
  const sockets = new Set<Socket>();
  let nextPid = 1000 + randomInt(1000);
  const logger = opts.logger ?? (opts.log ? textLogger(opts.log) : silentLogger);
  const maxConnections = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error('maxConnections must be a positive integer');
  const authTimeoutMs = opts.authTimeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS;
  const throttle = new AuthThrottle(opts.authThrottle);
  let admitted = 0;
  let refusing = 0;
  const connHost: ConnectionHost = {
    db,
    access: serverAccess(opts),
    secret,
    user: opts.user,
    maxMessageBytes: opts.maxMessageBytes ?? 64 << 20,
    maxPreAuthBytes: opts.maxPreAuthBytes ?? DEFAULT_MAX_PRE_AUTH_BYTES,
    authTimeoutMs,
    throttle,
    logger,
    logSlowMs: opts.logSlowMs ?? 0,
    oids: new OidRegistry(),
    register(c) {
      const pid = nextPid++;
      conns.set(pid, c);
      return { pid, key: randomInt(-0x80000000, 0x7fffffff) };
    },
    unregister(c) {
      if (conns.get(c.pid) === c) conns.delete(c.pid);
    },
    cancel(pid, key) {
      const c = conns.get(pid);
      // A wrong key is ignored silently, as PostgreSQL does (no oracle for guessing keys).
      if (c !== undefined && c.key === key) c.cancelRunning();
    },
    trace: opts.trace ?? (() => undefined),
  };
  if (secret === null && !isLoopback(host) && host !== 'localhost') {
    logger.warn({ port: 'pg', host }, 'no password set: only connections from loopback addresses are trusted');
  }
  const server: Server = createServer((socket) => {
    // Like PostgreSQL's max_connections, a connection holds a slot from accept on (authenticating
    // ones too), so idle sockets cannot pile up beyond the limit. Over it, a client still gets
    // PostgreSQL's answer (53300, after its startup packet, as libpq and pgjdbc expect); as many
    // refusals again can be in progress at once, briefly; beyond that the socket is closed at once.
    const tooMany = admitted >= maxConnections;
    if (tooMany && refusing >= maxConnections) {
      socket.destroy();
      return;
    }
    if (tooMany) refusing++;
    else admitted++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (tooMany) refusing--;
      else admitted--;
    });
    if (tooMany) logger.info({ port: 'pg', remoteAddress: socket.remoteAddress, maxConnections }, 'too many connections: refusing a client');
    try {
      new Connection(socket, connHost, tooMany ? { refuse: { code: '53300', message: 'sorry, too many clients already' }, authTimeoutMs: Math.min(authTimeoutMs, REFUSAL_GRACE_MS) } : {});
    } catch (e) {
      logger.error({ port: 'pg', err: e }, 'cannot set up connection');
      socket.destroy();
    }
  });
  // A listener error after start (e.g. EMFILE on accept) must not crash the process.
  server.on('error', (e) => logger.error({ port: 'pg', err: e }, 'listener error'));
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen(opts.port ?? DEFAULT_PG_PORT, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : (opts.port ?? DEFAULT_PG_PORT);
  return {
    host,
    port,
    get connections() {
      return sockets.size;
    },
    get throttledAddresses() {
      return throttle.trackedAddresses;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
