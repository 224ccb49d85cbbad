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
  /** Protocol tracing, for diagnostics and tests: every statement run or parsed, every Execute. */
  trace?: (event: PgTraceEvent) => void;
  /** Diagnostics (internal errors); default: nothing. */
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
  /** Open client connections. */
  readonly connections: number;
  /** Stops listening and closes every client connection. */
  close(): Promise<void>;
}

export const DEFAULT_PG_PORT = 5433;

export async function startPgServer(db: Database, opts: PgServerOptions = {}): Promise<PgServer> {
  registerCatalogFunctions();
  const host = opts.host ?? '127.0.0.1';
  const secret: ScramSecret | null = opts.password !== undefined && opts.password !== '' ? makeScramSecret(opts.password) : null;
  const conns = new Map<number, Connection>();
  const sockets = new Set<Socket>();
  let nextPid = 1000 + randomInt(1000);
  const log = opts.log ?? (() => undefined);
  const connHost: ConnectionHost = {
    db,
    access: serverAccess(opts),
    secret,
    user: opts.user,
    maxMessageBytes: opts.maxMessageBytes ?? 64 << 20,
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
    log,
    trace: opts.trace ?? (() => undefined),
  };
  if (secret === null && !isLoopback(host) && host !== 'localhost') {
    log(`pgwire: no password set: connections to ${host} are accepted from loopback addresses only`);
  }
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    try {
      new Connection(socket, connHost);
    } catch (e) {
      log(`pgwire: cannot set up connection: ${e instanceof Error ? e.message : String(e)}`);
      socket.destroy();
    }
  });
  // A listener error after start (e.g. EMFILE on accept) must not crash the process.
  server.on('error', (e) => log(`pgwire: ${e.message}`));
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
