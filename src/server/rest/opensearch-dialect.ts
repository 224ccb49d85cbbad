/**
 * The catalog statements of OpenSearch's SQL dialect that JDBC/ODBC drivers and BI tools send on the
 * REST port; PostgreSQL's grammar has no such statements, so they are recognised here, before the
 * text reaches it (the PostgreSQL port never sees them):
 *
 *   SHOW TABLES [LIKE pattern]
 *   DESCRIBE TABLES [LIKE pattern] [COLUMNS LIKE pattern]
 *
 * A pattern is a quoted string or a bare word ('calcs', calcs, %, cal_s); `%` matches any run of
 * characters, `_` one character, and a backslash makes the next one literal, as in SQL LIKE.
 * The results have the columns OpenSearch returns (JDBC's DatabaseMetaData.getTables / getColumns
 * layout). TABLE_CAT is the cluster name; ORDINAL_POSITION counts from 0 as OpenSearch's does.
 */
import type { SelectStmt } from '@pgsql/types';
import type { Database } from '../../api/database.js';
import { T, type DataType, type Value } from '../../common/types.js';
import { nodeBody } from '../../sql/ast.js';
import type { ResultSet } from './formats.js';
import { opensearchType } from './formats.js';
import { HttpError } from './errors.js';

export type DialectStatement = { kind: 'show-tables'; tables: string | null } | { kind: 'describe-tables'; tables: string | null; columns: string | null };

const PATTERN = String.raw`('(?:[^']|'')*'|[^\s;']+)`;
const SHOW = new RegExp(String.raw`^\s*show\s+tables(?:\s+like\s+${PATTERN})?\s*;?\s*$`, 'i');
const DESCRIBE = new RegExp(String.raw`^\s*describe\s+tables(?:\s+like\s+${PATTERN})?(?:\s+columns\s+like\s+${PATTERN})?\s*;?\s*$`, 'i');

/** The dialect statement `sql` is, or null for anything else (which goes to PostgreSQL's grammar). */
export function parseDialectStatement(sql: string): DialectStatement | null {
  const show = SHOW.exec(sql);
  if (show) return { kind: 'show-tables', tables: patternText(show[1]) };
  const desc = DESCRIBE.exec(sql);
  if (desc) return { kind: 'describe-tables', tables: patternText(desc[1]), columns: patternText(desc[2]) };
  if (/^\s*(show|describe)\s+tables\b/i.test(sql)) {
    throw new HttpError(400, 'SyntaxCheckException', `cannot parse ${JSON.stringify(sql.trim())}`, 'Write SHOW TABLES LIKE pattern, or DESCRIBE TABLES LIKE pattern [COLUMNS LIKE pattern].');
  }
  return null;
}

function patternText(p: string | undefined): string | null {
  if (p === undefined) return null;
  return p.startsWith("'") ? p.slice(1, -1).replace(/''/g, "'") : p;
}

/** SQL LIKE as a whole-string regular expression. */
export function likeRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]!);
    else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`);
}

const escapeRe = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const TABLE_COLUMNS = ['TABLE_CAT', 'TABLE_SCHEM', 'TABLE_NAME', 'TABLE_TYPE', 'REMARKS', 'TYPE_CAT', 'TYPE_SCHEM', 'TYPE_NAME', 'SELF_REFERENCING_COL_NAME', 'REF_GENERATION'];

const COLUMN_COLUMNS: [string, DataType][] = [
  ['TABLE_CAT', T.text],
  ['TABLE_SCHEM', T.text],
  ['TABLE_NAME', T.text],
  ['COLUMN_NAME', T.text],
  ['DATA_TYPE', T.int4],
  ['TYPE_NAME', T.text],
  ['COLUMN_SIZE', T.int4],
  ['BUFFER_LENGTH', T.int4],
  ['DECIMAL_DIGITS', T.int4],
  ['NUM_PREC_RADIX', T.int4],
  ['NULLABLE', T.int4],
  ['REMARKS', T.text],
  ['COLUMN_DEF', T.text],
  ['SQL_DATA_TYPE', T.int4],
  ['SQL_DATETIME_SUB', T.int4],
  ['CHAR_OCTET_LENGTH', T.int4],
  ['ORDINAL_POSITION', T.int4],
  ['IS_NULLABLE', T.text],
  ['SCOPE_CATALOG', T.text],
  ['SCOPE_SCHEMA', T.text],
  ['SCOPE_TABLE', T.text],
  ['SOURCE_DATA_TYPE', T.int2],
  ['IS_AUTOINCREMENT', T.text],
  ['IS_GENERATEDCOLUMN', T.text],
];

/** Runs a dialect statement against the catalog the REST session sees. */
export function runDialectStatement(db: Database, stmt: DialectStatement, cluster: string): ResultSet {
  const tableRe = stmt.tables === null ? null : likeRegExp(stmt.tables);
  const relations = db.listTables().filter((t) => tableRe === null || tableRe.test(t.name));
  if (stmt.kind === 'show-tables') {
    const rows: Value[][] = relations.map((t) => [cluster, null, t.name, t.kind === 'view' ? 'VIEW' : 'BASE TABLE', null, null, null, null, null, null]);
    return { columns: TABLE_COLUMNS.map((name) => ({ name, type: T.text })), rows, cursor: null };
  }
  const columnRe = stmt.columns === null ? null : likeRegExp(stmt.columns);
  const rows: Value[][] = [];
  for (const t of relations) {
    const cols = relationColumns(db, t.name, t.kind);
    cols.forEach((c, i) => {
      if (columnRe !== null && !columnRe.test(c.name)) return;
      const nullable = c.notNull ? 0 : 1;
      rows.push([cluster, null, t.name, c.name, null, opensearchType(c.type), null, null, null, 10, nullable, null, c.default, null, null, null, i, c.notNull ? 'NO' : 'YES', null, null, null, null, c.serial ? 'YES' : 'NO', 'NO']);
    });
  }
  return { columns: COLUMN_COLUMNS.map(([name, type]) => ({ name, type })), rows, cursor: null };
}

interface ColumnInfo {
  name: string;
  type: DataType;
  notNull: boolean;
  default: string | null;
  serial: boolean;
}

function relationColumns(db: Database, name: string, kind: 'table' | 'view'): ColumnInfo[] {
  if (kind === 'view') {
    const v = db.catalog.views.get(name);
    if (v === undefined) return [];
    try {
      return db.prepareSelect(nodeBody<SelectStmt>(v.query), []).columns.map((c) => ({ name: c.name, type: c.type, notNull: false, default: null, serial: false }));
    } catch {
      // A view whose tables were dropped has no columns to list; the other relations still do.
      return [];
    }
  }
  const t = db.catalog.getTable(name);
  if (t === undefined) return [];
  const described = db.describeRelation(name);
  return t.schema.map((f, i) => {
    const d = described?.kind === 'table' ? described.columns[i] : undefined;
    return { name: f.name, type: f.type, notNull: d?.notNull ?? false, default: d?.default ? d.default : null, serial: d?.default.startsWith('nextval(') ?? false };
  });
}
