/**
 * Expressions as PostgreSQL's EXPLAIN prints them (ruleutils' deparse): column references by the text
 * of the input column they read (so an expression computed below shows as that expression), constants
 * with their type where PostgreSQL labels them ('x'::text, '5'::bigint, bare integers and decimals),
 * operators and comparisons parenthesized, casts as (x)::type.
 */
import { formatValue } from '../common/format-value.js';
import type { DataType, Value } from '../common/types.js';
import { castValue } from '../common/cast.js';
import { typeDisplayName } from '../common/types.js';
import type { Expr } from '../logical/expr.js';
import { renderExpr, type ExprStyle } from './explain-expr.js';

/** `inputs[i]`: the text of input column i as the node below prints it. */
export function pgExpr(e: Expr, inputs: readonly string[], subplans: { n: number } = { n: 0 }): string {
  return renderExpr(e, pgStyle(inputs, subplans));
}

function pgStyle(inputs: readonly string[], subplans: { n: number }): ExprStyle {
  return {
    column: (e) => inputs[e.index] ?? e.name,
    outer: (e) => (e.table !== undefined ? `${e.table}.${e.name}` : e.name),
    constant: (e) => pgConst(e.value, e.type),
    cast: (e, r) => {
      // PostgreSQL folds a cast of a constant into the constant before EXPLAIN sees it.
      const folded = foldCast(e);
      return folded !== undefined ? pgConst(folded, e.type) : `(${r(e.arg)})::${typeDisplayName(e.type)}`;
    },
    compare: (e, r) => `(${r(uncastInt(e.left))} ${e.op} ${r(uncastInt(e.right))})`,
    inList: (e, r) => {
      // PostgreSQL turns a list of constants into one array constant compared with = ANY / <> ALL.
      const op = e.negated ? '<> ALL' : '= ANY';
      if (e.list.every((x) => x.kind === 'const')) {
        const elems = e.list.map((x) => (x.kind === 'const' && x.value !== null ? arrayElement(formatValue(x.value, x.type) ?? '') : 'NULL'));
        return `(${r(e.arg)} ${op} ('{${elems.join(',')}}'::${typeDisplayName(e.list[0]!.type)}[]))`;
      }
      return `(${r(e.arg)} ${op} (ARRAY[${e.list.map(r).join(', ')}]))`;
    },
    subquery: (e, r) => {
      // Numbered in the order the node lists its subquery plans (its SubPlan sections).
      const lhs = e.mode === 'any' || e.mode === 'all' ? (e.rowArgs ? `ROW(${e.rowArgs.map(r).join(', ')})` : r(e.arg!)) : '';
      const sub = `SubPlan ${++subplans.n}`;
      if (e.mode === 'exists') return `EXISTS(${sub})`;
      if (e.mode === 'scalar') return `(${sub})`;
      if (e.mode === 'array') return `ARRAY(${sub})`;
      return `(${lhs} ${e.op} ${e.mode.toUpperCase()} (${sub}))`;
    },
  };
}

/** The value of a chain of casts over a constant, or undefined when a cast fails (the error is the query's to raise). */
function foldCast(e: Expr): Value | undefined {
  if (e.kind === 'const') return e.value;
  if (e.kind !== 'cast') return undefined;
  const inner = foldCast(e.arg);
  if (inner === undefined) return undefined;
  try {
    return castValue(inner, e.arg.type, e.type);
  } catch {
    return undefined;
  }
}

const INTS = new Set(['int2', 'int4', 'int8']);

/** PostgreSQL compares integers of different widths with cross-type operators: no cast to show. */
function uncastInt(e: Expr): Expr {
  return e.kind === 'cast' && !e.explicit && INTS.has(e.type.name) && INTS.has(e.arg.type.name) && e.arg.kind !== 'const' ? e.arg : e;
}

function arrayElement(s: string): string {
  return s === '' || /[{}," \\]/.test(s) || s.toUpperCase() === 'NULL' ? `"${s.replace(/["\\]/g, '\\$&')}"` : s;
}

/** ruleutils' get_const_expr: integers and plain decimals bare, booleans as words, the rest quoted with their type. */
/**
 * A scan's output column as EXPLAIN VERBOSE names it: a table's row positions (columns whose names no
 * identifier can spell, added for FOR UPDATE) print as PostgreSQL's row locator, ctid.
 */
export function pgColumnName(name: string): string {
  return name.startsWith('\u0000') ? 'ctid' : name;
}

export function pgConst(value: unknown, type: DataType): string {
  const label = typeDisplayName(type);
  if (value === null) return `NULL::${label}`;
  const s = formatValue(value as never, type) ?? '';
  switch (type.name) {
    case 'int4':
      return s.startsWith('-') ? `'${s}'::${label}` : s;
    case 'numeric':
      // A bare 1 would read back as an integer: PostgreSQL labels numerics without a point or exponent.
      return /^[0-9]/.test(s) && /[.eE]/.test(s) ? s : `'${s}'::${label}`;
    case 'bool':
      return value === true ? 'true' : 'false';
    case 'unknown':
      return `'${s.replace(/'/g, "''")}'`;
    default:
      return `'${s.replace(/'/g, "''")}'::${label}`;
  }
}

/** A Sort Key entry: PostgreSQL wraps anything but a plain column reference in parentheses. */
export function pgSortKeyText(text: string): string {
  return /^("[^"]+"|[A-Za-z_][\w$]*)(\.("[^"]+"|[A-Za-z_][\w$]*))?$/.test(text) ? text : `(${text})`;
}

/** Sort keys over an input's column texts, with DESC / NULLS FIRST / NULLS LAST where they differ from the default. */
export function pgSortKeys(keys: readonly { col: number; desc: boolean; nullsFirst: boolean }[], inputs: readonly string[]): string {
  return keys
    .map((k) => {
      let s = pgSortKeyText(inputs[k.col] ?? `#${k.col}`);
      if (k.desc) s += ' DESC';
      if (k.nullsFirst !== k.desc) s += k.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST';
      return s;
    })
    .join(', ');
}
