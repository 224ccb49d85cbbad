/**
 * pg_index's and pg_indexes' rows, and pg_get_indexdef's text, for the indexes of the tables a session
 * sees: each PRIMARY KEY and UNIQUE constraint's index, each CREATE UNIQUE INDEX, and each secondary
 * index (B-tree or hash entries, or a gist/gin/brin/spgist index kept by name). psql's \d lists them
 * under "Indexes:" from these, \di lists them, and drivers' metadata calls read them.
 */
import type { Node } from '@pgsql/types';
import type { Value } from '../../common/types.js';
import { quoteIdent } from '../../functions/scalar/support/quote.js';
import { nodeBody, type AnyNode } from '../../sql/ast.js';
import { parseStatements } from '../../sql/parse.js';
import { isTempTableKey, tempTableKey, type Catalog } from '../../storage/catalog.js';
import { MemoryTable } from '../../storage/memory-table.js';

export interface IndexRow {
  oid: number;
  name: string;
  table: MemoryTable;
  tableOid: number;
  /** Key columns (0-based); -1 for an expression. */
  cols: readonly number[];
  unique: boolean;
  primary: boolean;
  method: string;
  /** pg_get_indexdef's text: `CREATE [UNIQUE] INDEX name ON public.t USING btree (a, b DESC)`. */
  def: string;
  /** The table's relpersistence ('t' for a TEMP table), which its indexes share. */
  persistence: 'p' | 't';
}

/** pg_am's OIDs of the access methods, as PostgreSQL numbers them. */
export const ACCESS_METHODS: Record<string, number> = { btree: 403, hash: 405, gist: 783, gin: 2742, spgist: 4000, brin: 3580 };

/** The OID key of a table's index, shared by pg_class, pg_index and pg_constraint.conindid. */
export function indexKey(tableKey: string, name: string): string {
  return `index ${tableKey} ${name}`;
}

export function indexRows(catalog: Catalog, sessionId: number, oidOf: (key: string) => number): IndexRow[] {
  const out: IndexRow[] = [];
  const mine = tempTableKey(sessionId, '');
  for (const [key, t] of catalog.tables) {
    if (!(t instanceof MemoryTable) || (isTempTableKey(key) && !key.startsWith(mine))) continue;
    const tableOid = oidOf(key);
    const persistence = isTempTableKey(key) ? 't' : 'p';
    const on = `ON ${isTempTableKey(key) ? '' : 'public.'}${quoteIdent(t.name)}`;
    const list = (cols: readonly number[]): string => cols.map((c) => quoteIdent(t.schema[c]!.name)).join(', ');
    t.uniqueKeys.forEach((cols, i) => {
      const name = t.uniqueNames[i] ?? `${t.name}_pkey`;
      out.push({ oid: oidOf(indexKey(key, name)), name, table: t, tableOid, cols, unique: true, primary: i === 0 && t.primaryKey, method: 'btree', def: `CREATE UNIQUE INDEX ${quoteIdent(name)} ${on} USING btree (${list(cols)})`, persistence });
    });
    for (const d of t.indexes) {
      const written = writtenIndex(d.sql);
      const method = written?.method ?? 'btree';
      let cols: number[];
      let keys: string;
      if (d.columns.length > 0) {
        cols = d.columns.map((c) => c.col);
        keys = d.columns.map((c) => `${quoteIdent(t.schema[c.col]!.name)}${c.desc ? ' DESC' : ''}${c.nullsFirst !== c.desc ? (c.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST') : ''}`).join(', ');
      } else {
        cols = (written?.columns ?? []).map((n) => (n === null ? -1 : t.schema.findIndex((f) => f.name === n)));
        keys = written?.keysText ?? '';
      }
      const where = d.predicateText !== null ? ` WHERE ${d.predicateText.startsWith('(') ? d.predicateText : `(${d.predicateText})`}` : '';
      out.push({ oid: oidOf(indexKey(key, d.name)), name: d.name, table: t, tableOid, cols, unique: false, primary: false, method, def: `CREATE INDEX ${quoteIdent(d.name)} ${on} USING ${method} (${keys})${where}`, persistence });
    }
  }
  return out.sort((a, b) => a.oid - b.oid);
}

/** The access method and key columns of a CREATE INDEX as written (null names an expression). */
function writtenIndex(sql: string): { method: string; columns: (string | null)[]; keysText: string } | null {
  try {
    const parsed = parseStatements(sql);
    const stmt = parsed.length === 1 ? nodeBody<AnyNode>(parsed[0]!.stmt) : null;
    if (stmt === null || stmt.indexParams === undefined) return null;
    const params = (stmt.indexParams as Node[]).map((p) => nodeBody<AnyNode>(p));
    const columns = params.map((p) => (p.name as string | undefined) ?? null);
    return { method: (stmt.accessMethod as string | undefined) ?? 'btree', columns, keysText: columns.map((c) => (c === null ? 'expr' : quoteIdent(c))).join(', ') };
  } catch {
    return null;
  }
}

/** pg_index's columns, in catalog.ts's column notation. */
export const PG_INDEX_COLS: [string, 'int4' | 'int2' | 'bool' | 'text'][] = [
  ['indexrelid', 'int4'], ['indrelid', 'int4'], ['indnatts', 'int2'], ['indnkeyatts', 'int2'], ['indisunique', 'bool'], ['indisprimary', 'bool'], ['indisexclusion', 'bool'],
  ['indimmediate', 'bool'], ['indisclustered', 'bool'], ['indisvalid', 'bool'], ['indcheckxmin', 'bool'], ['indisready', 'bool'], ['indislive', 'bool'], ['indisreplident', 'bool'],
  ['indkey', 'text'], ['indcollation', 'text'], ['indclass', 'text'], ['indoption', 'text'], ['indexprs', 'text'], ['indpred', 'text'],
];

export function pgIndexRow(i: IndexRow): Value[] {
  // indkey is an int2vector: 1-based column numbers separated by spaces, 0 for an expression.
  const indkey = i.cols.map((c) => c + 1).join(' ');
  return [i.oid, i.tableOid, i.cols.length, i.cols.length, i.unique, i.primary, false, true, false, true, false, true, true, false, indkey, null, null, null, null, null];
}

/** pg_get_indexdef(oid, column, pretty): the whole definition for column 0, else that key column's text. */
export function indexDefColumn(i: IndexRow, column: number): string | null {
  if (column === 0) return i.def;
  const c = i.cols[column - 1];
  if (c === undefined) return null;
  return c < 0 ? null : i.table.schema[c]!.name;
}
