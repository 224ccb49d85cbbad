/**
 * The order in which PostgreSQL evaluates a query's windows (select_active_windows): each window is
 * read as its sort clause (PARTITION BY items, then the ORDER BY items not already among them), and the
 * windows are sorted by comparing those clauses item by item — the item whose expression was first
 * referenced later in the query (a higher sortgroupref: the query's ORDER BY, GROUP BY and DISTINCT
 * number their expressions first, then the windows in order) comes first, then a descending item before
 * an ascending one, NULLS FIRST before NULLS LAST — and a longer clause before its prefix. Windows
 * evaluated in that order sort their rows in that order, which decides where tied rows land, so
 * following it gives PostgreSQL's results where ties matter (row_number over peers in two windows).
 */
import { exprEquals, type Expr, type SortKey } from '../../logical/expr.js';
import type { WindowSpec } from '../../logical/plan.js';

interface ClauseItem {
  readonly ref: number;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

/**
 * Position of each spec in evaluation order (0 is evaluated first, lowest in the plan); `earlier` are
 * the query's ORDER BY, GROUP BY and DISTINCT expressions in that order.
 */
export function windowEvalOrder(specs: readonly WindowSpec[], earlier: readonly Expr[]): number[] {
  const refs: Expr[] = [];
  const refOf = (e: Expr): number => {
    const i = refs.findIndex((x) => exprEquals(x, e));
    if (i >= 0) return i + 1;
    refs.push(e);
    return refs.length;
  };
  for (const e of earlier) refOf(e);
  const clauses = specs.map((s) => {
    const items: ClauseItem[] = s.partitionBy.map((e) => ({ ref: refOf(e), desc: false, nullsFirst: false }));
    for (const k of s.orderBy as readonly SortKey[]) {
      const item = { ref: refOf(k.expr), desc: k.desc, nullsFirst: k.nullsFirst };
      if (!items.some((x) => x.ref === item.ref && x.desc === item.desc && x.nullsFirst === item.nullsFirst)) items.push(item);
    }
    return items;
  });
  const order = specs.map((_, i) => i).sort((a, b) => compareClauses(clauses[a]!, clauses[b]!));
  const position = new Array<number>(specs.length);
  order.forEach((spec, pos) => (position[spec] = pos));
  return position;
}

function compareClauses(a: readonly ClauseItem[], b: readonly ClauseItem[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.ref !== y.ref) return y.ref - x.ref;
    // PostgreSQL compares the sort operators' oids, and a type's ">" has a higher oid than its "<".
    if (x.desc !== y.desc) return x.desc ? -1 : 1;
    if (x.nullsFirst !== y.nullsFirst) return x.nullsFirst ? -1 : 1;
  }
  return b.length - a.length;
}
