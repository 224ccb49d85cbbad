/**
 * limit-before-volatile-projection: volatile calls in a projection (nextval, random, clock_timestamp)
 * run only for the rows LIMIT lets through, as PostgreSQL evaluates its target list above the sort.
 *
 *   Limit(k, m)                       Limit(offset=m)
 *     [Sort(keys)]                      Project'(volatile exprs, the rest as columns)
 *       Project(exprs)       ==>          Limit(count=k+m)
 *         input                             [Sort(keys')]
 *                                             Project(non-volatile exprs, columns the volatile ones read)
 *                                               input
 *
 * The volatile expressions move above the limit; everything else stays below, so sort keys and WITH TIES
 * keys (which must not read a volatile output) still find their columns. Rows skipped by OFFSET are
 * evaluated too, as PostgreSQL's Limit pulls them through its child. Without the rewrite a whole batch
 * would be projected before the limit stops it, calling nextval() for rows nobody sees.
 * Applies when the limit's count and offset are constants and the volatile expressions hold no subquery.
 */
import { colRef, columnsUsed, mapExpr, someExpr, type Expr, type SortKey } from '../../logical/expr.js';
import type { LogicalPlan } from '../../logical/plan.js';
import { T } from '../../common/types.js';
import type { OptimizerRule } from '../rule.js';

type Limit = Extract<LogicalPlan, { op: 'limit' }>;
type Project = Extract<LogicalPlan, { op: 'project' }>;

const isVolatile = (e: Expr): boolean => someExpr(e, (x) => x.kind === 'call' && x.overload.volatile === true);

function constInt(e: Expr | null): number | null {
  if (e === null) return 0;
  if (e.kind !== 'const' || typeof e.value !== 'number') return null;
  return e.value;
}

export const limitBeforeVolatileProjection: OptimizerRule = {
  name: 'limit-before-volatile-projection',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'limit' || node.count === null) return null;
    const sort = node.input.op === 'sort' ? node.input : null;
    const proj = (sort ?? node).input;
    if (proj.op !== 'project') return null;
    const volatile = proj.exprs.map(isVolatile);
    if (!volatile.some(Boolean)) return null;
    if (proj.exprs.some((e, i) => volatile[i] && someExpr(e, (x) => x.kind === 'subquery' || x.kind === 'outer'))) return null;
    const count = constInt(node.count);
    const offset = constInt(node.offset);
    if (count === null || offset === null) return null;
    // Keys that read a volatile output must see it computed before the limit.
    const keys: SortKey[] = [...(sort?.keys ?? []), ...(node.ties ?? [])];
    if (keys.some((k) => [...columnsUsed(k.expr)].some((c) => volatile[c]))) return null;
    return rewrite(node, sort, proj, volatile, count, offset);
  },
};

function rewrite(node: Limit, sort: Extract<LogicalPlan, { op: 'sort' }> | null, proj: Project, volatile: boolean[], count: number, offset: number): LogicalPlan {
  const inSchema = proj.input.schema;
  // The lower projection: every non-volatile expression, then the input columns volatile ones read.
  const lower: Expr[] = [];
  const lowerAt = new Map<number, number>();
  proj.exprs.forEach((e, i) => {
    if (!volatile[i]) {
      lowerAt.set(i, lower.length);
      lower.push(e);
    }
  });
  const inputAt = new Map<number, number>();
  proj.exprs.forEach((e, i) => {
    if (!volatile[i]) return;
    for (const c of columnsUsed(e)) {
      if (!inputAt.has(c)) {
        inputAt.set(c, lower.length);
        lower.push(colRef(c, inSchema[c]!.type, inSchema[c]!.name));
      }
    }
  });
  const lowerSchema = lower.map((e, k) => {
    const i = [...lowerAt].find(([, at]) => at === k)?.[0];
    return i !== undefined ? proj.schema[i]! : inSchema[[...inputAt].find(([, at]) => at === k)![0]]!;
  });
  const lowerProj: LogicalPlan = { op: 'project', input: proj.input, exprs: lower, schema: lowerSchema };
  const remapKey = (k: SortKey): SortKey => ({ ...k, expr: mapExpr(k.expr, (x) => (x.kind === 'column' ? { ...x, index: lowerAt.get(x.index)! } : x)) });
  const sorted: LogicalPlan = sort === null ? lowerProj : { op: 'sort', input: lowerProj, keys: sort.keys.map(remapKey), schema: lowerSchema };
  const limited: LogicalPlan = {
    op: 'limit',
    input: sorted,
    offset: null,
    count: { kind: 'const', value: count + offset, type: T.int8 },
    ties: node.ties === null ? null : node.ties.map(remapKey),
    schema: lowerSchema,
  };
  const upper: Expr[] = proj.exprs.map((e, i) => {
    if (!volatile[i]) return colRef(lowerAt.get(i)!, proj.schema[i]!.type, proj.schema[i]!.name);
    return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: inputAt.get(x.index)! } : x));
  });
  const projected: LogicalPlan = { op: 'project', input: limited, exprs: upper, schema: proj.schema };
  if (offset === 0) return projected;
  return { op: 'limit', input: projected, offset: node.offset, count: null, ties: null, schema: proj.schema };
}
