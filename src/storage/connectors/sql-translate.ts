/**
 * Bound expressions back to PostgreSQL SQL, for pushing filters and sort keys to a remote server.
 * Only a subset whose meaning is the same on both sides is translated: columns, constants,
 * comparisons, AND/OR/NOT, IS [NOT] NULL, IS [NOT] DISTINCT FROM, IN lists, boolean tests and
 * casts between the basic types. Anything else returns null and stays local.
 *
 * Text ordering: Quire compares strings by code point; the remote side may use a linguistic
 * collation, so ordering comparisons and sort keys on text get COLLATE "C" (byte order of UTF-8,
 * i.e. code point order) to give the same answer.
 */
import { formatValue } from '../../common/format-value.js';
import { typeDisplayName, type DataType, type Value } from '../../common/types.js';
import type { Expr, SortKey } from '../../logical/expr.js';

export function quoteIdent(s: string): string {
  return '"' + s.replace(/"/g, '""') + '"';
}

export function quoteLiteral(s: string): string {
  // standard_conforming_strings is on (forced at connect), so only quotes need doubling.
  return "'" + s.replace(/'/g, "''") + "'";
}

const BASIC = new Set(['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'varchar', 'bpchar', 'date', 'timestamp', 'timestamptz', 'interval']);
const TEXTUAL = new Set(['text', 'varchar', 'bpchar']);

export function literal(v: Value, t: DataType): string | null {
  if (v === null) return `NULL::${typeDisplayName(t)}`;
  if (!BASIC.has(t.name)) return null;
  if (t.name === 'bool') return v ? 'TRUE' : 'FALSE';
  if ((t.name === 'int4' || t.name === 'int2') && typeof v === 'number') return v < 0 ? `(${v})` : String(v);
  const s = formatValue(v, t, { timezone: 'UTC' });
  if (s === null) return null;
  return `${quoteLiteral(s)}::${typeDisplayName(t)}`;
}

/** `column(i)` gives the remote SQL for input column i, or null when it cannot be referenced remotely. */
export type ColumnSql = (index: number) => string | null;

export function exprToSql(e: Expr, col: ColumnSql): string | null {
  const go = (x: Expr): string | null => exprToSql(x, col);
  switch (e.kind) {
    case 'column':
      return col(e.index);
    case 'const':
      return literal(e.value, e.type);
    case 'compare': {
      const l = go(e.left);
      const r = go(e.right);
      if (l === null || r === null) return null;
      const collate = e.op !== '=' && e.op !== '<>' && TEXTUAL.has(e.left.type.name) ? ' COLLATE "C"' : '';
      return `(${l}${collate} ${e.op} ${r})`;
    }
    case 'and':
    case 'or': {
      const parts = e.args.map(go);
      if (parts.some((p) => p === null)) return null;
      return `(${parts.join(e.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'not': {
      const a = go(e.arg);
      return a === null ? null : `(NOT ${a})`;
    }
    case 'is-null': {
      const a = go(e.arg);
      return a === null ? null : `(${a} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    }
    case 'distinct-from': {
      const l = go(e.left);
      const r = go(e.right);
      return l === null || r === null ? null : `(${l} IS ${e.negated ? 'NOT ' : ''}DISTINCT FROM ${r})`;
    }
    case 'bool-test': {
      const a = go(e.arg);
      return a === null ? null : `(${a} IS ${e.negated ? 'NOT ' : ''}${e.test.toUpperCase()})`;
    }
    case 'in-list': {
      const a = go(e.arg);
      const items = e.list.map(go);
      if (a === null || items.some((p) => p === null)) return null;
      return `(${a} ${e.negated ? 'NOT ' : ''}IN (${items.join(', ')}))`;
    }
    case 'cast': {
      // An untyped literal cast to a type ('99.5' compared with a numeric column): the same literal there.
      if (e.arg.kind === 'const' && e.arg.type.name === 'unknown' && typeof e.arg.value === 'string' && BASIC.has(e.type.name)) {
        return `${quoteLiteral(e.arg.value)}::${typeDisplayName(e.type)}`;
      }
      if (!BASIC.has(e.type.name) || !BASIC.has(e.arg.type.name)) return null;
      const a = go(e.arg);
      return a === null ? null : `CAST(${a} AS ${typeDisplayName(e.type)})`;
    }
    default:
      return null;
  }
}

export function sortKeyToSql(k: SortKey, col: ColumnSql): string | null {
  const s = exprToSql(k.expr, col);
  if (s === null) return null;
  const collate = TEXTUAL.has(k.expr.type.name) ? ' COLLATE "C"' : '';
  return `${s}${collate} ${k.desc ? 'DESC' : 'ASC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`;
}


