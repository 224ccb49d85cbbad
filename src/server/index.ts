/**
 * Server entry: starts the listeners that share one Database. Today that is the REST endpoint
 * (src/server/rest); a PostgreSQL wire-protocol listener (src/server/pgwire, later) is meant to sit
 * beside it here with its own options block, sharing the Database and nothing else: its paging
 * uses protocol portals (stateful per connection), the REST cursors stay stateless.
 */
import type { Database } from '../api/database.js';
import { startRestServer, type RestServerOptions, type RunningRestServer } from './rest/app.js';
import { startPgServer, type PgServer, type PgServerOptions } from './pgwire/index.js';

export interface ServeOptions {
  db: Database;
  /** REST (OpenSearch SQL) listener; host defaults to 127.0.0.1, port to 9200. */
  rest?: Omit<RestServerOptions, 'db'> & { host?: string; port?: number };
  /** PostgreSQL wire-protocol listener (src/server/pgwire); started only when given. Port defaults to 5433. */
  pg?: PgServerOptions;
}

export interface RunningServers {
  rest: RunningRestServer | null;
  pg: PgServer | null;
  close(): Promise<void>;
}

export async function serve(opts: ServeOptions): Promise<RunningServers> {
  const rest = await startRestServer({ ...(opts.rest ?? {}), db: opts.db });
  let pg: PgServer | null = null;
  try {
    pg = opts.pg ? await startPgServer(opts.db, opts.pg) : null;
  } catch (e) {
    await rest.close();
    throw e;
  }
  return {
    rest,
    pg,
    close: async () => {
      await Promise.all([rest.close(), pg?.close()]);
    },
  };
}

export { buildRestApp, startRestServer } from './rest/app.js';
export type { RestServerOptions, RunningRestServer } from './rest/app.js';
export { startPgServer, DEFAULT_PG_PORT } from './pgwire/index.js';
export type { PgServer, PgServerOptions, PgTraceEvent } from './pgwire/index.js';
export { serverAccess, type ServerGrants } from './access.js';
