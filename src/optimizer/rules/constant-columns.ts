/**
 * Which output columns of a plan hold one value on every row it returns: a constant (or parameter) in a
 * select list, or a column a filter below pins with `column = constant`. DISTINCT over such columns
 * has one group, and sorting by them orders nothing (distinct-of-constants-to-limit,
 * remove-constant-sort-keys).
 */
import { splitConjuncts } from '../../logical/conjuncts.js';
import type { Expr } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';

const fixed = (e: Expr): boolean => e.kind === 'const' || e.kind === 'param';

export function constantColumns(p: LogicalPlan): boolean[] {
  switch (p.op) {
    case 'filter': {
      const c = constantColumns(p.input);
      for (const conj of splitConjuncts(p.predicate)) {
        if (conj.kind !== 'compare' || conj.op !== '=') continue;
        if (conj.left.kind === 'column' && fixed(conj.right)) c[conj.left.index] = true;
        else if (conj.right.kind === 'column' && fixed(conj.left)) c[conj.right.index] = true;
      }
      return c;
    }
    case 'project': {
      const c = constantColumns(p.input);
      return p.exprs.map((e) => fixed(e) || (e.kind === 'column' && c[e.index] === true));
    }
    case 'sort':
    case 'limit':
    case 'topn':
    case 'distinct':
    case 'distinct-on':
    case 'topn-ranking':
      return constantColumns(p.input);
    default:
      return p.schema.map(() => false);
  }
}

/** Whether an expression over a plan's output reads only columns that constantColumns marks (or none). */
export function isConstantOver(e: Expr, constant: readonly boolean[]): boolean {
  return fixed(e) || (e.kind === 'column' && constant[e.index] === true);
}
