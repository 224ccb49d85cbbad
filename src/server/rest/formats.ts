/**
 * Response formats of the OpenSearch SQL endpoint (docs/user/interfaces/protocol.rst there):
 *   jdbc (default)  {schema: [{name, alias?, type}], datarows, total, size, status[, cursor]}
 *   json            a search response: {took, timed_out, _shards, hits: {total: {value, relation},
 *                   max_score, hits: [{_index?, _score, _source: {column: value}}]}[, cursor]}
 *   csv             header line + RFC 4180 rows; cells starting with = + - @ are prefixed with ' unless
 *                   sanitize=false (OpenSearch's default, against formula injection in spreadsheets)
 *   raw             '|' separated; a cell holding '|' or '"' is quoted with '"' (inner quotes doubled)
 * A column is named by its select item as written, with `alias` when one was given (column-names.ts);
 * csv and raw headers and json's _source keys use the alias when there is one, as OpenSearch does.
 * `total` and `size` are both the number of rows in this response (documented in the README:
 * paged responses do not count the whole result; opensearch-project/sql#1649).
 */
import { formatValue } from '../../common/format-value.js';
import { elementType, isArrayType, type ArrayValue, type DataType, type Value } from '../../common/types.js';
import { Numeric } from '../../common/numeric.js';
import { yieldTurn } from '../../index.js';

export type RestFormat = 'jdbc' | 'json' | 'csv' | 'raw';
export const REST_FORMATS: readonly RestFormat[] = ['jdbc', 'json', 'csv', 'raw'];

export interface ResultSet {
  columns: readonly { name: string; type: DataType; alias?: string }[];
  rows: readonly (readonly Value[])[];
  cursor: string | null;
  warning?: string;
}

/** OpenSearch's type names for the jdbc schema (keyword for strings, as OpenSearch maps text fields). */
export function opensearchType(t: DataType): string {
  // OpenSearch fields hold arrays of their mapped type: the schema names the element type.
  if (isArrayType(t)) return opensearchType(elementType(t));
  switch (t.name) {
    case 'bool':
      return 'boolean';
    case 'int2':
      return 'short';
    case 'int4':
      return 'integer';
    case 'int8':
    case 'oid':
      return 'long';
    case 'bytea':
      return 'binary';
    case 'float4':
      return 'float';
    case 'float8':
    case 'numeric':
      return 'double';
    case 'date':
      return 'date';
    case 'timestamp':
    case 'timestamptz':
      return 'timestamp';
    case 'interval':
      return 'interval';
    case 'time':
    case 'timetz':
      return 'time';
    default:
      return 'keyword';
  }
}

/**
 * One value as JSON: numbers stay numbers when JSON can carry them exactly; int8 beyond 2^53,
 * NaN/Infinity and exact numerics that a double would round become strings (a client reading a
 * wrong number would not notice, a string it would).
 */
export function jsonValue(v: Value, t: DataType, timezone: string): unknown {
  if (v === null) return null;
  if (isArrayType(t)) {
    const et = elementType(t);
    return (v as ArrayValue).map((e) => jsonValue(e, et, timezone));
  }
  switch (t.name) {
    case 'bool':
      return v;
    case 'int2':
    case 'int4':
    case 'oid':
      return v;
    case 'int8':
      return typeof v === 'bigint' ? v.toString() : v;
    case 'float4':
    case 'float8':
      return Number.isFinite(v as number) ? v : formatValue(v, t);
    case 'numeric': {
      const s = v instanceof Numeric ? v.toString() : formatValue(v, t)!;
      const n = Number(s);
      return Number.isFinite(n) && String(n) === s ? n : s;
    }
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'name':
    case 'unknown':
      return v;
    default:
      return formatValue(v, t, { timezone });
  }
}

export function jdbcBody(r: ResultSet, timezone: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    schema: r.columns.map((c) => (c.alias !== undefined ? { name: c.name, alias: c.alias, type: opensearchType(c.type) } : { name: c.name, type: opensearchType(c.type) })),
    datarows: r.rows.map((row) => row.map((v, i) => jsonValue(v, r.columns[i]!.type, timezone))),
    total: r.rows.length,
    size: r.rows.length,
    status: 200,
  };
  if (r.cursor !== null) body.cursor = r.cursor;
  if (r.warning !== undefined) body.warning = r.warning;
  return body;
}

/** Rows serialized between two yields of the event loop. */
const ROWS_PER_SLICE = 2000;
const ROWS_MARK = '\u0000rows';

