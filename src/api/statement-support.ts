/** What the statement families (utility.ts and the files beside it) share: the result shape, relation names, a binder. */
import type { DataType } from '../common/types.js';
import type { AnyNode } from '../sql/ast.js';
import { QueryBinder } from '../sql/bind-query.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';

export function result(command: string, tag: string, extra: Partial<QueryResult> = {}): QueryResult {
  return { command, commandTag: tag, columns: [], rows: [], rowCount: 0, notices: [], ...extra };
}

export function relName(rv: AnyNode): string {
  return rv.relname as string;
}

export function binderFor(host: UtilityHost, types: DataType[] = []): QueryBinder {
  return new QueryBinder(host.catalog, host.session.evalContext(Date.now() * 1000), types);
}
