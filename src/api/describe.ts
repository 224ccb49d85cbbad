/**
 * DuckDB's DESCRIBE and SUMMARIZE of a table, a view, a file or a query. Neither is PostgreSQL
 * grammar, so the statement is recognised before parsing. DESCRIBE answers from the bound columns
 * (and, for a table, its NOT NULL, key and default metadata); SUMMARIZE runs one aggregate query
 * per column over the source, with exact counts and quantiles where DuckDB approximates them.
 */
import { typeDisplayName, type DataType, type Value } from '../common/types.js';
import type { MemoryTable } from '../storage/memory-table.js';

export interface InspectCommand {
  readonly kind: 'DESCRIBE' | 'SUMMARIZE';
  /** A SELECT over the source: `SELECT * FROM name` or the query as written. */
  readonly query: string;
  /** The relation's name when the source is one (for its key and NOT NULL metadata). */
  readonly relation: string | null;
  /** Add to a position in `query` to get the position in the statement as written. */
  readonly shift: number;
}

const COMMAND = /^\s*(describe|summarize)\s+([\s\S]*?)\s*;?\s*$/i;
const QUERY_START = /^(select|with|values|from|table|\()/i;
const IDENTIFIER = /^(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")(?:\.(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+"))?$/i;

/** The command when `sql` is one DESCRIBE or SUMMARIZE statement; null otherwise. */
export function inspectCommand(sql: string): InspectCommand | null {
  const m = COMMAND.exec(sql);
  if (m === null || m[2] === '') return null;
  const kind = m[1]!.toUpperCase() as InspectCommand['kind'];
  const source = m[2]!;
  const at = m.index + m[0].indexOf(source, m[1]!.length);
  const over = (prefix: string, relation: string | null): InspectCommand => ({ kind, query: prefix + source, relation, shift: at - prefix.length });
  if (QUERY_START.test(source)) return over(/^from/i.test(source) ? 'SELECT * ' : '', null);
  // A quoted file name reads the file (FROM 'x.csv' is rewritten when parsed).
  if (/^'(?:[^']|'')*'$/.test(source)) return over('SELECT * FROM ', null);
  if (!IDENTIFIER.test(source)) return null;
  return over('SELECT * FROM ', source.startsWith('"') ? source.slice(1, -1).replace(/""/g, '"') : source.toLowerCase());
}

export const DESCRIBE_COLUMNS = ['column_name', 'column_type', 'null', 'key', 'default', 'extra'] as const;

/** DESCRIBE's rows for a source with these columns (`table`: its metadata, when it is a table). */
export function describeRows(columns: readonly { name: string; type: DataType }[], table: MemoryTable | null): Value[][] {
  return columns.map((c, i) => {
    const meta = table?.meta[i];
    const keys = table?.uniqueKeys.filter((k) => k.includes(i)) ?? [];
    const key = keys.length === 0 ? null : meta?.notNull && keys.some((k) => k.length === 1 && keys.indexOf(k) === 0) ? 'PRI' : 'UNI';
    return [c.name, typeDisplayName(c.type), meta?.notNull ? 'NO' : 'YES', key, null, null];
  });
}

const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** SUMMARIZE as one SQL query: a row per column of the source. */
export function summarizeSql(query: string, columns: readonly { name: string; type: DataType }[]): string {
  const parts = columns.map((c) => {
    const col = quoteIdent(c.name);
    const numeric = NUMERIC.has(c.type.name);
    // json has no ordering or equality: its min, max and distinct count stay NULL.
    const comparable = c.type.name !== 'json';
    // PostgreSQL has no min/max of boolean: bool_and and bool_or are the same thing.
    const minMax = (f: 'min' | 'max'): string =>
      !comparable ? 'NULL::text' : c.type.name === 'bool' ? `${f === 'min' ? 'bool_and' : 'bool_or'}(${col})::text` : `${f}(${col})::text`;
    const q = (f: number): string => (numeric ? `(percentile_disc(${f}) WITHIN GROUP (ORDER BY ${col}))::text` : 'NULL::text');
    return (
      `SELECT ${literal(c.name)} AS column_name, ${literal(typeDisplayName(c.type))} AS column_type, ` +
      `${minMax('min')} AS min, ${minMax('max')} AS max, ${comparable ? `count(DISTINCT ${col})` : 'NULL::int8'} AS approx_unique, ` +
      `${numeric ? `avg(${col})::text` : 'NULL::text'} AS avg, ${numeric ? `stddev_samp(${col})::text` : 'NULL::text'} AS std, ` +
      `${q(0.25)} AS q25, ${q(0.5)} AS q50, ${q(0.75)} AS q75, count(*) AS count, ` +
      `round(100.0 * (count(*) - count(${col})) / nullif(count(*), 0), 2)::numeric(9,2) AS null_percentage ` +
      `FROM (${query}) AS summarized`
    );
  });
  return parts.join(' UNION ALL ');
}
