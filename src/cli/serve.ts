/**
 * `quire serve [DBPATH]`: the REST endpoint (OpenSearch SQL protocol) and the PostgreSQL protocol over a
 * database directory, or an in-memory database.
 *
 *   quire serve [--host 127.0.0.1] [--port 9200] [--demo] [--api-key KEY] [--secret SECRET]
 *               [--max-fetch-size N] [--query-timeout MS] [--allow-writes] [--allow-files DIR]…
 *               [--cors-origin ORIGIN]… [--allowed-host NAME]…
 *               [--pg-port 5433] [--password PW] [--no-pg] [--memory-limit SIZE] [--max-result-size SIZE] [--size-limit N] [--temp-dir DIR]
 *               [--max-connections N] [--auth-timeout MS] [--log-level LEVEL] [--log-slow-ms MS]
 *               [--revocation-dir DIR]
 *
 * Grants nothing a flag did not grant: read-only, no files, loopback. Trust without credentials is
 * kept only for that read-only loopback demo; a server that writes, opens files or listens on
 * another interface refuses to start without --api-key. --secret signs cursors; without it a random
 * secret is used, so cursors do not survive a restart. QUIRE_API_KEY / QUIRE_CURSOR_SECRET /
 * QUIRE_PG_PASSWORD work too and keep the values out of `ps`.
 */
import type { Database } from '../index.js';
import { parseByteSize, serverMemoryLimit } from '../execution/memory-pool.js';
import { memorySettings } from './options.js';
import { LOG_LEVELS, type LogLevel } from '../server/logger.js';

export const SERVE_HELP = `Usage: quire serve [OPTIONS] [DBPATH]

Serves the OpenSearch SQL REST protocol (POST /_plugins/_sql) and the PostgreSQL protocol over the
database directory DBPATH (created if missing; every commit from either port is on disk before it is
acknowledged), or over an in-memory database without one.

Options:
  --host HOST            address to bind (default 127.0.0.1)
  --port PORT            port (default 9200; 0 picks a free one)
  --demo                 load the demo tables (calcs, customer_dimension, events)
  --api-key KEY          credentials for both ports (or env QUIRE_API_KEY): REST requires
                         "Authorization: ApiKey KEY" (or Basic auth with KEY as password), the
                         PostgreSQL port SCRAM-SHA-256 with KEY as password unless --password is given
  --secret SECRET        cursor signing secret, >= 16 bytes (or env QUIRE_CURSOR_SECRET)
  --max-fetch-size N     largest fetch_size accepted (default 10000)
  --query-timeout MS     cancel queries running longer (default 30000)
  --allow-writes         also run DDL, DML, COPY FROM and COPY TO a file (default: read-only)
  --allow-files DIR      let SQL open files under DIR (read_csv/read_json/read_parquet/read_arrow,
                         COPY FROM/TO a file; writes also need --allow-writes); repeatable;
                         default: no file access
  --cors-origin ORIGIN   answer browser requests from ORIGIN (e.g. https://app.example); repeatable;
                         requests with another Origin header get 403
  --allowed-host NAME    accept NAME in the Host header (besides IP addresses, localhost and --host);
                         repeatable; other names get 403 (DNS rebinding)
  --pg-port PORT         PostgreSQL wire protocol port on the same host (default 5433; 0 picks one)
  --password PASSWORD    the PostgreSQL port's SCRAM-SHA-256 password, when it should differ from
                         --api-key (or env QUIRE_PG_PASSWORD); without either, only loopback
                         clients are accepted, trusted
  --no-pg                do not start the PostgreSQL listener
  --memory-limit SIZE    memory budget of one statement (sorts, windows, aggregates, DISTINCT, set
                         operations, joins, results): sorts, windows and GROUP BY spill to disk past
                         it, the rest fail with SQLSTATE 53200 (e.g. 256MB; 0 = unlimited; default:
                         a quarter of the V8 heap limit, at most 1GB), for every REST request and
                         PostgreSQL connection; clients cannot change it
  --max-result-size SIZE largest REST response without fetch_size (default 64MB); larger results
                         answer 400 and must be paged with fetch_size
  --size-limit N         rows a REST query without fetch_size returns at most (default 200, as
                         OpenSearch's plugins.query.size_limit; 0 = no limit); the rest are cut
                         and the response carries a warning; send fetch_size to page through them
  --temp-dir DIR         directory for spill files (default: the OS temp directory)
  --read-only            open DBPATH without its writer lock as a snapshot that is never written
  --max-connections N    connections each port serves at once (default 100); beyond it the
                         PostgreSQL port answers 53300 and REST 503
  --auth-timeout MS      time a PostgreSQL client has to authenticate (default 60000)
  --log-level LEVEL      fatal, error, warn, info, debug, trace or silent (default info); JSON
                         lines on stderr: errors with their stack, slow queries, refused clients
  --log-slow-ms MS       log queries running at least this long (default 1000; 0 = none)
  --revocation-dir DIR   remember closed cursors in DIR (created if missing) instead of in memory,
                         so replicas sharing --secret and DIR refuse each other's closed cursors
  --help                 show this help
`;

