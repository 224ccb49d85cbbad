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

const INFIX = new Set(['+', '-', '*', '/', '%', '^', '||', '~~', '!~~', '~~*', '!~~*', '~', '~*', '!~', '!~*', '&', '|', '#', '<<', '>>']);
const PREFIX = new Set(['~', '@', '|/', '||/']);

/** `inputs[i]`: the text of input column i as the node below prints it. */
export function pgExpr(e: Expr, inputs: readonly string[], subplans: { n: number } = { n: 0 }): string {
  const r = (x: Expr): string => pgExpr(x, inputs, subplans);
  switch (e.kind) {
    case 'column':
      return inputs[e.index] ?? e.name;
    case 'outer':
      return e.table !== undefined ? `${e.table}.${e.name}` : e.name;
    case 'const':
      return pgConst(e.value, e.type);
    case 'param':
      return `$${e.index + 1}`;
    case 'cast': {
      // PostgreSQL folds a cast of a constant into the constant before EXPLAIN sees it.
      const folded = foldCast(e);
      if (folded !== undefined) return pgConst(folded, e.type);
      return `(${r(e.arg)})::${typeDisplayName(e.type)}`;
    }
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
      return `(${r(uncastInt(e.left))} ${e.op} ${r(uncastInt(e.right))})`;
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
    case 'in-list': {
      // PostgreSQL turns a list of constants into one array constant compared with = ANY / <> ALL.
      const op = e.negated ? '<> ALL' : '= ANY';
      if (e.list.every((x) => x.kind === 'const')) {
        const elems = e.list.map((x) => (x.kind === 'const' && x.value !== null ? arrayElement(formatValue(x.value, x.type) ?? '') : 'NULL'));
        return `(${r(e.arg)} ${op} ('{${elems.join(',')}}'::${typeDisplayName(e.list[0]!.type)}[]))`;
      }
      return `(${r(e.arg)} ${op} (ARRAY[${e.list.map(r).join(', ')}]))`;
    }
    case 'subquery': {
      // Numbered in the order the node lists its subquery plans (its SubPlan sections).
      const lhs = e.mode === 'any' || e.mode === 'all' ? (e.rowArgs ? `ROW(${e.rowArgs.map(r).join(', ')})` : r(e.arg!)) : '';
      const sub = `SubPlan ${++subplans.n}`;
      if (e.mode === 'exists') return `EXISTS(${sub})`;
      if (e.mode === 'scalar') return `(${sub})`;
      if (e.mode === 'array') return `ARRAY(${sub})`;
      return `(${lhs} ${e.op} ${e.mode.toUpperCase()} (${sub}))`;
    }
  }
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
