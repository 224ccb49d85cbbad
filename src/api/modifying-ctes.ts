/**
 * Data-modifying statements in WITH (`WITH x AS (INSERT … RETURNING *) SELECT … FROM x`), with
 * PostgreSQL's semantics: each runs exactly once, referenced or not, and however often it is
 * referenced; its RETURNING rows are what the rest of the statement reads under its name; and the
 * sub-statements and the main statement all read the tables as they were when the statement began,
 * so the main query sees none of the sub-statements' changes, only their RETURNING rows.
 *
 * The sub-statements run first, in the order written, each through the DML paths of
 * dml-statements.ts; their RETURNING rows are kept as tables the binder reads (QueryBinder's
 * modifyingResults). Reads bind against a catalog view frozen at the start (transactions' tables are
 * lists of immutable batches, so freezing one is keeping its batch list), while the statements still
 * change the live tables.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import type { TableSource } from '../logical/plan.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import { isModifying } from '../sql/bind/query.js';
import type { Catalog } from '../storage/catalog.js';
import { MemoryTable } from '../storage/memory-table.js';
import type { QueryResult } from './database.js';
import { del, insert, update } from './dml-statements.js';
import { result } from './statement-support.js';
import type { UtilityHost } from './utility.js';

export interface ModifyingScope {
  /** The catalog reads bind against: every table as it was when the statement began. */
  readonly reads: Catalog;
  /** RETURNING rows of each data-modifying WITH query that has run, by its query node. */
  readonly results: Map<object, TableSource>;
}

type WithClause = NonNullable<SelectStmt['withClause']>;

/** The statement's own WITH clause, when it holds a data-modifying query; null otherwise. */
export function modifyingCtes(b: { withClause?: unknown }): WithClause | null {
  const w = b.withClause as WithClause | undefined;
  if (w === undefined) return null;
  return (w.ctes ?? []).some((c) => isModifying(nodeBody<AnyNode>(c).ctequery as Node)) ? w : null;
}

/** `live` with each table frozen at its current rows (other objects as they are). */
function frozenCatalog(live: Catalog): Catalog {
  const frozen = new Map<TableSource, TableSource>();
  for (const t of live.tables.values()) if (t instanceof MemoryTable) frozen.set(t, t.cloneForTransaction());
  const view = Object.create(live) as Catalog;
  Object.defineProperty(view, 'getTable', {
    value: (name: string): TableSource | undefined => {
      const t = live.getTable(name);
      return t === undefined ? undefined : (frozen.get(t) ?? t);
    },
  });
  return view;
}

function runDml(host: UtilityHost, stmt: Node, params: readonly unknown[]): Promise<QueryResult> {
  const tag = nodeTag(stmt);
  const b = nodeBody<AnyNode>(stmt);
  if (tag === 'InsertStmt') return insert(host, b, params);
  if (tag === 'UpdateStmt') return update(host, b, params);
  if (tag === 'DeleteStmt') return del(host, b, params);
  throw new QuireError('0A000', `${String(tag).replace(/Stmt$/, '').toUpperCase()} in WITH is not supported`);
}

/**
 * Runs the data-modifying queries of `w`, then `main` (the statement itself) with their results and
 * the statement's snapshot in place.
 */
export async function withModifyingCtes<R>(
  host: UtilityHost,
  w: WithClause,
  params: readonly unknown[],
  main: () => Promise<R>,
  /** Runs one WITH query's statement (EXPLAIN plans or measures it instead). */
  runCte: (stmt: Node, name: string) => Promise<QueryResult> = (stmt) => runDml(host, stmt, params),
): Promise<R> {
  const scope: ModifyingScope = { reads: frozenCatalog(host.catalog), results: new Map() };
  const outer = host.modifyingScope;
  host.modifyingScope = scope;
  try {
    const ctes = w.ctes ?? [];
    for (let i = 0; i < ctes.length; i++) {
      const c = nodeBody<AnyNode>(ctes[i]!);
      const q = c.ctequery as Node;
      if (!isModifying(q)) continue;
      const tag = nodeTag(q)!;
      const body = nodeBody<AnyNode>(q);
      // The WITH queries written before it are in scope (all of them under WITH RECURSIVE), then its own.
      const visible = w.recursive === true ? ctes.filter((_, k) => k !== i) : ctes.slice(0, i);
      const own = body.withClause as WithClause | undefined;
      const ctesFor = [...visible, ...(own?.ctes ?? [])];
      const withClause = ctesFor.length === 0 ? undefined : { ...(own ?? {}), ctes: ctesFor, recursive: w.recursive === true || own?.recursive === true };
      const r = await runCte({ [tag]: { ...body, withClause } } as unknown as Node, c.ctename as string);
      const rows = new MemoryTable(c.ctename as string, r.columns.map((col) => ({ name: col.name, type: col.type })));
      rows.appendRows(r.rows);
      scope.results.set(q, rows);
    }
    return await main();
  } finally {
    host.modifyingScope = outer;
  }
}

/** A SELECT run to its end (the main query of a statement with data-modifying WITH queries). */
export async function runQuery(host: UtilityHost, sel: SelectStmt, params: readonly unknown[]): Promise<QueryResult> {
  const prepared = host.prepareSelect(sel, params);
  const ctx = host.execContext(prepared.paramTypes, params, false);
  const rows = await host.collect(await host.physical(prepared.plan, ctx), ctx);
  return result('SELECT', `SELECT ${rows.length}`, { columns: prepared.columns, rows, rowCount: rows.length });
}