interface ServeArgs {
  host: string;
  port: number;
  demo: boolean;
  apiKey: string | undefined;
  secret: string | undefined;
  maxFetchSize: number | undefined;
  queryTimeoutMs: number | undefined;
  allowWrites: boolean;
  allowFiles: string[];
  corsOrigins: string[];
  allowedHosts: string[];
  pgPort: number | null;
  pgPassword: string | undefined;
  memoryLimit: string | undefined;
  maxResultBytes: number | undefined;
  sizeLimit: number | undefined;
  tempDir: string | undefined;
  maxConnections: number;
  authTimeoutMs: number | undefined;
  logLevel: LogLevel;
  logSlowMs: number;
  revocationDir: string | undefined;
  /** A database directory to serve (positional); absent: an in-memory database. */
  database: string | undefined;
  readOnly: boolean;
  help: boolean;
}

function parseServeArgs(argv: readonly string[]): ServeArgs {
  const a: ServeArgs = {
    host: '127.0.0.1',
    port: 9200,
    demo: false,
    apiKey: process.env.QUIRE_API_KEY || undefined,
    secret: process.env.QUIRE_CURSOR_SECRET || undefined,
    maxFetchSize: undefined,
    queryTimeoutMs: undefined,
    allowWrites: false,
    allowFiles: [],
    corsOrigins: [],
    allowedHosts: [],
    pgPort: 5433,
    pgPassword: process.env.QUIRE_PG_PASSWORD || undefined,
    memoryLimit: undefined,
    maxResultBytes: undefined,
    sizeLimit: undefined,
    tempDir: undefined,
    maxConnections: 100,
    authTimeoutMs: undefined,
    logLevel: 'info',
    logSlowMs: 1000,
    revocationDir: undefined,
    database: undefined,
    readOnly: false,
    help: false,
  };
  const int = (name: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min) throw new Error(`${name} needs an integer >= ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.includes('=') ? (argv[i]!.split(/=(.*)/s, 2) as [string, string]) : [argv[i]!, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--host':
        a.host = value();
        break;
      case '--port':
      case '-p':
        a.port = int('--port', value(), 0);
        break;
      case '--demo':
        a.demo = true;
        break;
      case '--api-key':
        a.apiKey = value();
        break;
      case '--secret':
        a.secret = value();
        break;
      case '--max-fetch-size':
        a.maxFetchSize = int('--max-fetch-size', value(), 1);
        break;
      case '--query-timeout':
        a.queryTimeoutMs = int('--query-timeout', value(), 1);
        break;
      case '--allow-writes':
        a.allowWrites = true;
        break;
      case '--allow-files':
        a.allowFiles.push(value());
        break;
      case '--cors-origin':
        a.corsOrigins.push(value());
        break;
      case '--allowed-host':
        a.allowedHosts.push(value());
        break;
      case '--pg-port':
        a.pgPort = int('--pg-port', value(), 0);
        break;
      case '--password':
        a.pgPassword = value();
        break;
      case '--no-pg':
        a.pgPort = null;
        break;
      case '--memory-limit':
        a.memoryLimit = value();
        break;
      case '--max-result-size': {
        const v = value();
        const n = parseByteSize(v);
        if (n === null || !Number.isFinite(n)) throw new Error(`--max-result-size needs a size such as 64MB, got "${v}"`);
        a.maxResultBytes = n;
        break;
      }
      case '--size-limit':
        a.sizeLimit = int('--size-limit', value(), 0);
        break;
      case '--temp-dir':
        a.tempDir = value();
        break;
      case '--max-connections':
        a.maxConnections = int('--max-connections', value(), 1);
        break;
      case '--auth-timeout':
        a.authTimeoutMs = int('--auth-timeout', value(), 1);
        break;
      case '--log-level': {
        const v = value();
        if (!(LOG_LEVELS as readonly string[]).includes(v)) throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
        a.logLevel = v as LogLevel;
        break;
      }
      case '--log-slow-ms':
        a.logSlowMs = int('--log-slow-ms', value(), 0);
        break;
      case '--revocation-dir':
        a.revocationDir = value();
        break;
      case '--read-only':
        a.readOnly = true;
        break;
      case '--help':
      case '-h':
        a.help = true;
        break;
      default:
        if (!flag.startsWith('-') && a.database === undefined) {
          a.database = flag;
          break;
        }
        throw new Error(flag.startsWith('-') ? `unknown option ${flag}` : `unexpected argument ${flag} (one database directory at most)`);
    }
  }
  if (a.secret !== undefined && Buffer.byteLength(a.secret) < 16) throw new Error('--secret must be at least 16 bytes');
  if (a.apiKey === '') a.apiKey = undefined;
  if (a.pgPassword === '') a.pgPassword = undefined;
  return a;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Why the server may not start without credentials, or null: only the read-only, file-less,
 * loopback server trusts its clients.
 */
export function missingCredentials(a: Pick<ServeArgs, 'host' | 'allowWrites' | 'allowFiles' | 'apiKey'>): string | null {
  const reasons: string[] = [];
  if (a.allowWrites) reasons.push('--allow-writes');
  if (a.allowFiles.length > 0) reasons.push('--allow-files');
  if (!LOOPBACK.has(a.host)) reasons.push(`--host ${a.host}`);
  if (reasons.length === 0 || a.apiKey !== undefined) return null;
  return `${reasons.join(' and ')} needs credentials: add --api-key KEY (or set QUIRE_API_KEY); it protects the REST and PostgreSQL ports`;
}

/** Runs until SIGINT/SIGTERM; returns the exit code. */
export async function serveCommand(argv: readonly string[]): Promise<number> {
  let a: ServeArgs;
  try {
    a = parseServeArgs(argv);
  } catch (e) {
    process.stderr.write(`quire serve: ${(e as Error).message}\nquire serve: hint: Try "quire serve --help".\n`);
    return 1;
  }
  if (a.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const refusal = missingCredentials(a);
  if (refusal !== null) {
    process.stderr.write(`quire serve: ${refusal}\n`);
    return 1;
  }
  const { Database } = await import('../index.js');
  const { serve } = await import('../server/index.js');
  // A server runs many statements at once and builds whole responses next to them, so its default
  // budget per statement is smaller than the library's (half the heap).
  const settings = { memory_limit: serverMemoryLimit(), ...memorySettings(a) };
  let db: Database;
  try {
    db = await Database.create({ settings, ...(a.database !== undefined ? { path: a.database, readOnly: a.readOnly } : {}) });
  } catch (e) {
    process.stderr.write(`quire serve: ${(e as Error).message}\n`);
    return 1;
  }
  // PostgreSQL connections run on db.connect() sessions: they start from the same settings, as sessions
  // start from postgresql.conf.
  const connect = db.connect.bind(db);
  db.connect = (o = {}) => connect({ ...o, settings: { ...settings, ...(o.settings ?? {}) } });
  if (a.demo) {
    const { loadDemo } = await import('../demo/index.js');
    await loadDemo(db);
  }
  const { createServerLogger } = await import('../server/logger.js');
  const { DirectoryRevocations } = await import('../cursor/revocations.js');
  const logger = createServerLogger(a.logLevel);
  let revocations: InstanceType<typeof DirectoryRevocations> | undefined;
  try {
    revocations = a.revocationDir !== undefined ? new DirectoryRevocations(a.revocationDir) : undefined;
  } catch (e) {
    process.stderr.write(`quire serve: --revocation-dir: ${(e as Error).message}\n`);
    return 1;
  }
  const shared = { logger, logSlowMs: a.logSlowMs, maxConnections: a.maxConnections };
  const pgPassword = a.pgPassword ?? a.apiKey;
  let servers: Awaited<ReturnType<typeof serve>>;
  try {
    servers = await serve({
    db,
    rest: {
      ...shared,
      ...(revocations !== undefined ? { revocations } : {}),
      host: a.host,
      port: a.port,
      allowWrites: a.allowWrites,
      allowFiles: a.allowFiles,
      corsOrigins: a.corsOrigins,
      allowedHosts: a.allowedHosts,
      ...(a.apiKey !== undefined ? { apiKey: a.apiKey } : {}),
      ...(a.secret !== undefined ? { cursorKeys: [{ id: 'k1', secret: a.secret }] } : {}),
      ...(a.maxFetchSize !== undefined ? { maxFetchSize: a.maxFetchSize } : {}),
      ...(a.queryTimeoutMs !== undefined ? { queryTimeoutMs: a.queryTimeoutMs } : {}),
      ...(a.maxResultBytes !== undefined ? { maxResultBytes: a.maxResultBytes } : {}),
      ...(a.sizeLimit !== undefined ? { sizeLimit: a.sizeLimit } : {}),
    },
    ...(a.pgPort !== null
      ? {
          pg: {
            ...shared,
            host: a.host,
            port: a.pgPort,
            allowWrites: a.allowWrites,
            allowFiles: a.allowFiles,
            ...(a.authTimeoutMs !== undefined ? { authTimeoutMs: a.authTimeoutMs } : {}),
            ...(pgPassword !== undefined ? { password: pgPassword } : {}),
          },
        }
      : {}),
  });
  } catch (e) {
    // A missing --allow-files directory, a port in use: a message, not a stack.
    process.stderr.write(`quire serve: ${(e as Error).message}\n`);
    return 1;
  }
  const grants = [a.allowWrites ? 'writes' : 'read-only', a.allowFiles.length > 0 ? `files under ${a.allowFiles.join(', ')}` : 'no file access'].join(', ');
  process.stderr.write(`quire: clients may: ${grants}\n`);
  process.stderr.write(`quire: REST (OpenSearch SQL) listening on ${servers.rest!.url}/_plugins/_sql${a.apiKey ? ' (API key required)' : ''}\n`);
  if (servers.pg) {
    process.stderr.write(`quire: PostgreSQL protocol listening on ${servers.pg.host}:${servers.pg.port}${pgPassword ? ' (SCRAM-SHA-256 password required)' : ' (trust, loopback clients only)'}\n`);
  }
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await servers.close();
  await db.close();
  revocations?.close();
  logger.flush();
  return 0;
}
