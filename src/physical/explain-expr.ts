/** Renders expressions for EXPLAIN in a stable, SQL-like form. */
import { formatValue } from '../common/format-value.js';
import type { Schema } from '../common/types.js';
import { typeDisplayName } from '../common/types.js';
import type { Expr, SortKey } from '../logical/expr.js';

const INFIX = new Set(['+', '-', '*', '/', '%', '^', '||', '~~', '!~~', '~~*', '!~~*', '~', '~*', '!~', '!~*', '&', '|', '#', '<<', '>>']);
/** Prefix operators are registered under their own spelling with one argument ('~' is also binary). */
const PREFIX = new Set(['~', '@', '|/', '||/']);

export function explainExpr(e: Expr, schema: Schema): string {
  const r = (x: Expr): string => explainExpr(x, schema);
  switch (e.kind) {
    case 'column':
      return schema[e.index]?.name ?? `#${e.index}`;
    case 'outer':
      return `outer.${e.name}`;
    case 'const': {
      if (e.value === null) return 'NULL';
      const s = formatValue(e.value, e.type) ?? 'NULL';
      return e.type.name === 'text' || e.type.name === 'unknown' || e.type.name === 'varchar' || e.type.name === 'name' || e.type.name === 'date' || e.type.name.startsWith('timestamp') || e.type.name === 'interval'
        ? `'${s.replace(/'/g, "''")}'`
        : s;
    }
    case 'param':
      return `$${e.index + 1}`;
    case 'cast':
      return `CAST(${r(e.arg)} AS ${typeDisplayName(e.type)})`;
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
      return `(${r(e.left)} ${e.op} ${r(e.right)})`;
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
      return `(${r(e.arg)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(r).join(', ')}))`;
    case 'subquery':
      if (e.mode === 'exists') return 'EXISTS(subquery)';
      if (e.mode === 'scalar') return '(subquery)';
      if (e.mode === 'array') return 'ARRAY(subquery)';
      return `(${e.rowArgs ? `(${e.rowArgs.map(r).join(', ')})` : r(e.arg!)} ${e.op} ${e.mode.toUpperCase()}(subquery))`;
  }
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
