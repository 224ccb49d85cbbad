/** What the statement families (utility.ts and the files beside it) share: the result shape, relation names, a binder. */
import type { DataType } from '../common/types.js';
import { QuireError, positionOf } from '../common/errors.js';
import type { AnyNode } from '../sql/ast.js';
import { QueryBinder } from '../sql/bind/query.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';

export function result(command: string, tag: string, extra: Partial<QueryResult> = {}): QueryResult {
  return { command, commandTag: tag, columns: [], rows: [], rowCount: 0, notices: [], ...extra };
}

/**
 * The name of a relation a statement creates, changes or copies, after PostgreSQL's checks of its
 * qualification: tables live in `public` (and a session's `pg_temp`), so any other schema is an error,
 * not a silent reference to the table of the same name. `missing` is what an unknown schema reports:
 * DML looks the relation up (42P01 relation "s.t" does not exist), DDL and COPY the schema (3F000).
 */
export function relName(rv: AnyNode, missing: 'schema' | 'relation' = 'schema'): string {
  const name = rv.relname as string;
  checkRelationSchema(rv.catalogname as string | undefined, rv.schemaname as string | undefined, name, missing, positionOf(rv.location as number | undefined));
  // CREATE TABLE pg_temp.x makes a TEMP table, as in PostgreSQL.
  if (rv.schemaname === 'pg_temp' && rv.relpersistence === 'p') rv.relpersistence = 't';
  return name;
}

/** relName's checks for a name given as parts (DROP's object lists). */
export function checkRelationSchema(catalog: string | undefined, schema: string | undefined, name: string, missing: 'schema' | 'relation', position?: number): void {
  if (catalog !== undefined) {
    throw new QuireError('0A000', `cross-database references are not implemented: "${catalog}.${schema ?? ''}.${name}"`, { position });
  }
  if (schema === undefined || schema === 'public' || schema === 'pg_temp') return;
  if (schema === 'pg_catalog' || schema === 'information_schema') {
    throw new QuireError('42501', `permission denied to change "${schema}.${name}"`, { detail: 'System catalog modifications are currently disallowed.', position });
  }
  if (missing === 'relation') throw new QuireError('42P01', `relation "${schema}.${name}" does not exist`, { position });
  throw new QuireError('3F000', `schema "${schema}" does not exist`, { position });
}

export function binderFor(host: UtilityHost, types: DataType[] = []): QueryBinder {
  return new QueryBinder(host.catalog, host.session.evalContext(Date.now() * 1000), types);
}
