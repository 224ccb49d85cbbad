/** Shared helpers for the window rules (not a rule itself). */
import { exprEquals, type Expr } from '../../logical/expr.js';

/** PARTITION BY with repeated expressions removed, as the physical window planner groups them. */
export function dedupeExprs(es: readonly Expr[]): Expr[] {
  const out: Expr[] = [];
  for (const e of es) if (!out.some((x) => exprEquals(x, e))) out.push(e);
  return out;
}
