/**
 * pg_constraint's rows and pg_get_constraintdef's text for the tables' PRIMARY KEY, UNIQUE and
 * FOREIGN KEY constraints, so clients (psql's \d, drivers' schema readers) find them as in PostgreSQL.
 */
import type { Value } from '../../common/types.js';
import { quoteIdent } from '../../functions/scalar/support/quote.js';
import { actionName, foreignKeyDef, type ForeignKey } from '../../storage/foreign-key.js';
import { isTempTableKey, tempTableKey, type Catalog } from '../../storage/catalog.js';
import { MemoryTable } from '../../storage/memory-table.js';
import { indexKey } from './indexes.js';

export interface ConstraintRow {
  oid: number;
  name: string;
  type: 'p' | 'u' | 'f';
  table: MemoryTable;
  tableOid: number;
  cols: readonly number[];
  /** Foreign keys: the referenced table (absent when it is gone) and the key itself. */
  parent?: MemoryTable;
  parentOid?: number;
  fk?: ForeignKey;
  /** PRIMARY KEY and UNIQUE: the index that enforces it (pg_constraint.conindid). */
  indexOid?: number;
}

/** The constraints of the tables a session sees (its own TEMP tables, the shared ones). */
export function constraintRows(catalog: Catalog, sessionId: number, oidOf: (key: string) => number): ConstraintRow[] {
  const out: ConstraintRow[] = [];
  const mine = tempTableKey(sessionId, '');
  const byName = new Map<string, [string, MemoryTable]>();
  for (const [key, t] of catalog.tables) {
    if (!(t instanceof MemoryTable) || (isTempTableKey(key) && !key.startsWith(mine))) continue;
    if (!byName.has(t.name) || isTempTableKey(key)) byName.set(t.name, [key, t]);
  }
  for (const [key, t] of byName.values()) {
    const tableOid = oidOf(key);
    t.uniqueKeys.forEach((cols, i) => {
      const name = t.uniqueNames[i] ?? `${t.name}_pkey`;
      if (t.indexKeyNames.includes(name)) return;
      out.push({ oid: oidOf(`constraint ${key} ${name}`), name, type: i === 0 && t.primaryKey ? 'p' : 'u', table: t, tableOid, cols, indexOid: oidOf(indexKey(key, name)) });
    });
    for (const fk of t.foreignKeys) {
      const p = byName.get(fk.parent);
      out.push({ oid: oidOf(`constraint ${key} ${fk.name}`), name: fk.name, type: 'f', table: t, tableOid, cols: fk.cols, fk, ...(p !== undefined ? { parent: p[1], parentOid: oidOf(p[0]) } : {}) });
    }
  }
  return out.sort((a, b) => a.oid - b.oid);
}

/** An int2[] column's text, as PostgreSQL prints conkey: 1-based column numbers. */
export function columnNumbers(cols: readonly number[]): string {
  return `{${cols.map((c) => c + 1).join(',')}}`;
}

/** pg_get_constraintdef: `PRIMARY KEY (id)`, `UNIQUE (a, b)`, `FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE`. */
export function constraintDef(c: ConstraintRow): string {
  const list = (cols: readonly number[]): string => cols.map((i) => quoteIdent(c.table.schema[i]!.name)).join(', ');
  if (c.type === 'p') return `PRIMARY KEY (${list(c.cols)})`;
  if (c.type === 'u') return `UNIQUE (${list(c.cols)})`;
  const names = (t: MemoryTable): string[] => t.schema.map((f) => f.name);
  return foreignKeyDef(c.fk!, names(c.table), c.parent !== undefined ? names(c.parent) : null, quoteIdent);
}

/** pg_constraint's columns, in catalog.ts's column notation. */
export const PG_CONSTRAINT_COLS: [string, 'int4' | 'text' | 'bool'][] = [
  ['oid', 'int4'], ['conname', 'text'], ['connamespace', 'int4'], ['contype', 'text'], ['condeferrable', 'bool'], ['condeferred', 'bool'], ['convalidated', 'bool'],
  ['conrelid', 'int4'], ['contypid', 'int4'], ['conindid', 'int4'], ['conparentid', 'int4'], ['confrelid', 'int4'], ['confupdtype', 'text'], ['confdeltype', 'text'],
  ['confmatchtype', 'text'], ['conislocal', 'bool'], ['coninhcount', 'int4'], ['connoinherit', 'bool'], ['conkey', 'text'], ['confkey', 'text'], ['conbin', 'text'],
];

export function pgConstraintRow(c: ConstraintRow, namespace: number): Value[] {
  const fk = c.fk;
  return [
    c.oid, c.name, namespace, c.type, false, false, true, c.tableOid, 0, c.indexOid ?? 0, 0, c.parentOid ?? 0,
    fk !== undefined ? fk.onUpdate : ' ', fk !== undefined ? fk.onDelete : ' ', fk !== undefined ? fk.match : ' ', true, 0, true,
    columnNumbers(c.cols), fk !== undefined ? columnNumbers(fk.parentCols) : null, null,
  ];
}

const CONSTRAINT_TYPE = { p: 'PRIMARY KEY', u: 'UNIQUE', f: 'FOREIGN KEY' } as const;

/** The referenced unique constraint's name and column order (key_column_usage.position_in_unique_constraint). */
function referencedKey(c: ConstraintRow): { name: string; cols: readonly number[] } | null {
  const p = c.parent;
  const fk = c.fk;
  if (p === undefined || fk === undefined) return null;
  const k = p.uniqueKeys.findIndex((key) => key.length === fk.parentCols.length && key.every((x) => fk.parentCols.includes(x)));
  return k < 0 ? null : { name: p.uniqueNames[k] ?? `${p.name}_pkey`, cols: p.uniqueKeys[k]! };
}

/** information_schema.table_constraints, referential_constraints and key_column_usage rows. */
export function informationSchemaRows(rows: readonly ConstraintRow[], database: string): { tableConstraints: Value[][]; referential: Value[][]; keyColumns: Value[][] } {
  const tableConstraints: Value[][] = [];
  const referential: Value[][] = [];
  const keyColumns: Value[][] = [];
  for (const c of rows) {
    tableConstraints.push([database, 'public', c.name, database, 'public', c.table.name, CONSTRAINT_TYPE[c.type], 'NO', 'NO', 'YES', c.type === 'f' ? null : 'YES']);
    const ref = referencedKey(c);
    c.cols.forEach((col, i) => {
      const inUnique = ref !== null ? ref.cols.indexOf(c.fk!.parentCols[i]!) + 1 : null;
      keyColumns.push([database, 'public', c.name, database, 'public', c.table.name, c.table.schema[col]!.name, i + 1, c.type === 'f' ? inUnique : null]);
    });
    if (c.fk !== undefined) {
      referential.push([database, 'public', c.name, ref !== null ? database : null, ref !== null ? 'public' : null, ref?.name ?? null, c.fk.match === 'f' ? 'FULL' : 'NONE', actionName(c.fk.onUpdate), actionName(c.fk.onDelete)]);
    }
  }
  return { tableConstraints, referential, keyColumns };
}
