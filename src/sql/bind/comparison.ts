/**
 * Comparisons: scalar operands brought to a common type as PostgreSQL does, and row-wise comparisons
 * (ROW(a, b) < ROW(c, d), IS [NOT] DISTINCT FROM and IN lists of rows) expanded field by field.
 */
import { positionOf, QuireError } from '../../common/errors.js';
import type { Node } from '@pgsql/types';
import { T, type, category, type DataType, typeDisplayName } from '../../common/types.js';
import { dateAsTimestampForComparison, dateAsTimestamptzForComparison } from '../../functions/scalar/date-for-comparison.js';
import { type Expr, type CompareOp, TRUE, FALSE } from '../../logical/expr.js';
import { nodeBody, nodeTag, type AnyNode } from '../ast.js';
import { coerce, comparisonType } from '../coerce.js';
import { rowConstructor } from '../../functions/scalar/row-constructor.js';
import { type ExprCtx, bindExpr } from './expr.js';

const pos = positionOf;

export const COMPARE_OPS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);

export function bindComparison(op: string, l: Expr, r: Expr, cx: ExprCtx, loc: number | undefined): Expr {
  const cop = (op === '!=' ? '<>' : op) as CompareOp;
  // PostgreSQL has name = text and text = name (and <>, <, <=, >, >=): the name side stays as it is and
  // the other string goes to text, so `n = t` shows no cast on n. Both are strings in code point order.
  if (nameMeetsString(l.type, r.type) || nameMeetsString(r.type, l.type)) {
    const side = (e: Expr): Expr => (e.type.name === 'name' ? e : coerce(e, T.text, 'implicit', cx.env, pos(loc)));
    return { kind: 'compare', op: cop, left: side(l), right: side(r), type: T.bool };
  }
  const t = comparisonType(l.type, r.type);
  if (t === null) {
    throw new QuireError('42883', `operator does not exist: ${typeDisplayName(l.type)} ${op} ${typeDisplayName(r.type)}`, {
      position: pos(loc),
      hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  return { kind: 'compare', op: cop, left: comparand(l, t, cx, loc), right: comparand(r, t, cx, loc), type: T.bool };
}

function nameMeetsString(a: DataType, b: DataType): boolean {
  return a.name === 'name' && b.name !== 'name' && b.name !== 'unknown' && category(b) === 'S';
}

/** One side of a comparison in the comparison's type; a date meets a timestamp without the cast's range check. */
function comparand(e: Expr, t: DataType, cx: ExprCtx, loc: number | undefined): Expr {
  if (e.type.name === 'date' && (t.name === 'timestamp' || t.name === 'timestamptz')) {
    const overload = t.name === 'timestamp' ? dateAsTimestampForComparison : dateAsTimestamptzForComparison;
    return { kind: 'call', name: t.name, overload, args: [e], type: t };
  }
  return coerce(e, t, 'implicit', cx.env, pos(loc));
}

export function bindRowComparison(op: string, ln: Node, rn: Node, cx: ExprCtx, loc: number | undefined): Expr {
  return rowComparison(op, rowFields(ln, cx), rowFields(rn, cx), cx, loc);
}

/** ROW(…) IS [NOT] DISTINCT FROM ROW(…): field by field, never NULL. */
export function bindRowDistinct(ln: Node, rn: Node, negated: boolean, cx: ExprCtx, loc: number | undefined): Expr {
  const la = rowFields(ln, cx);
  const ra = rowFields(rn, cx);
  if (la.length !== ra.length) throw new QuireError('42601', 'unequal number of entries in row expressions', { position: pos(loc) });
  const tests = la.map((l, i): Expr => {
    const c = bindComparison('=', l, ra[i]!, cx, loc) as Expr & { kind: 'compare' };
    return { kind: 'distinct-from', left: c.left, right: c.right, negated, type: T.bool };
  });
  if (tests.length === 0) return negated ? TRUE : FALSE;
  return tests.length === 1 ? tests[0]! : { kind: negated ? 'and' : 'or', args: tests, type: T.bool };
}

/** A row value: a record of the fields, untyped literals read as text (as PostgreSQL resolves them). */
export function rowValue(fields: Expr[], cx: ExprCtx): Expr {
  const args = fields.map((f) => (f.type.name === 'unknown' ? coerce(f, T.text, 'implicit', cx.env) : f));
  return { kind: 'call', name: 'row', overload: rowConstructor, args, type: T.record };
}

export function rowFields(n: Node, cx: ExprCtx): Expr[] {
  return ((nodeBody<AnyNode>(n).args as Node[] | undefined) ?? []).map((a) => bindExpr(a, cx));
}

/**
 * (a, b) [NOT] IN ((1, 'x'), (2, 'y')): PostgreSQL makes it the OR of the row equalities (each the AND of
 * its column equalities), so NULL fields give NULL under three-valued logic; NOT IN negates the OR.
 */
export function bindRowInList(lnode: Node, items: Node[], negated: boolean, cx: ExprCtx, loc: number | undefined): Expr {
  const la = rowFields(lnode, cx);
  const alts = items.map((n) => {
    if (nodeTag(n) !== 'RowExpr') {
      const r = bindExpr(n, cx);
      throw new QuireError('42883', `operator does not exist: record = ${typeDisplayName(r.type)}`, {
        position: pos(loc),
        hint: 'No operator matches the given name and argument types. You might need to add explicit type casts.',
      });
    }
    return rowComparison('=', la, rowFields(n, cx), cx, loc);
  });
  const any: Expr = alts.length === 1 ? alts[0]! : { kind: 'or', args: alts, type: T.bool };
  return negated ? { kind: 'not', arg: any, type: T.bool } : any;
}

export function rowComparison(op: string, la: Expr[], ra: Expr[], cx: ExprCtx, loc: number | undefined): Expr {
  if (la.length !== ra.length) throw new QuireError('42601', 'unequal number of entries in row expressions', { position: pos(loc) });
  const eqs = la.map((l, i) => bindComparison('=', l, ra[i]!, cx, loc));
  if (op === '=') return { kind: 'and', args: eqs, type: T.bool };
  if (op === '<>' || op === '!=') return { kind: 'not', arg: { kind: 'and', args: eqs, type: T.bool }, type: T.bool };
  // Lexicographic: (a,b) < (c,d)  ≡  a < c OR (a = c AND b < d), with the last element using op itself.
  const strict = op === '<' || op === '<=' ? '<' : '>';
  let acc: Expr = bindComparison(op, la[la.length - 1]!, ra[ra.length - 1]!, cx, loc);
  for (let i = la.length - 2; i >= 0; i--) {
    acc = {
      kind: 'or',
      args: [bindComparison(strict, la[i]!, ra[i]!, cx, loc), { kind: 'and', args: [eqs[i]!, acc], type: T.bool }],
      type: T.bool,
    };
  }
  return acc;
}
