/**
 * Bound expressions: names resolved to input column positions, every node typed, functions resolved to
 * one overload. Produced by the binder, rewritten by the optimizer, compiled to JavaScript by the
 * physical layer.
 */
import type { DataType, Value } from '../common/types.js';
import { T } from '../common/types.js';
import type { ScalarOverload } from '../functions/registry.js';
import type { LogicalPlan } from './plan.js';
import type { PlProgram } from './plpgsql-program.js';

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Expr =
  /** `table`: the qualifier the column was reached by (for error messages such as PostgreSQL's "t.a"). */
  | { kind: 'column'; index: number; type: DataType; name: string; table?: string }
  /** A column of an enclosing query (correlated subquery): `levels` 1 = the immediately enclosing query. */
  | { kind: 'outer'; levels: number; index: number; type: DataType; name: string; table?: string }
  /** `position`: 1-based offset of the literal in the SQL, for errors raised when it is coerced. */
  | { kind: 'const'; value: Value; type: DataType; position?: number }
  | { kind: 'param'; index: number; type: DataType }
  | { kind: 'call'; name: string; overload: ScalarOverload; args: Expr[]; type: DataType }
  /**
   * `assignment`: an INSERT's cast to its column's type, computed in the query that feeds the insert
   * (planned-dml.ts); PostgreSQL applies it above the plan EXPLAIN shows, so EXPLAIN shows the argument.
   */
  | { kind: 'cast'; arg: Expr; type: DataType; explicit: boolean; assignment?: boolean }
  | { kind: 'and' | 'or'; args: Expr[]; type: DataType }
  | { kind: 'not'; arg: Expr; type: DataType }
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr; type: DataType }
  | { kind: 'distinct-from'; left: Expr; right: Expr; negated: boolean; type: DataType }
  | { kind: 'is-null'; arg: Expr; negated: boolean; type: DataType }
  | { kind: 'bool-test'; arg: Expr; test: 'true' | 'false' | 'unknown'; negated: boolean; type: DataType }
  | { kind: 'case'; whens: { when: Expr; then: Expr }[]; else: Expr; type: DataType }
  | { kind: 'coalesce'; args: Expr[]; type: DataType }
  | { kind: 'nullif'; left: Expr; right: Expr; type: DataType }
  | { kind: 'minmax'; op: 'greatest' | 'least'; args: Expr[]; type: DataType }
  /** ARRAY[a, b, …]: the elements, already coerced to the array's element type. */
  | { kind: 'array'; args: Expr[]; type: DataType }
  | { kind: 'in-list'; arg: Expr; list: Expr[]; negated: boolean; type: DataType }
  /** A call of a PL/pgSQL function: `args` evaluated per row, the program run once per call. */
  | { kind: 'plpgsql'; name: string; program: PlProgram; args: Expr[]; type: DataType }
  | {
      kind: 'subquery';
      /** 'array': ARRAY(subquery), the column's values in the subquery's order. */
      mode: 'scalar' | 'exists' | 'any' | 'all' | 'array';
      plan: LogicalPlan;
      /** For any/all: the left operand and comparison (`x IN (select …)` is `x = ANY`). */
      arg?: Expr;
      /** Row comparisons (`(a, b) IN (select x, y …)`): the operands, compared column by column. */
      rowArgs?: Expr[];
      op?: CompareOp;
      correlated: boolean;
      type: DataType;
    };

export const TRUE: Expr = { kind: 'const', value: true, type: T.bool };
export const FALSE: Expr = { kind: 'const', value: false, type: T.bool };

export function constant(value: Value, type: DataType): Expr {
  return { kind: 'const', value, type };
}

export function colRef(index: number, type: DataType, name: string): Expr {
  return { kind: 'column', index, type, name };
}

export interface SortKey {
  expr: Expr;
  desc: boolean;
  nullsFirst: boolean;
}

/** Children of an expression (not descending into subquery plans). */
export function exprChildren(e: Expr): Expr[] {
  switch (e.kind) {
    case 'column':
    case 'outer':
    case 'const':
    case 'param':
      return [];
    case 'call':
    case 'and':
    case 'or':
    case 'coalesce':
    case 'minmax':
    case 'array':
    case 'plpgsql':
      return e.args;
    case 'cast':
    case 'not':
    case 'is-null':
    case 'bool-test':
      return [e.arg];
    case 'compare':
    case 'distinct-from':
    case 'nullif':
      return [e.left, e.right];
    case 'case':
      return [...e.whens.flatMap((w) => [w.when, w.then]), e.else];
    case 'in-list':
      return [e.arg, ...e.list];
    case 'subquery':
      return e.rowArgs ? e.rowArgs : e.arg ? [e.arg] : [];
  }
}

