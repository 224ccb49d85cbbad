/** Renders expressions for EXPLAIN: one walker over expression kinds, with the style of each text plugged in. */
import { formatValue } from '../common/format-value.js';
import type { Schema } from '../common/types.js';
import { typeDisplayName } from '../common/types.js';
import type { Expr, SortKey } from '../logical/expr.js';

const INFIX = new Set(['+', '-', '*', '/', '%', '^', '||', '~~', '!~~', '~~*', '!~~*', '~', '~*', '!~', '!~*', '&', '|', '#', '<<', '>>']);
/** Prefix operators are registered under their own spelling with one argument ('~' is also binary). */
const PREFIX = new Set(['~', '@', '|/', '||/']);

/**
 * What differs between EXPLAIN's two texts (FORMAT QUIRE and PostgreSQL's): how column references,
 * outer references, constants, casts, comparisons, IN lists and subqueries print. Everything else prints alike.
 */
export interface ExprStyle {
  column(e: Expr & { kind: 'column' }): string;
  /** A column of an enclosing query's row. */
  outer(e: Expr & { kind: 'outer' }): string;
  constant(e: Expr & { kind: 'const' }): string;
  cast(e: Expr & { kind: 'cast' }, r: (x: Expr) => string): string;
  compare(e: Expr & { kind: 'compare' }, r: (x: Expr) => string): string;
  inList(e: Expr & { kind: 'in-list' }, r: (x: Expr) => string): string;
  subquery(e: Expr & { kind: 'subquery' }, r: (x: Expr) => string): string;
}

export function renderExpr(e: Expr, style: ExprStyle): string {
  const r = (x: Expr): string => renderExpr(x, style);
  switch (e.kind) {
    case 'column':
      return style.column(e);
    case 'outer':
      return style.outer(e);
    case 'const':
      return style.constant(e);
    case 'param':
      return `$${e.index + 1}`;
    case 'cast':
      return e.assignment === true ? r(e.arg) : style.cast(e, r);
    case 'call':
      if (INFIX.has(e.name) && e.args.length === 2) return `(${r(e.args[0]!)} ${e.name} ${r(e.args[1]!)})`;
      if (e.name === 'neg') return `(- ${r(e.args[0]!)})`;
      if (PREFIX.has(e.name) && e.args.length === 1) return `(${e.name} ${r(e.args[0]!)})`;
      return `${e.name}(${e.args.map(r).join(', ')})`;
    case 'and':
    case 'or':
      return `(${e.args.map(r).join(e.kind === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      return `(NOT ${r(e.arg)})`;
    case 'compare':
      return style.compare(e, r);
    case 'distinct-from':
      return `(${r(e.left)} IS ${e.negated ? 'NOT ' : ''}DISTINCT FROM ${r(e.right)})`;
    case 'is-null':
      return `(${r(e.arg)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    case 'bool-test':
      return `(${r(e.arg)} IS ${e.negated ? 'NOT ' : ''}${e.test.toUpperCase()})`;
    case 'case':
      return `CASE ${e.whens.map((w) => `WHEN ${r(w.when)} THEN ${r(w.then)}`).join(' ')} ELSE ${r(e.else)} END`;
    case 'coalesce':
      return `COALESCE(${e.args.map(r).join(', ')})`;
    case 'nullif':
      return `NULLIF(${r(e.left)}, ${r(e.right)})`;
    case 'minmax':
      return `${e.op.toUpperCase()}(${e.args.map(r).join(', ')})`;
    case 'array':
      return `ARRAY[${e.args.map(r).join(', ')}]`;
    case 'plpgsql':
      return `${e.name}(${e.args.map(r).join(', ')})`;
    case 'in-list':
      return style.inList(e, r);
    case 'subquery':
      return style.subquery(e, r);
  }
}

/** Quire's own text (FORMAT QUIRE): columns by name, constants as literals, casts as CAST(… AS …). */
function quireStyle(schema: Schema): ExprStyle {
  return {
    column: (e) => schema[e.index]?.name ?? `#${e.index}`,
    outer: (e) => `outer.${e.name}`,
    constant: (e) => {
      if (e.value === null) return 'NULL';
      const s = formatValue(e.value, e.type) ?? 'NULL';
      return e.type.name === 'text' || e.type.name === 'unknown' || e.type.name === 'varchar' || e.type.name === 'name' || e.type.name === 'date' || e.type.name.startsWith('timestamp') || e.type.name === 'interval'
        ? `'${s.replace(/'/g, "''")}'`
        : s;
    },
    cast: (e, r) => `CAST(${r(e.arg)} AS ${typeDisplayName(e.type)})`,
    compare: (e, r) => `(${r(e.left)} ${e.op} ${r(e.right)})`,
    inList: (e, r) => `(${r(e.arg)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(r).join(', ')}))`,
    subquery: (e, r) => {
      if (e.mode === 'exists') return 'EXISTS(subquery)';
      if (e.mode === 'scalar') return '(subquery)';
      if (e.mode === 'array') return 'ARRAY(subquery)';
      return `(${e.rowArgs ? `(${e.rowArgs.map(r).join(', ')})` : r(e.arg!)} ${e.op} ${e.mode.toUpperCase()}(subquery))`;
    },
  };
}

export function explainExpr(e: Expr, schema: Schema): string {
  return renderExpr(e, quireStyle(schema));
}

export function explainSortKeys(keys: readonly SortKey[], schema: Schema): string {
  return keys
    .map((k) => {
      let s = explainExpr(k.expr, schema);
      if (k.desc) s += ' DESC';
      if (k.nullsFirst !== k.desc) s += k.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST';
      return s;
    })
    .join(', ');
}
