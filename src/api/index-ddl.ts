/**
 * CREATE INDEX of a secondary (non-unique) index on a stored table, DROP INDEX of one, and the
 * re-creation of a database directory's indexes when it opens. The table keeps the definition; the
 * entries are built by the first scan that reads through it (physical/index-entries.ts).
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import type { Expr } from '../logical/expr.js';
import type { IndexColumn, IndexDefinition } from '../logical/index-definition.js';
import type { LogicalPlan } from '../logical/plan.js';
import { explainExpr } from '../physical/explain-expr.js';
import { nodeBody, type AnyNode } from '../sql/ast.js';
import { parseStatements } from '../sql/parse.js';
import { MemoryTable } from '../storage/memory-table.js';
import { result } from './statement-support.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';

/** Types without the ordering a B-tree needs (PostgreSQL: no default operator class for btree). */
const UNORDERED = new Set(['json', 'point', 'xml', 'line', 'lseg', 'box', 'path', 'polygon', 'circle']);

/** Access methods whose indexes Quire builds as sorted entries; others are kept by name and build nothing. */
export function sortedAccessMethod(b: AnyNode): boolean {
  const m = (b.accessMethod as string | undefined) ?? 'btree';
  return m === 'btree' || m === 'hash';
}

/** The definition CREATE INDEX `b` describes over `t`, named `name`; errors as PostgreSQL raises them. */
export function indexDefinition(host: UtilityHost, t: MemoryTable, b: AnyNode, name: string, sql: string): IndexDefinition {
  const position = (b.relation as AnyNode | undefined)?.location as number | undefined;
  const columns: IndexColumn[] = [];
  for (const p of (b.indexParams as Node[] | undefined) ?? []) {
    const e = nodeBody<AnyNode>(p);
    const colName = e.name as string | undefined;
    if (colName === undefined) throw new QuireError('0A000', 'CREATE INDEX on an expression is not supported', { hint: 'Index columns by name.' });
    const col = t.schema.findIndex((f) => f.name === colName);
    if (col < 0) throw new QuireError('42703', `column "${colName}" does not exist`);
    if (e.collation !== undefined) throw new QuireError('0A000', 'CREATE INDEX with a COLLATE clause is not supported');
    const type = t.schema[col]!.type;
    if (UNORDERED.has(type.name)) {
      throw new QuireError('42704', `data type ${type.name} has no default operator class for access method "${(b.accessMethod as string | undefined) ?? 'btree'}"`, {
        hint: 'You must specify an operator class for the index or define a default operator class for the data type.',
      });
    }
    const desc = e.ordering === 'SORTBY_DESC';
    const nulls = e.nulls_ordering as string | undefined;
    columns.push({ col, desc, nullsFirst: nulls === 'SORTBY_NULLS_FIRST' ? true : nulls === 'SORTBY_NULLS_LAST' ? false : desc });
  }
  if (columns.length === 0) throw new QuireError('42601', 'CREATE INDEX needs at least one column', { ...(position !== undefined ? { position: position + 1 } : {}) });
  let predicate: Expr | null = null;
  if (b.whereClause !== undefined) predicate = bindPredicate(host, t, b);
  return { name, sql, columns, predicate, predicateText: predicate === null ? null : explainExpr(predicate, t.schema) };
}

/** The WHERE of a partial index, bound over the table's columns as `SELECT … FROM t WHERE …` binds it. */
function bindPredicate(host: UtilityHost, t: MemoryTable, b: AnyNode): Expr {
  const rv = b.relation as AnyNode;
  const stmt = {
    targetList: [{ ResTarget: { val: { A_Const: { ival: { ival: 1 } } } } }],
    fromClause: [{ RangeVar: { ...rv, alias: undefined, inh: false } }],
    whereClause: b.whereClause,
    op: 'SETOP_NONE',
    limitOption: 'LIMIT_OPTION_DEFAULT',
  } as unknown as SelectStmt;
  let found: Expr | null = null;
  const find = (p: LogicalPlan): void => {
    if (p.op === 'filter' && p.input.op === 'scan' && p.input.source === t) found = p.predicate;
    else if ('input' in p && p.input !== undefined) find(p.input as LogicalPlan);
  };
  host.prepareSelect(stmt, [], [], undefined, (bound) => {
    find(bound);
    return bound;
  });
  if (found === null) throw new QuireError('0A000', 'this partial index predicate is not supported', { hint: 'Use comparisons of the table\u2019s columns with constants.' });
  const pred: Expr = found;
  if (hasSubquery(pred)) throw new QuireError('0A000', 'cannot use subquery in index predicate');
  return pred;
}

function hasSubquery(e: Expr): boolean {
  if (e.kind === 'subquery') return true;
  return JSON.stringify(e, (k, v: unknown) => (k === 'overload' ? undefined : v)).includes('"kind":"subquery"');
}

/** CREATE INDEX of a non-unique index on a stored table, once the name is free (`name` chosen or written). */
export function createSecondaryIndex(host: UtilityHost, t: MemoryTable, b: AnyNode, name: string, sql: string): QueryResult {
  const def = indexDefinition(host, t, b, name, sql);
  t.indexes = [...t.indexes, def];
  return result('CREATE INDEX', 'CREATE INDEX');
}

/**
 * CREATE INDEX USING gist, gin, brin or spgist: kept by name (so the name is taken, DROP INDEX finds
 * it and a database directory keeps it) with no key columns, so no scan ever reads through it; the
 * results are the same with or without such an index.
 */
export function createInertIndex(t: MemoryTable, name: string, sql: string): QueryResult {
  t.indexes = [...t.indexes, inertIndex(name, sql)];
  return result('CREATE INDEX', 'CREATE INDEX');
}

function inertIndex(name: string, sql: string): IndexDefinition {
  return { name, sql, columns: [], predicate: null, predicateText: null };
}

/** DROP INDEX of a secondary index: true when `name` named one (and it is gone). */
export function dropSecondaryIndex(host: UtilityHost, name: string): boolean {
  for (const t of host.catalog.tables.values()) {
    if (!(t instanceof MemoryTable) || !t.indexes.some((d) => d.name === name)) continue;
    t.indexes = t.indexes.filter((d) => d.name !== name);
    return true;
  }
  return false;
}

/** Secondary index names of every stored table (a new relation's name must differ from them). */
export function secondaryIndexNames(host: UtilityHost): string[] {
  const out: string[] = [];
  for (const t of host.catalog.tables.values()) if (t instanceof MemoryTable) for (const d of t.indexes) out.push(d.name);
  return out;
}

/** Builds again the definitions a database directory holds, once its tables are loaded (the entries follow on first use). */
export function restoreSecondaryIndexes(host: UtilityHost): void {
  for (const t of host.catalog.tables.values()) {
    if (!(t instanceof MemoryTable) || t.restoreIndexes.length === 0) continue;
    const defs: IndexDefinition[] = [];
    for (const r of t.restoreIndexes) {
      const parsed = parseStatements(r.sql);
      const stmt = parsed.length === 1 ? nodeBody<AnyNode>(parsed[0]!.stmt) : null;
      if (stmt === null || stmt.indexParams === undefined) throw new QuireError('XX001', `index "${r.name}" of table "${t.name}" in the database directory is not a CREATE INDEX statement`);
      defs.push(sortedAccessMethod(stmt) ? indexDefinition(host, t, stmt, r.name, r.sql) : inertIndex(r.name, r.sql));
    }
    t.indexes = defs;
    t.restoreIndexes = [];
  }
}