/** Rebuild an expression bottom-up with `f` applied to every node (children first). */
export function mapExpr(e: Expr, f: (e: Expr) => Expr): Expr {
  const m = (x: Expr): Expr => mapExpr(x, f);
  let out: Expr;
  switch (e.kind) {
    case 'column':
    case 'outer':
    case 'const':
    case 'param':
      out = e;
      break;
    case 'call':
      out = { ...e, args: e.args.map(m) };
      break;
    case 'and':
    case 'or':
      out = { ...e, args: e.args.map(m) };
      break;
    case 'coalesce':
      out = { ...e, args: e.args.map(m) };
      break;
    case 'minmax':
    case 'array':
    case 'plpgsql':
      out = { ...e, args: e.args.map(m) };
      break;
    case 'cast':
      out = { ...e, arg: m(e.arg) };
      break;
    case 'not':
      out = { ...e, arg: m(e.arg) };
      break;
    case 'is-null':
      out = { ...e, arg: m(e.arg) };
      break;
    case 'bool-test':
      out = { ...e, arg: m(e.arg) };
      break;
    case 'compare':
      out = { ...e, left: m(e.left), right: m(e.right) };
      break;
    case 'distinct-from':
      out = { ...e, left: m(e.left), right: m(e.right) };
      break;
    case 'nullif':
      out = { ...e, left: m(e.left), right: m(e.right) };
      break;
    case 'case':
      out = { ...e, whens: e.whens.map((w) => ({ when: m(w.when), then: m(w.then) })), else: m(e.else) };
      break;
    case 'in-list':
      out = { ...e, arg: m(e.arg), list: e.list.map(m) };
      break;
    case 'subquery':
      out = e.rowArgs ? { ...e, rowArgs: e.rowArgs.map(m) } : e.arg ? { ...e, arg: m(e.arg) } : e;
      break;
  }
  return f(out);
}

export function someExpr(e: Expr, pred: (e: Expr) => boolean): boolean {
  if (pred(e)) return true;
  return exprChildren(e).some((c) => someExpr(c, pred));
}

/** Column indexes an expression reads from its input. */
export function columnsUsed(e: Expr, into: Set<number> = new Set()): Set<number> {
  if (e.kind === 'column') into.add(e.index);
  for (const c of exprChildren(e)) columnsUsed(c, into);
  return into;
}

/** True when the expression's value depends only on constants (no columns, params, volatile calls). */
export function isConstantExpr(e: Expr): boolean {
  return !someExpr(
    e,
    (x) =>
      x.kind === 'column' ||
      x.kind === 'outer' ||
      x.kind === 'param' ||
      x.kind === 'subquery' ||
      // A PL/pgSQL call may RAISE (a notice per call), so it is never folded.
      x.kind === 'plpgsql' ||
      (x.kind === 'call' && x.overload.volatile === true),
  );
}

/** Structural equality, used to match GROUP BY expressions and share window specifications. */
export function exprEquals(a: Expr, b: Expr): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'column':
      return a.index === (b as typeof a).index;
    case 'outer':
      return a.index === (b as typeof a).index && a.levels === (b as typeof a).levels;
    case 'const': {
      const bv = (b as typeof a).value;
      return a.type.name === b.type.name && (a.value === bv || String(a.value) === String(bv));
    }
    case 'param':
      return a.index === (b as typeof a).index && a.type.name === b.type.name;
    case 'subquery':
      return a === b;
    default: {
      if (a.type.name !== b.type.name) return false;
      if (a.kind === 'call' && (a.name !== (b as typeof a).name || a.overload !== (b as typeof a).overload)) return false;
      if (a.kind === 'compare' && a.op !== (b as typeof a).op) return false;
      if ((a.kind === 'is-null' || a.kind === 'distinct-from' || a.kind === 'in-list') && a.negated !== (b as typeof a).negated) return false;
      if (a.kind === 'bool-test' && (a.test !== (b as typeof a).test || a.negated !== (b as typeof a).negated)) return false;
      if (a.kind === 'minmax' && a.op !== (b as typeof a).op) return false;
      if (a.kind === 'plpgsql' && a.program.definition !== (b as typeof a).program.definition) return false;
      if (a.kind === 'cast' && a.type.typmod !== b.type.typmod) return false;
      const ca = exprChildren(a);
      const cb = exprChildren(b);
      return ca.length === cb.length && ca.every((x, i) => exprEquals(x, cb[i]!));
    }
  }
}
