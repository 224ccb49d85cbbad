/**
 * Server entry: starts the listeners that share one Database. Today that is the REST endpoint
 * (src/server/rest); a PostgreSQL wire-protocol listener (src/server/pgwire, later) is meant to sit
 * beside it here with its own options block, sharing the Database and nothing else: its paging
 * uses protocol portals (stateful per connection), the REST cursors stay stateless.
 */
import type { Database } from '../api/database.js';
import { startRestServer, type RestServerOptions, type RunningRestServer } from './rest/app.js';

export interface ServeOptions {
  db: Database;
  /** REST (OpenSearch SQL) listener; host defaults to 127.0.0.1, port to 9200. */
  rest?: Omit<RestServerOptions, 'db'> & { host?: string; port?: number };
}

export interface RunningServers {
  rest: RunningRestServer | null;
  close(): Promise<void>;
}

export async function serve(opts: ServeOptions): Promise<RunningServers> {
  const rest = await startRestServer({ ...(opts.rest ?? {}), db: opts.db });
  return {
    rest,
    close: async () => {
      await rest.close();
    },
  };
}

export { buildRestApp, startRestServer } from './rest/app.js';
export type { RestServerOptions, RunningRestServer } from './rest/app.js';