/**
 * The JSON text of `body`, whose array `holder[key]` has `n` items made by `item`: a large result
 * would otherwise be converted and stringified in one piece (a second or more for 100k rows), holding
 * every other client's request meanwhile. Small results take the one-piece path.
 */
async function sliced(body: object, holder: Record<string, unknown>, key: string, n: number, item: (i: number) => unknown): Promise<string> {
  if (n <= ROWS_PER_SLICE) {
    holder[key] = Array.from({ length: n }, (_, i) => item(i));
    return JSON.stringify(body);
  }
  holder[key] = ROWS_MARK;
  const [head, tail] = JSON.stringify(body).split(JSON.stringify(ROWS_MARK)) as [string, string];
  const parts: string[] = [head, '['];
  for (let s = 0; s < n; s += ROWS_PER_SLICE) {
    const slice: unknown[] = [];
    for (let i = s; i < Math.min(n, s + ROWS_PER_SLICE); i++) slice.push(item(i));
    if (s > 0) parts.push(',');
    parts.push(JSON.stringify(slice).slice(1, -1));
    await yieldTurn();
  }
  parts.push(']', tail);
  return parts.join('');
}

/** jdbcBody as JSON text, built in slices. */
export function jdbcText(r: ResultSet, timezone: string): Promise<string> {
  const body = jdbcBody({ ...r, rows: [] }, timezone);
  body.total = body.size = r.rows.length;
  return sliced(body, body, 'datarows', r.rows.length, (i) => r.rows[i]!.map((v, c) => jsonValue(v, r.columns[c]!.type, timezone)));
}

/** jsonBody as JSON text, built in slices. */
export function jsonText(r: ResultSet, timezone: string, info: { tookMs: number; index: string | null }): Promise<string> {
  const body = jsonBody({ ...r, rows: [] }, timezone, info);
  const hits = body.hits as Record<string, unknown>;
  hits.total = { value: r.rows.length, relation: 'eq' };
  const keys = r.columns.map(label);
  return sliced(body, hits, 'hits', r.rows.length, (i) => {
    const source = Object.fromEntries(r.rows[i]!.map((v, c) => [keys[c]!, jsonValue(v, r.columns[c]!.type, timezone)]));
    return info.index !== null ? { _index: info.index, _score: null, _source: source } : { _score: null, _source: source };
  });
}

const label = (c: ResultSet['columns'][number]): string => c.alias ?? c.name;

/** `index`: the one table the query reads, when it reads one (OpenSearch's index of each hit). */
export function jsonBody(r: ResultSet, timezone: string, info: { tookMs: number; index: string | null }): Record<string, unknown> {
  const keys = r.columns.map(label);
  const hits = r.rows.map((row) => {
    const source = Object.fromEntries(row.map((v, i) => [keys[i]!, jsonValue(v, r.columns[i]!.type, timezone)]));
    return info.index !== null ? { _index: info.index, _score: null, _source: source } : { _score: null, _source: source };
  });
  const body: Record<string, unknown> = {
    took: Math.round(info.tookMs),
    timed_out: false,
    _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
    hits: { total: { value: r.rows.length, relation: 'eq' }, max_score: null, hits },
  };
  if (r.cursor !== null) body.cursor = r.cursor;
  if (r.warning !== undefined) body.warning = r.warning;
  return body;
}

function textCell(v: Value, t: DataType, timezone: string): string {
  if (v === null) return '';
  if (t.name === 'bool') return v ? 'true' : 'false';
  return formatValue(v, t, { timezone }) ?? '';
}

export function csvText(r: ResultSet, timezone: string, sanitize: boolean): string {
  // Only strings are sanitized: a negative number is data, not a formula.
  const isText = r.columns.map((c) => opensearchType(c.type) === 'keyword');
  const cell = (s: string, text: boolean): string => {
    let x = s;
    if (sanitize && text && /^[=+\-@]/.test(x)) x = `'${x}`;
    return /[",\r\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x;
  };
  const lines = [r.columns.map((c) => cell(label(c), true)).join(',')];
  for (const row of r.rows) lines.push(row.map((v, i) => cell(textCell(v, r.columns[i]!.type, timezone), isText[i]!)).join(','));
  return lines.join('\n');
}

export function rawText(r: ResultSet, timezone: string): string {
  const cell = (x: string): string => (/[|"]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x);
  const lines = [r.columns.map((c) => cell(label(c))).join('|')];
  for (const row of r.rows) lines.push(row.map((v, i) => cell(textCell(v, r.columns[i]!.type, timezone))).join('|'));
  return lines.join('\n');
}
