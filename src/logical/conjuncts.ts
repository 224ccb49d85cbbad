/**
 * A predicate as a list of conjuncts and back. Rules move conjuncts one at a time (into scans, joins,
 * remote queries), so every one of them splits and rejoins predicates the same way.
 */
import { T } from '../common/types.js';
import type { Expr } from './expr.js';

/** `a AND (b AND c)` as [a, b, c]; any other expression as itself. */
export function splitConjuncts(e: Expr): Expr[] {
  return e.kind === 'and' ? e.args.flatMap(splitConjuncts) : [e];
}

/** The conjunction of a non-empty list: the one expression itself, or an AND over all. */
export function andOf(list: readonly Expr[]): Expr {
  return list.length === 1 ? list[0]! : { kind: 'and', args: [...list], type: T.bool };
}
